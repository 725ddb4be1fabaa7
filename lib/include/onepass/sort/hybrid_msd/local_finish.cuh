// onepass/sort/hybrid_msd/local_finish.cuh — step 5 of the hybrid MSD radix sort (file
// comment of onepass/sort/hybrid_msd.cuh): the local finish of the ranges of at most
// local_max keys in shared memory. Include onepass/sort/hybrid_msd.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cub/block/block_radix_rank.cuh>

#include <cstdint>
#include <type_traits>

#include "onepass/sort/hybrid_msd/common.cuh"

namespace onepass::sort::hybrid_msd::detail {

/// Shared memory of the local finish.
template <class Key, class Word, int Block, int Items>
struct local_stage {
  using bits_type = typename radix_traits<Key>::bits_type;
  using rank_t = cub::BlockRadixRankMatch<Block, digit_bits, false>;
  static constexpr bool has_values = !std::is_same_v<Word, no_values>;
  static constexpr int capacity = Block * Items;
  union {
    typename rank_t::TempStorage rank;
    bits_type keys[capacity];
    std::conditional_t<has_values, Word, unsigned char> values[capacity];  // after the keys are written
  };
  std::uint16_t index[has_values ? capacity : 1];  // input position of each slot's key
  bits_type varying;
  int long_run;
};

/// Longest run of keys equal on the top bits that the local finish sorts by insertion
/// (longer runs: LSD passes over the remaining bits).
inline constexpr int local_tie_run = 16;

/// Step 5: the local finish of each window, then each segment (blocks loop over them):
/// sorts the range (at most local_max keys, all sharing the bits at and above `top`) on
/// the bits that vary inside it and writes keys and values to the output. Passes of 8
/// bits, least significant first, each a stable block-wide multisplit
/// (cub::BlockRadixRankMatch) through shared memory; when more than 16 bits vary, only the
/// top 16 are sorted that way and runs of keys equal on them (rare for random keys) are
/// finished by insertion, or, when a run is longer than local_tie_run, by passes over the
/// remaining bits. With segments == nullptr (an input of at most local_max keys, sorted
/// whole) the one job is `whole`, passed by value: no host-to-device copy before the launch
/// (two 24-byte cudaMemcpyAsync from pageable memory cost about 2.6 us of a 15 us sort of
/// 4096 keys on an H100, sort_headline at 0c583f3).
///
/// Its steps, marked in the body: 5a take the job's range; 5b load it warp-striped; 5c
/// find the bits that vary in it; 5d copy it when none does; 5e the passes over the top
/// varying bits; 5f the ties under them (insertion, or passes over the remaining bits);
/// 5g write keys and values. (Kept in one body: moving the steps into an agent struct or
/// into __forceinline__ functions changed the kernel's machine code, and the sort is
/// tuned on it.)
template <class Key, class Word, bool Descending, int Block, int Items, int MinBlocks>
__global__ void __launch_bounds__(Block, MinBlocks) local_sort_kernel(
    buffers<Key> keys, buffers<Word> values, const unsigned long long* window_lo, const unsigned long long* window_hi,
    const std::uint32_t* window_sel, const level_counts* window_counts, const segment* segments,
    const unsigned long long* segment_count, unsigned begin_bit, unsigned shift, unsigned top, segment whole) {
  constexpr int local_block = Block;
  using stage = local_stage<Key, Word, Block, Items>;
  using bits_type = typename stage::bits_type;
  using rank_t = typename stage::rank_t;
  constexpr bool has_values = stage::has_values;
  constexpr int items = Items;
  constexpr unsigned key_bits = 8 * sizeof(bits_type);
  extern __shared__ __align__(16) unsigned char smem[];
  stage& s = *reinterpret_cast<stage*>(smem);
  const std::uint64_t windows = window_counts != nullptr ? window_counts->windows : 0;
  const std::uint64_t jobs = windows + (segments != nullptr ? *segment_count : 1);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const bits_type sort_mask = (top >= key_bits ? ~bits_type{0} : ((bits_type{1} << top) - 1)) &
                              ~((bits_type{1} << begin_bit) - 1);
  for (std::uint64_t job = blockIdx.x; job < jobs; job += gridDim.x) {
    // 5a. The job's range: window `job` (windows first), else a segment (or `whole`).
    std::uint64_t lo, hi;
    std::uint32_t sel;
    if (job < windows) {
      lo = window_lo[job];
      if (lo == ~0ull) continue;  // no small child starts in this window (block-uniform)
      hi = window_hi[job];
      sel = window_sel[job];
    } else {
      const segment g = segments != nullptr ? segments[job - windows] : whole;
      lo = g.begin;
      hi = g.end;
      sel = g.sel;
    }
    const int m = static_cast<int>(hi - lo);
    const Key* ksrc = keys.source(sel) + lo;
    const bits_type first = to_ordered<Key, Descending>(ksrc[0]);
    if (threadIdx.x == 0) {
      s.varying = 0;
      s.long_run = 0;
    }
    // 5b. Load the range. Warp-striped loads (coalesced; the rank order of
    // BlockRadixRankMatch). 5c. The bits that vary inside it (a block-wide OR).
    bits_type k[items];
    std::uint32_t idx[items];
    bits_type var = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int pos = warp * 32 * items + i * 32 + lane;
      idx[i] = static_cast<std::uint32_t>(pos);
      if (pos < m) {
        k[i] = to_ordered<Key, Descending>(ksrc[pos]);
        var |= (k[i] ^ first) & sort_mask;
      } else {
        k[i] = ~bits_type{0};  // padding: after every key at every pass
      }
    }
    __syncthreads();
    if constexpr (sizeof(bits_type) == 8) {
      if (var) atomicOr(reinterpret_cast<unsigned long long*>(&s.varying), static_cast<unsigned long long>(var));
    } else {
      if (var) atomicOr(reinterpret_cast<unsigned int*>(&s.varying), static_cast<unsigned int>(var));
    }
    __syncthreads();
    const bits_type varying = s.varying;
    Key* kdst = keys.out + lo;
    if (varying == 0) {
      // 5d. Nothing to sort (one key, or keys equal on the sorted bits): copied in order.
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        if (pos < m) {
          kdst[pos] = from_ordered<Key, Descending>(k[i]);
          if constexpr (has_values) values.out[lo + pos] = values.source(sel)[lo + pos];
        }
      }
      __syncthreads();
      continue;
    }
    const unsigned low_bit = sizeof(bits_type) == 8 ? __ffsll(static_cast<long long>(varying)) - 1
                                                    : __ffs(static_cast<int>(varying)) - 1;
    const unsigned high_bit = key_bits - (sizeof(bits_type) == 8 ? __clzll(static_cast<long long>(varying))
                                                                  : __clz(static_cast<int>(varying)));
    // One stable pass on bits [bit, bit + width): rank, then place keys (and input
    // positions) in shared memory in rank order, then reload them warp-striped.
    auto pass = [&](unsigned bit, unsigned width) {
      int rank[items];
      rank_t(s.rank).RankKeys(k, rank, digit_of<bits_type>{bit, (1u << width) - 1u});
      __syncthreads();  // the rank storage is reused for the keys
#pragma unroll
      for (int i = 0; i < items; ++i) {
        s.keys[rank[i]] = k[i];
        if constexpr (has_values) s.index[rank[i]] = static_cast<std::uint16_t>(idx[i]);
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        k[i] = s.keys[pos];
        if constexpr (has_values) idx[i] = s.index[pos];
      }
      __syncthreads();
    };
    auto passes = [&](unsigned from, unsigned to) {
      for (unsigned bit = from; bit < to; bit += digit_bits) pass(bit, to - bit < digit_bits ? to - bit : digit_bits);
    };
    // 5e. The passes over the top varying bits [split, high_bit).
    // Windows hold several children, already in order of this level's digit [shift, top):
    // the passes cover that digit and the 16 bits under it (segments and single children:
    // the top 16 varying bits), and runs of keys equal on those bits are then finished.
    const unsigned below = high_bit < shift ? high_bit : shift;
    const unsigned split = below > low_bit + 16 ? below - 16 : low_bit;
    passes(split, high_bit);
    if (split > low_bit) {
      // 5f. The ties under the top bits.
      // Keys are in slot order in s.keys (the last pass placed them). Runs equal on bits
      // [split, high_bit) that are out of order on the full word are sorted by insertion,
      // one thread per run, when at most local_tie_run long; a longer unsorted run sets
      // long_run (runs of equal keys, however long, need nothing).
      auto top_of = [&](bits_type w) { return (w & sort_mask) >> split; };
      constexpr int per_thread = Items;
      int run_begin[per_thread], run_end[per_thread];
      int runs = 0;
      for (int slot = threadIdx.x; slot < m; slot += local_block) {
        const bits_type here = top_of(s.keys[slot]);
        const bool same_next = slot + 1 < m && top_of(s.keys[slot + 1]) == here;
        if (!same_next) continue;
        const bool head = slot == 0 || top_of(s.keys[slot - 1]) != here;
        if ((s.keys[slot] & sort_mask) > (s.keys[slot + 1] & sort_mask)) {
          // A descent: its run must be short enough for insertion.
          int b = slot;
          while (b > 0 && slot - b <= local_tie_run && top_of(s.keys[b - 1]) == here) --b;
          int e = slot + 2;
          while (e < m && e - b <= local_tie_run && top_of(s.keys[e]) == here) ++e;
          if (e - b > local_tie_run || (b > 0 && top_of(s.keys[b - 1]) == here)) s.long_run = 1;
        }
        if (head) {
          int end = slot + 2;
          while (end < m && end - slot <= local_tie_run && top_of(s.keys[end]) == here) ++end;
          if (end - slot <= local_tie_run) {
            run_begin[runs] = slot;
            run_end[runs] = end;
            ++runs;
          }
        }
      }
      __syncthreads();  // every run found before any is reordered
      for (int r = 0; r < runs; ++r) {
        const int slot = run_begin[r], end = run_end[r];
        for (int i = slot + 1; i < end; ++i) {
          const bits_type key = s.keys[i];
          std::uint16_t from = 0;
          if constexpr (has_values) from = s.index[i];
          int j = i - 1;
          while (j >= slot && (s.keys[j] & sort_mask) > (key & sort_mask)) {
            s.keys[j + 1] = s.keys[j];
            if constexpr (has_values) s.index[j + 1] = s.index[j];
            --j;
          }
          s.keys[j + 1] = key;
          if constexpr (has_values) s.index[j + 1] = from;
        }
      }
      __syncthreads();
      if (s.long_run) {
        // Long runs: LSD passes over the remaining bits, then the top bits again (stable
        // passes from an order that keeps equal keys in input order).
#pragma unroll
        for (int i = 0; i < items; ++i) {
          const int pos = warp * 32 * items + i * 32 + lane;
          k[i] = s.keys[pos];
          if constexpr (has_values) idx[i] = s.index[pos];
        }
        __syncthreads();
        passes(low_bit, split);
        passes(split, high_bit);
      }
    }
    // 5g. Write the output: s.keys (and s.index) hold the range in sorted order.
    for (int slot = threadIdx.x; slot < m; slot += local_block) kdst[slot] = from_ordered<Key, Descending>(s.keys[slot]);
    if constexpr (has_values) {
      // The values go through shared memory (by input position), since the source may be
      // the output itself (the double-buffer API, or a window already in the output).
      const Word* vsrc = values.source(sel) + lo;
      Word v[items];
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        if (pos < m) v[i] = vsrc[pos];
      }
      __syncthreads();  // the keys' buffer is reused
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        if (pos < m) s.values[pos] = v[i];
      }
      __syncthreads();
      for (int slot = threadIdx.x; slot < m; slot += local_block) values.out[lo + slot] = s.values[s.index[slot]];
    }
    __syncthreads();
  }
}

}  // namespace onepass::sort::hybrid_msd::detail
