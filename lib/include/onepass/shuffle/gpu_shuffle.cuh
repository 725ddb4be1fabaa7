// onepass/shuffle/gpu_shuffle.cuh — the bijective shuffle on the GPU (CUDA).
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1) and §6 (the three fusion levels). For i in [0, n = 2^b) in order,
// the image w_i = f(i) is flagged when w_i < m; the j-th flagged index gathers
// out[j] = in[w_j]. The permutation is exactly the one of the CPU shuffle
// (onepass/shuffle/cpu_shuffle.hpp) for the same bijection, element for element.
//
// Three implementations of the same permutation (`fusion`):
//   bijective0  separate passes: images[i] = f(i) for all n indices (n * 8 bytes of
//               temporary storage), cub::DeviceSelect::If keeps the images below m
//               (m * 8 more bytes), a gather kernel moves out[j] = in[selected[j]].
//   bijective1  two-pass reduce-then-scan: kernel 1 evaluates f on each tile and
//               writes the tile's flag count; cub::DeviceScan::ExclusiveSum over
//               the tile counts; kernel 2 evaluates f again, ranks the flags inside
//               the tile and gathers. Temporary storage: two words per tile.
//   bijective2  single pass over the decoupled look-back scan (scan/tile_state.cuh):
//               each element is read once and written once, f is evaluated once, in
//               registers; temporary storage is the tile descriptors and counter.
// bijective_unshuffle applies the inverse permutation with the bijective2
// structure: out[w_j] = in[j].
//
// Tile of the fused kernels: `block` threads, `items` indices per thread, in a
// striped arrangement: thread t (warp v, lane l) of tile T holds the indices
// T * tile + k * block + t for k in [0, items). For one (k, v) the 32 lanes hold 32
// consecutive indices, so __ballot_sync gives the flags in index order, a lane's
// rank is popc(ballot & lanes below it), and the warp's flagged elements go to
// consecutive outputs. Warp 0 scans the items * warps ballot counts (in (k, v)
// order = index order) in shared memory, then does the tile's look-back. The
// forward bijective2 is software-pipelined over two tiles (bijective2_pipelined_kernel):
// a block evaluates its next tile and starts copying that tile's elements in[w] into
// shared memory (cp.async) before it looks back for the current tile and stores it, and
// publishes the next tile's aggregate as soon as it has counted it; the unshuffle (and
// elements too large for two stages) runs one tile at a time (bijective2_kernel), its
// loads issued before the scan and look-back. Two tile shapes (detail::policies):
// 256 x 2 for domains below 2^22 (more tiles, so small inputs spread over the SMs)
// and 256 x 4 from 2^22 up; both are powers of two, so
// only a domain smaller than one tile has a partial tile.
//
// Evaluators (the device forms of the bijections): gpu_evaluator.cuh. The forward
// bijective2 of a domain whose output fits in shared memory runs the staged structure
// of gpu_staged_shuffle.cuh instead of the tiles below (one cooperative launch, a grid
// barrier in place of the look-back); the permutation is the same.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/scan/tile_state.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/gpu_staged_shuffle.cuh"

