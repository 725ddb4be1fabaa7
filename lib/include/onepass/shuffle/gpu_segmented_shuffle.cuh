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
//               memory; then, per segment, the warp evaluates the bijection over the
//               domain in chunks of 32 x warp_items indices, ranks the kept images with
//               ballots and moves in[f(i)] -> out[rank]: one read and one write of each
//               item, the reads within the segment (2 KB of uint64: L1-resident).
//   block path  (warp_segment_max < m_s <= block_segment_max = 2^17): one block per
//               segment (keys from a table one thread per segment fills first); a segment
//               that fits stage_bytes (32 KB: 4096 uint64) is first read into shared
//               memory, coalesced, and the bijection gathers from there; tiles of 256 x 4
//               indices with a block-wide exclusive scan of the ballot counts and a
//               running offset (no look-back: the block owns the segment).
//   grid path   (m_s > block_segment_max): the device-wide single-pass Bijective2 kernel
//               (shuffle/gpu_shuffle.cuh) per segment; at most num_items /
//               block_segment_max launches.
//   tiled path  (rows of one length that do not fit the stage; the uniform overload): every
//               row's tiles in one persistent launch of a single-pass kernel, tiles taken in
//               order so that the rows in flight stay in L2; the decoupled look-back of each
//               tile stops at its row's first tile, which publishes an inclusive prefix.
// With offsets, one classification kernel reads the offsets, checks them (the first
// decrease, offsets[0], the last offset against num_items) and sorts the segments into
// the three lists with atomics (segments are independent, so the lists' order does not
// matter); the counts and the grid-path segments (at most num_items / block_segment_max)
// come back to the host, which then launches the paths: a call with offsets waits for the
// stream once. The uniform-length overload knows its one path on the host and does not
// wait.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/device_launch.cuh"
#include "onepass/error.hpp"
#include "onepass/random/mt19937_64_prefix.hpp"
#include "onepass/scan/tile_state.cuh"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/segment_seed.hpp"

