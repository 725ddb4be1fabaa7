// onepass/sort/onesweep/block_primitives.cuh — the thread-, warp- and block-level
// pieces of Onesweep's kernels: the order-preserving key transform on the device, a
// block-wide exclusive sum, the ballot predicate of the warp multisplit
// (agreeing_lanes) and 16-bit slot packing.
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", §3.1 (warp-level multisplit ranking).
#pragma once

#include <cstdint>

#include "onepass/scan/warp_scan.cuh"
#include "onepass/sort/key_traits.hpp"

namespace onepass::sort::gpu::onesweep {

namespace detail {

/// Transformed word of a key for the sort order (key_traits.hpp).
template <class Key, bool Descending>
__device__ __forceinline__ typename radix_traits<Key>::bits_type to_ordered(Key k) {
  const auto b = radix_traits<Key>::to_bits(k);
  return Descending ? static_cast<typename radix_traits<Key>::bits_type>(~b) : b;
}
/// Inverse of to_ordered.
template <class Key, bool Descending>
__device__ __forceinline__ Key from_ordered(typename radix_traits<Key>::bits_type b) {
  using bits_type = typename radix_traits<Key>::bits_type;
  return radix_traits<Key>::from_bits(Descending ? static_cast<bits_type>(~b) : b);
}

/// Block-wide exclusive sum of one value per thread (all Block threads call it).
/// `s_warp` holds Block / 32 words of shared memory; it is read after the call's
/// last barrier, so a caller that reuses it must synchronise first.
template <int Block, class T>
__device__ __forceinline__ T block_exclusive_sum(T value, T* s_warp) {
  static_assert(Block % 32 == 0 && Block / 32 <= 32, "block_exclusive_sum: Block in 32..1024, a multiple of 32");
  constexpr int warps = Block / 32;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const T inclusive = scan::warp_inclusive_sum(value, lane);
  if (lane == 31) s_warp[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const T total = lane < static_cast<unsigned>(warps) ? s_warp[lane] : T{0};
    const T scanned = scan::warp_inclusive_sum(total, lane);
    if (lane < static_cast<unsigned>(warps)) s_warp[lane] = scanned - total;
  }
  __syncthreads();
  return s_warp[warp] + inclusive - value;
}

/// Lanes of the (full) warp whose `value` is zero exactly when this lane's is: the
/// ballot of value != 0, complemented in the lanes where it is false. One predicate
/// feeds both the vote and the complement (written in PTX: the C++ form, a select
/// between the ballot and its complement, compiled to about twice the instructions per
/// bit on sm_90, and the binning kernel's ballot ranking is instruction-bound).
__device__ __forceinline__ unsigned agreeing_lanes(unsigned value) {
  unsigned lanes;
  asm("{\n\t.reg .pred nonzero;\n\t"
      "setp.ne.u32 nonzero, %1, 0;\n\t"
      "vote.sync.ballot.b32 %0, nonzero, 0xffffffff;\n\t"
      "@!nonzero not.b32 %0, %0;\n\t}"
      : "=r"(lanes)
      : "r"(value));
  return lanes;
}

/// Items 16-bit numbers, two to a 32-bit register (indices must be compile-time
/// constants after unrolling, so the array stays in registers).
template <int Items>
struct slot_pack {
  std::uint32_t word[(Items + 1) / 2];
  __device__ __forceinline__ std::uint32_t get(int k) const { return (word[k / 2] >> (16 * (k % 2))) & 0xFFFFu; }
  /// Sets number k (value < 2^16); numbers are set in order 0, 1, 2, ...
  __device__ __forceinline__ void set(int k, std::uint32_t value) {
    if (k % 2 == 0) {
      word[k / 2] = value;
    } else {
      word[k / 2] |= value << 16;
    }
  }
  /// Adds `delta` to number k (the sum stays below 2^16).
  __device__ __forceinline__ void add(int k, std::uint32_t delta) { word[k / 2] += delta << (16 * (k % 2)); }
};

}  // namespace detail

}  // namespace onepass::sort::gpu::onesweep
