// Parallel, scheduling-independent sampling of permutations from a registered
// shuffle for the §5 tests; see sampling.hpp.
#include "onepass/stats/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include "onepass/error.hpp"
#include "onepass/stats/permutation.hpp"

namespace onepass::stats {

namespace {

void check_shuffle(const char* function, const registry::shuffle_entry& shuffle) {
  require(static_cast<bool>(shuffle.run), function, "shuffle", "'" + shuffle.name + "' has no run function");
  require(shuffle.permutes, function, "shuffle",
          "'" + shuffle.name + "' does not output permutations (permutes == false)");
}

std::uint64_t block_count(std::uint64_t samples) { return (samples + sampling_block - 1) / sampling_block; }

// Draws samples [begin, end) one at a time into `out` and calls visit(k, out).
// Buffers live in the caller's frame (one set per block), so a thread that picks up
// another block while waiting inside a nested oneTBB algorithm cannot clobber them.
template <class Visit>
void draw_block(const registry::shuffle_entry& shuffle, const sampling_plan& plan, std::uint64_t begin,
                std::uint64_t end, std::vector<std::uint64_t>& identity, std::vector<std::uint64_t>& out,
                permutation_workspace& work, Visit&& visit) {
  registry::shuffle_params params;
  params.rounds = plan.rounds;
  for (std::uint64_t k = begin; k < end; ++k) {
    params.seed = plan.base_seed + k;
    shuffle.run(identity.data(), out.data(), plan.n, params);
    if (!work.check(out.data(), plan.n))
      throw error("sampling: shuffle '" + shuffle.name + "' did not output a permutation of 0.." +
                  std::to_string(plan.n - 1) + " for seed " + std::to_string(params.seed) + ", rounds " +
                  std::to_string(plan.rounds));
    visit(k, out);
  }
}

}  // namespace

std::vector<std::uint64_t> sample_permutation_counts(const registry::shuffle_entry& shuffle,
                                                     const sampling_plan& plan) {
  const char* fn = "sample_permutation_counts";
  check_shuffle(fn, shuffle);
  require(plan.n >= 2 && plan.n <= 8, fn, "plan.n", "must be in [2, 8], got " + std::to_string(plan.n));
  require(plan.samples >= 1, fn, "plan.samples", "must be >= 1, got 0");
  const std::size_t cells = static_cast<std::size_t>(factorial(plan.n));

  // Integer counts: the sum is exact, so the order of combination does not matter.
  tbb::combinable<std::vector<std::uint64_t>> local([cells] { return std::vector<std::uint64_t>(cells, 0); });
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, block_count(plan.samples), 1),
                    [&](const tbb::blocked_range<std::uint64_t>& blocks) {
                      std::vector<std::uint64_t> identity(plan.n), out(plan.n), ranks;
                      std::iota(identity.begin(), identity.end(), std::uint64_t{0});
                      permutation_workspace work;
                      for (std::uint64_t b = blocks.begin(); b != blocks.end(); ++b) {
                        const std::uint64_t begin = b * sampling_block;
                        const std::uint64_t end = std::min(plan.samples, begin + sampling_block);
                        ranks.clear();
                        draw_block(shuffle, plan, begin, end, identity, out, work,
                                   [&](std::uint64_t, const std::vector<std::uint64_t>& sigma) {
                                     ranks.push_back(lehmer_rank(sigma));
                                   });
                        // No nested parallel call between here and the end of the loop body.
                        auto& counts = local.local();
                        for (std::uint64_t r : ranks) ++counts[r];
                      }
                    });
  std::vector<std::uint64_t> counts(cells, 0);
  local.combine_each([&](const std::vector<std::uint64_t>& c) {
    for (std::size_t i = 0; i < cells; ++i) counts[i] += c[i];
  });
  return counts;
}