namespace onepass::shuffle::gpu {

/// Longest segment of the warp path (a domain of at most 2^8 indices: the segment stays in L1).
inline constexpr std::uint64_t warp_segment_max = 256;
/// Longest segment of the block path; longer segments take the device-wide kernel.
inline constexpr std::uint64_t block_segment_max = std::uint64_t{1} << 17;
/// Bytes of shared memory a block-path block stages its segment in, when the segment fits.
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
  __device__ void get(std::uint64_t i, std::uint64_t& s, std::uint64_t& begin, std::uint64_t& len) const {
    s = ids ? ids[i] : i;
    if (offsets) {
      begin = static_cast<std::uint64_t>(offsets[s]);
      len = static_cast<std::uint64_t>(offsets[s + 1]) - begin;
    } else {
      begin = s * length;
      len = length;
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
/// bijection::variable_philox::operator() (the device form of gpu_shuffle.cuh's
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
/// a domain of 2^bits and `rounds` rounds (24 unrolled).
template <class Fn>
__device__ __forceinline__ void with_round_shape(unsigned bits, unsigned rounds, Fn&& fn) {
  constexpr int unrolled = static_cast<int>(bijection::default_rounds);
  if (rounds == bijection::default_rounds) {
    if (bits & 1u) fn(std::true_type{}, std::integral_constant<int, unrolled>{});
    else fn(std::false_type{}, std::integral_constant<int, unrolled>{});
  } else {
    if (bits & 1u) fn(std::true_type{}, std::integral_constant<int, 0>{});
    else fn(std::false_type{}, std::integral_constant<int, 0>{});
  }
}

/// Warp path: warps take groups of 32 segments (grid-stride); lane j derives the keys of
/// segment j of the group into shared memory, then the warp shuffles the group's
/// segments one by one. Dynamic shared memory: warps x 32 x rounds keys.
template <bool Inverse, class T, class Offset>
__global__ void __launch_bounds__(warp_block) warp_path_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                               segment_source<Offset> src, std::uint64_t seed,
                                                               unsigned rounds) {
  extern __shared__ std::uint32_t warp_keys[];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::uint32_t* my_keys = warp_keys + warp * 32 * rounds;
  const unsigned lanes_below = (1u << lane) - 1u;
  const std::uint64_t groups = (src.count + 31) / 32;
  const std::uint64_t warps_total = static_cast<std::uint64_t>(gridDim.x) * (warp_block / 32);
  for (std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * (warp_block / 32) + warp; g < groups;
       g += warps_total) {
    const std::uint64_t i = g * 32 + lane;
    std::uint64_t s = 0, begin = 0, len = 0;
    if (i < src.count) {
      src.get(i, s, begin, len);
      if (len > 0) segment_keys(seed, s, rounds, my_keys + lane * rounds);
    }
    __syncwarp();
    const unsigned in_group = static_cast<unsigned>(src.count - g * 32 < 32 ? src.count - g * 32 : 32);
    for (unsigned j = 0; j < in_group; ++j) {
      const std::uint64_t seg_begin = __shfl_sync(0xffffffffu, begin, j);
      const std::uint64_t m = __shfl_sync(0xffffffffu, len, j);
      if (m == 0) continue;
      const unsigned bits = bijection::schedule_domain_bits(m);
      const std::uint64_t domain = std::uint64_t{1} << bits;
      const std::uint32_t* keys = my_keys + j * rounds;
      with_round_shape(bits, rounds, [&](auto odd, auto unrolled) {
      std::uint64_t running = 0;
      for (std::uint64_t base = 0; base < domain; base += 32 * warp_items) {
        std::uint64_t x[warp_items], w[warp_items];
#pragma unroll
        for (int k = 0; k < warp_items; ++k) x[k] = base + static_cast<std::uint64_t>(k) * 32 + lane;
        images<decltype(odd)::value, decltype(unrolled)::value, warp_items>(x, w, keys, rounds, bits);
        std::uint64_t rank[warp_items];
        bool keep[warp_items];
#pragma unroll
        for (int k = 0; k < warp_items; ++k) {
          keep[k] = x[k] < domain && w[k] < m;
          const unsigned ballot = __ballot_sync(0xffffffffu, keep[k]);
          rank[k] = running + __popc(ballot & lanes_below);
          running += __popc(ballot);
        }
        T v[warp_items];
#pragma unroll
        for (int k = 0; k < warp_items; ++k)
          if (keep[k]) v[k] = in[seg_begin + (Inverse ? rank[k] : w[k])];
#pragma unroll
        for (int k = 0; k < warp_items; ++k)
          if (keep[k]) out[seg_begin + (Inverse ? w[k] : rank[k])] = v[k];
      }
      });
    }
    __syncwarp();
  }
}

/// Block path: blocks take segments (grid-stride); thread 0 derives the keys into shared
/// memory; tiles of block_threads x block_items indices (striped: index base + k *
/// block_threads + t) are ranked with a block-wide exclusive scan of the (item, warp)
/// ballot counts and a running offset.
template <bool Inverse, class T, class Offset>
__global__ void __launch_bounds__(block_threads) block_path_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   segment_source<Offset> src,
                                                                   const std::uint32_t* __restrict__ key_table,
                                                                   unsigned rounds) {
  extern __shared__ __align__(16) unsigned char stage_raw[];  // stage_bytes
  T* stage = reinterpret_cast<T*>(stage_raw);
  __shared__ std::uint32_t keys[bijection::max_rounds];
  __shared__ std::uint32_t counts[32];
  __shared__ std::uint32_t offsets[33];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  for (std::uint64_t i = blockIdx.x; i < src.count; i += gridDim.x) {
    std::uint64_t s = 0, begin = 0, m = 0;
    src.get(i, s, begin, m);
    if (m == 0) continue;  // uniform across the block
    __syncthreads();       // the previous segment is done with keys and the stage
    if (threadIdx.x < rounds) keys[threadIdx.x] = key_table[i * rounds + threadIdx.x];
    // A segment that fits is staged in shared memory (read once, coalesced); the
    // bijection's reads then come from there.
    const bool staged = m * sizeof(T) <= stage_bytes;
    if (staged)
      for (std::uint64_t j = threadIdx.x; j < m; j += block_threads) stage[j] = in[begin + j];
    const T* source = staged ? stage : in + begin;
    __syncthreads();
    const unsigned bits = bijection::schedule_domain_bits(m);
    const std::uint64_t domain = std::uint64_t{1} << bits;
    with_round_shape(bits, rounds, [&](auto odd, auto unrolled) {
    std::uint64_t running = 0;
    for (std::uint64_t base = 0; base < domain; base += static_cast<std::uint64_t>(block_threads) * block_items) {
      std::uint64_t x[block_items], w[block_items];
#pragma unroll
      for (int k = 0; k < block_items; ++k) x[k] = base + static_cast<std::uint64_t>(k) * block_threads + threadIdx.x;
      images<decltype(odd)::value, decltype(unrolled)::value, block_items>(x, w, keys, rounds, bits);
      bool keep[block_items];
      unsigned ballot[block_items];
#pragma unroll
      for (int k = 0; k < block_items; ++k) {
        keep[k] = x[k] < domain && w[k] < m;
        ballot[k] = __ballot_sync(0xffffffffu, keep[k]);
        if (lane == 0) counts[k * block_warps + warp] = __popc(ballot[k]);
      }
      __syncthreads();
      if (warp == 0) {  // exclusive scan of the 32 counts, in index order (k, warp)
        const std::uint32_t c = counts[lane];
        std::uint32_t incl = c;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
          const std::uint32_t up = __shfl_up_sync(0xffffffffu, incl, d);
          if (lane >= static_cast<unsigned>(d)) incl += up;
        }
        offsets[lane] = incl - c;
        if (lane == 31) offsets[32] = incl;
      }
      __syncthreads();
      T v[block_items];
      std::uint64_t rank[block_items];
#pragma unroll
      for (int k = 0; k < block_items; ++k) {
        rank[k] = running + offsets[k * block_warps + warp] + __popc(ballot[k] & lanes_below);
        if (keep[k]) v[k] = source[Inverse ? rank[k] : w[k]];
      }
#pragma unroll
      for (int k = 0; k < block_items; ++k)
        if (keep[k]) out[begin + (Inverse ? w[k] : rank[k])] = v[k];
      running += offsets[32];
      __syncthreads();  // counts and offsets are rewritten by the next tile
    }
    });
  }
}

