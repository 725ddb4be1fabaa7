// onepass/sort/hybrid_msd.cuh — hybrid MSD radix sort on the GPU (CUDA), after Stehle &
// Jacobsen, "A Memory Bandwidth-Efficient Hybrid Radix Sort on GPUs" (SIGMOD 2017; HRS
// in the Onesweep paper's Figures 9–11).
//
// The sort consumes 8-bit digits from the most significant end of the bit range
// [begin_bit, end_bit) of the keys' order-preserving words (sort/key_traits.hpp, the
// same transform as onesweep: ascending or descending, IEEE totalOrder for float/double).
// Work is organised in levels (HRS §4: "MSD radix sort passes"); level L handles the
// "large" buckets, those of more than local_max keys, and splits each by its digit L:
//
//   1. tile histogram (HRS §4.1, the bucket histogram): the buckets are cut into tiles of
//      tile_items keys (a tile never spans two buckets); one block per tile counts its
//      digits in shared memory and writes the 2^8 counts to a count matrix laid out
//      bucket by bucket, digit-major inside a bucket ([bucket][digit][tile of bucket]);
//   2. one exclusive scan of the whole count matrix (three kernels over chunks of 4096
//      entries, reading the level's tile count from the device): inside a bucket's
//      region, entry (d, j) minus the region's first entry is the offset, from the
//      bucket's start, of the first key of digit d in tile j — the keys of digit d of
//      earlier tiles and of all smaller digits;
//   3. scatter (HRS §4.2): one block per tile ranks its keys by digit (a block-wide
//      stable multisplit, cub::BlockRadixRankMatch over keys loaded warp-striped),
//      stages them in shared memory in digit order and writes each digit's run to its
//      place, so that global writes coalesce. A bucket whose keys all share digit L (the
//      scan shows one digit holding the bucket) is not moved: the data stays where it is
//      and the level costs only its histogram read (long common prefixes, HRS §4.4);
//   4. classification (one block per bucket, thread d for digit d): each child bucket
//      of more than local_max keys becomes a large bucket of level L + 1 (its slots in
//      the next bucket list, tile table and window table taken with atomics, so the
//      bookkeeping stays on the device: no host round trip between levels); a child of
//      (small_max, local_max] keys becomes a local-sort segment of the large shape, one
//      of (window_items, small_max] keys a segment of the small shape; smaller children
//      are batched (HRS §4.3, "merging small buckets"): a parent's small children whose
//      first key falls in the same window of window_items positions of the parent form
//      one contiguous range of at most small_max keys, finished by one block;
//   5. local finish (HRS §4.3, "local sort"): one block per segment or window loads its
//      range into shared memory, finds the bits that vary inside it, and sorts on them
//      with 8-bit stable block-wide multisplit passes (cub::BlockRadixRankMatch), least
//      significant first, over at most the top 16 varying bits; runs of keys equal on
//      those bits are finished by insertion (rare for random keys; LSD passes over the
//      remaining bits when a run is longer than local_tie_run), writing the final output.
// After the last level, large buckets left with no bits to sort on (more than local_max
// equal keys) are copied to the output.
//
// Every step is stable (tiles are laid out in input order, the multisplit and the block
// sort keep ties in order), so the sort is stable: keys equal on the sorted bits keep
// their input order, and pairs keep each value with its key.
//
// Global passes: uniform 64-bit keys, 2^28 of them (local_max = 6144): level 0 (2^28 ->
// 256 buckets of 2^20), level 1 (-> 65536 buckets of about 4096), then the local finish:
// two histogram reads, two scatters and one local read and write, where onesweep makes
// one histogram read and eight scatters. Above 2^16 x local_max (about 4.0e8) uniform
// keys, a third level is needed whose buckets (about 2^14 keys at 2^30) leave each
// 4096-key tile with runs of about 16 keys per digit: the scatter's writes no longer
// coalesce, and the sort falls behind onesweep (measured on an H100 at 2^30 u64 keys:
// 0.82x onesweep; the Onesweep paper reports HRS's drop above ~550M keys).
// onepass::sort (sort/sort.cuh) takes onesweep there.
//
// Differences from the paper's code (the authors' published code was read, not copied):
// bucket counts never go to the host (kernels are launched for the largest possible
// number of tiles, buckets and windows, and the blocks beyond the device-side counts exit
// at once); sizes are 64-bit (any n); ties keep their order (HRS's scatter is not
// stable); digits are always 8 bits (the last level narrower when the bit range is not a
// multiple of 8).
#pragma once

#include <cuda_runtime.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort::hybrid_msd {

/// Bits per MSD digit (HRS §4: 8-bit digits, 256 buckets per split).
inline constexpr unsigned digit_bits = 8;
inline constexpr unsigned radix = 1u << digit_bits;

/// The double buffer of the double-buffer overloads (the same type as onesweep's).
using onepass::sort::onesweep::double_buffer;

