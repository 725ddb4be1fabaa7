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
/// The local finish of a whole input of (small_max, lean_max] 4-byte keys (one block, no
/// global pass: sort.cuh's first stage) takes lean_block x lean_items = 384 x 13 = 4992
/// slots: the sizes where CUB sorts in one tile (256 x 19 u32 keys). Keys without values
/// take straight LSD passes over the varying bits (no predictor, no top-field order); pairs
/// the predictor, with their values prefetched (plan::lean_straight). 8-byte keys keep the
/// large shape (plan::lean_keys says why). Measured with
/// scripts/bench_local_finish.cu STUDY=2 on an H100 (bench_local_finish_study2-55b3dd7.txt
/// in results/recorded/nvidia-h100-x4/), 4096, 4603 and 4864 u32 keys and u32 pairs, bands
/// q = 1, 2, 4, 8: 8-bit LSD passes over every bit in 384 x 13 ran at 0.96-1.07 x CUB
/// (the faster of its in/out and DoubleBuffer sorts, 32-bit count), in 512 x 12 (the large children's shape, used for these inputs until then) at
/// 0.88-0.98, in 256 x 19 at 0.94-1.02, with 6-bit digits at 0.78-0.90; the library's
/// kernel in 512 x 12 with its predictor at 0.84-0.91 for q >= 2 (Figs. 9 and 10 at 4603
/// keys: 0.81-0.89). Through the public sort_keys (STUDY=3 at 3374929): u32 keys at 4097,
/// 4603 and 4864, bands q = 1, 2, 4, 8, 16, 0.970-1.053 x the same CUB configurations (0.823-1.003
/// in 512 x 12). Above lean_max, up to local_max, the large shape as for children (CUB's sort is no
/// longer one tile there: 3x slower than this one).
inline constexpr int lean_block = 384;
inline constexpr int lean_items = 13;
inline constexpr std::uint64_t lean_max = std::uint64_t{lean_block} * lean_items;
static_assert(small_max < lean_max && lean_max <= local_max, "the lean shape lies between the small and the large");

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