/// Tiled path (uniform rows longer than the stage): all rows' tiles in one persistent
/// launch, taken in order from the tile counter, so the tiles in flight belong to a few
/// consecutive rows (their items stay in L2). Tile t is local tile t mod tiles_per_row of
/// row t / tiles_per_row; a row's first tile publishes its count as an inclusive prefix at
/// once, so the decoupled look-back of the single-pass scan (scan/tile_state.cuh) never
/// crosses into the previous row. Keys from the key table (row order).
template <bool Inverse, bool Odd, int Rounds, class T>
__global__ void __launch_bounds__(block_threads) tiled_path_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   std::uint64_t m, unsigned bits,
                                                                   std::uint64_t tiles_per_row, std::uint64_t num_tiles,
                                                                   const std::uint32_t* __restrict__ key_table,
                                                                   unsigned rounds,
                                                                   scan::tile_state<std::uint64_t> state) {
  __shared__ std::uint32_t keys[bijection::max_rounds];
  __shared__ std::uint32_t counts[32];
  __shared__ std::uint32_t offsets[33];
  __shared__ std::uint64_t tile_id, prefix;
  constexpr std::uint64_t tile_items = static_cast<std::uint64_t>(block_threads) * block_items;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  const std::uint64_t domain = std::uint64_t{1} << bits;
  for (;;) {
    if (threadIdx.x == 0) tile_id = state.acquire_tile();
    __syncthreads();  // (1) the tile id; the previous tile is done with the shared arrays
    const std::uint64_t tile = tile_id;
    if (tile >= num_tiles) return;
    const std::uint64_t row = tile / tiles_per_row, local = tile - row * tiles_per_row;
    if (threadIdx.x < rounds) keys[threadIdx.x] = key_table[row * rounds + threadIdx.x];
    __syncthreads();  // (2) keys
    const std::uint64_t begin = row * m, base = local * tile_items;
    std::uint64_t x[block_items], w[block_items];
#pragma unroll
    for (int k = 0; k < block_items; ++k) x[k] = base + static_cast<std::uint64_t>(k) * block_threads + threadIdx.x;
    images<Odd, Rounds, block_items>(x, w, keys, rounds, bits);
    bool keep[block_items];
    unsigned ballot[block_items];
    T v[block_items];
#pragma unroll
    for (int k = 0; k < block_items; ++k) {
      keep[k] = x[k] < domain && w[k] < m;
      ballot[k] = __ballot_sync(0xffffffffu, keep[k]);
      if (lane == 0) counts[k * block_warps + warp] = __popc(ballot[k]);
      if constexpr (!Inverse)
        if (keep[k]) v[k] = in[begin + w[k]];  // issued before the scan: its latency overlaps the look-back
    }
    __syncthreads();  // (3) counts
    if (warp == 0) {
      const std::uint32_t c = counts[lane];
      std::uint32_t incl = c;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const std::uint32_t up = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= static_cast<unsigned>(d)) incl += up;
      }
      offsets[lane] = incl - c;
      const std::uint64_t aggregate = __shfl_sync(0xffffffffu, incl, 31);
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
    __syncthreads();  // (4) offsets and prefix
    const std::uint64_t before = prefix;
#pragma unroll
    for (int k = 0; k < block_items; ++k) {
      const std::uint64_t rank = before + offsets[k * block_warps + warp] + __popc(ballot[k] & lanes_below);
      if constexpr (Inverse) {
        if (keep[k]) out[begin + w[k]] = in[begin + rank];
      } else {
        if (keep[k]) out[begin + rank] = v[k];
      }
    }
  }
}