namespace detail {

using onepass::sort::no_values;
using onepass::sort::onesweep::detail::value_word;
using onepass::sort::onesweep::detail::from_ordered;
using onepass::sort::onesweep::detail::to_ordered;

/// Threads of the histogram / scatter / copy blocks (one tile each).
inline constexpr int tile_block = 256;
/// Keys per thread of a tile: 32 KB of keys (or values) per tile.
template <class Key, class Word>
inline constexpr int tile_items_per_thread = (sizeof(Key) > sizeof(Word) ? sizeof(Key) : sizeof(Word)) == 8 ? 16 : 32;

/// The two shapes of the local finish (threads x keys per thread): small ranges (at most
/// 4096 keys: windows and children of up to 4096 keys) take 256 x 16, two blocks per SM;
/// larger children, up to local_max = 512 x 12 = 6144 keys, take 512 x 12. (One 512 x 16
/// shape for everything left half of each block idle on children of about 4096 keys, the
/// size uniform keys reach after two levels at 2^28, and one block per SM: 9.0 ms of a
/// 14.4 ms sort of 2^28 u64 keys on an H100.)
inline constexpr int small_block = 256;
inline constexpr int small_items = 16;
inline constexpr int large_block = 512;
inline constexpr int large_items = 12;
inline constexpr std::uint64_t small_max = std::uint64_t{small_block} * small_items;
/// Largest bucket finished in shared memory, and the window of the small-bucket batches
/// (a window holds at most 2 x window_items = small_max keys).
inline constexpr std::uint64_t local_max = std::uint64_t{large_block} * large_items;
inline constexpr std::uint64_t window_items = small_max / 2;

/// Which buffer holds a bucket's keys (and values): the caller's input, the output, or
/// the scratch buffer.
enum : std::uint32_t { in_buffer = 0, out_buffer = 1, scratch_buffer = 2 };
/// Where a scatter out of buffer `sel` writes: scratch, unless it reads scratch.
__host__ __device__ constexpr std::uint32_t scatter_target(std::uint32_t sel) {
  return sel == scratch_buffer ? out_buffer : scratch_buffer;
}

/// One large bucket of a level: keys [begin, begin + count) of buffer `sel`; its tiles are
/// [tile_base, tile_base + tiles) of the level's tile table, its count-matrix region starts
/// at tile_base * radix, its small-child windows at window_base.
struct bucket {
  std::uint64_t begin;
  std::uint64_t count;
  std::uint64_t tile_base;
  std::uint64_t window_base;
  std::uint32_t tiles;
  std::uint32_t sel;
};

/// A range [begin, end) finished by one local-sort block, read from buffer `sel`.
struct segment {
  std::uint64_t begin;
  std::uint64_t end;
  std::uint32_t sel;
  std::uint32_t pad;
};

/// Device-side sizes of one level's lists (allocated with atomics by classification).
struct level_counts {
  unsigned long long buckets;
  unsigned long long tiles;
  unsigned long long windows;
  unsigned long long segments;        // children of (window_items, small_max] keys
  unsigned long long large_segments;  // children of (small_max, local_max] keys
};

/// The three key (or value) buffers, indexed by bucket::sel.
template <class T>
struct buffers {
  const T* in;
  T* out;
  T* scratch;
  __device__ __forceinline__ const T* source(std::uint32_t sel) const {
    return sel == in_buffer ? in : (sel == out_buffer ? out : scratch);
  }
  /// The buffer a scatter out of buffer `sel` writes (scatter_target).
  __device__ __forceinline__ T* target(std::uint32_t sel) const {
    return scatter_target(sel) == out_buffer ? out : scratch;
  }
};

/// The per-level tables a level's kernels share.
struct level_tables {
  const bucket* buckets;          // this level's large buckets
  const std::uint32_t* tile_bucket;  // tile -> bucket
  const level_counts* counts;     // this level's sizes
  std::uint32_t* matrix;          // tile digit counts, [bucket][digit][tile of bucket]
  const unsigned long long* scanned;  // exclusive scan of matrix (64-bit)
};

/// Digit of a transformed word: bits [shift, shift + bits).
template <class Bits>
struct digit_of {
  unsigned shift;
  std::uint32_t mask;
  __device__ __forceinline__ std::uint32_t Digit(Bits b) const { return static_cast<std::uint32_t>(b >> shift) & mask; }
};

/// Level 0: one bucket (the whole input, in buffer `in`) and its tile table. (Templates
/// on Key so that the header can be included by several translation units.)
template <class Key>
__global__ void init_level_kernel(bucket* buckets, std::uint32_t* tile_bucket, level_counts* counts, std::uint64_t n,
                                  std::uint64_t tiles, std::uint32_t sel) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0) {
    buckets[0] = bucket{0, n, 0, 0, static_cast<std::uint32_t>(tiles), sel};
    *counts = level_counts{1, tiles, n / window_items + 1, 0, 0};
  }
  for (std::uint64_t t = i; t < tiles; t += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) tile_bucket[t] = 0;
}

/// A tile's place: its bucket and key range.
struct tile_place {
  bucket b;
  std::uint64_t j;      // tile index inside the bucket
  std::uint64_t begin;  // first key
  std::uint32_t count;  // keys of the tile
};

template <int TileItems>
__device__ __forceinline__ tile_place locate_tile(const level_tables& t, std::uint64_t tile) {
  tile_place p;
  p.b = t.buckets[t.tile_bucket[tile]];
  p.j = tile - p.b.tile_base;
  p.begin = p.b.begin + p.j * TileItems;
  const std::uint64_t left = p.b.begin + p.b.count - p.begin;
  p.count = static_cast<std::uint32_t>(left < TileItems ? left : TileItems);
  return p;
}

