// onepass/stats/sampling.hpp — draws many random permutations from a registered
// shuffle and accumulates, on the fly, what the §5 tests of Mitchell et al.,
// "Bandwidth-Optimal Random Shuffling for GPUs" need: the counts of the n!
// permutations (chi-square, Fig. 6) and the Mallows-kernel sums of both MMD
// statistics (Figs. 7–9). No sample is stored beyond its block.
//
// Sample k (k = 0, 1, ..., samples-1) is the shuffle of the identity 0..n-1 with
// params {seed = base_seed + k (mod 2^64), rounds}; its output array is the
// permutation σ_k in one-line notation. Samples are processed in parallel with
// oneTBB in fixed blocks of `sampling_block` consecutive indices; floating-point
// sums are formed per block in index order and the block sums are added in block
// order, and counts are exact integers, so the results do not depend on thread
// scheduling (they are bit-identical across runs for deterministic shuffles).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "onepass/harness/registry.hpp"
#include "onepass/stats/chi_square.hpp"
#include "onepass/stats/mmd.hpp"

namespace onepass::stats {

/// Consecutive samples per parallel task; even, so the pairs (2i, 2i+1) of the
/// pairwise MMD never straddle two tasks.
inline constexpr std::uint64_t sampling_block = 256;

/// Which samples to draw from which shuffle.
struct sampling_plan {
  std::size_t n = 5;             ///< permutation length
  std::uint64_t samples = 0;     ///< number of permutations K
  std::uint64_t base_seed = 1;   ///< sample k uses seed base_seed + k
  unsigned rounds = 24;          ///< shuffle_params::rounds (VariablePhilox; others ignore it)
};

/// Counts of each permutation of length plan.n among plan.samples draws from
/// `shuffle`, indexed by Lehmer rank (permutation.hpp): a vector of n! counts
/// summing to plan.samples. plan.n in [2, 8], plan.samples >= 1; shuffle must
/// have permutes == true and a callable run. Throws onepass::error on bad
/// arguments, or when the shuffle outputs something that is not a permutation of
/// 0..n-1 (naming the seed); exceptions of the shuffle itself propagate.
std::vector<std::uint64_t> sample_permutation_counts(const registry::shuffle_entry& shuffle,
                                                     const sampling_plan& plan);

/// Chi-square test of uniformity (chi_square_permutations) on
/// sample_permutation_counts(shuffle, plan) at level alpha in (0, 1).
/// Same errors as the two functions.
chi_square_result chi_square_shuffle(const registry::shuffle_entry& shuffle, const sampling_plan& plan,
                                     double alpha);

/// Mallows-kernel sums of the two MMD statistics over one set of samples.
struct mallows_kernel_sums {
  std::size_t n = 0;
  double lambda = default_mallows_lambda;
  std::uint64_t samples = 0;           ///< N permutations drawn
  double one_sample_sum = 0;           ///< sum_k K(I, σ_k), k < N
  std::uint64_t one_sample_terms = 0;  ///< N
  double pairwise_sum = 0;             ///< sum_i K(σ_2i, σ_2i+1), i < floor(N/2)
  std::uint64_t pairwise_terms = 0;    ///< floor(N/2); an odd last sample is unpaired
  std::uint64_t inversion_sum = 0;     ///< sum_k n_dis(I, σ_k) (exact; E_U = N C(n,2)/2)
};

/// Draws plan.samples permutations from `shuffle` and accumulates both kernel
/// sums with the Mallows kernel of parameter lambda (> 0, finite).
/// plan.n in [2, 2^32), plan.samples >= 2. Errors as sample_permutation_counts.
mallows_kernel_sums sample_mallows_kernel_sums(const registry::shuffle_entry& shuffle, const sampling_plan& plan,
                                               double lambda);

/// Both MMD tests (mmd_test) from one set of samples.
struct mmd_results {
  mmd_result one_sample;  ///< arXiv v1 form, N_eff = N
  mmd_result pairwise;    ///< journal form, N_eff = floor(N/2)
};

/// Evaluates both statistics of `sums` at level alpha in (0, 1).
/// Throws onepass::error as mmd_test.
mmd_results mmd_tests(const mallows_kernel_sums& sums, double alpha);

/// sample_mallows_kernel_sums followed by mmd_tests.
mmd_results mmd_shuffle(const registry::shuffle_entry& shuffle, const sampling_plan& plan, double lambda,
                        double alpha);

}  // namespace onepass::stats