namespace onepass::shuffle::gpu {

/// How far evaluation, compaction and gather are fused (paper §6).
enum class fusion {
  bijective0,  ///< separate passes: evaluate -> cub::DeviceSelect::If -> gather
  bijective1,  ///< fused, two-pass reduce-then-scan (tile counts, cub::DeviceScan, re-evaluate + gather)
  bijective2,  ///< fused, single pass over the decoupled look-back scan
};

/// "bijective0", "bijective1" or "bijective2".
inline const char* to_string(fusion variant) {
  switch (variant) {
    case fusion::bijective0: return "bijective0";
    case fusion::bijective1: return "bijective1";
    case fusion::bijective2: return "bijective2";
  }
  return "unknown";
}

/// Largest sequence length the GPU shuffle accepts.
inline constexpr std::uint64_t max_length = std::uint64_t{1} << 63;

namespace detail {

// ----------------------------------------------------------------------------
// Tile shapes.

/// A tile of Block threads x Items indices per thread (both powers of two);
/// MinBlocks: resident blocks per SM the compiler must allow (__launch_bounds__),
/// which caps the registers per thread at 65536 / (MinBlocks * Block).
template <int Block, int Items, int MinBlocks = 1>
struct tile_policy {
  static constexpr int block = Block;
  static constexpr int items = Items;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int warps = Block / 32;
  static constexpr std::uint64_t tile_items = static_cast<std::uint64_t>(Block) * Items;
  static_assert(Block >= 32 && Block <= 1024 && (Block & (Block - 1)) == 0, "block: a power of two in [32, 1024]");
  static_assert(Items >= 1 && (Items & (Items - 1)) == 0, "items: a power of two");
};

/// Domains of at least 2^large_tile_min_bits indices use the large tile.
inline constexpr unsigned large_tile_min_bits = 22;

/// The tile shapes for elements of type T. Large: 256 x 4 with 8 resident blocks
/// (2048 threads, the most an SM holds) per SM, so at most 32 registers per thread
/// (no spills with nvcc 13.0); 16-byte T: 256 x 4 with 4 blocks.
/// Measured at 2^29+1 uint64 against a computed-index random gather, median of 9:
///   NVIDIA H100 (scripts/tune_bijective2.cu, results/recorded/nvidia-h100/
///   tuning.txt): 256x4/8 0.949-0.954 x gather, 256x4/7 0.950-0.955, 128x4/16
///   0.955-0.958, 256x4/6 0.902-0.905, 512x4/3 0.895-0.897, 256x2/8 0.81;
///   per-item interleaving of evaluation and load 0.879, warp-sized tiles without
///   block barriers 0.64-0.89, one wide multiply per round 0.895 (all at /6).
///   NVIDIA H200 (an earlier version of the same script): 256x4/6 0.83-0.87, 256x8/4 0.81-0.84,
///   256x16/2 0.69-0.71.
/// The forward shuffle runs these shapes in bijective2_pipelined_kernel (tile t+1's
/// elements load while tile t looks back and stores; t+1's aggregate is published as
/// soon as it is counted). An earlier pipelined version that published t+1's aggregate
/// only after storing tile t ran at 0.34 x gather: every later tile's look-back waited
/// on it. With the pipelined kernel on the H100, 2^23+1 / 2^24+1 / 2^26+1 / 2^29+1
/// uint64: 256x4/8 0.879 / 0.943 / 0.980 / 0.989 x a hashed-index gather, 256x4/7
/// 0.883 / 0.945 / 0.981 / 0.991, 512x4/4 0.885 / 0.928 / 0.976 / 0.994, 128x4/16
/// 0.860 / 0.933 / 0.971 / 0.983, 256x8/4 0.882 / 0.872 / 0.936 / 0.994 (results/
/// recorded/nvidia-h100/variants/bijective2_pipelined.txt). Small, below
/// 2^22 indices: 256 x 2, so that even 2^15 indices make 64 tiles.
template <class T>
struct policies {
  using small = tile_policy<256, 2, 1>;
  using large = std::conditional_t<(sizeof(T) > 8), tile_policy<256, 4, 4>, tile_policy<256, 4, 8>>;
};

/// Calls fn(policy{}) with the tile shape used for a domain of 2^bits indices.
template <class T, class Fn>
void with_policy(unsigned bits, Fn&& fn) {
  if (bits >= large_tile_min_bits) {
    fn(typename policies<T>::large{});
  } else {
    fn(typename policies<T>::small{});
  }
}

/// Tiles covering the domain [0, n), n a power of two.
template <class Policy>
constexpr std::uint64_t tiles_for(std::uint64_t n) {
  return n >= Policy::tile_items ? n / Policy::tile_items : 1;
}

// ----------------------------------------------------------------------------
// Tile ranking shared by bijective1 (kernel 2), bijective2 and the unshuffle.

template <class Policy>
struct tile_shared {
  std::uint32_t ballot[Policy::items * Policy::warps];  // flags of (item k, warp v) at k * warps + v
  std::uint32_t offset[Policy::items * Policy::warps];  // exclusive count of flags before (k, v) in the tile
  std::uint64_t prefix;                                  // flags before the tile (global output offset)
  std::uint64_t tile;                                    // the block's current tile id
};

/// Evaluates the tile's indices, writes the (k, warp) ballots to shared memory and
/// returns the thread's images and flags (bit k of the result: item k flagged).
/// All threads of the block call it; i >= n (only when n < one tile) is never flagged.
template <class Policy, class Eval>
__device__ __forceinline__ std::uint32_t evaluate_and_flag(const Eval& f, std::uint64_t base, std::uint64_t n,
                                                           std::uint64_t m, tile_shared<Policy>& s,
                                                           std::uint64_t (&w)[Policy::items]) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const std::uint64_t first = base + threadIdx.x;
  f.template images<Policy::items>(first, Policy::block, w);
  std::uint32_t flags = 0;
#pragma unroll
  for (int k = 0; k < Policy::items; ++k) {
    const bool flag = (first + static_cast<std::uint64_t>(k) * Policy::block < n) && (w[k] < m);
    const std::uint32_t ballot = __ballot_sync(0xFFFFFFFFu, flag);
    if (lane == 0) s.ballot[k * Policy::warps + warp] = ballot;
    flags |= static_cast<std::uint32_t>(flag) << k;
  }
  return flags;
}

/// Warp 0 only (all 32 lanes): exclusive scan of the popcounts of s.ballot into
/// s.offset, in (k, warp) order; returns the tile's flag count to every lane.
template <class Policy>
__device__ __forceinline__ std::uint32_t scan_ballots(tile_shared<Policy>& s) {
  constexpr int entries = Policy::items * Policy::warps;
  constexpr int per_lane = (entries + 31) / 32;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  std::uint32_t count[per_lane];
  std::uint32_t sum = 0;
#pragma unroll
  for (int p = 0; p < per_lane; ++p) {
    const int e = lane * per_lane + p;
    count[p] = e < entries ? static_cast<std::uint32_t>(__popc(s.ballot[e])) : 0u;
    sum += count[p];
  }
  std::uint32_t inclusive = sum;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const std::uint32_t other = __shfl_up_sync(0xFFFFFFFFu, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  std::uint32_t running = inclusive - sum;
#pragma unroll
  for (int p = 0; p < per_lane; ++p) {
    const int e = lane * per_lane + p;
    if (e < entries) s.offset[e] = running;
    running += count[p];
  }
  return __shfl_sync(0xFFFFFFFFu, inclusive, 31);
}

/// Output rank inside the tile of item k of this thread (flagged), from shared memory.
template <class Policy>
__device__ __forceinline__ std::uint32_t rank_in_tile(const tile_shared<Policy>& s, int k) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned e = k * Policy::warps + (threadIdx.x >> 5);
  const std::uint32_t below = (1u << lane) - 1u;
  return s.offset[e] + static_cast<std::uint32_t>(__popc(s.ballot[e] & below));
}

/// The exact number of flagged indices before tile `tile` from the look-back's
/// value modulo 2^62: it lies in [tile * tile_items - (n - m), tile * tile_items].
template <class Policy>
__device__ __forceinline__ std::uint64_t exact_prefix(std::uint64_t residue, std::uint64_t tile, std::uint64_t n,
                                                      std::uint64_t m) {
  const std::uint64_t before = tile * Policy::tile_items;
  const std::uint64_t unflagged = n - m;
  return scan::unwrap_62(residue, before > unflagged ? before - unflagged : 0);
}

// ----------------------------------------------------------------------------
// bijective2: the single-pass kernel (and, with Inverse, the unshuffle).
//
// Persistent blocks; each loop iteration takes the next tile id from the counter.
// Barriers per tile: (1) the tile id is visible; (2) the ballots are visible to
// warp 0; (3) offsets and prefix are visible to all. A thread's last shared-memory
// read of a tile precedes its arrival at the next tile's barrier (1), and every
// shared-memory write of the next tile follows barrier (1) (thread 0's write of the
// tile id follows barrier (3), which every thread passes only after reading it).
template <class Policy, class T, class Eval, bool Inverse>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective2_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t m, std::uint64_t n,
                      std::uint64_t num_tiles, const __grid_constant__ Eval f, scan::tile_state<std::uint64_t> state) {
  using bits = element_bits<T>;
  const bits* __restrict__ src = reinterpret_cast<const bits*>(in);
  bits* __restrict__ dst = reinterpret_cast<bits*>(out);
  __shared__ tile_shared<Policy> s;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31u;
  for (;;) {
    if (threadIdx.x == 0) s.tile = state.acquire_tile();
    __syncthreads();  // (1)
    const std::uint64_t tile = s.tile;
    if (tile >= num_tiles) return;  // the same for the whole block
    const std::uint64_t base = tile * Policy::tile_items;
    std::uint64_t w[Policy::items];
    const std::uint32_t flags = evaluate_and_flag<Policy>(f, base, n, m, s, w);
    bits value[Policy::items];
    if constexpr (!Inverse) {
#pragma unroll
      for (int k = 0; k < Policy::items; ++k)
        if (flags >> k & 1u) value[k] = src[w[k]];  // issued before the scan: latency overlaps it
    }
    __syncthreads();  // (2)
    if (warp == 0) {
      const std::uint32_t aggregate = scan_ballots(s);
      const std::uint64_t residue = state.warp_exclusive_prefix(tile, aggregate);
      if (lane == 0) s.prefix = exact_prefix<Policy>(residue, tile, n, m);
    }
    __syncthreads();  // (3)
    const std::uint64_t prefix = s.prefix;
    if constexpr (!Inverse) {
#pragma unroll
      for (int k = 0; k < Policy::items; ++k)
        if (flags >> k & 1u) dst[prefix + rank_in_tile(s, k)] = value[k];
    } else {
#pragma unroll
      for (int k = 0; k < Policy::items; ++k)
        if (flags >> k & 1u) value[k] = src[prefix + rank_in_tile(s, k)];
#pragma unroll
      for (int k = 0; k < Policy::items; ++k)
        if (flags >> k & 1u) dst[w[k]] = value[k];
    }
  }
}

