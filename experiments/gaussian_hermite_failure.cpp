// gaussian_hermite_failure — expected number of outputs until each Hermite / moment
// test of the warp Gaussian generator reaches 4 sigma, for the initial (inverse-CDF)
// table, our optimised table and the article's published table, by the exact analytics
// (article "Training a random Gaussian generator", section "Optimising the lookup table":
// 9.1e10 for the initial table, 1.6e30 optimised).
// The published table (rows with table "article_published"): the 4096 entries and the
// coefficients of Hatsya's cpads library (include/cpads/random/epoch0.h, MIT licence),
// typed into figures/reference/gaussian_cpads_table.csv and gaussian_cpads_coefficients.csv
// (README there: source, commit, copyright) and read at run time from --reference-dir
// (default: figures/reference of the source tree this program was compiled from); the
// program fails (exit 1, naming the file) when they are missing or malformed. cpads'
// generator is ours line for line (same index (entropy & 0xFF0) | (lane & 15), same
// negation bits, c = (entropy ^ b) | 1, x = p0 a + p1 b + p2 c + p3 c, entries = magnitudes
// scaled by 2^24), so the same model (generator_hermites, form::four) applies unchanged.
// Notes for it: article_published_* (its quanta, the first failure of the simple
// 16-distribution convolution the article's optimiser minimised, the fifth stored value).
// On this table the article's 1.6e30 is our best_polynomial_failure_outputs of degree >= 16
// (its loss), not the moment tests of orders <= 8 (paper/claims.py, g_published_failure).
// No sampling: the scale only changes the highest order reported (smoke 8, default
// and paper 24, the highest order the optimiser controls). Writes
// results/gaussian_hermite_failure.csv (one row per table x order) and .meta.json (with
// the output quantum of the generator's table, quantum_log2_three / _four, which the
// claim g_quanta reads). Also rows with table "float_native": the float-native generator
// (onepass/gaussian/float_lane.hpp; its table, the default one / 2^7, and float
// coefficients), by generator_hermites_float, and notes float_native_first_failure_order_le_16
// / _24, float_native_quantum_log2 and its detection time (23-bit mantissa).
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
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

namespace {

constexpr const char* published_table_file = "gaussian_cpads_table.csv";
constexpr const char* published_coefficients_file = "gaussian_cpads_coefficients.csv";

/// figures/reference of the source tree this file was compiled from (CMake passes the
/// source path absolute, so __FILE__ = <repo>/experiments/gaussian_hermite_failure.cpp).
std::string default_reference_dir() {
  const std::string here = __FILE__;
  const auto slash = here.find_last_of('/');
  const std::string experiments = slash == std::string::npos ? std::string(".") : here.substr(0, slash);
  const auto up = experiments.find_last_of('/');
  const std::string repo = up == std::string::npos ? std::string(".") : experiments.substr(0, up);
  return repo + "/figures/reference";
}

[[noreturn]] void bad_reference(const std::string& path, const std::string& what) {
  throw onepass::runtime_failure(path + ": " + what +
                                 " (the article's published table, typed from cpads; see figures/reference/"
                                 "README.md, or pass --reference-dir DIR)");
}

/// The comma-separated fields of one CSV line (RFC 4180 quotes allowed; a trailing \r dropped).
std::vector<std::string> csv_fields(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        out.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

/// The lines of `path` after its header, which must equal `header`. Throws
/// onepass::runtime_failure naming the file when it cannot be opened or the header differs.
std::vector<std::string> read_reference_lines(const std::string& path, const std::string& header) {
  std::ifstream in(path);
  if (!in) bad_reference(path, "cannot be opened");
  std::string line;
  if (!std::getline(in, line)) bad_reference(path, "is empty");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != header) bad_reference(path, "header is \"" + line + "\", expected \"" + header + "\"");
  std::vector<std::string> lines;
  while (std::getline(in, line))
    if (!line.empty() && line != "\r") lines.push_back(line);
  return lines;
}

/// The article's published generator parameters (cpads include/cpads/random/epoch0.h):
/// `dir`/gaussian_cpads_table.csv (columns index,entry: 4096 rows, index = 16 k + s in the
/// order of cpads' gaussian_icdf[], which is our layout, entries in [0, 2^31 - 1] = 2^24 x
/// the magnitude) and `dir`/gaussian_cpads_coefficients.csv (key,value,unit,source; keys
/// p0..p3 = ordinary_params[0..3], finite; params4 = ordinary_params[4], returned in
/// `params4`, NaN when absent). Throws onepass::runtime_failure naming the file and line
/// for a missing file, a wrong header, a row count other than 4096, an index out of order,
/// an entry outside [0, 2^31 - 1], a missing or non-finite p0..p3, or a table whose
/// butterfly could overflow int32 (g::worst_case_register > 2^31 - 1).
g::table read_published_table(const std::string& dir, double& params4) {
  g::table tab{};
  const std::string tpath = dir + "/" + published_table_file;
  const auto rows = read_reference_lines(tpath, "index,entry");
  if (rows.size() != g::table_entries)
    bad_reference(tpath, std::to_string(rows.size()) + " rows, expected " + std::to_string(g::table_entries));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto f = csv_fields(rows[i]);
    const std::string where = "row " + std::to_string(i + 1) + " (\"" + rows[i] + "\")";
    if (f.size() != 2) bad_reference(tpath, where + ": expected 2 fields");
    char* end = nullptr;
    errno = 0;
    const long long index = std::strtoll(f[0].c_str(), &end, 10);
    if (f[0].empty() || *end != '\0' || errno || index != static_cast<long long>(i))
      bad_reference(tpath, where + ": index must be " + std::to_string(i));
    errno = 0;
    const long long entry = std::strtoll(f[1].c_str(), &end, 10);
    if (f[1].empty() || *end != '\0' || errno || entry < 0 || entry > INT32_MAX)
      bad_reference(tpath, where + ": entry must be an integer in [0, 2^31 - 1]");
    tab.entries[i] = static_cast<std::int32_t>(entry);
  }
  if (g::worst_case_register(tab.entries) > INT32_MAX)
    bad_reference(tpath, "the butterfly could overflow int32 (sum over sub-tables of 2 x the largest entry)");
  const std::string cpath = dir + "/" + published_coefficients_file;
  std::map<std::string, double> values;
  for (const auto& line : read_reference_lines(cpath, "key,value,unit,source")) {
    const auto f = csv_fields(line);
    if (f.size() != 4) bad_reference(cpath, "\"" + line + "\": expected 4 fields");
    char* end = nullptr;
    const double v = std::strtod(f[1].c_str(), &end);
    if (f[1].empty() || *end != '\0' || !std::isfinite(v))
      bad_reference(cpath, "\"" + line + "\": value is not a finite number");
    values[f[0]] = v;
  }
  for (int k = 0; k < 4; ++k) {
    const std::string key = "p" + std::to_string(k);
    if (!values.count(key)) bad_reference(cpath, "no row " + key);
    tab.coeff.p[k] = values[key];
  }
  params4 = values.count("params4") ? values["params4"] : std::numeric_limits<double>::quiet_NaN();
  return tab;
}

