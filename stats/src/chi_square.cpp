// Pearson's chi-square test of uniformity (§5, Fig. 6); see chi_square.hpp.
#include "onepass/stats/chi_square.hpp"

#include <cmath>
#include <string>

#include <boost/math/distributions/chi_squared.hpp>

#include "onepass/error.hpp"
#include "onepass/stats/permutation.hpp"

namespace onepass::stats {

namespace {
void check_alpha(const char* function, double alpha) {
  require(alpha > 0 && alpha < 1, function, "alpha", "must be in (0, 1), got " + std::to_string(alpha));
}
}  // namespace

/// Upper-tail chi-square quantile, Boost.Math.
double chi_square_critical_value(double degrees_of_freedom, double alpha) {
  require(degrees_of_freedom > 0 && std::isfinite(degrees_of_freedom), "chi_square_critical_value",
          "degrees_of_freedom", "must be finite and > 0, got " + std::to_string(degrees_of_freedom));
  check_alpha("chi_square_critical_value", alpha);
  const boost::math::chi_squared_distribution<double> dist(degrees_of_freedom);
  return boost::math::quantile(boost::math::complement(dist, alpha));
}

double chi_square_p_value(double statistic, double degrees_of_freedom) {
  require(degrees_of_freedom > 0 && std::isfinite(degrees_of_freedom), "chi_square_p_value", "degrees_of_freedom",
          "must be finite and > 0, got " + std::to_string(degrees_of_freedom));
  require(statistic >= 0 && std::isfinite(statistic), "chi_square_p_value", "statistic",
          "must be finite and >= 0, got " + std::to_string(statistic));
  const boost::math::chi_squared_distribution<double> dist(degrees_of_freedom);
  return boost::math::cdf(boost::math::complement(dist, statistic));
}

chi_square_result chi_square_uniform(const std::vector<std::uint64_t>& counts, double alpha) {
  require(counts.size() >= 2, "chi_square_uniform", "counts",
          "must have at least 2 categories, got " + std::to_string(counts.size()));
  check_alpha("chi_square_uniform", alpha);
  std::uint64_t total = 0;
  for (std::uint64_t c : counts) total += c;
  require(total > 0, "chi_square_uniform", "counts", "must sum to more than 0");

  chi_square_result r;
  r.cells = counts.size();
  r.samples = total;
  r.alpha = alpha;
  r.degrees_of_freedom = counts.size() - 1;
  const double expected = static_cast<double>(total) / static_cast<double>(counts.size());
  double sum = 0;
  for (std::uint64_t c : counts) {
    const double d = static_cast<double>(c) - expected;
    sum += d * d;
  }
  r.statistic = sum / expected;
  const double df = static_cast<double>(r.degrees_of_freedom);
  r.p_value = chi_square_p_value(r.statistic, df);
  r.critical_value = chi_square_critical_value(df, alpha);
  r.passes = r.statistic <= r.critical_value;
  return r;
}

chi_square_result chi_square_permutations(const std::vector<std::uint64_t>& counts, std::size_t n, double alpha) {
  require(n >= 2 && n <= 8, "chi_square_permutations", "n", "must be in [2, 8], got " + std::to_string(n));
  require(counts.size() == factorial(n), "chi_square_permutations", "counts",
          "must have n! = " + std::to_string(factorial(n)) + " cells, got " + std::to_string(counts.size()));
  return chi_square_uniform(counts, alpha);
}

}  // namespace onepass::stats