// bijective2, forward, software-pipelined over two tiles: while a block looks back
// for tile A's prefix and writes it, the elements of its next tile B are already
// loading. Per iteration (A held from the previous one, B just acquired):
//   (1) B's id is visible;  evaluate B, flag, ballots into s[B's buffer]; each thread
//       copies its flagged in[w] into its own slots of stage[B's buffer] (cp.async, so
//       no registers wait on the loads);
//   (2) B's ballots are visible;  warp 0 scans them and publishes B's aggregate at once
//       (so no later tile's look-back waits for it), then looks back for A's prefix and
//       publishes A's inclusive prefix;
//   (3) A's prefix and offsets are visible;  each thread waits for its own copies of A
//       (cp.async groups: A's, not B's) and writes A's elements to their outputs.
// Each thread reads back only the stage slots it filled itself, so the stage needs no
// barrier of its own; the tile_shared buffers alternate, and a buffer is rewritten only
// after barrier (1) of the iteration after its last reads. The permutation is that of
// bijective2_kernel (same evaluation, flags and ranks).
template <class Policy, class T, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective2_pipelined_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t m, std::uint64_t n,
                                std::uint64_t num_tiles, const __grid_constant__ Eval f,
                                scan::tile_state<std::uint64_t> state) {
  using bits = element_bits<T>;
  const bits* __restrict__ src = reinterpret_cast<const bits*>(in);
  bits* __restrict__ dst = reinterpret_cast<bits*>(out);
  __shared__ tile_shared<Policy> s[2];
  __shared__ bits stage[2][Policy::tile_items];
  __shared__ std::uint32_t aggregate[2];
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31u;
  // Evaluates tile `t` into buffer `b`: ballots, and the flagged elements copied into
  // this thread's stage slots; one cp.async group per call (empty when nothing flagged).
  auto load_tile = [&](std::uint64_t t, unsigned b) -> std::uint32_t {
    std::uint64_t w[Policy::items];
    const std::uint32_t flags = evaluate_and_flag<Policy>(f, t * Policy::tile_items, n, m, s[b], w);
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags >> k & 1u) stage_element(&stage[b][k * Policy::block + threadIdx.x], src + w[k]);
    cp_async_commit();
    return flags;
  };
  // Warp 0: the scanned count of the tile in buffer b, published as its aggregate (tile
  // 0: its inclusive prefix, with prefix 0).
  auto publish_aggregate = [&](std::uint64_t t, unsigned b) {
    const std::uint32_t count = scan_ballots(s[b]);
    if (lane == 0) {
      aggregate[b] = count;
      if (t == 0) {
        state.publish(0, scan::tile_status::inclusive_prefix, count);
        s[b].prefix = 0;
      } else {
        state.publish(t, scan::tile_status::aggregate, count);
      }
    }
  };

  if (threadIdx.x == 0) s[0].tile = state.acquire_tile();
  __syncthreads();
  std::uint64_t tile_a = s[0].tile;
  if (tile_a >= num_tiles) return;  // the same for the whole block
  unsigned a = 0;
  std::uint32_t flags_a = load_tile(tile_a, a);
  __syncthreads();
  if (warp == 0) publish_aggregate(tile_a, a);
  for (;;) {
    const unsigned b = a ^ 1u;
    if (threadIdx.x == 0) s[b].tile = state.acquire_tile();
    __syncthreads();  // (1)
    const std::uint64_t tile_b = s[b].tile;
    const bool more = tile_b < num_tiles;  // the same for the whole block
    std::uint32_t flags_b = 0;
    if (more) flags_b = load_tile(tile_b, b);
    else cp_async_commit();  // keeps "all but the newest group" meaning A's copies
    __syncthreads();  // (2)
    if (warp == 0) {
      if (more) publish_aggregate(tile_b, b);
      if (tile_a != 0) {
        const std::uint64_t residue = state.warp_look_back(tile_a);
        if (lane == 0) {
          state.publish(tile_a, scan::tile_status::inclusive_prefix, residue + aggregate[a]);
          s[a].prefix = exact_prefix<Policy>(residue, tile_a, n, m);
        }
      }
    }
    cp_async_wait_prior<1>();  // this thread's copies of A have landed (B's may not have)
    __syncthreads();  // (3)
    const std::uint64_t prefix = s[a].prefix;
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags_a >> k & 1u) dst[prefix + rank_in_tile(s[a], k)] = stage[a][k * Policy::block + threadIdx.x];
    if (!more) return;
    tile_a = tile_b;
    flags_a = flags_b;
    a = b;
  }
}