/// The smallest expected outputs to a 4-sigma failure over orders 1..up_to of the moment
/// test (tm), with its order in `order` (0 when every order is infinite).
double first_moment_failure(const std::vector<long double>& tm, unsigned up_to, unsigned& order) {
  long double t = std::numeric_limits<long double>::infinity();
  order = 0;
  for (unsigned n = 1; n <= up_to && n < tm.size(); ++n)
    if (tm[n] < t) {
      t = tm[n];
      order = n;
    }
  return static_cast<double>(t);
}

std::string sci(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Warp Gaussian: outputs to a 4-sigma Hermite/moment failure, initial, optimised and published tables"};
  ex::run r("gaussian_hermite_failure", app);
  double z = 4.0;
  app.add_option("--z", z, "significance in sigma (default 4, the article's)")->check(CLI::PositiveNumber);
  std::string reference_dir = default_reference_dir();
  app.add_option("--reference-dir", reference_dir,
                 "directory holding gaussian_cpads_table.csv and gaussian_cpads_coefficients.csv (the article's "
                 "published table; default: figures/reference of the source tree)");
  r.parse(argc, argv);
  // Read first: a missing or malformed reference file stops the run before any output.
  double published_params4 = 0;
  const g::table published = read_published_table(reference_dir, published_params4);
  const unsigned order = r.pick(8u, 24u, 24u);
  r.note("z", std::to_string(z));
  r.note("max_order", std::to_string(order));
  r.note("model", "generator_hermites, 4-coefficient form: X = p0 A + p1 B + (p2 + p3) C, independent parts");
  r.note("article", "9.1e10 (inverse-CDF, 8th moment) and 1.6e30 (optimised; its published table: rows "
                    "article_published)");
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
  // 2^-150 with four) of the table the generator uses (optimised when built, else inverse_cdf:
  // the last one before the published table is added).
  {
    const auto& [name, tab] = tables.back();
    const int q3 = h::quantum_log2(tab->coeff, g::form::three), q4 = h::quantum_log2(tab->coeff, g::form::four);
    r.note("quantum_table", name);
    r.note("quantum_log2_three", std::to_string(q3));
    r.note("quantum_log2_four", std::to_string(q4));
    r.note("quantisation_detection_outputs_three", std::to_string(static_cast<double>(h::quantisation_detection_outputs(q3))));
    r.note("quantisation_detection_outputs_four", std::to_string(static_cast<double>(h::quantisation_detection_outputs(q4))));
  }
  // The article's published table (cpads), evaluated by the same model as ours.
  tables.emplace_back("article_published", &published);
  {
    r.note("article_published_source", reference_dir + "/" + published_table_file + " and " +
                                           published_coefficients_file + " (cpads include/cpads/random/epoch0.h)");
    const int q3 = h::quantum_log2(published.coeff, g::form::three);
    const int q4 = h::quantum_log2(published.coeff, g::form::four);
    r.note("article_published_quantum_log2_three", std::to_string(q3));
    r.note("article_published_quantum_log2_four", std::to_string(q4));
    r.note("article_published_stored_params4", sci(published_params4));
    // The simple convolution of the 16 base distributions (the article's optimiser's
    // conservative proxy, section "Optimising the lookup table"), moment test, orders <= 8
    // and <= the run's order.
    const auto hc = h::convolution_hermites(published, order);
    const auto tc = h::moment_failure_times(hc, z);
    unsigned at8 = 0, at_max = 0;
    const double c8 = first_moment_failure(tc, 8, at8), cmax = first_moment_failure(tc, order, at_max);
    r.note("article_published_convolution_moment_failure_le_8", sci(c8) + " (order " + std::to_string(at8) + ")");
    r.note("article_published_convolution_moment_failure_le_max",
           sci(cmax) + " (order " + std::to_string(at_max) + ")");
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
