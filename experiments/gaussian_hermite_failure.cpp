// gaussian_hermite_failure — expected number of outputs until each Hermite / moment
// test of the warp Gaussian generator reaches 4 sigma, for the initial (inverse-CDF)
// table and our optimised table, by the exact analytics (article "Training a random
// Gaussian generator", section "Optimising the lookup table": 9.1e10 for the initial
// table, 1.6e30 optimised).
// No sampling: the scale only changes the highest order reported (smoke 8, default
// and paper 24, the highest order the optimiser controls). Writes
// results/gaussian_hermite_failure.csv (one row per table x order) and .meta.json (with
// the output quantum of the generator's table, quantum_log2_three / _four, which the
// claim g_quanta reads).
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"
#include "onepass/error.hpp"
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
  r.finish();
  return 0;
}
