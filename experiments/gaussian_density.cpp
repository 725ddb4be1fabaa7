// experiments/gaussian_density.cpp — the output density of the warp Gaussian generator
// against N(0,1), far into the tails, and the 16 base distributions of the table in use
// (article "Training a random Gaussian generator", sections "A new algorithm" — the 16
// interleaved lookup tables — and "Optimising the lookup table", whose figures show the
// base distributions).
//
// Sample: N = 2^L outputs (smoke 2^22, default 2^30, paper 2^34) of the bit-exact CPU
// emulation, gaussian::cpu::generate_normal(seed) order, onepass::gaussian::default_table(),
// 4-coefficient form; histogram of x over bins of width 0.125 on [-8, 8] (128 bins), plus
// the counts below -8 and above 8. Per bin: the count, its expectation N (Phi(hi) -
// Phi(lo)) under N(0,1), densities count / (N width) and (Phi(hi) - Phi(lo)) / width, and
// the binomial z = (count - expected) / sqrt(expected (1 - p)).
//
// Output: <out>/gaussian_density.csv, tidy with a `kind` column:
//   kind,table,subtable,k,x_lo,x_hi,count,expected,density,normal_density,z,value
//   kind = density: one row per bin (subtable, k, value empty);
//   kind = base: one row per table entry, subtable s (0..15), entry k (0..255),
//          value = entry / 2^24 (the magnitude; the sign is a separate fair bit), so the
//          base distribution s is "±value, k uniform" (x_lo .. z empty).
// meta.json: outputs, the table's provenance, the chi-square of the bins with
// expected >= 5 (Boost.Math p-value via stats/chi_square.hpp) — a summary, not a test.
#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "onepass/gaussian/cdf_stream.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/stats/chi_square.hpp"

namespace {

namespace ex = onepass::experiments;
namespace g = onepass::gaussian;

constexpr double lo_edge = -8.0, hi_edge = 8.0, width = 0.125;
constexpr int bins = 128;
using histogram = std::array<std::uint64_t, bins + 2>;  // [0] below lo_edge, [bins + 1] above hi_edge

double phi_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Output density of the warp Gaussian generator vs N(0,1), and the table's 16 base distributions"};
  ex::run r("gaussian_density", app);
  int log2_option = 0;
  app.add_option("--log2", log2_option, "outputs = 2^L, L in [10, 40] (default 22/30/34 by scale)")
      ->check(CLI::Range(10, 40));
  r.parse(argc, argv);
  const unsigned log2n = log2_option ? static_cast<unsigned>(log2_option) : r.pick(22u, 30u, 34u);
  const std::uint64_t rounds = (std::uint64_t{1} << log2n) / 32;
  const double N = static_cast<double>(rounds * 32);
  const g::table& tab = g::default_table();

  tbb::combinable<histogram> local([] { return histogram{}; });
  constexpr std::uint64_t block = 256;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, (rounds + block - 1) / block),
                    [&](const tbb::blocked_range<std::uint64_t>& br) {
                      histogram& h = local.local();
                      std::vector<double> x(32 * block);
                      for (std::uint64_t b = br.begin(); b != br.end(); ++b) {
                        const std::uint64_t first = b * block;
                        const std::uint64_t count = std::min(block, rounds - first);
                        g::fill_normals_serial(x.data(), first, count, r.seed(), tab, g::form::four);
                        for (std::uint64_t i = 0; i < 32 * count; ++i) {
                          const double v = x[i];
                          const int k = v < lo_edge ? 0 : v >= hi_edge ? bins + 1
                                                                         : 1 + static_cast<int>((v - lo_edge) / width);
                          ++h[std::min(k, bins + 1)];
                        }
                      }
                    });
  histogram total{};
  local.combine_each([&](const histogram& h) {
    for (int i = 0; i < bins + 2; ++i) total[i] += h[i];
  });

  r.open_csv({"kind", "table", "subtable", "k", "x_lo", "x_hi", "count", "expected", "density", "normal_density", "z",
              "value"});
  std::vector<std::uint64_t> chi_counts;
  double chi = 0;
  int chi_cells = 0;
  for (int i = 0; i < bins + 2; ++i) {
    const double lo = i == 0 ? -INFINITY : lo_edge + (i - 1) * width;
    const double hi = i == bins + 1 ? INFINITY : lo_edge + i * width;
    const double p = i == 0 ? phi_cdf(lo_edge) : i == bins + 1 ? phi_cdf(-hi_edge) : phi_cdf(hi) - phi_cdf(lo);
    const double expected = N * p;
    const double count = static_cast<double>(total[i]);
    const double z = expected > 0 ? (count - expected) / std::sqrt(expected * (1 - p)) : 0.0;
    const bool finite = i != 0 && i != bins + 1;
    r.row("density", "default", "", "", lo, hi, total[i], expected, finite ? count / (N * width) : count / N,
          finite ? p / width : p, z, "");
    if (expected >= 5) {
      chi += (count - expected) * (count - expected) / expected;
      ++chi_cells;
    }
  }
  for (unsigned s = 0; s < g::subtable_count; ++s)
    for (unsigned k = 0; k < g::subtable_entries; ++k)
      r.row("base", "default", s, k, "", "", "", "", "", "", "",
            static_cast<double>(tab.entries[g::table_index(s, k)]) / g::table_scale);

  const double p_value = chi_cells > 1 ? onepass::stats::chi_square_p_value(chi, chi_cells - 1) : 1.0;
  r.note("outputs", std::to_string(rounds * 32) + " (2^" + std::to_string(log2n) + ")");
  r.note("table", "onepass::gaussian::default_table(), 4-coefficient form, mu 0, sigma 1");
  r.note("bins", "width 0.125 on [-8, 8) plus (-inf, -8) and [8, inf)");
  r.note("chi_square_bins_expected_ge_5",
         std::to_string(chi) + " over " + std::to_string(chi_cells) + " bins, p = " + std::to_string(p_value) +
             " (a summary; the bins of the far tails have too few expected counts for it)");
  r.finish();
  return 0;
}
