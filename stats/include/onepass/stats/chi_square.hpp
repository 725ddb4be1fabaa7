// onepass/stats/chi_square.hpp — Pearson's chi-square goodness-of-fit test
// against the uniform distribution, as used in Mitchell et al., "Bandwidth-
// Optimal Random Shuffling for GPUs", §5 and Fig. 6: K random permutations of
// length n = 5 are counted in the 5! = 120 cells (one per permutation, cells with
// no sample included) and tested at alpha = 0.01.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onepass::stats {

/// Outcome of a chi-square test of uniformity over `cells` categories.
struct chi_square_result {
  double statistic = 0;               ///< X^2 = sum_c (O_c - E)^2 / E, E = samples / cells
  std::uint64_t degrees_of_freedom = 0;  ///< cells - 1
  double p_value = 1;                 ///< P(X^2 >= statistic) under the null (upper tail)
  double critical_value = 0;          ///< upper alpha quantile of chi-square(df): reject above it
  double alpha = 0;                   ///< significance level the critical value was taken at
  std::uint64_t samples = 0;          ///< sum of the counts
  std::size_t cells = 0;              ///< number of categories (n! for permutations)
  bool passes = false;                ///< statistic <= critical_value: uniformity not rejected at alpha
};

/// Upper-tail critical value of the chi-square distribution: the x with
/// P(X >= x) = alpha for X ~ chi-square(degrees_of_freedom)
/// (boost::math::chi_squared_distribution). degrees_of_freedom > 0;
/// alpha in (0, 1). Throws onepass::error otherwise.
/// Example: df = 119, alpha = 0.01 gives about 158.95.
double chi_square_critical_value(double degrees_of_freedom, double alpha);

/// Upper-tail p-value P(X >= statistic) for X ~ chi-square(degrees_of_freedom).
/// degrees_of_freedom > 0; statistic >= 0 and finite. Throws onepass::error otherwise.
double chi_square_p_value(double statistic, double degrees_of_freedom);

/// Pearson's test that `counts` (one per category, zeros included) come from the
/// uniform distribution over counts.size() categories, at significance alpha.
/// counts.size() >= 2; the total must be > 0; alpha in (0, 1).
/// Throws onepass::error otherwise.
chi_square_result chi_square_uniform(const std::vector<std::uint64_t>& counts, double alpha);

/// The same test for the counts of permutations of length n, indexed by Lehmer
/// rank (permutation.hpp): counts.size() must equal n! with n in [2, 8]
/// (8! = 40320 cells). Throws onepass::error otherwise, or as chi_square_uniform.
chi_square_result chi_square_permutations(const std::vector<std::uint64_t>& counts, std::size_t n, double alpha);

}  // namespace onepass::stats
