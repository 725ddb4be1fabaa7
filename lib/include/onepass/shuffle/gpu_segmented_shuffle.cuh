// onepass/shuffle/gpu_segmented_shuffle.cuh — many independent bijective shuffles in one
// call on the GPU (CUDA): the segmented (batched) shuffle.
//
// Definition (the CPU twin's, shuffle/cpu_segmented_shuffle.hpp): segment s, of length
// m_s, is shuffled exactly as the single shuffle of m_s items with seed
// segment_seed(seed, s) (shuffle/segment_seed.hpp): VariablePhilox on [0, 2^b),
// b = max(4, ceil(log2 m_s)), round keys the low 32 bits of the first outputs of
// std::mt19937_64(segment_seed(seed, s)); the j-th index i of [0, 2^b) (in order) whose
// image f(i) is below m_s sends in[f(i)] to out[j] (Mitchell et al., "Bandwidth-Optimal
// Random Shuffling for GPUs", §4, Algorithm 1). The output equals the CPU twin's bit for
// bit whatever path runs (tests/gpu/test_gpu_segmented_shuffle.cu).
//
// Paths by segment length (one launch per path, not per segment):
//   warp path   (m_s <= warp_segment_max = 256): one warp shuffles one segment at a time.
//               The 32 lanes first derive the round keys of 32 segments at once (lane j:
//               segment j of its group, random/mt19937_64_prefix.hpp), into shared
//               memory; then, per segment, the warp copies the items into its shared-memory
//               stage (cp.async, coalesced; elements up to 16 bytes), evaluates the
//               bijection over the domain (one chunk of 32 x warp_items indices) while the
//               copy is in flight, ranks the kept images with ballots and moves
//               stage[f(i)] -> out[rank]: one read and one write of each item.
//   block path  (up to stage_bytes = 32 KB of items: 4096 uint64): one block per segment,
//               copied into shared memory (cp.async, coalesced, once) while the first
//               tile's images are computed; the bijection runs
//               in tiles of 256 x 4 indices ranked by a block-wide exclusive scan of the
//               ballot counts with a running offset (no look-back: the block owns the
//               segment), gathering from shared memory; round keys from a table that one
//               thread per segment fills first.
//   tiled path  (longer segments): every such segment's tiles (256 x 4 indices) in one
//               persistent launch of a single-pass kernel; tiles are taken in order from a
//               counter, so the tiles in flight belong to a few consecutive segments (their
//               items stay in L2), and each tile's decoupled look-back (scan/tile_state.cuh)
//               stops at its segment's first tile, which publishes its count as an inclusive
//               prefix at once. The forward shuffle pipelines two tiles per block (the next
//               tile's elements load by cp.async while the current one looks back and
//               stores; tiled_pipelined_kernel), as the single shuffle does.
// With offsets, one classification kernel reads the offsets, checks them (the first
// decrease, offsets[0], the last offset against num_items) and sorts the segments into the
// three lists with atomics (segments are independent, so the lists' order does not
// matter), with the tiled segments' tile counts (scanned on the device into each segment's
// first tile); the counts come back to the host, which then launches the paths: a call
// with offsets waits for the stream once. The uniform-length overload knows its one path
// on the host and does not wait.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/scan/warp_scan.cuh"
#include "onepass/random/mt19937_64_prefix.hpp"
#include "onepass/scan/tile_state.cuh"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/gpu_tile_ranking.cuh"
#include "onepass/shuffle/segment_seed.hpp"

namespace onepass::shuffle::gpu {

/// Longest segment of the warp path (a domain of at most 2^8 indices: one chunk of the warp).
inline constexpr std::uint64_t warp_segment_max = 256;
/// Bytes of shared memory a block-path block stages its segment in: longer segments take
/// the tiled path.
inline constexpr std::size_t stage_bytes = 32 * 1024;

namespace segmented_detail {

inline constexpr int warp_block = 256;  // threads of a warp-path block (8 warps)
inline constexpr int warp_items = 8;    // indices per lane per chunk
inline constexpr int block_threads = 256;
inline constexpr int block_items = 4;  // block_items x warps = 32: warp 0 scans the counts
inline constexpr int block_warps = block_threads / 32;
static_assert(block_items * block_warps == 32, "one warp scans the tile's ballot counts");

/// Where segment i of a launch lies: ids[i] (or i), and its begin and length from the
/// offsets (or the uniform length).
template <class Offset>
struct segment_source {
  const Offset* offsets;       // null: uniform segments of `length`
  std::uint64_t length;        // the uniform length
  const std::uint64_t* ids;    // null: segment i is i
  std::uint64_t count;         // segments of this launch
  __device__ void get(std::uint64_t i, std::uint64_t& s, std::uint64_t& begin,
                      std::uint64_t& segment_length) const {
    s = ids ? ids[i] : i;
    if (offsets) {
      begin = static_cast<std::uint64_t>(offsets[s]);
      segment_length = static_cast<std::uint64_t>(offsets[s + 1]) - begin;
    } else {
      begin = s * length;
      segment_length = length;
    }
  }
};

/// The low 32 bits of the first `rounds` outputs of std::mt19937_64(segment_seed(seed,
/// s)): segment s's round keys (bijection::variable_philox::for_length).
__device__ inline void segment_keys(std::uint64_t seed, std::uint64_t s, unsigned rounds, std::uint32_t* keys) {
  std::uint64_t words[random::mt19937_64_prefix_max];
  random::mt19937_64_prefix(segment_seed(seed, s), rounds, words);
  for (unsigned i = 0; i < rounds; ++i) keys[i] = static_cast<std::uint32_t>(words[i]);
}

/// VariablePhilox's image of Items indices x[k], bit-identical to
/// bijection::variable_philox::operator() (the device form of gpu_evaluator.cuh's
/// philox_evaluator: 32-bit halves, M0 * L's high word as umulhi(M0lo, L) + M0hi * L; even
/// domains carry r unmasked, odd domains carry the spare bit as lo * 2 + bit). Rounds > 0:
/// that many rounds, unrolled, keys read once into registers; 0: `rounds`, a loop.
template <bool Odd, int Rounds, int Items>
__device__ __forceinline__ void images(const std::uint64_t (&x)[Items], std::uint64_t (&w)[Items],
                                       const std::uint32_t* keys, unsigned rounds, unsigned domain_bits) {
  constexpr std::uint32_t m_lo = static_cast<std::uint32_t>(bijection::variable_philox::multiplier);
  constexpr std::uint32_t m_hi = static_cast<std::uint32_t>(bijection::variable_philox::multiplier >> 32);
  const unsigned left_bits = domain_bits / 2, right_bits = domain_bits - left_bits;
  const std::uint32_t left_mask = static_cast<std::uint32_t>(low_mask(left_bits));
  const std::uint32_t right_mask = static_cast<std::uint32_t>(low_mask(right_bits));
  std::uint32_t l[Items], r[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    l[k] = static_cast<std::uint32_t>(x[k] >> right_bits) & left_mask;
    r[k] = static_cast<std::uint32_t>(x[k]) & right_mask;
  }
  auto round = [&](std::uint32_t key) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const std::uint32_t lo = m_lo * l[k];
      const std::uint32_t hi = __umulhi(m_lo, l[k]) + m_hi * l[k];
      const std::uint32_t new_l = (hi ^ key ^ r[k]) & left_mask;
      if constexpr (Odd) {
        r[k] = (lo * 2u + (r[k] >> left_bits)) & right_mask;
      } else {
        r[k] = lo;  // unmasked: only (hi ^ key ^ r) & mask and the final mask read it
      }
      l[k] = new_l;
    }
  };
  if constexpr (Rounds > 0) {
    std::uint32_t key[Rounds];
#pragma unroll
    for (int i = 0; i < Rounds; ++i) key[i] = keys[i];
#pragma unroll
    for (int i = 0; i < Rounds; ++i) round(key[i]);
  } else {
#pragma unroll 1
    for (unsigned i = 0; i < rounds; ++i) round(keys[i]);
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) w[k] = (static_cast<std::uint64_t>(l[k]) << right_bits) | (r[k] & right_mask);
}