/// Step 1: the digit counts of each tile into the count matrix (blocks loop over the
/// level's tiles: the grid is one wave, and a level without large buckets costs a launch).
template <class Key, class Word, bool Descending>
__global__ void __launch_bounds__(tile_block) tile_histogram_kernel(level_tables t, buffers<Key> keys, unsigned shift,
                                                                    std::uint32_t mask) {
  constexpr int items = tile_items_per_thread<Key, Word>;
  constexpr int tile_items = tile_block * items;
  constexpr int warps = tile_block / 32;
  __shared__ std::uint32_t s_counts[warps][radix];
  const std::uint64_t tiles = t.counts->tiles;
  const unsigned warp = threadIdx.x / 32;
  for (std::uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const tile_place p = locate_tile<tile_items>(t, tile);
    for (int i = threadIdx.x; i < warps * static_cast<int>(radix); i += tile_block) (&s_counts[0][0])[i] = 0;
    __syncthreads();
    const Key* src = keys.source(p.b.sel) + p.begin;
    for (std::uint32_t i = threadIdx.x; i < p.count; i += tile_block) {
      const std::uint32_t d = static_cast<std::uint32_t>(to_ordered<Key, Descending>(src[i]) >> shift) & mask;
      atomicAdd(&s_counts[warp][d], 1u);
    }
    __syncthreads();
    std::uint32_t* region = t.matrix + p.b.tile_base * radix;
    for (unsigned d = threadIdx.x; d < radix; d += tile_block) {
      std::uint32_t c = 0;
#pragma unroll
      for (int w = 0; w < warps; ++w) c += s_counts[w][d];
      region[static_cast<std::uint64_t>(d) * p.b.tiles + p.j] = c;
    }
    __syncthreads();
  }
}

// Step 2: exclusive scan of the level's count matrix (its first tiles * radix + 1
// entries; the count is on the device), in chunks of scan_chunk entries: chunk sums,
// one block scanning the sums, then each chunk scanned from its offset.
inline constexpr int scan_block = 256;
inline constexpr int scan_items = 16;
inline constexpr std::uint64_t scan_chunk = std::uint64_t{scan_block} * scan_items;

__device__ __forceinline__ std::uint64_t matrix_entries(const level_counts* counts) {
  return counts->tiles * radix + 1;
}

/// The entries step 1 writes: all but the last (whose exclusive scan is the level's total; the
/// scan reads it as 0, so no entry is read before a kernel wrote it).
__device__ __forceinline__ std::uint64_t matrix_written(const level_counts* counts) {
  return counts->tiles * radix;
}

template <class Key>
__global__ void __launch_bounds__(scan_block) scan_reduce_kernel(const level_counts* counts,
                                                                 const std::uint32_t* matrix,
                                                                 unsigned long long* chunk_sums) {
  using reduce_t = cub::BlockReduce<unsigned long long, scan_block>;
  __shared__ typename reduce_t::TempStorage s;
  const std::uint64_t entries = matrix_entries(counts), written = matrix_written(counts);
  const std::uint64_t chunks = (entries + scan_chunk - 1) / scan_chunk;
  for (std::uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    unsigned long long sum = 0;
    const std::uint64_t base = c * scan_chunk;
#pragma unroll
    for (int i = 0; i < scan_items; ++i) {
      const std::uint64_t e = base + static_cast<std::uint64_t>(i) * scan_block + threadIdx.x;
      if (e < written) sum += matrix[e];
    }
    const unsigned long long total = reduce_t(s).Sum(sum);
    if (threadIdx.x == 0) chunk_sums[c] = total;
    __syncthreads();
  }
}

template <class Key>
__global__ void __launch_bounds__(1024) scan_chunks_kernel(const level_counts* counts,
                                                           unsigned long long* chunk_sums) {
  using scan_t = cub::BlockScan<unsigned long long, 1024>;
  __shared__ typename scan_t::TempStorage s;
  __shared__ unsigned long long s_carry;
  const std::uint64_t chunks = (matrix_entries(counts) + scan_chunk - 1) / scan_chunk;
  if (threadIdx.x == 0) s_carry = 0;
  __syncthreads();
  for (std::uint64_t base = 0; base < chunks; base += 1024) {
    const std::uint64_t c = base + threadIdx.x;
    const unsigned long long v = c < chunks ? chunk_sums[c] : 0ull;
    unsigned long long prefix, total;
    scan_t(s).ExclusiveSum(v, prefix, total);
    const unsigned long long carry = s_carry;
    if (c < chunks) chunk_sums[c] = carry + prefix;
    __syncthreads();
    if (threadIdx.x == 0) s_carry = carry + total;
    __syncthreads();
  }
}

template <class Key>
__global__ void __launch_bounds__(scan_block) scan_apply_kernel(const level_counts* counts,
                                                                const std::uint32_t* matrix,
                                                                const unsigned long long* chunk_sums,
                                                                unsigned long long* scanned) {
  // Coalesced: loads and stores go through shared memory (warp transposes); each thread
  // scans scan_items consecutive entries.
  using load_t = cub::BlockLoad<std::uint32_t, scan_block, scan_items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using store_t = cub::BlockStore<unsigned long long, scan_block, scan_items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using scan_t = cub::BlockScan<unsigned long long, scan_block>;
  __shared__ union {
    typename load_t::TempStorage load;
    typename store_t::TempStorage store;
    typename scan_t::TempStorage scan;
  } s;
  const std::uint64_t entries = matrix_entries(counts), written = matrix_written(counts);
  const std::uint64_t chunks = (entries + scan_chunk - 1) / scan_chunk;
  for (std::uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const std::uint64_t base = c * scan_chunk;  // base <= written: c < chunks
    const int valid = static_cast<int>(entries - base < scan_chunk ? entries - base : scan_chunk);
    const int readable = static_cast<int>(written - base < scan_chunk ? written - base : scan_chunk);
    std::uint32_t v[scan_items];
    load_t(s.load).Load(matrix + base, v, readable, 0u);
    unsigned long long x[scan_items];
#pragma unroll
    for (int i = 0; i < scan_items; ++i) x[i] = v[i];
    __syncthreads();
    scan_t(s.scan).ExclusiveSum(x, x);
    const unsigned long long offset = chunk_sums[c];
#pragma unroll
    for (int i = 0; i < scan_items; ++i) x[i] += offset;
    __syncthreads();
    store_t(s.store).Store(scanned + base, x, valid);
    __syncthreads();
  }
}

