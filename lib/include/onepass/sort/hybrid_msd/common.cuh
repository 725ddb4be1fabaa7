// onepass/sort/hybrid_msd/common.cuh — the hybrid MSD radix sort's shapes and
// bookkeeping types, shared by its levels (levels.cuh), its local finish
// (local_finish.cuh) and its plan (plan.cuh). The algorithm and its steps are described
// in onepass/sort/hybrid_msd.cuh, the header to include.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"

namespace onepass::sort::gpu::hybrid_msd {

/// Bits per MSD digit (HRS §4: 8-bit digits, 256 buckets per split).
inline constexpr unsigned digit_bits = 8;
inline constexpr unsigned radix = 1u << digit_bits;

/// The double buffer of the double-buffer overloads (the same type as onesweep's).
using onepass::sort::gpu::onesweep::double_buffer;

namespace detail {

using onepass::sort::no_values;
using onepass::sort::gpu::onesweep::detail::value_word;
using onepass::sort::gpu::onesweep::detail::from_ordered;
using onepass::sort::gpu::onesweep::detail::to_ordered;

/// Threads of the histogram / scatter / copy blocks (one tile each).
inline constexpr int tile_block = 256;
/// Keys per thread of a tile: 32 KB of keys (or values) per tile.
template <class Key, class Word>
inline constexpr int tile_items_per_thread = (sizeof(Key) > sizeof(Word) ? sizeof(Key) : sizeof(Word)) == 8 ? 16 : 32;

/// The two shapes of the local finish (threads x keys per thread): small ranges (at most
/// 4096 keys: windows and children of up to 4096 keys) take 256 x 16, two blocks per SM;
/// larger children, up to local_max = 512 x 12 = 6144 keys, take 512 x 12. (One 512 x 16
/// shape for everything left half of each block idle on children of about 4096 keys, the
/// size uniform keys reach after two levels at 2^28, and one block per SM: 9.0 ms of a
/// 14.4 ms sort of 2^28 u64 keys on an H100.)
inline constexpr int small_block = 256;
inline constexpr int small_items = 16;
inline constexpr int large_block = 512;
inline constexpr int large_items = 12;
inline constexpr std::uint64_t small_max = std::uint64_t{small_block} * small_items;
/// Largest bucket finished in shared memory, and the window of the small-bucket batches
/// (a window holds at most 2 x window_items = small_max keys).
inline constexpr std::uint64_t local_max = std::uint64_t{large_block} * large_items;
inline constexpr std::uint64_t window_items = small_max / 2;
/// The shape of the local finish of a whole input of (small_max, local_max] keys (one
/// block, no global pass: sort.cuh's first stage). Measured with
/// scripts/bench_local_finish.cu on an H100 (results/recorded/nvidia-h100/
/// local-finish-e2c3cac/): 512 x 12 (the large children's shape), 384 x 16, 256 x 24 and
/// 768 x 8 at 4603, 5120, 5880 and 6144 keys, every key shape, bands q = 1, 2, 4, 8;
/// geometric mean of the time over 512 x 12: 0.999, 1.157, 1.043, so 512 x 12 stays. At
/// 4603 u32 keys, q >= 2, it runs at 0.83-0.87 x CUB's single-tile sort (15.9 us against
/// 13.1); a 256 x 20 shape (5120 slots: padding slots are ranked too) ran its four LSD
/// passes in 14.1 us but uniform keys 1 us slower, and no shape helped u32 pairs (issue 33).
inline constexpr int whole_block = 512;
inline constexpr int whole_items = 12;
static_assert(std::uint64_t{whole_block} * whole_items >= local_max, "the whole-input shape holds local_max keys");

/// Which buffer holds a bucket's keys (and values): the caller's input, the output, or
/// the scratch buffer.
enum : std::uint32_t { in_buffer = 0, out_buffer = 1, scratch_buffer = 2 };
/// Where a scatter out of buffer `sel` writes: scratch, unless it reads scratch.
__host__ __device__ constexpr std::uint32_t scatter_target(std::uint32_t sel) {
  return sel == scratch_buffer ? out_buffer : scratch_buffer;
}

/// One large bucket of a level: keys [begin, begin + count) of buffer `sel`; its tiles are
/// [tile_base, tile_base + tiles) of the level's tile table, its count-matrix region starts
/// at tile_base * radix, its small-child windows at window_base.
struct bucket {
  std::uint64_t begin;
  std::uint64_t count;
  std::uint64_t tile_base;
  std::uint64_t window_base;
  std::uint32_t tiles;
  std::uint32_t sel;
};

/// A range [begin, end) finished by one local-sort block, read from buffer `sel`.
struct segment {
  std::uint64_t begin;
  std::uint64_t end;
  std::uint32_t sel;
  std::uint32_t pad;
};

/// Device-side sizes of one level's lists (allocated with atomics by classification).
struct level_counts {
  unsigned long long buckets;
  unsigned long long tiles;
  unsigned long long windows;
  unsigned long long segments;        // children of (window_items, small_max] keys
  unsigned long long large_segments;  // children of (small_max, local_max] keys
};

/// The three key (or value) buffers, indexed by bucket::sel.
template <class T>
struct buffers {
  const T* in;
  T* out;
  T* scratch;
  __device__ __forceinline__ const T* source(std::uint32_t sel) const {
    return sel == in_buffer ? in : (sel == out_buffer ? out : scratch);
  }
  /// The buffer a scatter out of buffer `sel` writes (scatter_target).
  __device__ __forceinline__ T* target(std::uint32_t sel) const {
    return scatter_target(sel) == out_buffer ? out : scratch;
  }
};

/// The per-level tables a level's kernels share.
struct level_tables {
  const bucket* buckets;          // this level's large buckets
  const std::uint32_t* tile_bucket;  // tile -> bucket
  const level_counts* counts;     // this level's sizes
  std::uint32_t* matrix;          // tile digit counts, [bucket][digit][tile of bucket]
  const unsigned long long* scanned;  // exclusive scan of matrix (64-bit)
};

/// Digit of a transformed word: bits [shift, shift + bits).
template <class Bits>
struct digit_of {
  unsigned shift;
  std::uint32_t mask;
  __device__ __forceinline__ std::uint32_t Digit(Bits b) const { return static_cast<std::uint32_t>(b >> shift) & mask; }
};

}  // namespace detail

}  // namespace onepass::sort::gpu::hybrid_msd
