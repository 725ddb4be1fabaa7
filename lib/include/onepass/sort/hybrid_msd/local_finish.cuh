// onepass/sort/hybrid_msd/local_finish.cuh — step 5 of the hybrid MSD radix sort (file
// comment of onepass/sort/hybrid_msd.cuh): the local finish of the ranges of at most
// local_max keys in shared memory, by 8-bit LSD passes over the bits that vary in each
// range: over the top 16 of them first, with the runs of keys tied on those finished
// after, or, where a cheap in-register predictor expects long tied runs (low-entropy
// keys), straight over all of them. Include onepass/sort/hybrid_msd.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cub/block/block_radix_rank.cuh>

#include <cstdint>
#include <type_traits>

#include "onepass/sort/hybrid_msd/common.cuh"

namespace onepass::sort::gpu::hybrid_msd::detail {

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
/// (an out-of-order longer run: LSD passes over every varying bit).
inline constexpr int local_tie_run = 16;

/// The local finish's predictor of long runs (step 5e of local_sort_kernel): each thread
/// compares the top fields of its own keys at load distances 32 d, d = 1..
/// local_tie_distances (its items i and i + d), and the range takes straight LSD passes
/// when at least local_tie_threads threads see an equal pair. Set from a host simulation
/// of the kernel's layout and the top path's outcome (2000 draws each; keys the AND of q
/// uniform words): uniform 32- and 64-bit keys (about 0.2 equal pairs expected) reach 3
/// threads in 0.1-0.3 % of the draws at 2500, 4096 and 6144 keys; q = 2, where a run
/// longer than local_tie_run is all but certain from about 2500 keys (about m / 100 keys
/// share the field 0), in 82 % at 2500, 97.5 % at 4096 (u32 and u64), 99.8 % at 6144;
/// q >= 3 always. 3 distances missed 6 % of the q = 2 draws at 4096; a threshold of 2
/// threads sent 1.7-3.2 % of the uniform ones to the LSD passes. Keys presorted with long
/// runs (q = 2, sorted) take the LSD passes in 86 % of the draws, where the top passes
/// would have needed no fallback.
inline constexpr int local_tie_distances = 4;
inline constexpr int local_tie_threads = 3;

/// Step 5: the local finish of each window, then each segment (blocks loop over them):
/// sorts the range (at most local_max keys, all sharing the bits at and above `top`) on
/// the bits that vary inside it and writes keys and values to the output. Passes of 8
/// bits, least significant first, each a stable block-wide multisplit
/// (cub::BlockRadixRankMatch) through shared memory. When at most 16 bits vary, passes
/// over them all. When more vary, the passes take one of two orders, chosen per range by
/// a predictor of long runs of keys equal on the top 16 varying bits (the top field; a
/// window's also spans the level's digit):
///  - few runs longer than local_tie_run expected (random keys): passes over the top
///    field only, then the runs of keys equal on it finished by insertion, or, when a run
///    longer than local_tie_run is out of order, by passes over every varying bit (the
///    top passes then wasted);
///  - long runs expected (low-entropy keys: the AND of q >= 2 uniform words puts about
///    m / 100 keys or more on one field value): straight LSD passes over every varying
///    bit, what the fallback costs without the top passes and the scan before it.
/// Both orders give the same stable output (the choice is only a speed one). It is made
/// for every job (windows, segments, whole): its cost, local_tie_distances comparisons per
/// key in registers and one __syncthreads_count, is small beside a pass, and a skewed
/// window or segment pays the fallback as `whole` does. With segments == nullptr (an
/// input of at most local_max keys, sorted whole) the one job is `whole`, passed by value:
/// no host-to-device copy before the launch (two 24-byte cudaMemcpyAsync from pageable
/// memory cost about 2.6 us of a 15 us sort of 4096 keys on an H100, sort_headline at
/// 0c583f3).
///
/// Its steps, marked in the body: 5a take the job's range; 5b load it warp-striped; 5c
/// find the bits that vary in it; 5d copy it when none does; 5e choose the order (the
/// predictor), then the passes over every varying bit or over the top field; 5f after the
/// top passes, the ties under the top field (insertion, or passes over every varying
/// bit); 5g write keys and values. (Kept in one body: moving the steps into an agent
/// struct or into __forceinline__ functions changed the kernel's machine code, and the
/// sort is tuned on it.)
///
/// Passes for 32 varying bits: the top order 2 and a scan of O(1) shared reads per slot
/// (plus insertion of the short runs), or 6 when a long run is out of order; the LSD
/// order 4. (Before the predictor, sort_headline at dee66a7 on an H100: 4096 u32 keys in
/// 13.3 us uniform, 44.7, 57.7, 46.0, 33.5 us for q = 2, 3, 4, 8, all taking the 6 passes
/// after a scan that walked up to 2 local_tie_run slots per descent.)
///
/// StraightLsd (whole inputs of 4-byte keys: the lean shape's, up to lean_max keys, common.cuh,
/// and the small shape's of (window_items, small_max] keys, plan::small_straight): no
/// predictor and no top-field order, the straight LSD passes over every varying bit always
/// (at these sizes they beat the predictor's cost and the top order on every band measured).
/// PrefetchValues (pairs only): the values are loaded in 5b with the keys and kept in
/// registers until 5g (their load latency hidden behind the passes, Items more registers per
/// thread); otherwise 5g loads them after the passes.
template <class Key, class Word, bool Descending, int Block, int Items, int MinBlocks, bool StraightLsd = false,
          bool PrefetchValues = false>
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
    constexpr bool prefetch = has_values && PrefetchValues;
    std::conditional_t<prefetch, Word, unsigned char> early[prefetch ? items : 1];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int pos = warp * 32 * items + i * 32 + lane;
      idx[i] = static_cast<std::uint32_t>(pos);
      if (pos < m) {
        k[i] = to_ordered<Key, Descending>(ksrc[pos]);
        var |= (k[i] ^ first) & sort_mask;
        if constexpr (prefetch) early[i] = values.source(sel)[lo + pos];
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
          if constexpr (prefetch) {
            values.out[lo + pos] = early[i];
          } else if constexpr (has_values) {
            values.out[lo + pos] = values.source(sel)[lo + pos];
          }
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
    // positions) in shared memory in rank order, then, unless it is the last pass of the
    // sequence, reload them warp-striped for the next one (after the last, 5f and 5g read
    // s.keys and s.index).
    auto pass = [&](unsigned bit, unsigned width, bool reload) {
      int rank[items];
      rank_t(s.rank).RankKeys(k, rank, digit_of<bits_type>{bit, (1u << width) - 1u});
      __syncthreads();  // the rank storage is reused for the keys
#pragma unroll
      for (int i = 0; i < items; ++i) {
        s.keys[rank[i]] = k[i];
        if constexpr (has_values) s.index[rank[i]] = static_cast<std::uint16_t>(idx[i]);
      }
      __syncthreads();
      if (!reload) return;
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        k[i] = s.keys[pos];
        if constexpr (has_values) idx[i] = s.index[pos];
      }
      __syncthreads();
    };
    auto passes = [&](unsigned from, unsigned to) {
      for (unsigned bit = from; bit < to; bit += digit_bits) {
        const unsigned width = to - bit < digit_bits ? to - bit : digit_bits;
        pass(bit, width, bit + width < to);
      }
    };
    // 5e. The order of the passes, then the passes.
    // The top field: bits [split, high_bit), the top 16 varying bits. Windows hold several
    // children, already in order of this level's digit [shift, top): their top field
    // covers that digit and the 16 bits under it (segments and single children: the top
    // 16 varying bits).
    const unsigned below = high_bit < shift ? high_bit : shift;
    const unsigned split = below > low_bit + 16 ? below - 16 : low_bit;
    auto top_of = [&](bits_type w) { return (w & sort_mask) >> split; };
    // Every varying bit at once: the lean shape always, else when the top field holds them all.
    bool all_bits = StraightLsd || split == low_bit;
    if (!all_bits) {
      // The predictor of long runs of equal top fields (local_tie_distances): each thread
      // compares the fields of its own keys at load distances 32 d, d = 1..
      // local_tie_distances (registers only: no shuffles, no shared atomics; a presorted
      // input looks tied only where its runs pass 32 keys), and one __syncthreads_count
      // adds the threads that saw an equal pair. Padding slots get distinct fields that
      // no key has (a key's field is below 2^(key_bits - 1), as split >= 1).
      bits_type field[items];
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        field[i] = pos < m ? top_of(k[i]) : ~bits_type{0} - static_cast<bits_type>(i);
      }
      bool tied_at[local_tie_distances] = {};  // one chain of ORs per distance, not one long chain
#pragma unroll
      for (int d = 1; d <= local_tie_distances; ++d) {
#pragma unroll
        for (int i = 0; i + d < items; ++i) tied_at[d - 1] |= field[i] == field[i + d];
      }
      bool tied = false;
#pragma unroll
      for (int d = 0; d < local_tie_distances; ++d) tied |= tied_at[d];
      all_bits = __syncthreads_count(tied) >= local_tie_threads;
    }
    if (all_bits) {
      // Straight LSD passes over every varying bit [low_bit, high_bit).
      passes(low_bit, high_bit);
    } else {
      // The passes over the top field; then runs of keys equal on it are finished.
      passes(split, high_bit);
      // 5f. The ties under the top field.
      // Keys are in slot order in s.keys (the last pass placed them), each run of equal
      // top fields contiguous and in input order. Runs of at most local_tie_run keys are
      // sorted by insertion, one thread per run, found from its head (the walk as long as
      // the run); a longer run that is out of order on the full word sets long_run (runs
      // of equal keys and ordered runs, however long, need nothing). A run is longer than
      // local_tie_run iff its head's field equals the field local_tie_run slots on.
      // Whether a long run is out of order, in O(1) reads per slot: a descent (a key
      // above the next one on the sorted bits: only inside a run) whose field equals the
      // field local_tie_run - 1 slots back lies in a long run, and so is every descent
      // at least local_tie_run - 1 keys into a long run found; the head of a long run
      // reads its first local_tie_run keys for the earlier ones.
      constexpr int run_max = local_tie_run;
      int run_begin[items], run_end[items];
      int runs = 0;
      for (int slot = threadIdx.x; slot + 1 < m; slot += local_block) {
        const bits_type key = s.keys[slot], next = s.keys[slot + 1];
        const bits_type here = top_of(key);
        if (top_of(next) != here) continue;
        if ((key & sort_mask) > (next & sort_mask) && slot >= run_max - 1 &&
            top_of(s.keys[slot - (run_max - 1)]) == here)
          s.long_run = 1;
        if (slot > 0 && top_of(s.keys[slot - 1]) == here) continue;  // not the run's head
        if (slot + run_max < m && top_of(s.keys[slot + run_max]) == here) {
          // A long run (more than run_max keys): a descent among its first run_max keys
          // (later ones are found above).
          bits_type prev = key & sort_mask;
          for (int i = slot + 1; i < slot + run_max; ++i) {
            const bits_type w = s.keys[i] & sort_mask;
            if (prev > w) {
              s.long_run = 1;
              break;
            }
            prev = w;
          }
        } else {
          int end = slot + 2;
          while (end < m && top_of(s.keys[end]) == here) ++end;
          run_begin[runs] = slot;
          run_end[runs] = end;
          ++runs;
        }
      }
      __syncthreads();  // every run found, and long_run set, before any run is reordered
      if (s.long_run) {
        // Unordered long runs: LSD passes over every varying bit, from this order (it keeps
        // keys equal on the sorted bits in input order, so the result is stable; the short
        // runs are left to the passes).
#pragma unroll
        for (int i = 0; i < items; ++i) {
          const int pos = warp * 32 * items + i * 32 + lane;
          k[i] = s.keys[pos];
          if constexpr (has_values) idx[i] = s.index[pos];
        }
        __syncthreads();
        passes(low_bit, high_bit);
      } else {
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
      }
    }
    // 5g. Write the output: s.keys (and s.index) hold the range in sorted order.
    for (int slot = threadIdx.x; slot < m; slot += local_block) kdst[slot] = from_ordered<Key, Descending>(s.keys[slot]);
    if constexpr (has_values) {
      // The values go through shared memory (by input position), since the source may be
      // the output itself (the double-buffer API, or a window already in the output).
      Word v[items];
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp * 32 * items + i * 32 + lane;
        if constexpr (prefetch) {
          v[i] = early[i];
        } else if (pos < m) {
          v[i] = values.source(sel)[lo + pos];
        }
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

}  // namespace onepass::sort::gpu::hybrid_msd::detail
