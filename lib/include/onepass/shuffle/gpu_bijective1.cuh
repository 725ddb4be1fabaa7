// onepass/shuffle/gpu_bijective1.cuh — Bijective1: the bijective shuffle fused into a
// two-pass reduce-then-scan.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1) and §6 (Bijective1: evaluation, compaction and gather fused into the
// two-pass scan). Kernel 1 evaluates f on each tile and writes the tile's flag count;
// cub::DeviceScan::ExclusiveSum turns the counts into the tiles' output offsets; kernel 2
// evaluates f again, ranks the flags inside the tile and gathers. Temporary storage: two
// words per tile plus CUB's scan storage. Tiles and their steps: gpu_tile_ranking.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/gpu_shuffle_protocol.cuh"
#include "onepass/shuffle/gpu_tile_ranking.cuh"

namespace onepass::shuffle::gpu::detail {

/// Pass 1: tile_counts[t] = number of flagged indices of tile t; grid-stride over tiles.
template <class Policy, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective1_count_kernel(std::uint64_t num_items, std::uint64_t domain_size, std::uint64_t num_tiles,
                            const __grid_constant__ Eval f, std::uint64_t* __restrict__ tile_counts) {
  __shared__ tile_shared<Policy> s;
  for (std::uint64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    std::uint64_t w[Policy::items];
    evaluate_and_flag<Policy>(f, tile * Policy::tile_items, domain_size, num_items, s, w);
    __syncthreads();
    if (threadIdx.x < 32) {
      const std::uint32_t aggregate = scan_ballots(s);
      if (threadIdx.x == 0) tile_counts[tile] = aggregate;
    }
    __syncthreads();  // warp 0 has read the ballots before the next tile writes them
  }
}

/// Pass 2: re-evaluates each tile, ranks its flags and gathers
/// out[tile_offsets[t] + rank] = in[w].
template <class Policy, class T, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective1_gather_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t num_items,
                             std::uint64_t domain_size, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                             const std::uint64_t* __restrict__ tile_offsets) {
  using element = element_bits<T>;
  const element* __restrict__ src = reinterpret_cast<const element*>(in);
  element* __restrict__ dst = reinterpret_cast<element*>(out);
  __shared__ tile_shared<Policy> s;
  for (std::uint64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    std::uint64_t w[Policy::items];
    const std::uint32_t flags = evaluate_and_flag<Policy>(f, tile * Policy::tile_items, domain_size, num_items, s, w);
    element value[Policy::items];
    load_flagged<Policy>(flags, src, w, value);
    const std::uint64_t prefix = tile_offsets[tile];
    __syncthreads();
    if (threadIdx.x < 32) scan_ballots(s);
    __syncthreads();
    store_ranked(flags, s, prefix, value, dst);
    __syncthreads();  // all ranks read before the next tile overwrites the ballots
  }
}

// ----------------------------------------------------------------------------
// Host side.

/// Offsets of bijective1's arrays in its temporary storage.
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

/// Temporary storage of bijective1 for a domain of 2^domain_bits.
template <class T>
std::size_t bijective1_temp_bytes(unsigned domain_bits) {
  std::size_t bytes = 0;
  with_policy<T>(domain_bits, [&](auto policy) {
    using P = decltype(policy);
    bytes = bijective1_layout(tiles_for<P>(std::uint64_t{1} << domain_bits)).total;
  });
  return bytes;
}

/// Enqueues bijective1; arguments already checked, d_temp at least
/// bijective1_temp_bytes<T>(b) bytes.
template <class T, class Bijection>
void run_bijective1(void* d_temp, const T* d_in, T* d_out, std::uint64_t num_items, const Bijection& f,
                    cudaStream_t stream) {
  const unsigned domain_bits = f.domain_bits();
  const std::uint64_t domain_size = std::uint64_t{1} << domain_bits;
  with_policy<T>(domain_bits, [&](auto policy) {
    using P = decltype(policy);
    const std::uint64_t tiles = tiles_for<P>(domain_size);
    const bijective1_slots slots = bijective1_layout(tiles);
    unsigned char* base = protocol::aligned_start(d_temp);
    auto* counts = reinterpret_cast<std::uint64_t*>(base + slots.counts);
    auto* offsets = reinterpret_cast<std::uint64_t*>(base + slots.offsets);
    with_evaluator(f, [&](const auto& eval) {
      using E = std::decay_t<decltype(eval)>;
      constexpr auto count_kernel = &bijective1_count_kernel<P, E>;
      constexpr auto gather_kernel = &bijective1_gather_kernel<P, T, E>;
      count_kernel<<<device::resident_grid<count_kernel>(P::block, tiles), P::block, 0, stream>>>(
          num_items, domain_size, tiles, eval, counts);
      ONEPASS_CUDA_CHECK_LAUNCH();
      std::size_t cub_bytes = slots.cub_bytes;
      // The same iterator types as the size query in bijective1_layout.
      ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(base + slots.cub, cub_bytes,
                                                       static_cast<const std::uint64_t*>(counts), offsets,
                                                       static_cast<std::int64_t>(tiles), stream));
      gather_kernel<<<device::resident_grid<gather_kernel>(P::block, tiles), P::block, 0, stream>>>(
          d_in, d_out, num_items, domain_size, tiles, eval, offsets);
      ONEPASS_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace onepass::shuffle::gpu::detail
