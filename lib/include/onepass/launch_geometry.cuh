// onepass/launch_geometry.cuh — the one home of the grid sizes of onepass's kernels
// (host side): the multiprocessor count, the blocks of a kernel resident at once (from the
// occupancy query; the grid of a persistent kernel) and grid-stride grids. The queries are
// made once per device (per kernel for the occupancy) and cached: small inputs are timed in
// microseconds. Every CUDA query is checked: a failure throws onepass::runtime_failure.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"

namespace onepass::device {

/// The alignment of temporary storage (call_protocol.hpp) under the name device code and
/// the tests have used.
using protocol::temp_alignment;

/// Devices whose queries are cached (a device numbered beyond is queried every call).
inline constexpr int cached_devices = 64;

/// Streaming multiprocessors of the current device (at least 1; queried once per device).
/// Throws onepass::runtime_failure when the query fails.
inline unsigned multiprocessors() {
  static std::atomic<unsigned> cache[cached_devices];
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  unsigned sms = device < cached_devices ? cache[device].load(std::memory_order_relaxed) : 0;
  if (sms == 0) {
    int value = 0;
    ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    sms = static_cast<unsigned>(value > 0 ? value : 1);
    if (device < cached_devices) cache[device].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

/// Blocks of `kernel` resident at once on the current device with `block` threads and
/// `dynamic_shared` bytes of dynamic shared memory per block: multiprocessors() x blocks
/// per SM (each at least 1). Not cached (for kernels whose dynamic shared memory varies
/// from call to call); see resident_blocks. Throws onepass::runtime_failure when the
/// occupancy query fails.
template <class Kernel>
unsigned occupancy_slots(Kernel kernel, int block, std::size_t dynamic_shared) {
  int per_sm = 0;
  ONEPASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dynamic_shared));
  return multiprocessors() * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
}

/// Blocks of `Kernel` resident at once on the current device with `block` threads and
/// `dynamic_shared` bytes of dynamic shared memory per block (SMs x blocks per SM, at
/// least 1). The occupancy query is made once per kernel and device; a kernel launched
/// with different `dynamic_shared` values needs one instantiation per value (or
/// occupancy_slots). Throws onepass::runtime_failure when a CUDA query fails.
template <auto Kernel>
unsigned resident_blocks(int block, std::size_t dynamic_shared = 0) {
  static std::atomic<unsigned> cache[cached_devices];
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  unsigned slots = device < cached_devices ? cache[device].load(std::memory_order_relaxed) : 0;
  if (slots == 0) {
    int sms = 0, per_sm = 0;
    ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    ONEPASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, block, dynamic_shared));
    slots = static_cast<unsigned>((sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1));
    if (device < cached_devices) cache[device].store(slots, std::memory_order_relaxed);
  }
  return slots;
}

/// Grid of a persistent kernel with `slots` resident blocks over `work` items (tiles,
/// segments, chunks): min(work, slots), at least 1.
inline unsigned resident_grid(unsigned slots, std::uint64_t work) {
  const std::uint64_t grid = work < static_cast<std::uint64_t>(slots) ? work : static_cast<std::uint64_t>(slots);
  return static_cast<unsigned>(grid == 0 ? 1 : grid);
}

/// Grid of a persistent (or grid-stride) `Kernel` of `block` threads over `work` items: at
/// most `work` blocks, at most as many as are resident at once (resident_blocks), at least 1.
template <auto Kernel>
unsigned resident_grid(int block, std::uint64_t work, std::size_t dynamic_shared = 0) {
  return resident_grid(resident_blocks<Kernel>(block, dynamic_shared), work);
}

/// Blocks that fill any current GPU with a grid-stride kernel (132 SMs x 32).
inline constexpr std::uint64_t any_gpu_stride_blocks = 132 * 32;

/// Blocks of a grid-stride loop over `count` independent items, `per_block` items per
/// block: ceil(count / per_block), capped at `most_blocks` (the loop covers the rest),
/// at least 1.
constexpr unsigned stride_grid(std::uint64_t count, std::uint64_t per_block,
                               std::uint64_t most_blocks = any_gpu_stride_blocks) {
  const std::uint64_t blocks = (count + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks == 0 ? 1 : (blocks < most_blocks ? blocks : most_blocks));
}

}  // namespace onepass::device