/// key_table[i * rounds + r]: round key r of segment i of `src` (one thread per segment).
template <class Offset>
__global__ void __launch_bounds__(256) keys_kernel(segment_source<Offset> src, std::uint64_t seed, unsigned rounds,
                                                   std::uint32_t* key_table) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < src.count; i += static_cast<std::uint64_t>(gridDim.x) * 256) {
    std::uint64_t s = 0, begin = 0, len = 0;
    src.get(i, s, begin, len);
    segment_keys(seed, s, rounds, key_table + i * rounds);
  }
}

/// What the classification tells the host.
struct class_counts {
  unsigned long long first_bad;    // smallest s with offsets[s] > offsets[s + 1] (or ~0)
  unsigned long long warp, block, grid;
  unsigned long long first_offset, last_offset;
};

/// One grid-path segment, for the host's launches.
struct long_segment {
  std::uint64_t s, begin, length;
};

/// Checks the offsets and sorts the segments into the three paths' lists.
template <class Offset>
__global__ void __launch_bounds__(256) classify_kernel(const Offset* offsets, std::uint64_t num_segments,
                                                       class_counts* counts, std::uint64_t* warp_ids,
                                                       std::uint64_t* block_ids, long_segment* long_list,
                                                       std::uint64_t long_capacity) {
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
    const std::uint64_t len = static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
    if (len == 0) continue;
    if (len <= warp_segment_max) {
      warp_ids[atomicAdd(&counts->warp, 1ull)] = s;
    } else if (len <= block_segment_max) {
      block_ids[atomicAdd(&counts->block, 1ull)] = s;
    } else {
      const unsigned long long slot = atomicAdd(&counts->grid, 1ull);
      if (slot < long_capacity) long_list[slot] = long_segment{s, static_cast<std::uint64_t>(a), len};
    }
  }
}

