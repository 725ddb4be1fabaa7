// baselines/cpu/rao_sandelius.cpp — "RS" column of the paper's Table 2: the
// Rao–Sandelius divide-and-conquer shuffle (C. R. Rao, "Generation of random
// permutations of given number of elements using random sampling numbers", Sankhyā A
// 23, 1961; M. Sandelius, "A simple randomization procedure", JRSS B 24, 1962), as
// described in the paper's §2.1, parallelised with oneTBB.
//
// Each element of a subarray gets an independent uniform label in [0, k), k = 2^8; the
// subarray is stably partitioned into the k label groups (one pass of an MSD radix sort
// on random digits — the equivalence the paper points out); each group is shuffled
// recursively, and subarrays of at most `base_size` elements are finished by
// Fisher–Yates. Uniform: given the group sizes, which elements form each group is a
// uniformly random multinomial split, and each group is then uniformly permuted.
//
// Parallelism: large subarrays are partitioned by blocks (per-block label histograms,
// a group-major exclusive scan, per-block stable scatter — tbb::parallel_for), and the
// k groups are recursed on in parallel (tbb::parallel_for over groups, nested). Data
// ping-pongs between `out` and one n-element scratch buffer.
//
// Randomness: with s = domain_seed(seed, rao_sandelius), the labels of a subarray with id
// `id` are the bytes of the words of counter_hash(s, id), where id(root) = 0 and the id of
// child group g of subarray `id` is mix64(id + (g + 1) * stream_gamma); a leaf's
// Fisher–Yates draws from counter_stream(s, id(leaf)). The output therefore
// depends on the seed only, not on thread scheduling (deterministic = true).
//
// Complexity: O(n (L + 1)) expected work with L = ceil(log_k(n / base_size)) partition
// levels (L = 2 at n = 2^23); a partition level of a subarray of length m has depth
// O(m / blocks + k * blocks) with blocks = ceil(m / 2^15); n extra words of memory.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"

namespace onepass::baselines {
namespace {

using random::counter_hash;
using random::counter_stream;

constexpr unsigned label_bits = 8;
constexpr std::size_t groups = std::size_t{1} << label_bits;  ///< k
constexpr std::size_t base_size = std::size_t{1} << 12;       ///< Fisher–Yates at or below this size
constexpr std::size_t parallel_partition_min = std::size_t{1} << 17;  ///< block-parallel partition from here
constexpr std::size_t partition_block = std::size_t{1} << 15;         ///< elements per block (multiple of 8)
constexpr std::size_t parallel_recursion_min = std::size_t{1} << 14;  ///< recurse on groups in parallel from here

static_assert(partition_block % 8 == 0, "blocks must start on a label-word boundary");

/// Id of child group g of subarray `id` (ids key the random streams).
std::uint64_t child_id(std::uint64_t id, std::size_t g) {
  return random::mix64(id + (static_cast<std::uint64_t>(g) + 1) * random::stream_gamma);
}

/// Calls f(j, label_j) for j in [j0, j1), j0 a multiple of 8: label_j is byte (j mod 8)
/// of word h(j / 8), so one hash supplies 8 independent labels.
template <class F>
inline void for_each_label(const counter_hash& h, std::size_t j0, std::size_t j1, F&& f) {
  std::size_t j = j0;
  for (; j + 8 <= j1; j += 8) {
    std::uint64_t w = h(j >> 3);
    for (unsigned t = 0; t < 8; ++t, w >>= label_bits) f(j + t, static_cast<unsigned>(w & (groups - 1)));
  }
  if (j < j1) {
    std::uint64_t w = h(j >> 3);
    for (; j < j1; ++j, w >>= label_bits) f(j, static_cast<unsigned>(w & (groups - 1)));
  }
}

/// Stable partition of src[0, len) by label into dst[0, len); writes the group starts
/// to begin[0..k] (begin[k] = len).
void partition(const std::uint64_t* src, std::uint64_t* dst, std::size_t len, const counter_hash& h,
               std::array<std::size_t, groups + 1>& begin) {
  if (len < parallel_partition_min) {
    std::array<std::size_t, groups> offset{};
    for_each_label(h, 0, len, [&](std::size_t, unsigned g) { ++offset[g]; });
    std::size_t sum = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      begin[g] = sum;
      sum += offset[g];
      offset[g] = begin[g];
    }
    begin[groups] = len;
    for_each_label(h, 0, len, [&](std::size_t j, unsigned g) { dst[offset[g]++] = src[j]; });
    return;
  }
  const std::size_t blocks = (len + partition_block - 1) / partition_block;
  std::vector<std::size_t> counts(blocks * groups, 0);  // one allocation per large subarray
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::size_t* c = &counts[b * groups];
    for_each_label(h, b * partition_block, std::min(len, (b + 1) * partition_block),
                   [c](std::size_t, unsigned g) { ++c[g]; });
  });
  std::size_t sum = 0;  // group-major exclusive scan: block b's run of group g starts at counts[b][g]
  for (std::size_t g = 0; g < groups; ++g) {
    begin[g] = sum;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t c = counts[b * groups + g];
      counts[b * groups + g] = sum;
      sum += c;
    }
  }
  begin[groups] = len;
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::size_t* offset = &counts[b * groups];
    for_each_label(h, b * partition_block, std::min(len, (b + 1) * partition_block),
                   [=](std::size_t j, unsigned g) { dst[offset[g]++] = src[j]; });
  });
}