// ----------------------------------------------------------------------------
// bijective1: tile counts, then (after cub::DeviceScan) rank and gather.

/// tile_counts[t] = number of flagged indices of tile t; grid-stride over tiles.
template <class Policy, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective1_count_kernel(std::uint64_t m, std::uint64_t n, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                            std::uint64_t* __restrict__ tile_counts) {
  __shared__ tile_shared<Policy> s;
  for (std::uint64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    std::uint64_t w[Policy::items];
    evaluate_and_flag<Policy>(f, tile * Policy::tile_items, n, m, s, w);
    __syncthreads();
    if (threadIdx.x < 32) {
      const std::uint32_t aggregate = scan_ballots(s);
      if (threadIdx.x == 0) tile_counts[tile] = aggregate;
    }
    __syncthreads();  // warp 0 has read the ballots before the next tile writes them
  }
}

/// Re-evaluates each tile, ranks its flags and gathers out[tile_offsets[t] + rank] = in[w].
template <class Policy, class T, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective1_gather_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t m, std::uint64_t n,
                             std::uint64_t num_tiles, const __grid_constant__ Eval f,
                             const std::uint64_t* __restrict__ tile_offsets) {
  using bits = element_bits<T>;
  const bits* __restrict__ src = reinterpret_cast<const bits*>(in);
  bits* __restrict__ dst = reinterpret_cast<bits*>(out);
  __shared__ tile_shared<Policy> s;
  for (std::uint64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    std::uint64_t w[Policy::items];
    const std::uint32_t flags = evaluate_and_flag<Policy>(f, tile * Policy::tile_items, n, m, s, w);
    bits value[Policy::items];
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags >> k & 1u) value[k] = src[w[k]];
    const std::uint64_t prefix = tile_offsets[tile];
    __syncthreads();
    if (threadIdx.x < 32) scan_ballots(s);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags >> k & 1u) dst[prefix + rank_in_tile(s, k)] = value[k];
    __syncthreads();  // all ranks read before the next tile overwrites the ballots
  }
}