/// Temporary storage of a call with offsets.
struct offsets_layout {
  std::size_t counts = 0, warp_ids = 0, block_ids = 0, long_list = 0, key_table = 0, bijective2 = 0, total = 0;
  std::uint64_t long_capacity = 0;
  template <class T>
  static offsets_layout of(std::uint64_t num_items, std::uint64_t num_segments) {
    offsets_layout l;
    detail::temp_layout layout;
    l.long_capacity = num_items / (block_segment_max + 1) + 1;
    if (l.long_capacity > num_segments) l.long_capacity = num_segments;
    l.counts = layout.add(sizeof(class_counts));
    l.warp_ids = layout.add(num_segments * sizeof(std::uint64_t));
    l.block_ids = layout.add(num_segments * sizeof(std::uint64_t));
    l.long_list = layout.add(l.long_capacity * sizeof(long_segment));
    l.key_table = layout.add(num_segments * bijection::max_rounds * sizeof(std::uint32_t));
    l.bijective2 = layout.add(num_items > block_segment_max
                                  ? detail::bijective2_temp_bytes<T>(bijection::schedule_domain_bits(num_items))
                                  : 1);
    l.total = layout.total();
    return l;
  }
};

inline void check_rounds(const char* function, unsigned rounds) {
  require(rounds >= 1 && rounds <= bijection::max_rounds, function, "rounds",
          "must be in [1, " + std::to_string(bijection::max_rounds) + "], got " + std::to_string(rounds));
}

/// Host: calls fn(std::integral_constant<bool, Odd>, std::integral_constant<int, Rounds>)
/// for a domain of 2^bits and `rounds` rounds (24 unrolled), to pick a kernel.
template <class Fn>
void with_host_round_shape(unsigned bits, unsigned rounds, Fn&& fn) {
  constexpr int unrolled = static_cast<int>(bijection::default_rounds);
  if (rounds == bijection::default_rounds) {
    if (bits & 1u) fn(std::true_type{}, std::integral_constant<int, unrolled>{});
    else fn(std::false_type{}, std::integral_constant<int, unrolled>{});
  } else {
    if (bits & 1u) fn(std::true_type{}, std::integral_constant<int, 0>{});
    else fn(std::false_type{}, std::integral_constant<int, 0>{});
  }
}

/// Launches the warp and block paths over `src` lists (counts known on the host).
template <bool Inverse, class T, class Offset>
void launch_short_paths(const T* in, T* out, segment_source<Offset> warp_src, segment_source<Offset> block_src,
                        std::uint32_t* key_table, std::uint64_t seed, unsigned rounds, cudaStream_t stream) {
  if (warp_src.count > 0) {
    constexpr auto kernel = &warp_path_kernel<Inverse, T, Offset>;
    const std::size_t shared = static_cast<std::size_t>(warp_block / 32) * 32 * rounds * sizeof(std::uint32_t);
    if (shared > 48 * 1024)
      ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared)));
    int per_sm = 0;
    ONEPASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warp_block, shared));
    const std::uint64_t groups = (warp_src.count + 31) / 32;
    const std::uint64_t blocks_needed = (groups + warp_block / 32 - 1) / (warp_block / 32);
    const std::uint64_t slots = static_cast<std::uint64_t>(device::multiprocessors()) * (per_sm > 0 ? per_sm : 1);
    const unsigned grid = static_cast<unsigned>(blocks_needed < slots ? blocks_needed : slots);
    kernel<<<grid, warp_block, shared, stream>>>(in, out, warp_src, seed, rounds);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }
  if (block_src.count > 0) {
    keys_kernel<Offset><<<detail::stride_grid(block_src.count, 256), 256, 0, stream>>>(block_src, seed, rounds,
                                                                                      key_table);
    ONEPASS_CUDA_CHECK_LAUNCH();
    constexpr auto kernel = &block_path_kernel<Inverse, T, Offset>;
    const std::uint64_t slots = device::resident_blocks<kernel>(block_threads, stage_bytes);
    const unsigned grid = static_cast<unsigned>(block_src.count < slots ? block_src.count : slots);
    kernel<<<grid, block_threads, stage_bytes, stream>>>(in, out, block_src, key_table, rounds);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }
}