/// Count of digit d in bucket b (from the scanned matrix).
__device__ __forceinline__ std::uint64_t bucket_digit_count(const unsigned long long* scanned, const bucket& b,
                                                             unsigned d) {
  const unsigned long long* region = scanned + b.tile_base * radix;
  return region[static_cast<std::uint64_t>(d + 1) * b.tiles] - region[static_cast<std::uint64_t>(d) * b.tiles];
}

/// Step 3: the scatter of each tile (keys, then values, through shared memory in digit
/// order). Blocks loop over the level's tiles.
template <class Key, class Word, bool Descending>
__global__ void __launch_bounds__(tile_block, 2) scatter_kernel(level_tables t, buffers<Key> keys,
                                                                buffers<Word> values, unsigned shift,
                                                                std::uint32_t mask) {
  constexpr bool has_values = !std::is_same_v<Word, no_values>;
  using bits_type = typename radix_traits<Key>::bits_type;
  constexpr int items = tile_items_per_thread<Key, Word>;
  constexpr int tile_items = tile_block * items;
  using rank_t = cub::BlockRadixRankMatch<tile_block, digit_bits, false>;
  static_assert(rank_t::BINS_TRACKED_PER_THREAD == 1, "one digit per thread");
  using value_t = std::conditional_t<has_values, Word, unsigned char>;
  struct stage {
    union {
      typename rank_t::TempStorage rank;
      bits_type keys[tile_items];
      value_t values[tile_items];
    };
    unsigned char digits[has_values ? tile_items : 1];
    long long base[radix];  // global position of tile slot s of digit d: base[d] + s
    int trivial;
  };
  __shared__ stage s;
  const std::uint64_t tiles = t.counts->tiles;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (std::uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const tile_place p = locate_tile<tile_items>(t, tile);
    const Key* src = keys.source(p.b.sel) + p.begin;
    if (threadIdx.x == 0) {
      const std::uint32_t d0 = static_cast<std::uint32_t>(to_ordered<Key, Descending>(src[0]) >> shift) & mask;
      s.trivial = bucket_digit_count(t.scanned, p.b, d0) == p.b.count;
    }
    __syncthreads();
    if (s.trivial) {  // every key of the bucket has this digit: the bucket stays in place
      __syncthreads();
      continue;
    }
    // Warp-striped: key i of thread (warp, lane) is tile position warp * 32 * items + i * 32
    // + lane, the order in which BlockRadixRankMatch ranks (so the ranking is stable).
    bits_type k[items];
    int rank[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::uint32_t pos = warp * 32 * items + i * 32 + lane;
      k[i] = pos < p.count ? to_ordered<Key, Descending>(src[pos]) : ~bits_type{0};
    }
    // Padding words are all ones: digit `mask`, ranked after the real keys of that digit.
    int prefix[1];
    rank_t(s.rank).RankKeys(k, rank, digit_of<bits_type>{shift, mask}, prefix);
    {
      const unsigned d = threadIdx.x;
      const unsigned long long* region = t.scanned + p.b.tile_base * radix;
      const unsigned long long first = region[static_cast<std::uint64_t>(d) * p.b.tiles + p.j] - region[0];
      s.base[d] = static_cast<long long>(p.b.begin + first) - prefix[0];
    }
    __syncthreads();  // the rank storage is reused for the keys
#pragma unroll
    for (int i = 0; i < items; ++i) {
      s.keys[rank[i]] = k[i];
      if constexpr (has_values) s.digits[rank[i]] = static_cast<unsigned char>((k[i] >> shift) & mask);
    }
    __syncthreads();
    Key* dst = keys.target(p.b.sel);
    for (std::uint32_t slot = threadIdx.x; slot < p.count; slot += tile_block) {
      const bits_type w = s.keys[slot];
      const unsigned d = static_cast<unsigned>(w >> shift) & mask;
      dst[s.base[d] + slot] = from_ordered<Key, Descending>(w);
    }
    if constexpr (has_values) {
      const Word* vsrc = values.source(p.b.sel) + p.begin;
      Word v[items];
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const std::uint32_t pos = warp * 32 * items + i * 32 + lane;
        if (pos < p.count) v[i] = vsrc[pos];
      }
      __syncthreads();  // the keys' slots are reused for the values
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const std::uint32_t pos = warp * 32 * items + i * 32 + lane;
        if (pos < p.count) s.values[rank[i]] = v[i];
      }
      __syncthreads();
      Word* vdst = values.target(p.b.sel);
      for (std::uint32_t slot = threadIdx.x; slot < p.count; slot += tile_block)
        vdst[s.base[s.digits[slot]] + slot] = s.values[slot];
    }
    __syncthreads();
  }
}

