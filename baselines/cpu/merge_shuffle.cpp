// baselines/cpu/merge_shuffle.cpp — "MergeShuffle" column of the paper's Table 2:
// A. Bacher, O. Bodini, A. Hollender, J. Lumbroso, "MergeShuffle: a very fast, parallel
// random permutation algorithm", arXiv:1508.03167 (2015), with oneTBB in place of OpenMP.
//
// The input is split into q = 2^c blocks of at most `block_cutoff` elements (block t is
// [floor(n t / q), floor(n (t+1) / q)), as in the authors' driver); each block is copied
// and shuffled by (inside-out) Fisher–Yates in parallel; then c levels of pairwise random
// merges (merge_shuffle.hpp), the merges of one level in parallel, until the whole array
// is one uniformly shuffled run. Two deliberate differences from the authors' code: the
// insertion phase draws m exactly uniformly in [0, i] inclusive, and every decision uses
// fresh random bits (a counter_stream per block / merge; no bit is reused).
//
// Randomness: with s = domain_seed(seed, merge_shuffle), block t draws from
// counter_stream(s, t); the merge of pair p at level L >= 1 from
// counter_stream(s, L * 2^56 + p). The output depends on the seed only (deterministic).
//
// Complexity: O(n log(n / block_cutoff) + n) work; the last level is one sequential
// merge of all n elements, so the depth is Θ(n) (as in the original algorithm). In place
// in `out`; no scratch memory.
#include <cstddef>
#include <cstdint>

#include <tbb/parallel_for.h>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"
#include "onepass_baselines/cpu/merge_shuffle.hpp"

namespace onepass::baselines {
namespace {

constexpr std::size_t block_cutoff = std::size_t{1} << 16;  ///< most elements per Fisher–Yates block

/// MergeShuffle of in[0, n) into out[0, n) (out-of-place, not overlapping).
/// Deterministic per seed; n = 0 does nothing. Throws onepass::error on null pointers
/// with n > 0 or overlap.
void merge_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("merge_shuffle_copy", in, out, n);
  if (n == 0) return;
  const std::uint64_t s = domain_seed(seed, algorithm_domain::merge_shuffle);
  unsigned c = 0;
  while ((n >> c) > block_cutoff) ++c;
  const std::uint64_t q = std::uint64_t{1} << c;
  __extension__ using u128 = unsigned __int128;
  auto bound = [n, c](std::uint64_t t) {  // floor(n t / 2^c) without overflow
    return static_cast<std::size_t>((static_cast<u128>(n) * t) >> c);
  };
  tbb::parallel_for(std::uint64_t{0}, q, [&](std::uint64_t t) {
    const std::size_t b = bound(t), e = bound(t + 1);
    random::counter_stream rng(s, t);
    fisher_yates_copy(in + b, out + b, e - b, rng);
  });
  std::uint64_t level = 1;
  for (std::uint64_t p = 1; p < q; p *= 2, ++level) {
    tbb::parallel_for(std::uint64_t{0}, q / (2 * p), [&](std::uint64_t pair) {
      const std::uint64_t t = 2 * p * pair;
      const std::size_t b = bound(t), mid = bound(t + p), e = bound(t + 2 * p);
      random::counter_stream rng(s, (level << 56) + pair);
      random_merge(out + b, mid - b, e - mid, rng);
    });
  }
}

const registry::registrar merge_shuffle_registration{[] {
  registry::shuffle_entry e{"merge_shuffle", registry::device::cpu};
  e.label = "MergeShuffle";
  e.description = "MergeShuffle (Bacher et al. 2015): parallel Fisher-Yates blocks + random merges, oneTBB";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
    merge_shuffle_copy(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines
