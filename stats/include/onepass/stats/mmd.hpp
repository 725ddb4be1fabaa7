// onepass/stats/mmd.hpp — maximum-mean-discrepancy (MMD) tests of uniformity for
// random permutations with the Mallows kernel, Mitchell et al., "Bandwidth-
// Optimal Random Shuffling for GPUs", §5 and Figs. 7–9.
//
// Mallows kernel (λ >= 0; the paper uses λ = 5):
//   K(σ, σ') = exp(-λ n_dis(σ, σ') / C(n, 2)),  0 < K <= 1,
// right-invariant, so under the uniform distribution U every K(σ, ·) has the law
// of K(I, ·). Its uniform moments have the closed form (paper, after [42])
//   E_U[K]   = prod_{j=1..n} (1 - e^{-λ j / C(n,2)}) / (j (1 - e^{-λ / C(n,2)})),
//   E_U[K^2] = the same with 2λ,   Var K = E_U[K^2] - E_U[K]^2.
//
// Two statistics, both published by the authors, estimate |MMD^2| between U and
// the sampled distribution from N samples σ_0, ..., σ_{N-1}:
//   one_sample (arXiv v1):  |(1/N) sum_k K(I, σ_k) - E_U K|, N_eff = N terms;
//   pairwise (journal):     |(2/N) sum_i K(σ_{2i}, σ_{2i+1}) - E_U K|, N_eff = N/2
//                           independent pairs (each pair's K has the law of K(I, σ)
//                           under the null, by right invariance).
// Each is compared with two acceptance thresholds at level α:
//   Hoeffding (0 <= K <= 1):  t_H = sqrt(ln(2/α) / (2 N_eff));
//   normal / CLT (eq. 5):     t_N = sqrt(2 Var K / N_eff) · erf^-1(1 - α).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onepass::stats {

/// The paper's choice of the Mallows kernel parameter (§5).
inline constexpr double default_mallows_lambda = 5.0;

/// Mallows kernel value exp(-λ d / C(n, 2)) for d = n_dis(σ, σ') discordant pairs
/// of two permutations of length n. d in [0, C(n, 2)], λ >= 0 and finite; for
/// n < 2 (no pairs) the kernel is 1. Throws onepass::error otherwise.
double mallows_kernel(std::uint64_t discordant, std::size_t n, double lambda);

/// Moments of K(I, σ) for σ uniform over the n! permutations.
struct mallows_moments {
  double mean = 1;         ///< E_U[K]
  double mean_square = 1;  ///< E_U[K^2]
  double variance = 0;     ///< Var K = E_U[K^2] - E_U[K]^2 (computed without cancellation)
};

/// Closed-form uniform moments of the Mallows kernel for length n >= 0 and
/// λ >= 0 (finite); for n < 2 or λ = 0 the kernel is constant 1 (variance 0).
/// Evaluated as sums of logarithms with expm1, accurate for n up to 2^32 - 1.
/// Throws onepass::error for λ < 0, non-finite λ, or n >= 2^32.
mallows_moments mallows_uniform_moments(std::size_t n, double lambda);

/// Which published form of the statistic.
enum class mmd_form { one_sample, pairwise };

/// "one_sample" or "pairwise" (the CSV spelling).
const char* to_string(mmd_form form);

/// Hoeffding acceptance threshold for the mean of N_eff independent values in
/// [0, 1]: t = sqrt(ln(2/α) / (2 N_eff)), so that P(|mean - E| >= t) <= α.
/// α in (0, 1), effective_samples >= 1. Throws onepass::error otherwise.
double hoeffding_threshold(double alpha, std::uint64_t effective_samples);

/// Normal (central-limit) acceptance threshold of paper eq. 5:
/// t = sqrt(2 variance / N_eff) · erf^-1(1 - α) (boost::math::erf_inv), the
/// two-sided level-α quantile of a mean of N_eff terms of the given variance.
/// variance >= 0 and finite, α in (0, 1), effective_samples >= 1.
/// Throws onepass::error otherwise.
double normal_threshold(double variance, double alpha, std::uint64_t effective_samples);

/// One MMD test: the statistic with both thresholds and decisions.
struct mmd_result {
  mmd_form form = mmd_form::one_sample;
  std::size_t n = 0;                     ///< permutation length
  double lambda = default_mallows_lambda;
  double alpha = 0.01;
  std::uint64_t effective_samples = 0;   ///< N_eff: N for one_sample, floor(N/2) for pairwise
  double kernel_mean = 0;                ///< the sample mean of the kernel terms
  double expected = 0;                   ///< E_U[K] (closed form)
  double variance = 0;                   ///< Var K under U (closed form)
  double statistic = 0;                  ///< |kernel_mean - expected|, the |MMD^2| estimate
  double hoeffding_threshold = 0;
  double normal_threshold = 0;
  bool passes_hoeffding = false;         ///< statistic <= hoeffding_threshold
  bool passes_normal = false;            ///< statistic <= normal_threshold
};

/// Evaluates the test from the sum of `effective_samples` kernel terms
/// (K(I, σ_k) for one_sample, K(σ_2i, σ_2i+1) for pairwise). n >= 2, λ > 0
/// finite, α in (0, 1), effective_samples >= 1, kernel_sum in
/// [0, effective_samples]. Throws onepass::error otherwise.
mmd_result mmd_test(mmd_form form, std::size_t n, double lambda, double alpha, double kernel_sum,
                    std::uint64_t effective_samples);

}  // namespace onepass::stats