/// Step 4: the children of each large bucket (a block per bucket, thread d for digit d;
/// blocks loop over the level's buckets). After the last level the large children (runs
/// of equal keys) are only copied.
template <class Key>
__global__ void __launch_bounds__(radix) classify_kernel(level_tables t, bucket* next_buckets,
                                                         std::uint32_t* next_tile_bucket, level_counts* next_counts,
                                                         segment* segments, segment* large_segments,
                                                         level_counts* segment_counts,
                                                         unsigned long long* window_lo, unsigned long long* window_hi,
                                                         std::uint32_t* window_sel, int tile_items) {
  __shared__ std::uint32_t s_large[radix];
  __shared__ std::uint64_t s_large_base[radix], s_large_tiles[radix];
  __shared__ int s_num_large;
  __shared__ int s_trivial;
  const std::uint64_t buckets = t.counts->buckets;
  const unsigned d = threadIdx.x;
  for (std::uint64_t bi = blockIdx.x; bi < buckets; bi += gridDim.x) {
    const bucket b = t.buckets[bi];
    if (d == 0) {
      s_num_large = 0;
      s_trivial = 0;
    }
    __syncthreads();
    const unsigned long long* region = t.scanned + b.tile_base * radix;
    const std::uint64_t first = region[static_cast<std::uint64_t>(d) * b.tiles] - region[0];
    const std::uint64_t count =
        region[static_cast<std::uint64_t>(d + 1) * b.tiles] - region[static_cast<std::uint64_t>(d) * b.tiles];
    if (count == b.count) s_trivial = 1;
    __syncthreads();
    // A bucket of one digit was not moved: its only child is the bucket itself, same buffer.
    const std::uint32_t sel = s_trivial ? b.sel : scatter_target(b.sel);
    const std::uint64_t begin = b.begin + first;
    if (count > local_max) {
      const std::uint64_t tiles = (count + tile_items - 1) / tile_items;
      const auto idx = atomicAdd(&next_counts->buckets, 1ull);
      const auto tile_base = atomicAdd(&next_counts->tiles, static_cast<unsigned long long>(tiles));
      const auto window_base =
          atomicAdd(&next_counts->windows, static_cast<unsigned long long>(count / window_items + 1));
      next_buckets[idx] = bucket{begin, count, tile_base, window_base, static_cast<std::uint32_t>(tiles), sel};
      const int slot = atomicAdd(&s_num_large, 1);
      s_large[slot] = static_cast<std::uint32_t>(idx);
      s_large_base[slot] = tile_base;
      s_large_tiles[slot] = tiles;
    } else if (count > small_max) {
      const auto idx = atomicAdd(&segment_counts->large_segments, 1ull);
      large_segments[idx] = segment{begin, begin + count, sel, 0};
    } else if (count > window_items) {
      const auto idx = atomicAdd(&segment_counts->segments, 1ull);
      segments[idx] = segment{begin, begin + count, sel, 0};
    } else if (count > 0) {
      const std::uint64_t w = b.window_base + (begin - b.begin) / window_items;
      atomicMin(&window_lo[w], static_cast<unsigned long long>(begin));
      atomicMax(&window_hi[w], static_cast<unsigned long long>(begin + count));
      window_sel[w] = sel;  // every small child of this bucket has the same buffer
    }
    __syncthreads();
    // The tile table of the large children, written by the whole block.
    for (int c = 0; c < s_num_large; ++c) {
      const std::uint64_t base = s_large_base[c], tiles = s_large_tiles[c];
      for (std::uint64_t i = threadIdx.x; i < tiles; i += radix) next_tile_bucket[base + i] = s_large[c];
    }
    __syncthreads();
  }
}

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
    // Warp-striped loads (coalesced; the rank order of BlockRadixRankMatch).
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
      // Nothing to sort (one key, or keys equal on the sorted bits): copied in order.
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
    // Windows hold several children, already in order of this level's digit [shift, top):
    // the passes cover that digit and the 16 bits under it (segments and single children:
    // the top 16 varying bits), and runs of keys equal on those bits are then finished.
    const unsigned below = high_bit < shift ? high_bit : shift;
    const unsigned split = below > low_bit + 16 ? below - 16 : low_bit;
    passes(split, high_bit);
    if (split > low_bit) {
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
    // s.keys (and s.index) hold the range in sorted order.
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

/// After the last level: the large buckets left (runs of more than local_max equal keys)
/// copied to the output, one tile per block iteration.
template <class Key, class Word>
__global__ void __launch_bounds__(tile_block) copy_kernel(level_tables t, buffers<Key> keys, buffers<Word> values) {
  constexpr bool has_values = !std::is_same_v<Word, no_values>;
  constexpr int tile_items = tile_block * tile_items_per_thread<Key, Word>;
  const std::uint64_t tiles = t.counts->tiles;
  for (std::uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const tile_place p = locate_tile<tile_items>(t, tile);
    if (keys.source(p.b.sel) == keys.out) continue;  // already in place (or in == out)
    const Key* ks = keys.source(p.b.sel) + p.begin;
    for (std::uint32_t i = threadIdx.x; i < p.count; i += tile_block) keys.out[p.begin + i] = ks[i];
    if constexpr (has_values) {
      const Word* vs = values.source(p.b.sel) + p.begin;
      for (std::uint32_t i = threadIdx.x; i < p.count; i += tile_block) values.out[p.begin + i] = vs[i];
    }
  }
}

/// The kernels and temporary storage of one hybrid MSD sort of n keys of type Key
/// (values of type Value; no_values for keys-only), bits [begin_bit, end_bit).
template <class Key, class Value>
class plan {
 public:
  using word = std::conditional_t<std::is_same_v<Value, no_values>, no_values, value_word<Value>>;
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  static constexpr int tile_items = tile_block * tile_items_per_thread<Key, word>;

  plan(std::uint64_t n, unsigned begin_bit, unsigned end_bit, bool descending)
      : n_(n), begin_bit_(begin_bit), end_bit_(end_bit), descending_(descending) {
    levels_ = (end_bit - begin_bit + digit_bits - 1) / digit_bits;
    max_buckets_ = n / (local_max + 1) + 1;
    max_tiles_ = (n + tile_items - 1) / tile_items + max_buckets_;
    max_windows_ = n / window_items + max_buckets_ + 1;
    max_segments_ = n / (window_items + 1) + 2;
    max_large_segments_ = n / (small_max + 1) + 2;
    matrix_entries_ = max_tiles_ * radix + 1;
    max_chunks_ = (matrix_entries_ + scan_chunk - 1) / scan_chunk;
  }

  /// Global levels (MSD digit places) at most; the number run depends on the keys.
  unsigned max_levels() const { return levels_; }
  /// True when the input goes straight to the local finish (n <= local_max).
  bool local_only() const { return n_ <= local_max; }

  std::size_t temp_bytes() const {
    protocol::temp_layout layout;
    for (std::size_t part : parts()) layout.add(part);
    return layout.total();
  }

  /// Enqueues the sort: keys.in -> keys.out (values alike), scratch buffers of n keys
  /// (values) in keys.scratch (values.scratch); keys.in may equal keys.out.
  void run(void* d_temp, buffers<Key> keys, buffers<word> values, cudaStream_t stream) const {
    if (n_ == 0) return;
    if (descending_) {
      run_order<true>(d_temp, keys, values, stream);
    } else {
      run_order<false>(d_temp, keys, values, stream);
    }
  }

 private:
  std::array<std::size_t, 13> parts() const {
    const bool levels = n_ > local_max;
    return {levels ? matrix_entries_ * sizeof(std::uint32_t) : 0,
            levels ? matrix_entries_ * sizeof(unsigned long long) : 0,
            levels ? max_chunks_ * sizeof(unsigned long long) : 0,
            levels ? max_buckets_ * sizeof(bucket) : 0,
            levels ? max_buckets_ * sizeof(bucket) : 0,
            levels ? max_tiles_ * sizeof(std::uint32_t) : 0,
            levels ? max_tiles_ * sizeof(std::uint32_t) : 0,
            3 * sizeof(level_counts),
            max_segments_ * sizeof(segment),
            max_large_segments_ * sizeof(segment),
            levels ? max_windows_ * sizeof(unsigned long long) : 0,
            levels ? max_windows_ * sizeof(unsigned long long) : 0,
            levels ? max_windows_ * sizeof(std::uint32_t) : 0};
  }

  template <bool Descending>
  void run_order(void* d_temp, buffers<Key> keys, buffers<word> values, cudaStream_t stream) const {
    const auto sizes = parts();
    protocol::temp_layout layout;
    unsigned char* ptr[13];
    for (int i = 0; i < 13; ++i) ptr[i] = protocol::temp_layout::at(d_temp, layout.add(sizes[i]));
    auto* matrix = reinterpret_cast<std::uint32_t*>(ptr[0]);
    auto* scanned = reinterpret_cast<unsigned long long*>(ptr[1]);
    auto* chunk_sums = reinterpret_cast<unsigned long long*>(ptr[2]);
    bucket* bucket_list[2] = {reinterpret_cast<bucket*>(ptr[3]), reinterpret_cast<bucket*>(ptr[4])};
    std::uint32_t* tile_bucket[2] = {reinterpret_cast<std::uint32_t*>(ptr[5]), reinterpret_cast<std::uint32_t*>(ptr[6])};
    auto* counts = reinterpret_cast<level_counts*>(ptr[7]);  // [0], [1]: levels (alternating); [2]: segments
    auto* segments = reinterpret_cast<segment*>(ptr[8]);
    auto* large_segments = reinterpret_cast<segment*>(ptr[9]);
    auto* window_lo = reinterpret_cast<unsigned long long*>(ptr[10]);
    auto* window_hi = reinterpret_cast<unsigned long long*>(ptr[11]);
    auto* window_sel = reinterpret_cast<std::uint32_t*>(ptr[12]);

    constexpr auto small = local_sort_kernel<Key, word, Descending, small_block, small_items, 2>;
    constexpr auto large = local_sort_kernel<Key, word, Descending, large_block, large_items, 1>;
    constexpr std::size_t small_shared = sizeof(local_stage<Key, word, small_block, small_items>);
    constexpr std::size_t large_shared = sizeof(local_stage<Key, word, large_block, large_items>);
    onepass::sort::onesweep::detail::allow_dynamic_shared<small>(small_shared);
    onepass::sort::onesweep::detail::allow_dynamic_shared<large>(large_shared);

    if (n_ <= local_max) {
      // One local sort of the whole input on all its bits: one launch, nothing copied.
      const segment whole{0, n_, in_buffer, 0};
      if (n_ <= small_max) {
        small<<<1, small_block, small_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                        nullptr, begin_bit_, end_bit_, end_bit_, whole);
      } else {
        large<<<1, large_block, large_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                        nullptr, begin_bit_, end_bit_, end_bit_, whole);
      }
      ONEPASS_CUDA_CHECK_LAUNCH();
      return;
    }

    // Grids of one wave (the kernels loop over the level's work, whose size is on the
    // device): a level with nothing left costs a launch per kernel.
    constexpr auto histogram = tile_histogram_kernel<Key, word, Descending>;
    constexpr auto scatter = scatter_kernel<Key, word, Descending>;
    constexpr auto classify = classify_kernel<Key>;
    constexpr auto copy = copy_kernel<Key, word>;
    constexpr auto reduce = scan_reduce_kernel<Key>;
    constexpr auto apply = scan_apply_kernel<Key>;
    using onepass::device::resident_grid;
    const unsigned histogram_grid = resident_grid<histogram>(tile_block, max_tiles_);
    const unsigned scatter_grid = resident_grid<scatter>(tile_block, max_tiles_);
    const unsigned classify_grid = resident_grid<classify>(radix, max_buckets_);
    const unsigned copy_grid = resident_grid<copy>(tile_block, max_tiles_);
    const unsigned reduce_grid = resident_grid<reduce>(scan_block, max_chunks_);
    const unsigned apply_grid = resident_grid<apply>(scan_block, max_chunks_);
    const unsigned small_grid = resident_grid<small>(small_block, max_windows_ + max_segments_, small_shared);
    const unsigned large_grid = resident_grid<large>(large_block, max_large_segments_, large_shared);

    const std::uint64_t tiles0 = (n_ + tile_items - 1) / tile_items;
    init_level_kernel<Key><<<onepass::device::stride_grid(tiles0, 256, 4096), 256, 0, stream>>>(
        bucket_list[0], tile_bucket[0], counts, n_, tiles0, in_buffer);
    ONEPASS_CUDA_CHECK_LAUNCH();
    for (unsigned level = 0; level < levels_; ++level) {
      const int cur = level % 2, nxt = 1 - cur;
      const unsigned top = end_bit_ - level * digit_bits;
      const unsigned shift = top - begin_bit_ > digit_bits ? top - digit_bits : begin_bit_;
      const std::uint32_t mask = (1u << (top - shift)) - 1u;
      const bool last = shift == begin_bit_;
      level_tables t{bucket_list[cur], tile_bucket[cur], counts + cur, matrix, scanned};
      histogram<<<histogram_grid, tile_block, 0, stream>>>(t, keys, shift, mask);
      ONEPASS_CUDA_CHECK_LAUNCH();
      reduce<<<reduce_grid, scan_block, 0, stream>>>(counts + cur, matrix, chunk_sums);
      ONEPASS_CUDA_CHECK_LAUNCH();
      scan_chunks_kernel<Key><<<1, 1024, 0, stream>>>(counts + cur, chunk_sums);
      ONEPASS_CUDA_CHECK_LAUNCH();
      apply<<<apply_grid, scan_block, 0, stream>>>(counts + cur, matrix, chunk_sums, scanned);
      ONEPASS_CUDA_CHECK_LAUNCH();
      scatter<<<scatter_grid, tile_block, 0, stream>>>(t, keys, values, shift, mask);
      ONEPASS_CUDA_CHECK_LAUNCH();
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(counts + nxt, 0, sizeof(level_counts), stream));
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(counts + 2, 0, sizeof(level_counts), stream));
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(window_lo, 0xFF, max_windows_ * sizeof(unsigned long long), stream));
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(window_hi, 0, max_windows_ * sizeof(unsigned long long), stream));
      classify<<<classify_grid, radix, 0, stream>>>(t, bucket_list[nxt], tile_bucket[nxt], counts + nxt, segments,
                                                    large_segments, counts + 2, window_lo, window_hi, window_sel,
                                                    tile_items);
      ONEPASS_CUDA_CHECK_LAUNCH();
      // The children share the bits at and above `top`: windows hold several children,
      // which differ in this level's digit, so the local sort covers [begin_bit, top).
      small<<<small_grid, small_block, small_shared, stream>>>(keys, values, window_lo, window_hi, window_sel,
                                                               counts + cur, segments, &counts[2].segments,
                                                               begin_bit_, shift, top, segment{});
      ONEPASS_CUDA_CHECK_LAUNCH();
      large<<<large_grid, large_block, large_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr,
                                                               large_segments, &counts[2].large_segments,
                                                               begin_bit_, shift, top, segment{});
      ONEPASS_CUDA_CHECK_LAUNCH();
      if (last) {
        level_tables rest{bucket_list[nxt], tile_bucket[nxt], counts + nxt, matrix, scanned};
        copy<<<copy_grid, tile_block, 0, stream>>>(rest, keys, values);
        ONEPASS_CUDA_CHECK_LAUNCH();
      }
    }
  }

  std::uint64_t n_;
  unsigned begin_bit_, end_bit_;
  bool descending_;
  unsigned levels_ = 0;
  std::uint64_t max_buckets_ = 0, max_tiles_ = 0, max_windows_ = 0, max_segments_ = 0, matrix_entries_ = 0;
  std::uint64_t max_chunks_ = 0, max_large_segments_ = 0;
};