// ----------------------------------------------------------------------------
// bijective0: evaluate, select (CUB), gather.

/// images[i] = f(i) for i in [0, n); grid-stride.
template <class Eval>
__global__ void __launch_bounds__(256)
    bijective0_evaluate_kernel(std::uint64_t n, const __grid_constant__ Eval f, std::uint64_t* __restrict__ images) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::uint64_t w[1];
    f.template images<1>(i, 0, w);
    images[i] = w[0];
  }
}

/// out[j] = in[selected[j]] for j in [0, m); grid-stride.
template <class T>
__global__ void __launch_bounds__(256)
    bijective0_gather_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t m,
                             const std::uint64_t* __restrict__ selected) {
  using bits = element_bits<T>;
  const bits* __restrict__ src = reinterpret_cast<const bits*>(in);
  bits* __restrict__ dst = reinterpret_cast<bits*>(out);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < m; j += stride)
    dst[j] = src[selected[j]];
}

/// The selection predicate of bijective0: image below m.
struct image_below {
  std::uint64_t m;
  __host__ __device__ bool operator()(std::uint64_t w) const { return w < m; }
};

// ----------------------------------------------------------------------------
// Host helpers.

// Temporary storage, argument checks and the two-phase protocol: onepass/call_protocol.hpp;
// grids: onepass/launch_geometry.cuh.

/// Consecutive 256-byte aligned arrays of one temporary buffer; every array (also an
/// empty one) has an address of its own.
inline protocol::temp_layout shuffle_layout() {
  return protocol::temp_layout(protocol::temp_layout::empty_arrays::take_a_unit);
}

/// Checks m and the bijection's domain (both phases).
template <class Bijection>
void check_sizes(const char* function, std::size_t m, const Bijection& f) {
  protocol::check_at_most(function, "m", m, max_length, "in [0, 2^63]");
  const unsigned bits = f.domain_bits();
  require(bits >= 1 && bits <= 63, function, "bijection",
          "domain must be 2^b with b in [1, 63], got b = " + std::to_string(bits));
  require((std::uint64_t{1} << bits) >= m, function, "bijection",
          "domain 2^" + std::to_string(bits) + " must hold m = " + std::to_string(m) + " indices");
}

/// Checks pointers and overlap (run phase, m > 0).
template <class T>
void check_pointers(const char* function, const T* d_in, const T* d_out, std::size_t m) {
  protocol::check_not_null(function, "d_in", d_in, "when m > 0");
  protocol::check_not_null(function, "d_out", d_out, "when m > 0");
  protocol::check_byte_count(function, "m", m, sizeof(T));
  protocol::check_disjoint(function, "d_out", d_out, "d_in", d_in, m, sizeof(T), " (out-of-place operation)");
}

/// The two-phase protocol shared by the entry points (protocol::query_or_check): a query
/// (d_temp == nullptr) sets temp_bytes = required; m == 0 has nothing to do; otherwise the
/// pointers, then the temporary storage are checked (throwing onepass::error). True when
/// the caller should run.
template <class T>
bool query_or_check(const char* function, void* d_temp, std::size_t& temp_bytes, std::size_t required,
                    const T* d_in, const T* d_out, std::size_t m) {
  return protocol::query_or_check(function, d_temp, temp_bytes, required, m == 0,
                                  [&] { check_pointers(function, d_in, d_out, m); });
}

// --- bijective2 (forward, or the unshuffle) ---------------------------------------
// The *_with<Policy> forms take the tile shape explicitly (tuning experiments);
// the library picks it with with_policy.

/// Temporary storage of bijective2 with tile shape Policy for a domain of 2^bits.
template <class Policy>
std::size_t bijective2_temp_bytes_with(unsigned bits) {
  protocol::temp_layout layout = shuffle_layout();
  layout.add(scan::tile_state<std::uint64_t>::temp_bytes(tiles_for<Policy>(std::uint64_t{1} << bits)));
  return layout.total();
}