/// The grid path for one segment: Bijective2 over [begin, begin + length).
template <bool Inverse, class T>
void grid_path(void* d_temp, const T* in, T* out, std::uint64_t s, std::uint64_t begin, std::uint64_t length,
               std::uint64_t seed, unsigned rounds, cudaStream_t stream) {
  const auto f = bijection::variable_philox::for_length(length, segment_seed(seed, s), rounds);
  detail::run_bijective2<Inverse>(d_temp, in + begin, out + begin, length, f, stream);
}

template <bool Inverse, class T, class Offset>
void segmented_offsets(const char* function, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                       std::uint64_t num_items, const Offset* d_offsets, std::uint64_t num_segments,
                       std::uint64_t seed, unsigned rounds, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu segmented shuffle: T must be trivially copyable");
  static_assert(std::is_integral_v<Offset> && !std::is_same_v<Offset, bool>,
                "gpu segmented shuffle: segment offsets must be of an integral type");
  require(num_items <= max_length, function, "num_items", "must be in [0, 2^63], got " + std::to_string(num_items));
  require(num_segments < max_length, function, "num_segments",
          "must be in [0, 2^63), got " + std::to_string(num_segments));
  check_rounds(function, rounds);
  const offsets_layout layout = offsets_layout::of<T>(num_items, num_segments);
  if (d_temp == nullptr) {
    temp_bytes = layout.total;
    return;
  }
  detail::check_temp(function, temp_bytes, layout.total);
  if (num_segments == 0) {
    if (num_items > 0) {
      detail::check_pointers(function, d_in, d_out, num_items);
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, num_items * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }
    return;
  }
  require(d_offsets != nullptr, function, "segment_offsets",
          "must not be null when num_segments > 0 (it holds num_segments + 1 offsets)");
  if (num_items > 0) detail::check_pointers(function, d_in, d_out, num_items);
  unsigned char* base = detail::temp_layout::aligned_start(d_temp);
  auto* counts = reinterpret_cast<class_counts*>(base + layout.counts);
  auto* warp_ids = reinterpret_cast<std::uint64_t*>(base + layout.warp_ids);
  auto* block_ids = reinterpret_cast<std::uint64_t*>(base + layout.block_ids);
  auto* long_list = reinterpret_cast<long_segment*>(base + layout.long_list);
  class_counts host{~0ull, 0, 0, 0, 0, 0};
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(counts, &host, sizeof host, cudaMemcpyHostToDevice, stream));
  const unsigned grid = detail::stride_grid(num_segments, 256);
  classify_kernel<Offset><<<grid, 256, 0, stream>>>(d_offsets, num_segments, counts, warp_ids, block_ids, long_list,
                                                    layout.long_capacity);
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
  std::vector<long_segment> longs(host.grid);
  if (host.grid > 0)
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(longs.data(), long_list, host.grid * sizeof(long_segment),
                                       cudaMemcpyDeviceToHost, stream));
  if (host.grid > 0) ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  launch_short_paths<Inverse>(d_in, d_out, segment_source<Offset>{d_offsets, 0, warp_ids, host.warp},
                              segment_source<Offset>{d_offsets, 0, block_ids, host.block},
                              reinterpret_cast<std::uint32_t*>(base + layout.key_table), seed, rounds, stream);
  for (const auto& l : longs)
    grid_path<Inverse>(base + layout.bijective2, d_in, d_out, l.s, l.begin, l.length, seed, rounds, stream);
  if (host.last_offset < num_items)
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_out + host.last_offset, d_in + host.last_offset,
                                       (num_items - host.last_offset) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