template <class Key, class Value>
void sort_copy(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
               const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
               bool descending, cudaStream_t stream) {
  namespace os = onepass::sort::onesweep::detail;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using word = typename plan<Key, Value>::word;
  os::check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  plan<Key, Value> p(n, begin_bit, end_bit, descending);
  const bool scratch = !p.local_only();
  // The plan's storage (from the first 256-byte boundary: its answer less the slack),
  // then the scratch buffers.
  protocol::temp_layout layout;
  layout.add(p.temp_bytes() - protocol::temp_alignment);
  const std::size_t keys_at = layout.add(scratch ? n * sizeof(Key) : 0);
  std::size_t values_at = 0;
  if constexpr (has_values) values_at = layout.add(scratch ? n * sizeof(Value) : 0);
  const std::size_t required = layout.total();
  const bool run = protocol::query_or_check(function, d_temp, temp_bytes, required, n == 0, [&] {
    os::check_pointer(function, "d_keys_in", keys_in);
    os::check_pointer(function, "d_keys_out", keys_out);
    os::check_disjoint(function, "d_keys_out", "d_keys_in", keys_out, keys_in, n);
    if constexpr (has_values) {
      os::check_pointer(function, "d_values_in", values_in);
      os::check_pointer(function, "d_values_out", values_out);
      os::check_disjoint(function, "d_values_out", "d_values_in", values_out, values_in, n);
    }
  });
  if (!run) return;
  buffers<Key> k{keys_in, keys_out, protocol::temp_layout::at<Key>(d_temp, keys_at)};
  buffers<word> v{};
  if constexpr (has_values)
    v = buffers<word>{reinterpret_cast<const word*>(values_in), reinterpret_cast<word*>(values_out),
                      protocol::temp_layout::at<word>(d_temp, values_at)};
  p.run(d_temp, k, v, stream);
}