/// Calls fn(std::integral_constant<bool, Odd>, std::integral_constant<int, Rounds>) for
/// a domain of 2^bits and `rounds` rounds (24 unrolled): on the device to run the matching
/// evaluation, on the host to pick the matching kernel.
#pragma nv_exec_check_disable
template <class Fn>
__host__ __device__ __forceinline__ void with_round_shape(unsigned domain_bits, unsigned rounds, Fn&& fn) {
  constexpr int unrolled = static_cast<int>(bijection::default_rounds);
  if (rounds == bijection::default_rounds) {
    if (domain_bits & 1u) fn(std::true_type{}, std::integral_constant<int, unrolled>{});
    else fn(std::false_type{}, std::integral_constant<int, unrolled>{});
  } else {
    if (domain_bits & 1u) fn(std::true_type{}, std::integral_constant<int, 0>{});
    else fn(std::false_type{}, std::integral_constant<int, 0>{});
  }
}

/// The tile shape of the block and tiled paths (gpu_tile_ranking.cuh's striped tile:
/// index base + k * block_threads + t for item k of thread t).
using tiled_policy = detail::tile_policy<block_threads, block_items>;

/// Whether the warp path stages each segment in shared memory (elements up to 16 bytes:
/// 8 warps x 256 x 16 bytes = 32 KiB per block at most); larger elements are read from
/// global memory (L1) at their images.
template <class T>
inline constexpr bool warp_path_stages = sizeof(T) <= 16;

/// Bytes of a warp-path block's stages (one segment per warp; 0 when the path does not
/// stage), at the start of its dynamic shared memory.
template <class T>
inline constexpr std::size_t warp_path_stage_bytes =
    warp_path_stages<T> ? static_cast<std::size_t>(warp_block / 32) * warp_segment_max * sizeof(T) : 0;

/// Dynamic shared memory of a warp-path block: the stages (warp_path_stage_bytes<T>), then
/// the round keys of each warp's group of 32 segments.
template <class T>
constexpr std::size_t warp_path_shared(unsigned rounds) {
  return warp_path_stage_bytes<T> + static_cast<std::size_t>(warp_block / 32) * 32 * rounds * sizeof(std::uint32_t);
}

/// Warp path: warps take groups of 32 segments (grid-stride); lane j derives the keys of
/// segment j of the group into shared memory, then the warp shuffles the group's
/// segments one by one. Each segment's items are first copied (cp.async, coalesced) into
/// the warp's stage; the bijection's images and ranks are computed while the copy is in
/// flight, and the items move stage[f(i)] -> out[rank]. Dynamic shared memory:
/// warp_path_shared<T>(rounds).
template <bool Inverse, class T, class Offset>
__global__ void __launch_bounds__(warp_block) warp_path_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                               segment_source<Offset> src, std::uint64_t seed,
                                                               unsigned rounds) {
  using bits_t = detail::element_bits<T>;
  extern __shared__ __align__(16) unsigned char warp_shared[];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  bits_t* my_stage = reinterpret_cast<bits_t*>(warp_shared) + warp * warp_segment_max;
  std::uint32_t* my_keys = reinterpret_cast<std::uint32_t*>(warp_shared + warp_path_stage_bytes<T>) + warp * 32 * rounds;
  const bits_t* in_bits = reinterpret_cast<const bits_t*>(in);
  bits_t* out_bits = reinterpret_cast<bits_t*>(out);
  const unsigned lanes_below = (1u << lane) - 1u;
  const std::uint64_t groups = (src.count + 31) / 32;
  const std::uint64_t warps_total = static_cast<std::uint64_t>(gridDim.x) * (warp_block / 32);
  for (std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * (warp_block / 32) + warp; g < groups;
       g += warps_total) {
    const std::uint64_t i = g * 32 + lane;
    std::uint64_t s = 0, begin = 0, lane_length = 0;  // the lane's segment of the group
    if (i < src.count) {
      src.get(i, s, begin, lane_length);
      if (lane_length > 0) segment_keys(seed, s, rounds, my_keys + lane * rounds);
    }
    __syncwarp();
    const unsigned in_group = static_cast<unsigned>(src.count - g * 32 < 32 ? src.count - g * 32 : 32);
    for (unsigned j = 0; j < in_group; ++j) {
      const std::uint64_t seg_begin = __shfl_sync(0xffffffffu, begin, j);
      const std::uint64_t segment_length = __shfl_sync(0xffffffffu, lane_length, j);
      if (segment_length == 0) continue;
      if constexpr (warp_path_stages<T>) {
        // The previous segment's reads of the stage are done (__syncwarp at the end of the
        // segment); this segment's items load while the images are computed.
        for (std::uint64_t k = lane; k < segment_length; k += 32)
          detail::stage_element(my_stage + k, in_bits + seg_begin + k);
        detail::cp_async_commit();
      }
      const unsigned domain_bits = bijection::schedule_domain_bits(segment_length);
      const std::uint64_t domain_size = std::uint64_t{1} << domain_bits;  // <= 256 = 32 x warp_items: one chunk
      const std::uint32_t* keys = my_keys + j * rounds;
      with_round_shape(domain_bits, rounds, [&](auto odd, auto unrolled) {
      std::uint64_t running = 0;
      for (std::uint64_t base = 0; base < domain_size; base += 32 * warp_items) {
        std::uint64_t x[warp_items], w[warp_items];
#pragma unroll
        for (int k = 0; k < warp_items; ++k) x[k] = base + static_cast<std::uint64_t>(k) * 32 + lane;
        images<decltype(odd)::value, decltype(unrolled)::value, warp_items>(x, w, keys, rounds, domain_bits);
        std::uint64_t rank[warp_items];
        bool keep[warp_items];
#pragma unroll
        for (int k = 0; k < warp_items; ++k) {
          keep[k] = x[k] < domain_size && w[k] < segment_length;
          const unsigned ballot = __ballot_sync(0xffffffffu, keep[k]);
          rank[k] = running + __popc(ballot & lanes_below);
          running += __popc(ballot);
        }
        if constexpr (warp_path_stages<T>) {
          if (base == 0) {
            detail::cp_async_wait_all();
            __syncwarp();
          }
        }
        bits_t v[warp_items];
#pragma unroll
        for (int k = 0; k < warp_items; ++k) {
          if (keep[k]) {
            const std::uint64_t from = Inverse ? rank[k] : w[k];
            if constexpr (warp_path_stages<T>) v[k] = my_stage[from];
            else v[k] = in_bits[seg_begin + from];
          }
        }
#pragma unroll
        for (int k = 0; k < warp_items; ++k)
          if (keep[k]) out_bits[seg_begin + (Inverse ? w[k] : rank[k])] = v[k];
      }
      });
      __syncwarp();  // the stage is read before the next segment's copy overwrites it
    }
    __syncwarp();
  }
}

/// Dynamic shared memory of a block-path block: one stage of stage_bytes. (Two stages,
/// the next segment loading while the current one is shuffled, ran 5 % slower on the
/// H100 at 4096 uint64 per row: 3 blocks per SM instead of 6.)
inline constexpr std::size_t block_path_shared = stage_bytes;
static_assert(block_path_shared <= 48 * 1024, "the block path's stage fits the default dynamic shared memory");