/// Temporary storage of bijective2 (and the unshuffle) for a domain of 2^bits: enough
/// for the tiled structure and for the staged one (gpu_staged_shuffle.cuh), whichever
/// the device takes.
template <class T>
std::size_t bijective2_temp_bytes(unsigned bits) {
  std::size_t bytes = 0;
  with_policy<T>(bits, [&](auto policy) { bytes = bijective2_temp_bytes_with<decltype(policy)>(bits); });
  const std::size_t staged = staged_temp_bytes(bits);
  return bytes > staged ? bytes : staged;
}

/// Whether a software-pipelined tile kernel (here and in gpu_segmented_shuffle.cuh) runs
/// for T elements and tiles of TileItems indices: its two stages of TileItems elements
/// must fit in 32 KiB of static shared memory, and T must move as 4-, 8- or 16-byte words
/// (cp.async; narrower elements would be copied through registers, synchronously, which
/// loses what the pipeline gains).
template <std::uint64_t TileItems, class T>
inline constexpr bool two_stage_tiles_fit =
    2 * TileItems * sizeof(T) <= 32 * 1024 && sizeof(typename element_bits<T>::unit) >= 4;

/// Whether the forward bijective2 of T elements with tile shape Policy runs the
/// software-pipelined kernel.
template <class Policy, class T>
inline constexpr bool pipelined_tiles_fit = two_stage_tiles_fit<Policy::tile_items, T>;

/// Enqueues bijective2 (Inverse: the unshuffle) with tile shape Policy; arguments
/// already checked, d_temp at least bijective2_temp_bytes_with<Policy>(b) bytes.
/// `pipelined` (forward only, where pipelined_tiles_fit): the software-pipelined kernel
/// (false: the one-tile-at-a-time kernel; for comparisons).
template <class Policy, bool Inverse, class T, class Bijection>
void run_bijective2_with(void* d_temp, const T* d_in, T* d_out, std::uint64_t m, const Bijection& f,
                         cudaStream_t stream, bool pipelined = true) {
  const std::uint64_t n = std::uint64_t{1} << f.domain_bits();
  const std::uint64_t tiles = tiles_for<Policy>(n);
  const scan::tile_state<std::uint64_t> state(protocol::aligned_start(d_temp), tiles);
  state.initialize(stream);
  with_evaluator(f, [&](const auto& eval) {
    using E = std::decay_t<decltype(eval)>;
    if constexpr (!Inverse && pipelined_tiles_fit<Policy, T>) {
      if (pipelined) {
        constexpr auto kernel = &bijective2_pipelined_kernel<Policy, T, E>;
        const unsigned grid = device::resident_grid<kernel>(Policy::block, tiles);
        kernel<<<grid, Policy::block, 0, stream>>>(d_in, d_out, m, n, tiles, eval, state);
        ONEPASS_CUDA_CHECK_LAUNCH();
        return;
      }
    }
    constexpr auto kernel = &bijective2_kernel<Policy, T, E, Inverse>;
    const unsigned grid = device::resident_grid<kernel>(Policy::block, tiles);
    kernel<<<grid, Policy::block, 0, stream>>>(d_in, d_out, m, n, tiles, eval, state);
    ONEPASS_CUDA_CHECK_LAUNCH();
  });
}

/// Enqueues bijective2: the forward shuffle of a domain whose output fits in shared
/// memory takes the staged structure (one cooperative launch, gpu_staged_shuffle.cuh),
/// everything else the tiled look-back kernel; both give the same permutation.
/// True when the forward bijective2 of f with elements T takes the staged structure
/// on the current device.
template <class T, class Bijection>
bool takes_staged_structure(const Bijection& f) {
  bool fits = false;
  with_evaluator(f, [&](const auto& eval) {
    fits = plan_staged_for<T, std::decay_t<decltype(eval)>>(f.domain_bits()).fits;
  });
  return fits;
}

/// `path` forces one structure (tests compare both with the CPU); `staged` throws
/// onepass::error when the plan does not fit or for the unshuffle.
enum class bijective2_path { automatic, tiled, staged };

template <bool Inverse, class T, class Bijection>
void run_bijective2(void* d_temp, const T* d_in, T* d_out, std::uint64_t m, const Bijection& f, cudaStream_t stream,
                    bijective2_path path = bijective2_path::automatic) {
  if (path == bijective2_path::staged) {
    require(!Inverse, "onepass::shuffle::gpu::detail::run_bijective2", "path",
            "the staged structure runs the forward shuffle only");
  }
  if constexpr (!Inverse) {
    bool staged = false;
    if (path != bijective2_path::tiled) {
      with_evaluator(f, [&](const auto& eval) {
        using E = std::decay_t<decltype(eval)>;
        const staged_plan plan = plan_staged_for<T, E>(f.domain_bits());
        if (path == bijective2_path::staged) {
          require(plan.fits, "onepass::shuffle::gpu::detail::run_bijective2", "path",
                  "the staged structure does not fit this domain and element size on this device");
        }
        if (plan.fits) {
          run_staged_with(d_temp, d_in, d_out, m, std::uint64_t{1} << f.domain_bits(), eval, plan, stream);
          staged = true;
        }
      });
    }
    if (staged) return;
  }
  with_policy<T>(f.domain_bits(), [&](auto policy) {
    run_bijective2_with<decltype(policy), Inverse>(d_temp, d_in, d_out, m, f, stream);
  });
}