template <class Key, class Value>
void sort_buffers(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
                  double_buffer<Value>* values, std::size_t n, unsigned begin_bit, unsigned end_bit, bool descending,
                  cudaStream_t stream) {
  namespace os = onepass::sort::onesweep::detail;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using word = typename plan<Key, Value>::word;
  os::check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  plan<Key, Value> p(n, begin_bit, end_bit, descending);
  const std::size_t required = p.temp_bytes();
  if (protocol::answer_query(d_temp, temp_bytes, required)) return;
  os::check_selector(function, "keys", keys.selector);
  if constexpr (has_values) os::check_selector(function, "values", values->selector);
  if (n == 0) return;
  os::check_pointer(function, "keys.buffers[0]", keys.buffers[0]);
  os::check_pointer(function, "keys.buffers[1]", keys.buffers[1]);
  os::check_disjoint(function, "keys.buffers[1]", "keys.buffers[0]", keys.buffers[1], keys.buffers[0], n);
  if constexpr (has_values) {
    os::check_pointer(function, "values.buffers[0]", values->buffers[0]);
    os::check_pointer(function, "values.buffers[1]", values->buffers[1]);
    os::check_disjoint(function, "values.buffers[1]", "values.buffers[0]", values->buffers[1], values->buffers[0], n);
  }
  protocol::check_temp_bytes(function, temp_bytes, required);
  // The sorted data ends in keys.current(): the input is read from it at level 0 (or by
  // the local sort, in place), then it is the output; the alternate is the scratch.
  buffers<Key> k{keys.current(), keys.current(), keys.alternate()};
  buffers<word> v{};
  if constexpr (has_values)
    v = buffers<word>{reinterpret_cast<const word*>(values->current()), reinterpret_cast<word*>(values->current()),
                      reinterpret_cast<word*>(values->alternate())};
  p.run(d_temp, k, v, stream);
}

}  // namespace detail