/// Block path: blocks take segments (grid-stride); every segment fits a stage (at most
/// stage_bytes of items). The segment's items are copied into the stage (cp.async,
/// coalesced) first, and the bijection's images and ballots of the first tile are computed
/// while the copy is in flight. Round keys come from
/// key_table (keys_kernel); tiles of block_threads x block_items indices (striped: index
/// base + k * block_threads + t) are ranked with a block-wide exclusive scan of the (item,
/// warp) ballot counts and a running offset; the items move stage[f(i)] -> out[rank].
template <bool Inverse, class T, class Offset>
__global__ void __launch_bounds__(block_threads) block_path_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   segment_source<Offset> src,
                                                                   const std::uint32_t* __restrict__ key_table,
                                                                   unsigned rounds) {
  using bits_t = detail::element_bits<T>;
  extern __shared__ __align__(16) unsigned char stage_raw[];  // block_path_shared
  __shared__ std::uint32_t keys[bijection::max_rounds];
  __shared__ std::uint32_t counts[32];
  __shared__ std::uint32_t offsets[33];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  const bits_t* in_bits = reinterpret_cast<const bits_t*>(in);
  bits_t* out_bits = reinterpret_cast<bits_t*>(out);
  bits_t* stage = reinterpret_cast<bits_t*>(stage_raw);
  for (std::uint64_t i = blockIdx.x; i < src.count; i += gridDim.x) {
    std::uint64_t s = 0, begin = 0, segment_length = 0;
    src.get(i, s, begin, segment_length);
    if (segment_length == 0) continue;  // uniform across the block
    // Every thread is past the previous segment (its last tile ends with __syncthreads),
    // so the stage is free.
    for (std::uint64_t j = threadIdx.x; j < segment_length; j += block_threads)
      detail::stage_element(stage + j, in_bits + begin + j);
    if (threadIdx.x < rounds) keys[threadIdx.x] = key_table[i * rounds + threadIdx.x];
    const unsigned domain_bits = bijection::schedule_domain_bits(segment_length);
    const std::uint64_t domain_size = std::uint64_t{1} << domain_bits;
    __syncthreads();  // keys
    with_round_shape(domain_bits, rounds, [&](auto odd, auto unrolled) {
    std::uint64_t running = 0;
    for (std::uint64_t base = 0; base < domain_size;
         base += static_cast<std::uint64_t>(block_threads) * block_items) {
      std::uint64_t x[block_items], w[block_items];
#pragma unroll
      for (int k = 0; k < block_items; ++k) x[k] = base + static_cast<std::uint64_t>(k) * block_threads + threadIdx.x;
      images<decltype(odd)::value, decltype(unrolled)::value, block_items>(x, w, keys, rounds, domain_bits);
      bool keep[block_items];
      unsigned ballot[block_items];
#pragma unroll
      for (int k = 0; k < block_items; ++k) {
        keep[k] = x[k] < domain_size && w[k] < segment_length;
        ballot[k] = __ballot_sync(0xffffffffu, keep[k]);
        if (lane == 0) counts[k * block_warps + warp] = __popc(ballot[k]);
      }
      // The segment's items have landed; the barrier below makes every thread's copies
      // visible to the block.
      if (base == 0) detail::cp_async_wait_all();
      __syncthreads();
      if (warp == 0) {  // exclusive scan of the 32 counts, in index order (k, warp)
        const std::uint32_t c = counts[lane];
        const std::uint32_t incl = scan::warp_inclusive_sum(c, lane);
        offsets[lane] = incl - c;
        if (lane == 31) offsets[32] = incl;
      }
      __syncthreads();
      bits_t v[block_items];
      std::uint64_t rank[block_items];
#pragma unroll
      for (int k = 0; k < block_items; ++k) {
        rank[k] = running + offsets[k * block_warps + warp] + __popc(ballot[k] & lanes_below);
        if (keep[k]) v[k] = stage[Inverse ? rank[k] : w[k]];
      }
#pragma unroll
      for (int k = 0; k < block_items; ++k)
        if (keep[k]) out_bits[begin + (Inverse ? w[k] : rank[k])] = v[k];
      running += offsets[32];
      __syncthreads();  // counts, offsets, keys and the stage are rewritten after the last tile
    }
    });
  }
}

/// Where tile t of the tiled path lies. Uniform rows (tiles_per_row > 0): row t /
/// tiles_per_row. Listed segments (offsets): entry j of the list with tile_start[j] <= t <
/// tile_start[j + 1] (binary search; tile_start is the exclusive scan of the entries' tile
/// counts), segment ids[j].
template <class Offset>
struct tile_map {
  std::uint64_t tiles_per_row;  // > 0: uniform rows of `length`
  std::uint64_t length;
  const std::uint64_t* tile_start;
  const std::uint64_t* ids;
  const Offset* offsets;
  std::uint64_t count;  // list entries
  /// Entry j (key-table row), the tile's index inside its segment, the segment's begin and length.
  __device__ void find(std::uint64_t tile, std::uint64_t& j, std::uint64_t& local, std::uint64_t& begin,
                       std::uint64_t& segment_length) const {
    if (tiles_per_row > 0) {
      j = tile / tiles_per_row;
      local = tile - j * tiles_per_row;
      begin = j * length;
      segment_length = length;
      return;
    }
    std::uint64_t lo = 0, hi = count;  // the last j with tile_start[j] <= tile
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (tile_start[mid] <= tile) lo = mid; else hi = mid;
    }
    j = lo;
    local = tile - tile_start[lo];
    const std::uint64_t s = ids[lo];
    begin = static_cast<std::uint64_t>(offsets[s]);
    segment_length = static_cast<std::uint64_t>(offsets[s + 1]) - begin;
  }
};

/// Tiles of the tiled path: block_threads x block_items indices.
inline constexpr std::uint64_t tiled_tile_items = tiled_policy::tile_items;

