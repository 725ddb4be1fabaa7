// onepass/shuffle/gpu_tile_ranking.cuh — the tiles of the fused GPU shuffles: tile
// shapes, and the device-function steps that evaluate a tile, rank its flagged indices
// and find the tile's place in the output.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1: index i of [0, domain_size) is flagged when its image f(i) is below
// num_items; the exclusive scan of the flags gives each flagged index its output) and §6
// (Bijective1 and Bijective2 fuse evaluation, scan and gather per tile). Used by
// bijective1 (gpu_bijective1.cuh), bijective2 and the unshuffle (gpu_bijective2.cuh).
//
// Tile: `block` threads, `items` indices per thread, in a striped arrangement: thread t
// (warp v, lane l) of tile T holds the indices T * tile_items + k * block + t for k in
// [0, items). For one (k, v) the 32 lanes hold 32 consecutive indices, so __ballot_sync
// gives the flags in index order, a lane's rank is popc(ballot & lanes below it), and the
// warp's flagged elements go to consecutive outputs. Warp 0 scans the items * warps
// ballot counts (in (k, v) order = index order) in shared memory, then (bijective2) does
// the tile's decoupled look-back (scan/tile_state.cuh). Two tile shapes (policies): 256 x 2
// for domains below 2^22 (more tiles, so small inputs spread over the SMs) and 256 x 4
// from 2^22 up; both are powers of two, so only a domain smaller than one tile has a
// partial tile.
//
// The steps, in the order a tile takes them:
//   evaluate_and_flag  images of the tile's indices, flags, ballots into shared memory;
//   load_flagged       the flagged elements in[w] into registers;
//   scan_ballots       warp 0: the exclusive scan of the ballot counts, the tile's count;
//   scan_and_look_back warp 0: scan_ballots, then the look-back for the tile's prefix
//                      (exact_prefix recovers the count from the look-back's 62 bits);
//   rank_in_tile       an item's output rank inside the tile;
//   store_ranked       out[prefix + rank] = the loaded elements.
#pragma once

#include <cstdint>
#include <type_traits>

#include "onepass/scan/tile_state.cuh"
#include "onepass/scan/warp_scan.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"

namespace onepass::shuffle::gpu::detail {

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

/// Calls fn(policy{}) with the tile shape used for a domain of 2^domain_bits indices.
template <class T, class Fn>
void with_policy(unsigned domain_bits, Fn&& fn) {
  if (domain_bits >= large_tile_min_bits) {
    fn(typename policies<T>::large{});
  } else {
    fn(typename policies<T>::small{});
  }
}

/// Tiles covering the domain [0, domain_size), domain_size a power of two.
template <class Policy>
constexpr std::uint64_t tiles_for(std::uint64_t domain_size) {
  return domain_size >= Policy::tile_items ? domain_size / Policy::tile_items : 1;
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
/// All threads of the block call it; i >= domain_size (only when domain_size < one tile)
/// is never flagged.
template <class Policy, class Eval>
__device__ __forceinline__ std::uint32_t evaluate_and_flag(const Eval& f, std::uint64_t base,
                                                           std::uint64_t domain_size, std::uint64_t num_items,
                                                           tile_shared<Policy>& s, std::uint64_t (&w)[Policy::items]) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const std::uint64_t first = base + threadIdx.x;
  f.template images<Policy::items>(first, Policy::block, w);
  std::uint32_t flags = 0;
#pragma unroll
  for (int k = 0; k < Policy::items; ++k) {
    const bool flag = (first + static_cast<std::uint64_t>(k) * Policy::block < domain_size) && (w[k] < num_items);
    const std::uint32_t ballot = __ballot_sync(0xFFFFFFFFu, flag);
    if (lane == 0) s.ballot[k * Policy::warps + warp] = ballot;
    flags |= static_cast<std::uint32_t>(flag) << k;
  }
  return flags;
}

/// value[k] = src[w[k]] for the flagged items k of this thread (the random reads; issued
/// before the scan, so that their latency overlaps it).
template <class Policy, class Element>
__device__ __forceinline__ void load_flagged(std::uint32_t flags, const Element* src,
                                             const std::uint64_t (&w)[Policy::items],
                                             Element (&value)[Policy::items]) {
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) value[k] = src[w[k]];
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
  const std::uint32_t inclusive = scan::warp_inclusive_sum(sum, lane);
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

/// dst[prefix + rank] = value[k] for the flagged items k of this thread: the tile's
/// elements to their outputs, `prefix` the flags before the tile.
template <class Policy, class Element>
__device__ __forceinline__ void store_ranked(std::uint32_t flags, const tile_shared<Policy>& s, std::uint64_t prefix,
                                             const Element (&value)[Policy::items], Element* dst) {
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) dst[prefix + rank_in_tile(s, k)] = value[k];
}

// ----------------------------------------------------------------------------
// The tile's place in the output: the decoupled look-back (bijective2).

/// The exact number of flagged indices before tile `tile` from the look-back's value
/// modulo 2^62: it lies in [tile * tile_items - (domain_size - num_items), tile * tile_items].
template <class Policy>
__device__ __forceinline__ std::uint64_t exact_prefix(std::uint64_t residue, std::uint64_t tile,
                                                      std::uint64_t domain_size, std::uint64_t num_items) {
  const std::uint64_t before = tile * Policy::tile_items;
  const std::uint64_t unflagged = domain_size - num_items;
  return scan::unwrap_62(residue, before > unflagged ? before - unflagged : 0);
}

/// Warp 0 only (all 32 lanes), after the ballots are visible: scans them (s.offset),
/// publishes the tile's count, looks back (scan::tile_state::warp_exclusive_prefix, which
/// also publishes the tile's inclusive prefix) and writes the exact number of flags before
/// the tile to s.prefix (lane 0).
template <class Policy>
__device__ __forceinline__ void scan_and_look_back(tile_shared<Policy>& s, const scan::tile_state<std::uint64_t>& state,
                                                   std::uint64_t tile, std::uint64_t domain_size,
                                                   std::uint64_t num_items) {
  const std::uint32_t aggregate = scan_ballots(s);
  const std::uint64_t residue = state.warp_exclusive_prefix(tile, aggregate);
  if ((threadIdx.x & 31u) == 0) s.prefix = exact_prefix<Policy>(residue, tile, domain_size, num_items);
}

}  // namespace onepass::shuffle::gpu::detail