/// Sorts n keys with the hybrid MSD radix sort (Stehle & Jacobsen 2017, §4; see the file
/// comment): d_keys_out[0, n) = d_keys_in[0, n) in ascending (or, with `descending`,
/// descending) order of the bits [begin_bit, end_bit) of their order-preserving transform
/// (sort/key_traits.hpp, as onesweep::sort_keys: IEEE totalOrder for float/double).
/// Stable: keys equal on those bits keep their input order. Out-of-place: d_keys_in is
/// not modified.
///
/// Key: uint32_t, int32_t, float, uint64_t, int64_t or double. d_keys_in, d_keys_out:
/// device pointers to n keys, not overlapping. begin_bit < end_bit <= 8 * sizeof(Key).
/// n: any size_t. Global passes: at most ceil((end_bit - begin_bit) / 8) levels, each a
/// histogram read and a scatter of the keys still in buckets of more than local_max =
/// 6144 keys, then one shared-memory finish per bucket of at most local_max keys.
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set
/// (from n and the bit range; nothing enqueued). Otherwise d_temp must hold at least that
/// many bytes (any alignment); the work is enqueued on `stream`, not waited for. Storage:
/// n keys of scratch when n > local_max, plus about 1.2 bytes per key of bookkeeping (count
/// matrix, its scan, bucket and tile lists) for 8-byte keys, 0.6 for 4-byte keys.
///
/// Throws onepass::error (nothing enqueued) for end_bit > 8 * sizeof(Key) or begin_bit >=
/// end_bit, and in the run phase for null or misaligned pointers with n > 0, overlapping
/// input and output, or temp_bytes below the query's answer; throws
/// onepass::runtime_failure when a CUDA call or launch fails.
template <class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t n,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  onepass::sort::onesweep::detail::check_types<Key, detail::no_values>();
  detail::sort_copy<Key, detail::no_values>("onepass::sort::hybrid_msd::sort_keys", d_temp, temp_bytes, d_keys_in,
                                            d_keys_out, nullptr, nullptr, n, begin_bit, end_bit, descending, stream);
}

/// Sorts n (key, value) pairs by key with the hybrid MSD radix sort, stable: as
/// sort_keys, and d_values_out[i] is the value that came with d_keys_out[i]. Value: any
/// trivially copyable type of 4 or 8 bytes; d_values_in, d_values_out: device pointers to
/// n values, aligned to sizeof(Value), not overlapping each other. Temporary storage:
/// sort_keys's plus n values of scratch when n > local_max. Throws as sort_keys, also for
/// null, misaligned or overlapping value pointers.
template <class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                Value* d_values_out, std::size_t n, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  onepass::sort::onesweep::detail::check_types<Key, Value>();
  detail::sort_copy<Key, Value>("onepass::sort::hybrid_msd::sort_pairs", d_temp, temp_bytes, d_keys_in, d_keys_out,
                                d_values_in, d_values_out, n, begin_bit, end_bit, descending, stream);
}

/// Sorts the n keys of keys.current() (double-buffer variant): both buffers (n keys each,
/// not overlapping) may be overwritten; the sorted keys end in keys.current() (the
/// selector is not changed). Order, stability, bit range and errors as sort_keys (plus a
/// selector other than 0 or 1). Temporary storage: the bookkeeping only (no n keys).
template <class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t n, unsigned begin_bit = 0,
               unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  onepass::sort::onesweep::detail::check_types<Key, detail::no_values>();
  detail::sort_buffers<Key, detail::no_values>("onepass::sort::hybrid_msd::sort_keys", d_temp, temp_bytes, keys,
                                               nullptr, n, begin_bit, end_bit, descending, stream);
}

/// Sorts n pairs held in keys.current() / values.current() (double-buffer variant): as the
/// keys-only double-buffer sort_keys; the sorted pairs end in the current buffers.
template <class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t n, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  onepass::sort::onesweep::detail::check_types<Key, Value>();
  detail::sort_buffers<Key, Value>("onepass::sort::hybrid_msd::sort_pairs", d_temp, temp_bytes, keys, &values, n,
                                   begin_bit, end_bit, descending, stream);
}

}  // namespace onepass::sort::hybrid_msd