// ----------------------------------------------------------------------------
// The tiled path's steps, in the order a tile takes them (the two kernels below):
//   take_tile            thread 0: the next tile id from the counter and its segment (tile_map);
//   load_keys            the segment's round keys (its key-table row) into shared memory;
//   evaluate_and_count   images of the tile's indices in the segment's domain, flags, the
//                        (item, warp) ballots kept in registers and their popcounts in shared
//                        memory; each item handed to the caller right after its ballot (the
//                        flagged item's random read, or its cp.async copy into the stage);
//   scan_counts          warp 0: the exclusive scan of the 32 counts, the tile's count;
//   publish_count        warp 0: the count published (a segment's first tile: as its
//                        inclusive prefix, so no look-back crosses into the previous segment);
//   look_back_in_segment warp 0, not a segment's first tile: the decoupled look-back
//                        (scan/tile_state.cuh), the tile's inclusive prefix published
//                        (scan_and_look_back_in_segment: both, for one tile at a time);
//   rank_of              an item's output rank inside the segment;
//   move_ranked / store_staged_ranked  the tile's elements to their outputs.
// Shared with the single shuffle: the tile shape (tiled_policy, gpu_tile_ranking.cuh), the
// cp.async staging (gpu_staged_shuffle.cuh's stage_element / cp_async_*), the look-back
// state and walk (scan/tile_state.cuh), the two-stage fit (two_stage_tiles_fit) and the
// pipeline's order of steps (gpu_bijective2.cuh's bijective2_pipelined_kernel).
//
// Why the ranking steps are not gpu_tile_ranking.cuh's (evaluate_and_flag, scan_ballots,
// scan_and_look_back, rank_in_tile, store_ranked; gpu_bijective2.cuh's stage_tile,
// publish_aggregate, look_back_inclusive, store_staged): those keep the (item, warp)
// ballots in shared memory (warp 0 takes their popcounts, rank_in_tile reads them back),
// keep the tile's count in shared memory, and recover the prefix from the look-back's 62
// bits over one domain (exact_prefix) whose chain starts at tile 0; the segmented tiles
// keep the ballots in registers (lane 0 writes the popcounts), keep the count in warp 0's
// registers, start a chain at each segment's first tile and take the look-back's value as
// the prefix, and load a key-table row (one more barrier) per tile. Measured on the sm_90
// machine code (nvcc 13.0, scripts/cubin_text_diff.py, helper-38 for issue 31): the
// evaluation through tile_ranking's interface (a per-item record functor over
// f.images<Items>(first, stride, w), segment keys as an evaluator) changed every tiled
// kernel's code — tiled_pipelined_kernel<uint64> 54 -> 48-50 registers, 63 -> 64 for
// int64 offsets, tiled_path_kernel 58 -> 48 (forward, per-tile shapes), 40 -> 32 (inverse,
// 24 rounds), +-1 elsewhere, 1-3 % more instructions — so these kernels, which are tuned,
// keep their own ballot layout. With the steps above tiled_path_kernel's code is byte for
// byte the earlier inline kernel's; tiled_pipelined_kernel's has the same registers and
// shared memory and 0-16 instructions fewer of 1296-4336 (instruction scheduling).
/// Thread 0: the next tile id from the counter into `tile` and, when it is one of the
/// launch's num_tiles, where it lies (tile_map::find) into where[0, 4): key-table row, tile
/// inside the segment, segment begin, segment length.
template <class Offset>
__device__ __forceinline__ void take_tile(const scan::tile_state<std::uint64_t>& state, const tile_map<Offset>& map,
                                          std::uint64_t num_tiles, std::uint64_t& tile, std::uint64_t* where) {
  const std::uint64_t t = state.acquire_tile();
  tile = t;
  if (t < num_tiles) map.find(t, where[0], where[1], where[2], where[3]);
}

/// Threads below `rounds`: row j of key_table (the segment's round keys) into keys.
__device__ __forceinline__ void load_keys(const std::uint32_t* __restrict__ key_table, std::uint64_t j,
                                          unsigned rounds, std::uint32_t* keys) {
  if (threadIdx.x < rounds) keys[threadIdx.x] = key_table[j * rounds + threadIdx.x];
}

/// Evaluates the tile of indices base + k * block_threads + t (k < block_items) of a
/// segment of segment_length items (domain_size = 2^domain_bits, round keys `keys` in
/// shared memory): w[k] the images, item k flagged when its index is in the domain and its
/// image below segment_length, ballot[k] the (item, warp) ballots, their popcounts in
/// counts[k * block_warps + warp] (lane 0), and on_item(k, flag, w[k]) for each item right
/// after its ballot (the caller keeps the flags and issues the flagged item's random read
/// or copy there, early). All threads of the block, converged.
template <bool Odd, int Rounds, class OnItem>
__device__ __forceinline__ void evaluate_and_count(const std::uint32_t* keys, unsigned rounds, unsigned domain_bits,
                                                   std::uint64_t domain_size, std::uint64_t base,
                                                   std::uint64_t segment_length, std::uint32_t* counts,
                                                   unsigned (&ballot)[block_items], std::uint64_t (&w)[block_items],
                                                   unsigned lane, unsigned warp, OnItem&& on_item) {
  std::uint64_t x[block_items];
#pragma unroll
  for (int k = 0; k < block_items; ++k) x[k] = base + static_cast<std::uint64_t>(k) * block_threads + threadIdx.x;
  images<Odd, Rounds, block_items>(x, w, keys, rounds, domain_bits);
#pragma unroll
  for (int k = 0; k < block_items; ++k) {
    const bool keep = x[k] < domain_size && w[k] < segment_length;
    ballot[k] = __ballot_sync(0xffffffffu, keep);
    if (lane == 0) counts[k * block_warps + warp] = __popc(ballot[k]);
    on_item(k, keep, w[k]);
  }
}

/// Warp 0 (`lane`: this thread's lane): offsets[lane] = the exclusive scan of the tile's 32
/// ballot counts, in index order (item, warp); returns the tile's count to every lane.
__device__ __forceinline__ std::uint32_t scan_counts(const std::uint32_t* counts, std::uint32_t* offsets,
                                                     unsigned lane) {
  const std::uint32_t c = counts[lane];
  const std::uint32_t incl = scan::warp_inclusive_sum(c, lane);
  offsets[lane] = incl - c;
  return __shfl_sync(0xffffffffu, incl, 31);
}

/// Warp 0, lane 0 acting: publishes the tile's `count` — as its inclusive prefix, with
/// prefix = 0, when it is its segment's first tile (local == 0), else as its aggregate.
__device__ __forceinline__ void publish_count(const scan::tile_state<std::uint64_t>& state, std::uint64_t tile,
                                              std::uint64_t local, std::uint64_t count, std::uint64_t& prefix,
                                              unsigned lane) {
  if (lane == 0) {
    if (local == 0) {
      state.publish(tile, scan::tile_status::inclusive_prefix, count);
      prefix = 0;
    } else {
      state.publish(tile, scan::tile_status::aggregate, count);
    }
  }
}

/// Warp 0, a tile that is not its segment's first, its count published: looks back for
/// the flags before it in its segment (the walk ends at the segment's first tile, which
/// published an inclusive prefix), publishes its inclusive prefix and writes the flags
/// before it to `prefix` (lane 0).
__device__ __forceinline__ void look_back_in_segment(const scan::tile_state<std::uint64_t>& state,
                                                     std::uint64_t tile, std::uint64_t count, std::uint64_t& prefix,
                                                     unsigned lane) {
  const std::uint64_t exclusive = state.warp_look_back(tile);
  if (lane == 0) {
    state.publish(tile, scan::tile_status::inclusive_prefix, exclusive + count);
    prefix = exclusive;
  }
}

/// Warp 0, one tile at a time (tiled_path_kernel), after scan_counts: publishes the tile's
/// count `aggregate` and, unless it is its segment's first tile (local == 0, published as
/// an inclusive prefix at once), looks back in the segment and publishes its inclusive
/// prefix; lane 0 writes the flags before the tile to `prefix`. (publish_count followed by
/// look_back_in_segment computes the same; this order of the stores is the kernel's tuned
/// code.)
__device__ __forceinline__ void scan_and_look_back_in_segment(const scan::tile_state<std::uint64_t>& state,
                                                              std::uint64_t tile, std::uint64_t local,
                                                              std::uint64_t aggregate, std::uint64_t& prefix,
                                                              unsigned lane) {
  std::uint64_t exclusive = 0;
  if (local == 0) {
    if (lane == 0) state.publish(tile, scan::tile_status::inclusive_prefix, aggregate);
  } else {
    if (lane == 0) state.publish(tile, scan::tile_status::aggregate, aggregate);
    exclusive = state.warp_look_back(tile);
    if (lane == 0) state.publish(tile, scan::tile_status::inclusive_prefix, exclusive + aggregate);
  }
  if (lane == 0) prefix = exclusive;
}

/// Output rank inside the segment of item k of this thread (flagged): `before` (the
/// flags before the tile) + the (k, warp) offset + the flagged lanes below in its ballot.
__device__ __forceinline__ std::uint64_t rank_of(std::uint64_t before, const std::uint32_t* offsets,
                                                 unsigned ballot, int k, unsigned warp, unsigned lanes_below) {
  return before + offsets[k * block_warps + warp] + __popc(ballot & lanes_below);
}

