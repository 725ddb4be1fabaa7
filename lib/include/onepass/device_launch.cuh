// onepass/device_launch.cuh — host-side helpers shared by the device-wide entry
// points (the GPU shuffle, the onesweep sort): carving 256-byte aligned arrays out
// of a caller's temporary storage, and the number of blocks of a kernel that are
// resident at once (the grid of a persistent kernel).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "onepass/cuda_check.hpp"

namespace onepass::device {

/// Alignment of every array carved out of a caller's temporary storage (bytes).
inline constexpr std::size_t temp_alignment = 256;

/// `bytes` rounded up to a multiple of temp_alignment.
constexpr std::size_t align_up(std::size_t bytes) { return (bytes + temp_alignment - 1) / temp_alignment * temp_alignment; }

/// The first temp_alignment boundary at or after `d_temp` (temporary storage may
/// start at any address; its size query includes temp_alignment bytes of slack).
inline unsigned char* aligned_start(void* d_temp) {
  const auto address = reinterpret_cast<std::uintptr_t>(d_temp);
  return reinterpret_cast<unsigned char*>((address + temp_alignment - 1) / temp_alignment * temp_alignment);
}

/// Temporary storage of an in-place sort that keeps its alternate buffers in the
/// caller's temporary storage: from aligned_start(d_temp), the sort's own `sort_bytes`,
/// then n keys, then n values (value_size 0: none), each 256-byte aligned; `total` is
/// the bytes to ask for, alignment slack included.
struct alternate_buffers_layout {
  std::size_t keys = 0, values = 0, total = 0;  ///< offsets from aligned_start; size query answer
  alternate_buffers_layout(std::size_t sort_bytes, std::size_t n, std::size_t key_size, std::size_t value_size)
      : keys(align_up(sort_bytes)),
        values(keys + align_up(n * key_size)),
        total(values + (value_size ? align_up(n * value_size) : 0) + temp_alignment) {}
};

/// Blocks of `Kernel` resident at once on the current device with `block` threads
/// and `dynamic_shared` bytes of dynamic shared memory per block (SMs x blocks per
/// SM, at least 1). The occupancy query is made once per kernel and device (small
/// inputs are timed in microseconds); a kernel launched with different
/// `dynamic_shared` values needs one instantiation per value. Throws
/// onepass::runtime_failure when a CUDA query fails.
template <auto Kernel>
unsigned resident_blocks(int block, std::size_t dynamic_shared = 0) {
  constexpr int cached_devices = 64;
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

/// Streaming multiprocessors of the current device (queried once per device). Throws
/// onepass::runtime_failure when the query fails.
inline unsigned multiprocessors() {
  constexpr int cached_devices = 64;
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

}  // namespace onepass::device
