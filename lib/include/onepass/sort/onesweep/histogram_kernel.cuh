// onepass/sort/onesweep/histogram_kernel.cuh — Onesweep's first two kernels: the
// upfront histogram of every digit place in one read of the keys, and the exclusive
// sum of each place's histogram (with the place flags the binning kernels read).
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", §3 (Fig. 5, the upfront histogram).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep/block_primitives.cuh"
#include "onepass/sort/onesweep/policy.cuh"

namespace onepass::sort::gpu::onesweep {

namespace detail {

// ----------------------------------------------------------------------------
// Kernel 1: upfront histogram of every digit place.

/// Copies of the histogram kernel's shared counters (warp w counts into copy
/// w % copies): as many as fit in 32 KB, at most one per warp.
template <unsigned DigitBits, class Key>
inline constexpr int histogram_copies =
    static_cast<int>(std::max(1u, std::min(32768u / (((radix_traits<Key>::bits + DigitBits - 1) / DigitBits << DigitBits) * 4u),
                                           static_cast<unsigned>(histogram_block / 32))));

/// counts[place * 2^DigitBits + digit] += number of keys with that digit at that
/// place (64-bit global counts, zeroed by the caller). Block b counts chunks b,
/// b + gridDim.x, ... of `chunk` keys (chunk <= 2^28, so its 32-bit shared counters
/// cannot overflow) and flushes after each chunk. Keys are read as 16-byte vectors
/// (the few keys before the first and after the last 16-byte boundary of a chunk one
/// by one); each warp counts into its own copy of the counters (shared atomics).
template <unsigned DigitBits, class Key, bool Descending, float_order Order>
__global__ void __launch_bounds__(histogram_block)
    histogram_kernel(const Key* __restrict__ keys, std::uint64_t n, std::uint64_t chunk, unsigned begin_bit,
                     unsigned end_bit, unsigned num_places, unsigned long long* __restrict__ counts) {
  using bits_type = typename radix_traits<Key>::bits_type;
  constexpr unsigned radix = 1u << DigitBits;
  constexpr unsigned max_places = (radix_traits<Key>::bits + DigitBits - 1) / DigitBits;
  constexpr unsigned max_slots = max_places * radix;
  constexpr int copies = histogram_copies<DigitBits, Key>;
  constexpr int per_vector = 16 / static_cast<int>(sizeof(Key));
  __shared__ std::uint32_t s_counts[copies * max_slots];
  const unsigned slots = num_places * radix;
  std::uint32_t* my_counts = s_counts + ((threadIdx.x >> 5) % copies) * max_slots;

  unsigned shift[max_places], mask[max_places];
#pragma unroll
  for (unsigned p = 0; p < max_places; ++p) {
    shift[p] = begin_bit + p * DigitBits;
    const unsigned width = p < num_places ? (end_bit - shift[p] < DigitBits ? end_bit - shift[p] : DigitBits) : 0u;
    mask[p] = (1u << width) - 1u;
  }
  auto count = [&](Key key) {
    const bits_type w = digit_word<Order, Key>(to_ordered<Key, Descending>(key));
#pragma unroll
    for (unsigned p = 0; p < max_places; ++p) {
      if (p < num_places) atomicAdd(&my_counts[p * radix + (static_cast<unsigned>(w >> shift[p]) & mask[p])], 1u);
    }
  };

  for (unsigned j = threadIdx.x; j < copies * max_slots; j += histogram_block) s_counts[j] = 0;
  __syncthreads();

  const std::uint64_t num_chunks = (n + chunk - 1) / chunk;
  for (std::uint64_t c = blockIdx.x; c < num_chunks; c += gridDim.x) {
    const std::uint64_t begin = c * chunk;
    const std::uint64_t end = begin + chunk < n ? begin + chunk : n;
    const auto address = reinterpret_cast<std::uintptr_t>(keys + begin);
    std::uint64_t head = ((16u - address % 16u) % 16u) / sizeof(Key);
    if (head > end - begin) head = end - begin;
    const std::uint64_t vbegin = begin + head;
    const std::uint64_t vectors = (end - vbegin) / per_vector;
    const std::uint64_t vend = vbegin + vectors * per_vector;
    if (threadIdx.x < head) count(keys[begin + threadIdx.x]);
    if (threadIdx.x < end - vend) count(keys[vend + threadIdx.x]);
    const uint4* v = reinterpret_cast<const uint4*>(keys + vbegin);
    for (std::uint64_t base = 0; base < vectors; base += std::uint64_t{histogram_block} * histogram_unroll) {
      uint4 x[histogram_unroll];
#pragma unroll
      for (int u = 0; u < histogram_unroll; ++u) {
        const std::uint64_t i = base + static_cast<std::uint64_t>(u) * histogram_block + threadIdx.x;
        if (i < vectors) x[u] = __ldg(v + i);
      }
#pragma unroll
      for (int u = 0; u < histogram_unroll; ++u) {
        const std::uint64_t i = base + static_cast<std::uint64_t>(u) * histogram_block + threadIdx.x;
        if (i < vectors) {
          Key k[per_vector];
          memcpy(k, &x[u], 16);
#pragma unroll
          for (int e = 0; e < per_vector; ++e) count(k[e]);
        }
      }
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < slots; j += histogram_block) {
      std::uint32_t v_sum = 0;
#pragma unroll
      for (int copy = 0; copy < copies; ++copy) {
        v_sum += s_counts[copy * max_slots + j];
        s_counts[copy * max_slots + j] = 0;
      }
      if (v_sum != 0) atomicAdd(&counts[j], static_cast<unsigned long long>(v_sum));
    }
    __syncthreads();
  }
}

// ----------------------------------------------------------------------------
// Kernel 2: exclusive sum of each place's histogram.

/// One block of 2^DigitBits threads per place: bins[place][d] = sum of the counts
/// of digits below d at that place (in place), and flags[place]: dominant_place when
/// one digit holds at least half of the place's keys; with CrowdedFlag (plans whose
/// shapes read it: reads_crowded_flag, none of the defaults) also crowded_place when
/// fewer than crowded_below distinct digits are expected among 32 keys (crowded_below is
/// not read without CrowdedFlag).
template <unsigned DigitBits, bool CrowdedFlag = false>
__global__ void __launch_bounds__(1u << DigitBits) exclusive_sum_kernel(unsigned long long* bins, std::uint32_t* flags,
                                                                        float crowded_below) {
  constexpr int radix = 1 << DigitBits;
  __shared__ unsigned long long s_warp[radix / 32];
  constexpr int warps = radix / 32;
  __shared__ unsigned long long s_total[warps], s_max[warps];
  __shared__ double s_distinct[CrowdedFlag ? warps : 1];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  unsigned long long* place = bins + static_cast<std::size_t>(blockIdx.x) * radix;
  const unsigned long long count = place[threadIdx.x];
  // Place total and largest count: warp shuffles, then one partial per warp.
  unsigned long long total = count, largest = count;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    total += __shfl_xor_sync(0xFFFFFFFFu, total, offset);
    const unsigned long long other = __shfl_xor_sync(0xFFFFFFFFu, largest, offset);
    largest = other > largest ? other : largest;
  }
  if (lane == 0) {
    s_total[warp] = total;
    s_max[warp] = largest;
  }
  __syncthreads();
  total = 0;
  largest = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    total += s_total[w];
    largest = s_max[w] > largest ? s_max[w] : largest;
  }
  if constexpr (CrowdedFlag) {
    // E[distinct digits among 32 keys] = sum_d 1 - (1 - p_d)^32.
    double miss = total != 0 ? 1.0 - static_cast<double>(count) / static_cast<double>(total) : 1.0;
#pragma unroll
    for (int square = 0; square < 5; ++square) miss *= miss;
    double distinct = 1.0 - miss;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) distinct += __shfl_xor_sync(0xFFFFFFFFu, distinct, offset);
    if (lane == 0) s_distinct[warp] = distinct;
  }
  place[threadIdx.x] = block_exclusive_sum<radix>(count, s_warp);  // its barriers publish s_distinct
  if (threadIdx.x == 0) {
    std::uint32_t f = 0;
    if (total != 0 && 2 * largest >= total) f |= dominant_place;
    if constexpr (CrowdedFlag) {
      double distinct = 0;
      for (int w = 0; w < warps; ++w) distinct += s_distinct[w];
      if (total != 0 && distinct < crowded_below) f |= crowded_place;
    }
    flags[blockIdx.x] = f;
  }
}

}  // namespace detail

}  // namespace onepass::sort::gpu::onesweep