/// The tile's moves of tiled_path_kernel, for the flagged items k: forward out[begin +
/// rank] = value[k] (loaded by evaluate_and_count's on_flagged), inverse out[begin + w[k]] =
/// in[begin + rank].
template <bool Inverse, class T>
__device__ __forceinline__ void move_ranked(std::uint32_t flags, std::uint64_t before, const std::uint32_t* offsets,
                                            const unsigned (&ballot)[block_items],
                                            const std::uint64_t (&w)[block_items], const T (&value)[block_items],
                                            const T* __restrict__ in, T* __restrict__ out, std::uint64_t begin,
                                            unsigned warp, unsigned lanes_below) {
#pragma unroll
  for (int k = 0; k < block_items; ++k) {
    const std::uint64_t rank = rank_of(before, offsets, ballot[k], k, warp, lanes_below);
    if constexpr (Inverse) {
      if (flags >> k & 1u) out[begin + w[k]] = in[begin + rank];
    } else {
      if (flags >> k & 1u) out[begin + rank] = value[k];
    }
  }
}

/// Forward, pipelined: out[begin + rank] = the thread's own stage slot of item k, for its
/// flagged items (its copies landed).
template <class Bits>
__device__ __forceinline__ void store_staged_ranked(std::uint32_t flags, std::uint64_t before,
                                                    const std::uint32_t* offsets,
                                                    const unsigned (&ballot)[block_items],
                                                    const Bits (&stage)[tiled_tile_items], Bits* out,
                                                    std::uint64_t begin, unsigned warp, unsigned lanes_below) {
#pragma unroll
  for (int k = 0; k < block_items; ++k) {
    if (flags >> k & 1u)
      out[begin + rank_of(before, offsets, ballot[k], k, warp, lanes_below)] = stage[k * block_threads + threadIdx.x];
  }
}

/// Calls body(odd, unrolled) with the round shape: FixedShape's Odd and Rounds, or the
/// segment's (with_round_shape).
template <bool FixedShape, bool Odd, int Rounds, class Body>
__device__ __forceinline__ void with_tile_shape(unsigned domain_bits, unsigned rounds, Body&& body) {
  if constexpr (FixedShape) {
    body(std::integral_constant<bool, Odd>{}, std::integral_constant<int, Rounds>{});
  } else {
    with_round_shape(domain_bits, rounds, body);
  }
}

/// Tiled path (segments that do not fit the stage): every segment's tiles in one persistent
/// launch, taken in order from the tile counter, so the tiles in flight belong to a few
/// consecutive segments (their items stay in L2). A segment's first tile publishes its
/// count as an inclusive prefix at once, so the decoupled look-back of the single-pass scan
/// (scan/tile_state.cuh) never crosses into the previous segment. Keys from the key table
/// (row j of the map). FixedShape: every segment has the domain parity and round count of
/// Odd and Rounds (uniform rows); otherwise they are chosen per tile. Barriers per tile:
/// (1) the tile and its segment (the previous tile is done with the shared arrays); (2)
/// keys; (3) counts; (4) offsets and prefix.
template <bool Inverse, class T, class Offset, bool FixedShape, bool Odd, int Rounds>
__global__ void __launch_bounds__(block_threads) tiled_path_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   tile_map<Offset> map, std::uint64_t num_tiles,
                                                                   const std::uint32_t* __restrict__ key_table,
                                                                   unsigned rounds,
                                                                   scan::tile_state<std::uint64_t> state) {
  __shared__ std::uint32_t keys[bijection::max_rounds];
  __shared__ std::uint32_t counts[32];
  __shared__ std::uint32_t offsets[33];
  __shared__ std::uint64_t tile_id, prefix, where[4];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  for (;;) {
    if (threadIdx.x == 0) take_tile(state, map, num_tiles, tile_id, where);
    __syncthreads();  // (1)
    const std::uint64_t tile = tile_id;
    if (tile >= num_tiles) return;
    const std::uint64_t j = where[0], local = where[1], begin = where[2], segment_length = where[3];
    load_keys(key_table, j, rounds, keys);
    __syncthreads();  // (2)
    const unsigned domain_bits = bijection::schedule_domain_bits(segment_length);
    const std::uint64_t domain_size = std::uint64_t{1} << domain_bits, base = local * tiled_tile_items;
    with_tile_shape<FixedShape, Odd, Rounds>(domain_bits, rounds, [&](auto odd, auto unrolled) {
      std::uint64_t w[block_items];
      unsigned ballot[block_items];
      [[maybe_unused]] T v[block_items];
      std::uint32_t flags = 0;
      evaluate_and_count<decltype(odd)::value, decltype(unrolled)::value>(
          keys, rounds, domain_bits, domain_size, base, segment_length, counts, ballot, w, lane, warp,
          [&](int k, bool keep, std::uint64_t image) {
            flags |= static_cast<std::uint32_t>(keep) << k;
            if constexpr (!Inverse)
              if (keep) v[k] = in[begin + image];  // before the scan: its latency overlaps the look-back
          });
      __syncthreads();  // (3)
      if (warp == 0) {
        const std::uint64_t aggregate = scan_counts(counts, offsets, lane);
scan_and_look_back_in_segment(state, tile, local, aggregate, prefix, lane);
      }
      __syncthreads();  // (4)
      move_ranked<Inverse>(flags, prefix, offsets, ballot, w, v, in, out, begin, warp, lanes_below);
    });
  }
}

/// Whether the forward tiled path runs tiled_pipelined_kernel: two stages of a tile's
/// elements within 32 KiB of static shared memory, elements moving as 4-, 8- or 16-byte
/// words (cp.async).
template <class T>
inline constexpr bool tiled_pipeline_fits = detail::two_stage_tiles_fit<tiled_tile_items, T>;

