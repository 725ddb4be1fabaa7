// onepass/sort/hybrid_msd/levels.cuh — the global levels of the hybrid MSD radix sort:
// steps 1-4 of the file comment of onepass/sort/hybrid_msd.cuh (tile histogram, scan of
// the count matrix, scatter, classification), the level-0 set-up and the copy of the
// large buckets left after the last level. Include onepass/sort/hybrid_msd.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cstdint>
#include <type_traits>

#include "onepass/sort/hybrid_msd/common.cuh"

namespace onepass::sort::gpu::hybrid_msd::detail {

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
/// order). Blocks loop over the level's tiles. Its steps, marked in the body: 3a locate the
/// tile (a bucket of one digit stays in place); 3b load and rank its keys; 3c stage them in
/// digit order; 3d write the keys' runs; 3e the values alike.
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
    // 3a. The tile; a bucket whose keys all have one digit stays in place.
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
    // 3b. Load and rank. Warp-striped: key i of thread (warp, lane) is tile position
    // warp * 32 * items + i * 32 + lane, the order in which BlockRadixRankMatch ranks (so
    // the ranking is stable); thread d: the global position of digit d's run.
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
    // 3c. The keys (and, with values, their digits) staged in digit order.
#pragma unroll
    for (int i = 0; i < items; ++i) {
      s.keys[rank[i]] = k[i];
      if constexpr (has_values) s.digits[rank[i]] = static_cast<unsigned char>((k[i] >> shift) & mask);
    }
    __syncthreads();
    // 3d. Each digit's run of keys written to its place (coalesced).
    Key* dst = keys.target(p.b.sel);
    for (std::uint32_t slot = threadIdx.x; slot < p.count; slot += tile_block) {
      const bits_type w = s.keys[slot];
      const unsigned d = static_cast<unsigned>(w >> shift) & mask;
      dst[s.base[d] + slot] = from_ordered<Key, Descending>(w);
    }
    if constexpr (has_values) {
      // 3e. The values alike, staged at their keys' ranks.
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

}  // namespace onepass::sort::gpu::hybrid_msd::detail