template <bool Inverse, class T>
void segmented_uniform(const char* function, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                       std::uint64_t num_segments, std::uint64_t segment_length, std::uint64_t seed, unsigned rounds,
                       cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu segmented shuffle: T must be trivially copyable");
  require(segment_length <= max_length, function, "segment_length",
          "must be in [0, 2^63], got " + std::to_string(segment_length));
  require(segment_length == 0 || num_segments <= max_length / segment_length, function, "num_segments",
          "must be in [0, 2^63 / segment_length] = [0, " +
              std::to_string(segment_length == 0 ? max_length : max_length / segment_length) + "], got " +
              std::to_string(num_segments));
  check_rounds(function, rounds);
  const std::uint64_t num_items = num_segments * segment_length;
  // Rows that do not fit the stage take the tiled path: one launch over every row's tiles.
  const bool tiled = segment_length * sizeof(T) > stage_bytes;
  const unsigned bits = bijection::schedule_domain_bits(segment_length);
  constexpr std::uint64_t tile_items = static_cast<std::uint64_t>(block_threads) * block_items;
  const std::uint64_t tiles_per_row = ((std::uint64_t{1} << bits) + tile_items - 1) / tile_items;
  const std::uint64_t num_tiles = tiled ? num_segments * tiles_per_row : 0;
  detail::temp_layout layout;
  const std::size_t key_offset = layout.add(segment_length > warp_segment_max ? num_segments * rounds * 4 : 1);
  const std::size_t state_offset = layout.add(tiled ? scan::tile_state<std::uint64_t>::temp_bytes(num_tiles) : 1);
  if (d_temp == nullptr) {
    temp_bytes = layout.total();
    return;
  }
  detail::check_temp(function, temp_bytes, layout.total());
  if (num_items == 0) return;
  detail::check_pointers(function, d_in, d_out, num_items);
  const segment_source<std::uint64_t> all{nullptr, segment_length, nullptr, num_segments};
  const segment_source<std::uint64_t> none{nullptr, segment_length, nullptr, 0};
  auto* key_table = reinterpret_cast<std::uint32_t*>(detail::temp_layout::aligned_start(d_temp) + key_offset);
  if (tiled) {
    keys_kernel<std::uint64_t><<<detail::stride_grid(num_segments, 256), 256, 0, stream>>>(all, seed, rounds,
                                                                                          key_table);
    ONEPASS_CUDA_CHECK_LAUNCH();
    const scan::tile_state<std::uint64_t> state(detail::temp_layout::aligned_start(d_temp) + state_offset, num_tiles);
    state.initialize(stream);
    with_host_round_shape(bits, rounds, [&](auto odd, auto unrolled) {
      constexpr auto kernel = &tiled_path_kernel<Inverse, decltype(odd)::value, decltype(unrolled)::value, T>;
      const std::uint64_t slots = device::resident_blocks<kernel>(block_threads);
      const unsigned grid = static_cast<unsigned>(num_tiles < slots ? num_tiles : slots);
      kernel<<<grid, block_threads, 0, stream>>>(d_in, d_out, segment_length, bits, tiles_per_row, num_tiles,
                                                 key_table, rounds, state);
      ONEPASS_CUDA_CHECK_LAUNCH();
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
/// rounds — bit for bit the output of the CPU twin shuffle::segmented_shuffle
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
/// about 16 bytes per segment plus the single shuffle's storage for the longest possible
/// segment). The run reads the offsets on the device and waits for `stream` once (the
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
/// segment_length <= 2^63; rounds in [1, 64]. Two-phase storage (none but the single
/// shuffle's for rows longer than block_segment_max); nothing is waited for. Throws
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
