// MMD tests with the Mallows kernel (§5, eq. 5, Figs. 7–9); see mmd.hpp.
#include "onepass/stats/mmd.hpp"

#include <cmath>

#include <boost/math/special_functions/erf.hpp>

#include "onepass/error.hpp"
#include "onepass/stats/permutation.hpp"

namespace onepass::stats {

namespace {

void check_lambda(const char* function, double lambda) {
  require(lambda >= 0 && std::isfinite(lambda), function, "lambda",
          "must be finite and >= 0, got " + std::to_string(lambda));
}

void check_alpha(const char* function, double alpha) {
  require(alpha > 0 && alpha < 1, function, "alpha", "must be in (0, 1), got " + std::to_string(alpha));
}

// log E_U[exp(-mu n_dis(I, σ))] with mu = lambda / C(n, 2):
//   sum_{j=1..n} log(1 - e^{-mu j}) - log j - log(1 - e^{-mu}).
// The generating function of inversions is prod_j (1 + q + ... + q^{j-1}) / n!,
// which is what the product form evaluates at q = e^{-mu}.
double log_uniform_kernel_mean(std::size_t n, double lambda) {
  const double pairs = static_cast<double>(pair_count(n));
  if (pairs == 0 || lambda == 0) return 0;
  const double mu = lambda / pairs;
  const double log_denominator = std::log(-std::expm1(-mu));
  double sum = 0;
  for (std::size_t j = 1; j <= n; ++j) {
    const double jd = static_cast<double>(j);
    sum += std::log(-std::expm1(-mu * jd)) - std::log(jd) - log_denominator;
  }
  return sum;
}

}  // namespace

double mallows_kernel(std::uint64_t discordant, std::size_t n, double lambda) {
  check_lambda("mallows_kernel", lambda);
  const std::uint64_t pairs = pair_count(n);
  require(discordant <= pairs, "mallows_kernel", "discordant",
          "must be in [0, C(n,2)] = [0, " + std::to_string(pairs) + "], got " + std::to_string(discordant));
  if (pairs == 0) return 1;
  return std::exp(-lambda * static_cast<double>(discordant) / static_cast<double>(pairs));
}

mallows_moments mallows_uniform_moments(std::size_t n, double lambda) {
  check_lambda("mallows_uniform_moments", lambda);
  require(static_cast<std::uint64_t>(n) < (std::uint64_t{1} << 32), "mallows_uniform_moments", "n",
          "must be below 2^32, got " + std::to_string(n));
  const double log_mean = log_uniform_kernel_mean(n, lambda);
  const double log_mean_square = log_uniform_kernel_mean(n, 2 * lambda);
  mallows_moments m;
  m.mean = std::exp(log_mean);
  m.mean_square = std::exp(log_mean_square);
  // E[K^2] - E[K]^2 = E[K]^2 (exp(log E[K^2] - 2 log E[K]) - 1), no cancellation.
  m.variance = std::exp(2 * log_mean) * std::expm1(log_mean_square - 2 * log_mean);
  if (m.variance < 0) m.variance = 0;  // Jensen: only rounding can make it negative
  return m;
}

const char* to_string(mmd_form form) { return form == mmd_form::one_sample ? "one_sample" : "pairwise"; }

double hoeffding_threshold(double alpha, std::uint64_t effective_samples) {
  check_alpha("hoeffding_threshold", alpha);
  require(effective_samples >= 1, "hoeffding_threshold", "effective_samples", "must be >= 1, got 0");
  return std::sqrt(std::log(2 / alpha) / (2 * static_cast<double>(effective_samples)));
}

double normal_threshold(double variance, double alpha, std::uint64_t effective_samples) {
  require(variance >= 0 && std::isfinite(variance), "normal_threshold", "variance",
          "must be finite and >= 0, got " + std::to_string(variance));
  check_alpha("normal_threshold", alpha);
  require(effective_samples >= 1, "normal_threshold", "effective_samples", "must be >= 1, got 0");
  return std::sqrt(2 * variance / static_cast<double>(effective_samples)) * boost::math::erf_inv(1 - alpha);
}

mmd_result mmd_test(mmd_form form, std::size_t n, double lambda, double alpha, double kernel_sum,
                    std::uint64_t effective_samples) {
  require(n >= 2, "mmd_test", "n", "must be >= 2, got " + std::to_string(n));
  require(lambda > 0 && std::isfinite(lambda), "mmd_test", "lambda",
          "must be finite and > 0, got " + std::to_string(lambda));
  check_alpha("mmd_test", alpha);
  require(effective_samples >= 1, "mmd_test", "effective_samples", "must be >= 1, got 0");
  // Each term is in (0, 1]; allow the rounding of a long floating-point sum.
  require(kernel_sum >= 0 && kernel_sum <= static_cast<double>(effective_samples) * (1 + 1e-12), "mmd_test",
          "kernel_sum",
          "must be in [0, effective_samples], got " + std::to_string(kernel_sum));
  const mallows_moments m = mallows_uniform_moments(n, lambda);
  mmd_result r;
  r.form = form;
  r.n = n;
  r.lambda = lambda;
  r.alpha = alpha;
  r.effective_samples = effective_samples;
  r.kernel_mean = kernel_sum / static_cast<double>(effective_samples);
  r.expected = m.mean;
  r.variance = m.variance;
  r.statistic = std::fabs(r.kernel_mean - m.mean);
  r.hoeffding_threshold = hoeffding_threshold(alpha, effective_samples);
  r.normal_threshold = normal_threshold(m.variance, alpha, effective_samples);
  r.passes_hoeffding = r.statistic <= r.hoeffding_threshold;
  r.passes_normal = r.statistic <= r.normal_threshold;
  return r;
}

}  // namespace onepass::stats