/// Forward tiled path, software-pipelined over two tiles like bijective2_pipelined_kernel
/// (gpu_bijective2.cuh): a block evaluates its next tile B and copies B's flagged elements into
/// its own stage slots (cp.async) and publishes B's count (as an inclusive prefix when B is
/// its segment's first tile) before it looks back for its current tile A and stores A.
/// Barriers per tile: (1) B's tile and segment (read into registers at once, so thread 0
/// may rewrite them for the next tile); (2) B's keys; (3) B's counts; (4) A's prefix and
/// B's offsets. Same permutation as tiled_path_kernel.
template <class T, class Offset, bool FixedShape, bool Odd, int Rounds>
__global__ void __launch_bounds__(block_threads) tiled_pipelined_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                        tile_map<Offset> map, std::uint64_t num_tiles,
                                                                        const std::uint32_t* __restrict__ key_table,
                                                                        unsigned rounds,
                                                                        scan::tile_state<std::uint64_t> state) {
  using bits_t = detail::element_bits<T>;
  __shared__ std::uint32_t keys[2][bijection::max_rounds];
  __shared__ std::uint32_t counts[2][32];
  __shared__ std::uint32_t offsets[2][32];
  __shared__ std::uint64_t prefix[2];
  __shared__ std::uint64_t next[5];  // tile, key row, tile inside the segment, segment begin, length
  __shared__ bits_t stage[2][tiled_tile_items];
  const bits_t* in_bits = reinterpret_cast<const bits_t*>(in);
  bits_t* out_bits = reinterpret_cast<bits_t*>(out);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  struct held {
    std::uint64_t tile = 0, local = 0, begin = 0;
    unsigned ballot[block_items] = {};
    std::uint32_t keep = 0;    // bit k: item k flagged
    std::uint64_t count = 0;   // warp 0: the tile's flag count
  };
  // After barrier (1): reads the taken tile into `h`, loads its keys into keys[b], then
  // (barrier (2)) evaluates it, copies its flagged elements into stage[b] and writes its
  // ballot counts to counts[b]. False (and nothing loaded) when no tile is left.
  auto load = [&](held& h, unsigned b) -> bool {
    h.tile = next[0];
    const bool more = h.tile < num_tiles;  // the same for the whole block
    std::uint64_t j = 0, segment_length = 0;
    if (more) {
      j = next[1];
      h.local = next[2];
      h.begin = next[3];
      segment_length = next[4];
      load_keys(key_table, j, rounds, keys[b]);
    }
    __syncthreads();  // (2) keys (and every thread has read `next`)
    h.keep = 0;
    if (more) {
      const unsigned domain_bits = bijection::schedule_domain_bits(segment_length);
      const std::uint64_t domain_size = std::uint64_t{1} << domain_bits, base = h.local * tiled_tile_items;
      with_tile_shape<FixedShape, Odd, Rounds>(domain_bits, rounds, [&](auto odd, auto unrolled) {
        std::uint64_t w[block_items];
        evaluate_and_count<decltype(odd)::value, decltype(unrolled)::value>(
            keys[b], rounds, domain_bits, domain_size, base, segment_length, counts[b], h.ballot, w, lane, warp,
            [&](int k, bool keep, std::uint64_t image) {
              if (keep) {
                h.keep |= 1u << k;
                detail::stage_element(&stage[b][k * block_threads + threadIdx.x], in_bits + h.begin + image);
              }
            });
      });
    }
    detail::cp_async_commit();  // one group per tile (empty at the end)
    return more;
  };

  held a, bh;
  unsigned ia = 0;
  if (threadIdx.x == 0) take_tile(state, map, num_tiles, next[0], next + 1);
  __syncthreads();  // (1)
  if (!load(a, ia)) return;
  __syncthreads();  // (3)
  if (warp == 0) {
    a.count = scan_counts(counts[ia], offsets[ia], lane);
    publish_count(state, a.tile, a.local, a.count, prefix[ia], lane);
  }
  for (;;) {
    const unsigned ib = ia ^ 1u;
    if (threadIdx.x == 0) take_tile(state, map, num_tiles, next[0], next + 1);
    __syncthreads();  // (1)
    const bool more = load(bh, ib);
    __syncthreads();  // (3)
    if (warp == 0) {
      if (more) {
        bh.count = scan_counts(counts[ib], offsets[ib], lane);
        publish_count(state, bh.tile, bh.local, bh.count, prefix[ib], lane);
      }
      if (a.local != 0) look_back_in_segment(state, a.tile, a.count, prefix[ia], lane);
    }
    detail::cp_async_wait_prior<1>();  // this thread's copies of A (B's may be in flight)
    __syncthreads();  // (4)
    store_staged_ranked(a.keep, prefix[ia], offsets[ia], a.ballot, stage[ia], out_bits, a.begin, warp, lanes_below);
    if (!more) return;
    a = bh;
    ia = ib;
  }
}

/// key_table[i * rounds + r]: round key r of segment i of `src` (one thread per segment).
template <class Offset>
__global__ void __launch_bounds__(256) keys_kernel(segment_source<Offset> src, std::uint64_t seed, unsigned rounds,
                                                   std::uint32_t* key_table) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < src.count; i += static_cast<std::uint64_t>(gridDim.x) * 256) {
    std::uint64_t s = 0, begin = 0, segment_length = 0;
    src.get(i, s, begin, segment_length);
    segment_keys(seed, s, rounds, key_table + i * rounds);
  }
}

/// What the classification tells the host.
struct class_counts {
  unsigned long long first_bad;  // smallest s with offsets[s] > offsets[s + 1] (or ~0)
  unsigned long long warp, block, tiled, tiles;
  unsigned long long first_offset, last_offset;
};

/// Tiles of the tiled path for a segment of segment_length items.
__host__ __device__ inline std::uint64_t tiles_of(std::uint64_t segment_length) {
  const std::uint64_t domain_size = std::uint64_t{1} << bijection::schedule_domain_bits(segment_length);
  return (domain_size + tiled_tile_items - 1) / tiled_tile_items;
}

/// Checks the offsets and sorts the segments into the three paths' lists (tiled entries
/// with their tile counts): up to warp_segment_max items the warp path, up to stage_items
/// the block path (staged), longer the tiled path.
template <class Offset>
__global__ void __launch_bounds__(256) classify_kernel(const Offset* offsets, std::uint64_t num_segments,
                                                       std::uint64_t stage_items, class_counts* counts,
                                                       std::uint64_t* warp_ids, std::uint64_t* block_ids,
                                                       std::uint64_t* tiled_ids, std::uint64_t* tile_counts) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t s = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < num_segments;
       s += stride) {
    const Offset a = offsets[s], b = offsets[s + 1];
    if (s == 0) counts->first_offset = static_cast<unsigned long long>(a);
    if (s + 1 == num_segments) counts->last_offset = static_cast<unsigned long long>(b);
    if (b < a) {
      atomicMin(&counts->first_bad, static_cast<unsigned long long>(s));
      continue;
    }
    const std::uint64_t segment_length = static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
    if (segment_length == 0) continue;
    if (segment_length <= warp_segment_max) {
      warp_ids[atomicAdd(&counts->warp, 1ull)] = s;
    } else if (segment_length <= stage_items) {
      block_ids[atomicAdd(&counts->block, 1ull)] = s;
    } else {
      const unsigned long long slot = atomicAdd(&counts->tiled, 1ull);
      tiled_ids[slot] = s;
      tile_counts[slot] = tiles_of(segment_length);
      atomicAdd(&counts->tiles, static_cast<unsigned long long>(tiles_of(segment_length)));
    }
  }
}

/// Segments of `sizeof_t`-byte items the block path stages (0: none beyond the warp path).
inline std::uint64_t stage_items_of(std::size_t sizeof_t) { return stage_bytes / sizeof_t; }

/// Temporary storage of a call with offsets.
struct offsets_layout {
  std::size_t counts = 0, warp_ids = 0, block_ids = 0, tiled_ids = 0, tile_counts = 0, tile_start = 0, scan = 0,
              key_table = 0, state = 0, total = 0, scan_bytes = 0;
  std::uint64_t max_tiles = 0;
  template <class T>
  static offsets_layout of(std::uint64_t num_items, std::uint64_t num_segments) {
    offsets_layout l;
    protocol::temp_layout layout = detail::shuffle_layout();
    // Each tiled segment has segment_length > stage_items >= 1 items and at most
    // 2 segment_length / tile + 1 tiles.
    l.max_tiles = 2 * num_items / tiled_tile_items + num_segments + 1;
    const std::uint64_t list = num_segments * sizeof(std::uint64_t);
    l.counts = layout.add(sizeof(class_counts));
    l.warp_ids = layout.add(list);
    l.block_ids = layout.add(list);
    l.tiled_ids = layout.add(list);
    l.tile_counts = layout.add(list);
    l.tile_start = layout.add(list);
    ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, l.scan_bytes, static_cast<std::uint64_t*>(nullptr),
                                                     static_cast<std::uint64_t*>(nullptr),
                                                     static_cast<std::int64_t>(num_segments > 0 ? num_segments : 1)));
    l.scan = layout.add(l.scan_bytes);
    l.key_table = layout.add(num_segments * bijection::max_rounds * sizeof(std::uint32_t));
    l.state = layout.add(scan::tile_state<std::uint64_t>::temp_bytes(l.max_tiles));
    l.total = layout.total();
    return l;
  }
};

inline void check_rounds(const char* function, unsigned rounds) {
  protocol::check_in_range(function, "rounds", rounds, 1, bijection::max_rounds);
}