// --- bijective1 ---------------------------------------------------------------------

struct bijective1_slots {
  std::size_t counts, offsets, cub, total, cub_bytes;
};

inline bijective1_slots bijective1_layout(std::uint64_t tiles) {
  std::size_t cub_bytes = 0;
  ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, static_cast<const std::uint64_t*>(nullptr),
                                                   static_cast<std::uint64_t*>(nullptr),
                                                   static_cast<std::int64_t>(tiles)));
  protocol::temp_layout layout = shuffle_layout();
  bijective1_slots slots{};
  slots.counts = layout.add(tiles * sizeof(std::uint64_t));
  slots.offsets = layout.add(tiles * sizeof(std::uint64_t));
  slots.cub = layout.add(cub_bytes);
  slots.cub_bytes = cub_bytes;
  slots.total = layout.total();
  return slots;
}

template <class T>
std::size_t bijective1_temp_bytes(unsigned bits) {
  std::size_t bytes = 0;
  with_policy<T>(bits, [&](auto policy) {
    using P = decltype(policy);
    bytes = bijective1_layout(tiles_for<P>(std::uint64_t{1} << bits)).total;
  });
  return bytes;
}

template <class T, class Bijection>
void run_bijective1(void* d_temp, const T* d_in, T* d_out, std::uint64_t m, const Bijection& f, cudaStream_t stream) {
  const unsigned bits = f.domain_bits();
  const std::uint64_t n = std::uint64_t{1} << bits;
  with_policy<T>(bits, [&](auto policy) {
    using P = decltype(policy);
    const std::uint64_t tiles = tiles_for<P>(n);
    const bijective1_slots slots = bijective1_layout(tiles);
    unsigned char* base = protocol::aligned_start(d_temp);
    auto* counts = reinterpret_cast<std::uint64_t*>(base + slots.counts);
    auto* offsets = reinterpret_cast<std::uint64_t*>(base + slots.offsets);
    with_evaluator(f, [&](const auto& eval) {
      using E = std::decay_t<decltype(eval)>;
      constexpr auto count_kernel = &bijective1_count_kernel<P, E>;
      constexpr auto gather_kernel = &bijective1_gather_kernel<P, T, E>;
      count_kernel<<<device::resident_grid<count_kernel>(P::block, tiles), P::block, 0, stream>>>(m, n, tiles, eval, counts);
      ONEPASS_CUDA_CHECK_LAUNCH();
      std::size_t cub_bytes = slots.cub_bytes;
      // The same iterator types as the size query in bijective1_layout.
      ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(base + slots.cub, cub_bytes,
                                                       static_cast<const std::uint64_t*>(counts), offsets,
                                                       static_cast<std::int64_t>(tiles), stream));
      gather_kernel<<<device::resident_grid<gather_kernel>(P::block, tiles), P::block, 0, stream>>>(d_in, d_out, m, n, tiles,
                                                                                         eval, offsets);
      ONEPASS_CUDA_CHECK_LAUNCH();
    });
  });
}

// --- bijective0 ---------------------------------------------------------------------

struct bijective0_slots {
  std::size_t images, selected, count, cub, total, cub_bytes;
};

inline bijective0_slots bijective0_layout(std::uint64_t n, std::uint64_t m) {
  std::size_t cub_bytes = 0;
  ONEPASS_CUDA_CHECK(cub::DeviceSelect::If(nullptr, cub_bytes, static_cast<const std::uint64_t*>(nullptr),
                                           static_cast<std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
                                           static_cast<std::int64_t>(n), image_below{m}));
  protocol::temp_layout layout = shuffle_layout();
  bijective0_slots slots{};
  slots.images = layout.add(n * sizeof(std::uint64_t));
  slots.selected = layout.add(m * sizeof(std::uint64_t));
  slots.count = layout.add(sizeof(std::uint64_t));
  slots.cub = layout.add(cub_bytes);
  slots.cub_bytes = cub_bytes;
  slots.total = layout.total();
  return slots;
}

template <class T, class Bijection>
void run_bijective0(void* d_temp, const T* d_in, T* d_out, std::uint64_t m, const Bijection& f, cudaStream_t stream) {
  const std::uint64_t n = std::uint64_t{1} << f.domain_bits();
  const bijective0_slots slots = bijective0_layout(n, m);
  unsigned char* base = protocol::aligned_start(d_temp);
  auto* images = reinterpret_cast<std::uint64_t*>(base + slots.images);
  auto* selected = reinterpret_cast<std::uint64_t*>(base + slots.selected);
  auto* count = reinterpret_cast<std::uint64_t*>(base + slots.count);
  with_evaluator(f, [&](const auto& eval) {
    using E = std::decay_t<decltype(eval)>;
    bijective0_evaluate_kernel<E><<<device::stride_grid(n, 256), 256, 0, stream>>>(n, eval, images);
    ONEPASS_CUDA_CHECK_LAUNCH();
  });
  std::size_t cub_bytes = slots.cub_bytes;
  ONEPASS_CUDA_CHECK(cub::DeviceSelect::If(base + slots.cub, cub_bytes, static_cast<const std::uint64_t*>(images),
                                           selected, count, static_cast<std::int64_t>(n), image_below{m}, stream));
  bijective0_gather_kernel<T><<<device::stride_grid(m, 256), 256, 0, stream>>>(d_in, d_out, m, selected);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

}  // namespace detail

