// gaussian_hermite_failure — expected number of outputs until each Hermite / moment
// test of the warp Gaussian generator reaches 4 sigma, for the initial (inverse-CDF)
// table and our optimised table, by the exact analytics (article "Training a random
// Gaussian generator", section "Optimising the lookup table": 9.1e10 for the initial
// table, 1.6e30 optimised).
// No sampling: the scale only changes the highest order reported (smoke 8, default
// and paper 24, the highest order the optimiser controls). Writes
// results/gaussian_hermite_failure.csv (one row per table x order) and .meta.json (with
// the output quantum of the generator's table, quantum_log2_three / _four, which the
// claim g_quanta reads). Also rows with table "float_native": the float-native generator
// (onepass/gaussian/float_lane.hpp; its table, the default one / 2^7, and float
// coefficients), by generator_hermites_float, and notes float_native_first_failure_order_le_16
// / _24, float_native_quantum_log2 and its detection time (23-bit mantissa).
#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/stats/hermite.hpp"

namespace ex = onepass::experiments;
namespace g = onepass::gaussian;
namespace h = onepass::stats::hermite;

int main(int argc, char** argv) {
  CLI::App app{"Warp Gaussian: outputs to a 4-sigma Hermite/moment failure, initial vs optimised table"};
  ex::run r("gaussian_hermite_failure", app);
  double z = 4.0;
  app.add_option("--z", z, "significance in sigma (default 4, the article's)")->check(CLI::PositiveNumber);
  r.parse(argc, argv);
  const unsigned order = r.pick(8u, 24u, 24u);
  r.note("z", std::to_string(z));
  r.note("max_order", std::to_string(order));
  r.note("model", "generator_hermites, 4-coefficient form: X = p0 A + p1 B + (p2 + p3) C, independent parts");
  r.note("article", "9.1e10 (inverse-CDF, 8th moment) and 1.6e30 (optimised)");
  r.open_csv({"table", "order", "hermite", "hermite_failure_outputs", "moment_discrepancy", "moment_failure_outputs",
              "best_polynomial_failure_outputs", "controlled_by_optimiser"});
  std::vector<std::pair<std::string, const g::table*>> tables;
  const g::table initial = g::inverse_cdf_table();
  tables.emplace_back("inverse_cdf", &initial);
  try {
    tables.emplace_back("optimised", &g::optimised_table());
    r.note("optimised_controlled_max_order", std::to_string(g::optimised_table_max_order()));
  } catch (const onepass::runtime_failure& e) {
    r.note("skipped_optimised", e.what());
    ex::progress(r.name(), std::string("optimised table skipped: ") + e.what());
  }
  // The output quantum (article, "Issues with small floats": 2^-95 with three coefficients,
  // 2^-150 with four) of the table the generator uses (the last one: optimised when built).
  {
    const auto& [name, tab] = tables.back();
    const int q3 = h::quantum_log2(tab->coeff, g::form::three), q4 = h::quantum_log2(tab->coeff, g::form::four);
    r.note("quantum_table", name);
    r.note("quantum_log2_three", std::to_string(q3));
    r.note("quantum_log2_four", std::to_string(q4));
    r.note("quantisation_detection_outputs_three", std::to_string(static_cast<double>(h::quantisation_detection_outputs(q3))));
    r.note("quantisation_detection_outputs_four", std::to_string(static_cast<double>(h::quantisation_detection_outputs(q4))));
  }
  for (const auto& [name, tab] : tables) {
    const auto hx = h::generator_hermites(*tab, g::form::four, order);
    const auto th = h::hermite_failure_times(hx, z);
    const auto tm = h::moment_failure_times(hx, z);
    const auto dm = h::moment_discrepancies(hx);
    for (unsigned n = 1; n <= order; ++n) {
      const bool controlled = name == "optimised" && n <= g::optimised_table_max_order();
      r.row(name, n, static_cast<double>(hx[n]), static_cast<double>(th[n]), static_cast<double>(dm[n]),
            static_cast<double>(tm[n]), static_cast<double>(h::polynomial_failure_time(hx, n, z)), controlled ? 1 : 0);
    }
  }
  // The float-native generator (onepass/gaussian/float_lane.hpp): extra rows with table
  // "float_native" (its own table: the default table / 2^7, rounded; float coefficients),
  // the model of generator_hermites_float (X = p0 A + p1 B + w 2^-23 C22). Columns as above;
  // controlled_by_optimiser 0 (the /128 rounding was not re-optimised).
  {
    const g::float_table& ft = g::default_float_table();
    const auto hx = h::generator_hermites_float(ft, order);
    const auto th = h::hermite_failure_times(hx, z);
    const auto tm = h::moment_failure_times(hx, z);
    const auto dm = h::moment_discrepancies(hx);
    for (unsigned n = 1; n <= order; ++n)
      r.row("float_native", n, static_cast<double>(hx[n]), static_cast<double>(th[n]), static_cast<double>(dm[n]),
            static_cast<double>(tm[n]), static_cast<double>(h::polynomial_failure_time(hx, n, z)), 0);
    auto first_failure = [&](unsigned up_to) {
      long double t = std::numeric_limits<long double>::infinity();
      for (unsigned n = 1; n <= std::min(up_to, order); ++n)
        t = std::min({t, th[n], tm[n], h::polynomial_failure_time(hx, n, z)});
      return static_cast<double>(t);
    };
    r.note("float_native_first_failure_order_le_16", std::to_string(first_failure(16)));
    r.note("float_native_first_failure_order_le_24", std::to_string(first_failure(24)));
    const int q = g::float_quantum_log2(ft.coeff);
    r.note("float_native_coefficients", "p0=" + std::to_string(ft.coeff.p0) + " p1=" + std::to_string(ft.coeff.p1) +
                                            " w=" + std::to_string(ft.coeff.w));
    r.note("float_native_quantum_log2", std::to_string(q));
    r.note("float_native_quantisation_detection_outputs",
           std::to_string(static_cast<double>(h::quantisation_detection_outputs_bits(q, 23))));
    r.note("float_native_model", "generator_hermites_float: X = p0 A + p1 B + w 2^-23 C, C = sum_{i<22} +-2^i, "
                                 "independent parts; the three float roundings of the output are not modelled");
  }
  r.finish();
  return 0;
}