/// Launches the tiled path over `num_tiles` tiles, persistent (the resident blocks): the
/// pipelined kernel for the forward shuffle where tiled_pipeline_fits<T>, else
/// tiled_path_kernel.
template <bool Inverse, class T, class Offset, bool FixedShape, bool Odd, int Rounds>
void launch_tiled(const T* in, T* out, const tile_map<Offset>& map, std::uint64_t num_tiles,
                  const std::uint32_t* key_table, unsigned rounds, const scan::tile_state<std::uint64_t>& state,
                  cudaStream_t stream) {
  auto launch = [&](auto kernel_constant) {
    constexpr auto kernel = decltype(kernel_constant)::value;
    const unsigned grid = device::resident_grid<kernel>(block_threads, num_tiles);
    kernel<<<grid, block_threads, 0, stream>>>(in, out, map, num_tiles, key_table, rounds, state);
    ONEPASS_CUDA_CHECK_LAUNCH();
  };
  if constexpr (!Inverse && tiled_pipeline_fits<T>) {
    launch(std::integral_constant<decltype(&tiled_pipelined_kernel<T, Offset, FixedShape, Odd, Rounds>),
                                  &tiled_pipelined_kernel<T, Offset, FixedShape, Odd, Rounds>>{});
  } else {
    launch(std::integral_constant<decltype(&tiled_path_kernel<Inverse, T, Offset, FixedShape, Odd, Rounds>),
                                  &tiled_path_kernel<Inverse, T, Offset, FixedShape, Odd, Rounds>>{});
  }
}

/// Launches the warp and block paths over `src` lists (counts known on the host).
template <bool Inverse, class T, class Offset>
void launch_short_paths(const T* in, T* out, segment_source<Offset> warp_src, segment_source<Offset> block_src,
                        std::uint32_t* key_table, std::uint64_t seed, unsigned rounds, cudaStream_t stream) {
  if (warp_src.count > 0) {
    constexpr auto kernel = &warp_path_kernel<Inverse, T, Offset>;
    const std::size_t shared = warp_path_shared<T>(rounds);
    if (shared > 48 * 1024)
      ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared)));
    // The dynamic shared memory depends on rounds: the occupancy is queried every call.
    const unsigned slots = device::occupancy_slots(kernel, warp_block, shared);
    const std::uint64_t groups = (warp_src.count + 31) / 32;
    const std::uint64_t blocks_needed = (groups + warp_block / 32 - 1) / (warp_block / 32);
    const unsigned grid = device::resident_grid(slots, blocks_needed);
    kernel<<<grid, warp_block, shared, stream>>>(in, out, warp_src, seed, rounds);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }
  if (block_src.count > 0) {
    keys_kernel<Offset><<<device::stride_grid(block_src.count, 256), 256, 0, stream>>>(block_src, seed, rounds,
                                                                                      key_table);
    ONEPASS_CUDA_CHECK_LAUNCH();
    constexpr auto kernel = &block_path_kernel<Inverse, T, Offset>;
    const unsigned grid = device::resident_grid<kernel>(block_threads, block_src.count, block_path_shared);
    kernel<<<grid, block_threads, block_path_shared, stream>>>(in, out, block_src, key_table, rounds);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }
}

template <bool Inverse, class T, class Offset>
void segmented_offsets(const char* function, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                       std::uint64_t num_items, const Offset* d_offsets, std::uint64_t num_segments,
                       std::uint64_t seed, unsigned rounds, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu segmented shuffle: T must be trivially copyable");
  static_assert(std::is_integral_v<Offset> && !std::is_same_v<Offset, bool>,
                "gpu segmented shuffle: segment offsets must be of an integral type");
  protocol::check_at_most(function, "num_items", num_items, max_length, "in [0, 2^63]");
  protocol::check_at_most(function, "num_segments", num_segments, max_length - 1, "in [0, 2^63)");
  check_rounds(function, rounds);
  const offsets_layout layout = offsets_layout::of<T>(num_items, num_segments);
  // The storage is checked first, then the pointers (below).
  if (protocol::answer_query(d_temp, temp_bytes, layout.total)) return;
  protocol::check_temp_bytes(function, temp_bytes, layout.total);
  if (num_segments == 0) {
    if (num_items > 0) {
      detail::check_pointers(function, d_in, d_out, num_items);
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, num_items * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }
    return;
  }
  protocol::check_not_null(function, "segment_offsets", d_offsets,
                           "when num_segments > 0 (it holds num_segments + 1 offsets)");
  if (num_items > 0) detail::check_pointers(function, d_in, d_out, num_items);
  unsigned char* base = protocol::aligned_start(d_temp);
  auto* counts = reinterpret_cast<class_counts*>(base + layout.counts);
  auto* warp_ids = reinterpret_cast<std::uint64_t*>(base + layout.warp_ids);
  auto* block_ids = reinterpret_cast<std::uint64_t*>(base + layout.block_ids);
  auto* tiled_ids = reinterpret_cast<std::uint64_t*>(base + layout.tiled_ids);
  auto* tile_counts = reinterpret_cast<std::uint64_t*>(base + layout.tile_counts);
  auto* tile_start = reinterpret_cast<std::uint64_t*>(base + layout.tile_start);
  auto* key_table = reinterpret_cast<std::uint32_t*>(base + layout.key_table);
  class_counts host{~0ull, 0, 0, 0, 0, 0, 0};
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(counts, &host, sizeof host, cudaMemcpyHostToDevice, stream));
  const unsigned grid = device::stride_grid(num_segments, 256);
  classify_kernel<Offset><<<grid, 256, 0, stream>>>(d_offsets, num_segments, stage_items_of(sizeof(T)), counts,
                                                    warp_ids, block_ids, tiled_ids, tile_counts);
  ONEPASS_CUDA_CHECK_LAUNCH();
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(&host, counts, sizeof host, cudaMemcpyDeviceToHost, stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  // Everything checked before anything is written to d_out.
  require(host.first_offset == 0, function, "segment_offsets",
          "[0] must be 0, got " + std::to_string(static_cast<long long>(host.first_offset)));
  require(host.first_bad == ~0ull, function, "segment_offsets",
          "must be non-decreasing (segment_offsets[s] <= segment_offsets[s + 1] for s in [0, num_segments)), "
          "first decrease at s = " + std::to_string(host.first_bad));
  require(host.last_offset <= num_items, function, "segment_offsets",
          "[num_segments] must be in [0, num_items] = [0, " + std::to_string(num_items) + "], got " +
              std::to_string(host.last_offset));
  launch_short_paths<Inverse>(d_in, d_out, segment_source<Offset>{d_offsets, 0, warp_ids, host.warp},
                              segment_source<Offset>{d_offsets, 0, block_ids, host.block}, key_table, seed, rounds,
                              stream);
  if (host.tiled > 0) {
    std::size_t scan_bytes = layout.scan_bytes;
    ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(base + layout.scan, scan_bytes, tile_counts, tile_start,
                                                     static_cast<std::int64_t>(host.tiled), stream));
    std::uint32_t* tiled_keys = key_table + host.block * rounds;
    const segment_source<Offset> tiled_src{d_offsets, 0, tiled_ids, host.tiled};
    keys_kernel<Offset><<<device::stride_grid(host.tiled, 256), 256, 0, stream>>>(tiled_src, seed, rounds,
                                                                                  tiled_keys);
    ONEPASS_CUDA_CHECK_LAUNCH();
    const scan::tile_state<std::uint64_t> state(base + layout.state, host.tiles);
    state.initialize(stream);
    const tile_map<Offset> map{0, 0, tile_start, tiled_ids, d_offsets, host.tiled};
    launch_tiled<Inverse, T, Offset, false, false, 0>(d_in, d_out, map, host.tiles, tiled_keys, rounds, state,
                                                      stream);
  }
  if (host.last_offset < num_items)
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_out + host.last_offset, d_in + host.last_offset,
                                       (num_items - host.last_offset) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