/// Bijective shuffle on the GPU (paper §4, Algorithm 1; fusion levels of §6):
/// d_out[j] = d_in[f(i_j)], where i_0 < i_1 < ... are the indices of [0, 2^b) that f
/// maps below m. The same permutation as the CPU bijective_shuffle_copy for f.
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set
/// (to the bytes `variant` needs for m and f; d_in, d_out are not looked at), and
/// nothing is enqueued. Otherwise d_temp must hold at least that many bytes of
/// device memory (any alignment) and the work is enqueued on `stream`, not waited
/// for. The query of bijective0/1 asks CUB for its own storage, which looks at the
/// current device. Temporary storage, n = 2^b: bijective2 8 bytes per tile (1024
/// indices per tile from n = 2^22 up; 512 below) plus under 1 KiB; bijective1 twice
/// that plus CUB's scan storage; bijective0 8 (n + m) bytes plus CUB's selection
/// storage (so bijective0 takes b <= 56 only). A bijective2 whose output fits in the
/// device's shared memory (up to 2^21 uint64 indices on an H100) runs the staged
/// structure of gpu_staged_shuffle.cuh, one cooperative launch, in the same storage.
///
/// T: any trivially copyable type (moved as its bytes). d_in, d_out: device
/// pointers to m elements each, not overlapping. m in [0, 2^63]. f: a bijection of
/// [0, 2^b) with b in [1, 63] and 2^b >= m, with host+device operator() and
/// domain_bits() (bijection::variable_philox, bijection::lcg), trivially copyable.
///
/// Throws onepass::error (nothing enqueued, d_out untouched) for m > 2^63, a domain
/// that does not hold m (or b > 56 with bijective0), and in the run phase for null d_in or d_out with m > 0,
/// overlapping buffers, or temp_bytes below the query's answer; throws
/// onepass::runtime_failure when a CUDA call or launch fails.
template <class T, class Bijection>
void bijective_shuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t m,
                       const Bijection& f, fusion variant = fusion::bijective2, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu::bijective_shuffle: T must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Bijection>, "gpu::bijective_shuffle: the bijection must be trivially copyable");
  constexpr const char* function = "onepass::shuffle::gpu::bijective_shuffle";
  detail::check_sizes(function, m, f);
  std::size_t required = 0;
  switch (variant) {
    case fusion::bijective0:
      require(f.domain_bits() <= 56, function, "bijection",
              "domain 2^" + std::to_string(f.domain_bits()) + " is too large for bijective0's index array (b <= 56)");
      required = detail::bijective0_layout(std::uint64_t{1} << f.domain_bits(), m).total;
      break;
    case fusion::bijective1: required = detail::bijective1_temp_bytes<T>(f.domain_bits()); break;
    case fusion::bijective2: required = detail::bijective2_temp_bytes<T>(f.domain_bits()); break;
    default: require(false, function, "variant", "must be fusion::bijective0, bijective1 or bijective2");
  }
  if (!detail::query_or_check(function, d_temp, temp_bytes, required, d_in, d_out, m)) return;
  switch (variant) {
    case fusion::bijective0: detail::run_bijective0(d_temp, d_in, d_out, m, f, stream); break;
    case fusion::bijective1: detail::run_bijective1(d_temp, d_in, d_out, m, f, stream); break;
    case fusion::bijective2: detail::run_bijective2<false>(d_temp, d_in, d_out, m, f, stream); break;
  }
}

/// Inverse of bijective_shuffle for the same f: d_out[f(i_j)] = d_in[j], so
/// bijective_unshuffle(bijective_shuffle(x)) == x. Single pass with the bijective2
/// structure (the look-back scan; scattered writes, each read and write once).
/// Temporary storage, arguments and errors as bijective_shuffle with bijective2.
template <class T, class Bijection>
void bijective_unshuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t m,
                         const Bijection& f, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu::bijective_unshuffle: T must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Bijection>, "gpu::bijective_unshuffle: the bijection must be trivially copyable");
  constexpr const char* function = "onepass::shuffle::gpu::bijective_unshuffle";
  detail::check_sizes(function, m, f);
  const std::size_t required = detail::bijective2_temp_bytes<T>(f.domain_bits());
  if (!detail::query_or_check(function, d_temp, temp_bytes, required, d_in, d_out, m)) return;
  detail::run_bijective2<true>(d_temp, d_in, d_out, m, f, stream);
}

}  // namespace onepass::shuffle::gpu