chi_square_result chi_square_shuffle(const registry::shuffle_entry& shuffle, const sampling_plan& plan,
                                     double alpha) {
  require(alpha > 0 && alpha < 1, "chi_square_shuffle", "alpha", "must be in (0, 1), got " + std::to_string(alpha));
  return chi_square_permutations(sample_permutation_counts(shuffle, plan), plan.n, alpha);
}

mallows_kernel_sums sample_mallows_kernel_sums(const registry::shuffle_entry& shuffle, const sampling_plan& plan,
                                               double lambda) {
  const char* fn = "sample_mallows_kernel_sums";
  check_shuffle(fn, shuffle);
  require(plan.n >= 2 && static_cast<std::uint64_t>(plan.n) < (std::uint64_t{1} << 32), fn, "plan.n",
          "must be in [2, 2^32), got " + std::to_string(plan.n));
  require(plan.samples >= 2, fn, "plan.samples", "must be >= 2, got " + std::to_string(plan.samples));
  require(lambda > 0 && std::isfinite(lambda), fn, "lambda", "must be finite and > 0, got " + std::to_string(lambda));

  const std::uint64_t blocks = block_count(plan.samples);
  const std::uint64_t pairs = plan.samples / 2;
  // Per-block partial sums, each formed in index order, then added in block order.
  std::vector<double> one_sample_partial(blocks, 0), pairwise_partial(blocks, 0);
  std::vector<std::uint64_t> inversion_partial(blocks, 0);
  tbb::parallel_for(
      tbb::blocked_range<std::uint64_t>(0, blocks, 1), [&](const tbb::blocked_range<std::uint64_t>& range) {
        std::vector<std::uint64_t> identity(plan.n), out(plan.n), previous(plan.n);
        std::iota(identity.begin(), identity.end(), std::uint64_t{0});
        permutation_workspace work;
        for (std::uint64_t b = range.begin(); b != range.end(); ++b) {
          const std::uint64_t begin = b * sampling_block;
          const std::uint64_t end = std::min(plan.samples, begin + sampling_block);
          double one_sample = 0, pairwise = 0;
          std::uint64_t inversions = 0;
          draw_block(shuffle, plan, begin, end, identity, out, work,
                     [&](std::uint64_t k, std::vector<std::uint64_t>& sigma) {
                       const std::uint64_t d = work.inversions(sigma.data(), plan.n);
                       inversions += d;
                       one_sample += mallows_kernel(d, plan.n, lambda);
                       if (k % 2 == 0) {
                         previous.swap(sigma);  // σ_2i waits for its partner
                       } else if (k / 2 < pairs) {
                         pairwise += mallows_kernel(work.discordant(previous.data(), sigma.data(), plan.n), plan.n,
                                                    lambda);
                       }
                     });
          one_sample_partial[b] = one_sample;
          pairwise_partial[b] = pairwise;
          inversion_partial[b] = inversions;
        }
      });
  mallows_kernel_sums s;
  s.n = plan.n;
  s.lambda = lambda;
  s.samples = plan.samples;
  s.one_sample_terms = plan.samples;
  s.pairwise_terms = pairs;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    s.one_sample_sum += one_sample_partial[b];
    s.pairwise_sum += pairwise_partial[b];
    s.inversion_sum += inversion_partial[b];
  }
  return s;
}

mmd_results mmd_tests(const mallows_kernel_sums& sums, double alpha) {
  mmd_results r;
  r.one_sample = mmd_test(mmd_form::one_sample, sums.n, sums.lambda, alpha, sums.one_sample_sum, sums.one_sample_terms);
  r.pairwise = mmd_test(mmd_form::pairwise, sums.n, sums.lambda, alpha, sums.pairwise_sum, sums.pairwise_terms);
  return r;
}

mmd_results mmd_shuffle(const registry::shuffle_entry& shuffle, const sampling_plan& plan, double lambda,
                        double alpha) {
  return mmd_tests(sample_mallows_kernel_sums(shuffle, plan, lambda), alpha);
}

}  // namespace onepass::stats
