// baselines/cpu/sort_shuffle.cpp — "SortShuffle" column of the paper's Table 2: shuffle
// by sorting on random keys (paper §2.2 and §6: "generate random integer sort keys of
// machine word length ... and perform a key-value sort"; the GPU version sorts with a
// radix sort, here a parallel LSD radix sort with oneTBB).
//
// Element i gets the 64-bit key h(seed, i) from counter_hash. The (key, value) pairs are
// sorted by key with a least-significant-digit radix sort: 8 stable passes of 8-bit
// digits, each a per-block digit histogram (tbb::parallel_for), a digit-major exclusive
// scan over (digit, block), and a per-block stable scatter (tbb::parallel_for); the last
// pass scatters the values straight into `out`. The pass-0 histogram is fused with key
// generation. Stable, so the output depends only on the seed (deterministic = true).
//
// Tie bias: the order is exactly uniform when the n keys are distinct. Two keys tie with
// probability 2^-64 per pair, so P(any tie) <= n(n-1)/2 / 2^64 ~ n^2 / 2^65 (about
// 2^-19 at n = 2^23, 2^-7 at n = 2^29); tied elements keep their input order instead of
// a random one, so the total-variation distance from uniform is at most that bound.
//
// Complexity: O(8 n) work (16 passes over n pairs: 8 histogram + 8 scatter), depth
// O(n / blocks + blocks * 256) per pass (8 blocks per thread); 4n words of scratch
// (two pair buffers).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"

namespace onepass::baselines {
namespace {

struct keyed_value {
  std::uint64_t key;
  std::uint64_t value;
};

constexpr unsigned digit_bits = 8;
constexpr std::size_t radix = std::size_t{1} << digit_bits;
constexpr unsigned passes = 64 / digit_bits;
constexpr std::size_t min_block = std::size_t{1} << 12;  ///< fewest elements per histogram/scatter block
constexpr std::size_t blocks_per_thread = 8;             ///< load balance without a large count table

inline std::size_t digit(std::uint64_t key, unsigned pass) {
  return static_cast<std::size_t>((key >> (pass * digit_bits)) & (radix - 1));
}

/// Turns per-block digit counts (counts[b * radix + d]) into the start offsets of each
/// block's run of digit d, digit-major (stable).
void exclusive_scan_digit_major(std::vector<std::size_t>& counts, std::size_t blocks) {
  std::size_t sum = 0;
  for (std::size_t d = 0; d < radix; ++d) {
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t c = counts[b * radix + d];
      counts[b * radix + d] = sum;
      sum += c;
    }
  }
}

/// SortShuffle of in[0, n) into out[0, n) (out-of-place, not overlapping): LSD radix sort
/// of (h(seed, i), in[i]) pairs by key. Deterministic per seed; n = 0 does nothing.
/// Throws onepass::error on null pointers with n > 0 or overlap; std::bad_alloc when the
/// 4n-word scratch is unavailable.
void sort_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("sort_shuffle_copy", in, out, n);
  if (n == 0) return;
  const random::counter_hash hash(domain_seed(seed, algorithm_domain::sort_shuffle), 0);
  auto first = uninitialized_array<keyed_value>(n);
  auto second = uninitialized_array<keyed_value>(n);
  keyed_value* src = first.get();
  keyed_value* dst = second.get();
  // Block layout only affects speed: a stable sort's output is unique.
  const std::size_t threads = static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const std::size_t wanted_blocks = std::max<std::size_t>(1, std::min(n / min_block, threads * blocks_per_thread));
  const std::size_t block = (n + wanted_blocks - 1) / wanted_blocks;
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<std::size_t> counts(blocks * radix);

  // Keys, fused with the pass-0 histogram.
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::array<std::size_t, radix> c{};
    const std::size_t end = std::min(n, (b + 1) * block);
    for (std::size_t i = b * block; i < end; ++i) {
      const std::uint64_t key = hash(i);
      src[i] = keyed_value{key, in[i]};
      ++c[digit(key, 0)];
    }
    std::copy(c.begin(), c.end(), &counts[b * radix]);
  });

  for (unsigned pass = 0; pass < passes; ++pass) {
    if (pass > 0) {
      tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
        std::array<std::size_t, radix> c{};
        const std::size_t end = std::min(n, (b + 1) * block);
        for (std::size_t i = b * block; i < end; ++i) ++c[digit(src[i].key, pass)];
        std::copy(c.begin(), c.end(), &counts[b * radix]);
      });
    }
    exclusive_scan_digit_major(counts, blocks);
    const bool last = pass + 1 == passes;
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      std::array<std::size_t, radix> offset;
      std::copy(&counts[b * radix], &counts[b * radix] + radix, offset.begin());
      const std::size_t end = std::min(n, (b + 1) * block);
      if (last) {
        for (std::size_t i = b * block; i < end; ++i) out[offset[digit(src[i].key, pass)]++] = src[i].value;
      } else {
        for (std::size_t i = b * block; i < end; ++i) dst[offset[digit(src[i].key, pass)]++] = src[i];
      }
    });
    std::swap(src, dst);
  }
}

const registry::registrar sort_shuffle_registration{[] {
  registry::shuffle_entry e{"sort_shuffle", registry::device::cpu};
  e.label = "SortShuffle";
  e.description = "LSD radix sort (8 x 8-bit passes) of (random 64-bit key, value) pairs, oneTBB";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
    sort_shuffle_copy(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines
