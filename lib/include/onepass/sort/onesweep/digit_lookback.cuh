// onepass/sort/onesweep/digit_lookback.cuh — the decoupled look-back of Onesweep's
// binning kernel: one scan channel per digit, status and value in one 32-bit word.
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", §3.2 (chained scan with decoupled look-back); Merrill & Garland,
// "Single-pass Parallel Prefix Scan with Decoupled Look-back" (NVIDIA NVR-2016-002).
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "onepass/cuda_check.hpp"

namespace onepass::sort::gpu::onesweep {

namespace detail {

/// Decoupled look-back of the binning kernel (one scan channel per digit), with
/// 32-bit descriptors: bit 31 inclusive prefix, bit 30 aggregate, bits 29..0 the
/// value; 0 = not ready (the memset of initialize()). Counts and prefixes inside one
/// portion (<= 2^28 keys) fit in 30 bits. Storage: [tile counter (padded to 128 B) |
/// num_tiles x Radix words]; the descriptor of (tile, digit) is word tile * Radix +
/// digit. Same memory-ordering argument as scan/tile_state.cuh: the descriptor is the
/// only datum handed from block to block; one relaxed device-scope 32-bit store
/// publishes status and value together, one relaxed load reads them.
template <unsigned Radix>
class digit_lookback {
 public:
  static constexpr std::uint32_t prefix_flag = 1u << 31;
  static constexpr std::uint32_t aggregate_flag = 1u << 30;
  static constexpr std::uint32_t value_mask = aggregate_flag - 1u;
  static constexpr std::size_t header_bytes = 128;

  static constexpr std::size_t temp_bytes(std::uint64_t num_tiles) {
    return header_bytes + static_cast<std::size_t>(num_tiles) * Radix * sizeof(std::uint32_t);
  }

  digit_lookback() = default;
  digit_lookback(void* d_temp, std::uint32_t num_tiles)
      : counter_(static_cast<std::uint32_t*>(d_temp)),
        words_(reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(d_temp) + header_bytes)),
        num_tiles_(num_tiles) {}

  /// Enqueues: every descriptor "not ready", the tile counter 0 (one memset).
  void initialize(cudaStream_t stream) const {
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(counter_, 0, temp_bytes(num_tiles_), stream));
  }

  __device__ std::uint32_t num_tiles() const { return num_tiles_; }

  /// Next tile id (one thread per block).
  __device__ std::uint32_t acquire_tile() const { return atomicAdd(counter_, 1u); }

  /// Publishes (flag, value) for (tile, digit).
  __device__ void publish(std::uint32_t tile, std::uint32_t digit, std::uint32_t flag, std::uint32_t value) const {
    word(tile, digit).store(flag | (value & value_mask), cuda::std::memory_order_relaxed);
  }

  /// One thread: the exclusive prefix of `tile` (> 0) for `digit`. Reads Window
  /// predecessors at a time (nearest first), spinning while the nearest unsummed
  /// one is not ready, sums aggregates until an inclusive prefix (tile 0 always
  /// publishes one; predecessors before tile 0 read as inclusive 0).
  template <int Window>
  __device__ std::uint32_t exclusive_prefix(std::uint32_t tile, std::uint32_t digit) const {
    std::uint32_t sum = 0;
    int next = static_cast<int>(tile) - 1;  // nearest predecessor not summed yet
    for (;;) {
      std::uint32_t w[Window];
#pragma unroll
      for (int i = 0; i < Window; ++i) {
        w[i] = next - i >= 0 ? word(static_cast<std::uint32_t>(next - i), digit).load(cuda::std::memory_order_relaxed)
                             : prefix_flag;
      }
#pragma unroll
      for (int i = 0; i < Window; ++i) {
        if (w[i] == 0) break;  // not ready: read again from predecessor `next`
        sum += w[i] & value_mask;
        if (w[i] & prefix_flag) return sum;
        --next;
      }
    }
  }

 private:
  __device__ cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> word(std::uint32_t tile,
                                                                            std::uint32_t digit) const {
    return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(
        words_[static_cast<std::size_t>(tile) * Radix + digit]);
  }

  std::uint32_t* counter_ = nullptr;
  std::uint32_t* words_ = nullptr;
  std::uint32_t num_tiles_ = 0;
};

}  // namespace detail

}  // namespace onepass::sort::gpu::onesweep