template <bool Inverse, class T>
void segmented_uniform(const char* function, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                       std::uint64_t num_segments, std::uint64_t segment_length, std::uint64_t seed, unsigned rounds,
                       cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu segmented shuffle: T must be trivially copyable");
  checked_uniform_items(function, num_segments, segment_length);
  check_rounds(function, rounds);
  const std::uint64_t num_items = num_segments * segment_length;
  // Rows that do not fit the stage take the tiled path: one launch over every row's tiles.
  const bool tiled = segment_length * sizeof(T) > stage_bytes;
  const unsigned domain_bits = bijection::schedule_domain_bits(segment_length);
  const std::uint64_t tiles_per_row =
      ((std::uint64_t{1} << domain_bits) + tiled_tile_items - 1) / tiled_tile_items;
  const std::uint64_t num_tiles = tiled ? num_segments * tiles_per_row : 0;
  protocol::temp_layout layout = detail::shuffle_layout();
  const std::size_t key_offset = layout.add(segment_length > warp_segment_max ? num_segments * rounds * 4 : 1);
  const std::size_t state_offset = layout.add(tiled ? scan::tile_state<std::uint64_t>::temp_bytes(num_tiles) : 1);
  if (protocol::answer_query(d_temp, temp_bytes, layout.total())) return;
  protocol::check_temp_bytes(function, temp_bytes, layout.total());
  if (num_items == 0) return;
  detail::check_pointers(function, d_in, d_out, num_items);
  const segment_source<std::uint64_t> all{nullptr, segment_length, nullptr, num_segments};
  const segment_source<std::uint64_t> none{nullptr, segment_length, nullptr, 0};
  auto* key_table = reinterpret_cast<std::uint32_t*>(protocol::aligned_start(d_temp) + key_offset);
  if (tiled) {
    keys_kernel<std::uint64_t><<<device::stride_grid(num_segments, 256), 256, 0, stream>>>(all, seed, rounds,
                                                                                          key_table);
    ONEPASS_CUDA_CHECK_LAUNCH();
    const scan::tile_state<std::uint64_t> state(protocol::aligned_start(d_temp) + state_offset, num_tiles);
    state.initialize(stream);
    const tile_map<std::uint64_t> map{tiles_per_row, segment_length, nullptr, nullptr, nullptr, num_segments};
    with_round_shape(domain_bits, rounds, [&](auto odd, auto unrolled) {
      launch_tiled<Inverse, T, std::uint64_t, true, decltype(odd)::value, decltype(unrolled)::value>(
          d_in, d_out, map, num_tiles, key_table, rounds, state, stream);
    });
    return;
  }
  if (segment_length <= warp_segment_max)
    launch_short_paths<Inverse>(d_in, d_out, all, none, key_table, seed, rounds, stream);
  else
    launch_short_paths<Inverse>(d_in, d_out, none, all, key_table, seed, rounds, stream);
}

}  // namespace segmented_detail

/// Segmented shuffle on the GPU: for s in [0, num_segments), segment s = [offsets[s],
/// offsets[s + 1]) of d_in is shuffled into the same range of d_out exactly as the single
/// shuffle of its m_s items with seed segment_seed(seed, s) and `rounds` VariablePhilox
/// rounds — bit for bit the output of the CPU twin shuffle::cpu::segmented_shuffle
/// (shuffle/cpu_segmented_shuffle.hpp) and of gpu::bijective_shuffle with
/// variable_philox::for_length(m_s, segment_seed(seed, s), rounds) on the segment
/// (Mitchell et al. §4, Algorithm 1, per segment). Items in [offsets[num_segments],
/// num_items) are copied unchanged.
///
/// T: any trivially copyable type. d_in, d_out: device pointers to num_items elements,
/// not overlapping (may be null when num_items == 0). num_items in [0, 2^63].
/// d_segment_offsets: device pointer to num_segments + 1 CUB-style begin offsets of any
/// integral type, offsets[0] == 0, non-decreasing, offsets[num_segments] <= num_items.
/// num_segments in [0, 2^63). rounds in [1, 64] (default 24).
///
/// CUB's two-phase temporary storage (d_temp == nullptr: size query, nothing enqueued;
/// about 300 bytes per segment — id lists, tile counts, a key table of 64 rounds — plus 8
/// bytes per 1024 items for the tiled path's look-back). The run reads the offsets on the device and waits for `stream` once (the
/// file comment), then enqueues the shuffle on `stream` without waiting.
///
/// Throws onepass::error naming the argument and its allowed range for num_items,
/// num_segments, rounds, temp_bytes, null or overlapping pointers, and offsets that are
/// not as above (checked on the device before anything is written to d_out);
/// onepass::runtime_failure when a CUDA call fails.
template <class T, class Offset>
void segmented_shuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::uint64_t num_items,
                       const Offset* d_segment_offsets, std::uint64_t num_segments, std::uint64_t seed,
                       unsigned rounds = bijection::default_rounds, cudaStream_t stream = 0) {
  segmented_detail::segmented_offsets<false>("onepass::shuffle::gpu::segmented_shuffle", d_temp, temp_bytes, d_in,
                                             d_out, num_items, d_segment_offsets, num_segments, seed, rounds, stream);
}

/// Inverse of segmented_shuffle for the same offsets, seed and rounds (segment s:
/// d_out[f(i_j)] = d_in[j]); the tail is copied. Arguments, storage and errors as
/// segmented_shuffle.
template <class T, class Offset>
void segmented_unshuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::uint64_t num_items,
                         const Offset* d_segment_offsets, std::uint64_t num_segments, std::uint64_t seed,
                         unsigned rounds = bijection::default_rounds, cudaStream_t stream = 0) {
  segmented_detail::segmented_offsets<true>("onepass::shuffle::gpu::segmented_unshuffle", d_temp, temp_bytes, d_in,
                                            d_out, num_items, d_segment_offsets, num_segments, seed, rounds, stream);
}

/// Uniform-length segmented shuffle: num_segments rows of segment_length items, row s =
/// [s * segment_length, (s + 1) * segment_length); identical to segmented_shuffle with
/// offsets[s] = s * segment_length. segment_length in [0, 2^63], num_segments *
/// segment_length <= 2^63; rounds in [1, 64]. Two-phase storage (for rows longer than 256
/// items a key table, 4 bytes per round per row, and for rows beyond the stage 8 bytes per
/// tile of 1024 indices); nothing is waited for. Throws
/// onepass::error as segmented_shuffle, before anything is enqueued.
template <class T>
void segmented_shuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::uint64_t num_segments,
                       std::uint64_t segment_length, std::uint64_t seed, unsigned rounds = bijection::default_rounds,
                       cudaStream_t stream = 0) {
  segmented_detail::segmented_uniform<false>("onepass::shuffle::gpu::segmented_shuffle", d_temp, temp_bytes, d_in,
                                             d_out, num_segments, segment_length, seed, rounds, stream);
}

/// Inverse of the uniform-length segmented_shuffle.
template <class T>
void segmented_unshuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::uint64_t num_segments,
                         std::uint64_t segment_length, std::uint64_t seed, unsigned rounds = bijection::default_rounds,
                         cudaStream_t stream = 0) {
  segmented_detail::segmented_uniform<true>("onepass::shuffle::gpu::segmented_unshuffle", d_temp, temp_bytes, d_in,
                                            d_out, num_segments, segment_length, seed, rounds, stream);
}

}  // namespace onepass::shuffle::gpu