/// Shuffles the len elements in data[0, len) (scratch[0, len) is free space) with the
/// streams of subarray `id` under the domain seed `s`. The result ends in data when
/// result_in_data, else in scratch.
void solve(std::uint64_t s, std::uint64_t* data, std::uint64_t* scratch, std::size_t len, std::uint64_t id,
           bool result_in_data) {
  if (len <= base_size) {
    counter_stream rng(s, id);
    if (result_in_data) {
      fisher_yates(data, len, rng);
    } else {
      fisher_yates_copy(data, scratch, len, rng);
    }
    return;
  }
  std::array<std::size_t, groups + 1> begin;
  partition(data, scratch, len, counter_hash(s, id), begin);
  auto recurse = [&](std::size_t g) {
    solve(s, scratch + begin[g], data + begin[g], begin[g + 1] - begin[g], child_id(id, g), !result_in_data);
  };
  if (len >= parallel_recursion_min) {
    tbb::parallel_for(std::size_t{0}, groups, recurse);
  } else {
    for (std::size_t g = 0; g < groups; ++g) recurse(g);
  }
}

/// Rao–Sandelius shuffle of in[0, n) into out[0, n) (out-of-place, not overlapping).
/// Deterministic per seed. n = 0 does nothing. Throws onepass::error on null pointers
/// with n > 0 or overlap, std::bad_alloc when the n-word scratch buffer is unavailable.
void rao_sandelius_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("rao_sandelius_shuffle_copy", in, out, n);
  if (n == 0) return;
  const std::uint64_t s = domain_seed(seed, algorithm_domain::rao_sandelius);
  const std::uint64_t root = 0;
  if (n <= base_size) {
    counter_stream rng(s, root);
    fisher_yates_copy(in, out, n, rng);
    return;
  }
  auto scratch = uninitialized_array<std::uint64_t>(n);
  std::array<std::size_t, groups + 1> begin;
  partition(in, scratch.get(), n, counter_hash(s, root), begin);
  tbb::parallel_for(std::size_t{0}, groups, [&](std::size_t g) {
    solve(s, scratch.get() + begin[g], out + begin[g], begin[g + 1] - begin[g], child_id(root, g), false);
  });
}

const registry::registrar rao_sandelius_registration{[] {
  registry::shuffle_entry e{"rao_sandelius", registry::device::cpu};
  e.label = "RS";
  e.description = "Rao-Sandelius divide-and-conquer shuffle, k = 256 random labels per level, oneTBB";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
    rao_sandelius_shuffle_copy(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines
