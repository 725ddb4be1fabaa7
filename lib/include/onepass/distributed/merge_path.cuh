// onepass/distributed/merge_path.cuh — the stable two-way merge the sort-first distributed sort
// (distributed/sort.cuh, sort_method::sort_first) uses to combine the sorted runs it receives.
//
// Merge path (Green, McColl & Bader, "GPU Merge Path: A GPU Merging Algorithm", ICS 2012): the
// merged output of sorted A (na items) and B (nb items) is cut into tiles (merge_shape::tile items); the
// split of each tile boundary d between A and B is found by a binary search on the cross diagonal
// (merge_partition_kernel), then each block loads its tile's A and B ranges into shared memory,
// each thread finds its own diagonal inside the tile the same way and merges its items
// sequentially, and the block writes the tile out coalesced (merge_tile_kernel). The tile shape
// (threads x items per thread) is a template parameter, default_merge_shape.
//
// Stability: on equal key fields A's item comes first (A[i] before B[j] unless B[j] < A[i]), and
// each input keeps its order; merging runs in source-rank order therefore gives the stable sort of
// their concatenation. (CUB's DeviceMerge is documented as unstable, so it cannot serve here.)
//
// Comparison: `less(a, b)` on keys — the distributed sort passes the key field's order
// (field_of_key: bits [begin_bit, end_bit) of the order-preserving word, ascending or descending).
// Values (any trivially copyable type; merge_no_values for keys only) travel with their keys.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/cuda_check.hpp"

namespace onepass::distributed::detail {

/// Marker: the merge moves keys only.
struct merge_no_values {};

/// A merge's tile: Threads threads per block, Items outputs per thread.
template <int Threads, int Items>
struct merge_shape {
  static constexpr int threads = Threads;
  static constexpr int items = Items;
  static constexpr int tile = Threads * Items;  ///< outputs per block
  static_assert(tile <= 65536, "source slots are 16-bit");
};

/// The tile merge_stable uses: 256 x 12 (3072 outputs) for every key and value type. Measured
/// by scripts/bench_merge_path.cu on an H200 (results/recorded/nvidia-h200-x2/bench_merge_path-*.txt;
/// two runs of 2^29 u32 keys, of 2^28 u64 keys, of 2^29 u32 keys with u32 values): 256 x 12 took
/// 3.53, 3.08 and 5.64 ms, the fastest of 256 x 8, 128 x 16, 256 x 16, 512 x 8 (and 256 x 24 for
/// u32 keys, 3.69) in each; the kernel before its loads were unrolled took 5.45, 4.46, 7.70 ms
/// (256 x 8), a device copy of the same bytes 2.01, 2.01, 4.00 ms.
using default_merge_shape = merge_shape<256, 12>;

/// The smallest tile of any shape merge_stable takes (sizes the split storage).
inline constexpr int merge_min_tile = 2048;

/// How many of A's items are among the first d outputs of the stable merge of A and B: the
/// largest i in [max(0, d - nb), min(d, na)] with A[i - 1] not after B[d - i] (merge path).
template <class Key, class Less>
__device__ __forceinline__ std::uint64_t merge_path_split(const Key* a, std::uint64_t na, const Key* b,
                                                          std::uint64_t nb, std::uint64_t d, Less less) {
  std::uint64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (!less(b[d - 1 - mid], a[mid])) lo = mid + 1;  // A[mid] is among the first d outputs
    else hi = mid;
  }
  return lo;
}

/// splits[t] = merge_path_split at diagonal min(t * tile, na + nb), t in [0, tiles].
template <class Key, class Less>
__global__ void merge_partition_kernel(const Key* a, std::uint64_t na, const Key* b, std::uint64_t nb,
                                       std::uint64_t tiles, std::uint64_t tile_size, Less less,
                                       std::uint64_t* splits) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::uint64_t n = na + nb;
  const std::uint64_t d = t * tile_size < n ? t * tile_size : n;
  splits[t] = merge_path_split(a, na, b, nb, d, less);
}

/// One tile of the merge per block (file comment). Every global load is issued from an
/// unrolled loop of Shape::items loads per thread before the first use (the loads of a
/// tile are in flight together: a loop of dependent iterations left the kernel bound by
/// memory latency). Dynamic shared memory: merge_shared_bytes<Key, Shape>.
template <class Shape, class Key, class Value, class Less>
__global__ void __launch_bounds__(Shape::threads)
    merge_tile_kernel(const Key* a_keys, const Value* a_values, std::uint64_t na, const Key* b_keys,
                      const Value* b_values, std::uint64_t nb, const std::uint64_t* splits, Less less,
                      Key* out_keys, Value* out_values) {
  constexpr bool has_values = !std::is_same_v<Value, merge_no_values>;
  constexpr int threads = Shape::threads, items = Shape::items, tile_size = Shape::tile;
  extern __shared__ __align__(16) unsigned char merge_shared[];
  Key* s_keys = reinterpret_cast<Key*>(merge_shared);  // [A range | B range], then the merged keys
  unsigned short* s_from = reinterpret_cast<unsigned short*>(s_keys + tile_size);  // source slot of each output
  const std::uint64_t tile = blockIdx.x;
  const std::uint64_t n = na + nb;
  const std::uint64_t d0 = tile * tile_size;
  const std::uint64_t d1 = d0 + tile_size < n ? d0 + tile_size : n;
  const std::uint64_t a0 = splits[tile], a1 = splits[tile + 1];
  const std::uint64_t b0 = d0 - a0, b1 = d1 - a1;
  const unsigned ca = static_cast<unsigned>(a1 - a0), cb = static_cast<unsigned>(b1 - b0), count = ca + cb;
  {
    Key loaded[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned k = i * threads + threadIdx.x;
      if (k < count) loaded[i] = k < ca ? a_keys[a0 + k] : b_keys[b0 + (k - ca)];
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned k = i * threads + threadIdx.x;
      if (k < count) s_keys[k] = loaded[i];
    }
  }
  __syncthreads();
  // This thread's outputs [first, first + items) of the tile, merged from shared memory.
  const unsigned first = threadIdx.x * items;
  Key merged[items];
  unsigned short from[items];
  if (first < count) {
    unsigned lo = first > cb ? first - cb : 0, hi = first < ca ? first : ca;
    while (lo < hi) {  // merge_path_split inside the tile
      const unsigned mid = (lo + hi) / 2;
      if (!less(s_keys[ca + (first - 1 - mid)], s_keys[mid])) lo = mid + 1;
      else hi = mid;
    }
    unsigned ia = lo, ib = first - lo;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const bool take_a = ib >= cb || (ia < ca && !less(s_keys[ca + ib], s_keys[ia]));
      const unsigned slot = take_a ? ia : ca + ib;
      if (ia + ib < count) {
        merged[k] = s_keys[slot];
        from[k] = static_cast<unsigned short>(slot);
      }
      ia += take_a ? 1u : 0u;
      ib += take_a ? 0u : 1u;
    }
  }
  __syncthreads();  // every thread has read the inputs: the same shared memory takes the output
#pragma unroll
  for (int k = 0; k < items; ++k)
    if (first + k < count) {
      s_keys[first + k] = merged[k];
      if constexpr (has_values) s_from[first + k] = from[k];
    }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const unsigned k = i * threads + threadIdx.x;
    if (k < count) out_keys[d0 + k] = s_keys[k];
  }
  if constexpr (has_values) {
    Value v[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned k = i * threads + threadIdx.x;
      if (k < count) {
        const unsigned slot = s_from[k];
        v[i] = slot < ca ? a_values[a0 + slot] : b_values[b0 + (slot - ca)];
      }
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned k = i * threads + threadIdx.x;
      if (k < count) out_values[d0 + k] = v[i];
    }
  }
}

/// Dynamic shared memory of merge_tile_kernel: the tile's keys and a 16-bit source slot each.
template <class Key, class Shape>
constexpr std::size_t merge_shared_bytes() {
  return static_cast<std::size_t>(Shape::tile) * (sizeof(Key) + sizeof(unsigned short));
}

/// Words of split storage a merge of n = na + nb items needs with any shape (tiles + 1).
inline std::uint64_t merge_split_words(std::uint64_t n) { return (n + merge_min_tile - 1) / merge_min_tile + 1; }

/// Enqueues the stable merge of A and B (keys and, unless Value is merge_no_values, values) into
/// out on `stream`: out[0, na + nb). d_splits: merge_split_words(na + nb) words of device memory.
/// The outputs must not overlap the inputs. Shape: the tile (default_merge_shape; tile at
/// least merge_min_tile, shared memory at most 48 KiB).
template <class Key, class Value, class Less, class Shape = default_merge_shape>
void merge_stable(const Key* a_keys, const Value* a_values, std::uint64_t na, const Key* b_keys, const Value* b_values,
                  std::uint64_t nb, Key* out_keys, Value* out_values, Less less, std::uint64_t* d_splits,
                  cudaStream_t stream) {
  static_assert(Shape::tile >= merge_min_tile, "the split storage is sized by merge_min_tile");
  static_assert(merge_shared_bytes<Key, Shape>() <= 48 * 1024, "the tile must fit the default shared memory");
  const std::uint64_t n = na + nb;
  if (n == 0) return;
  const std::uint64_t tiles = (n + Shape::tile - 1) / Shape::tile;
  merge_partition_kernel<Key, Less><<<static_cast<unsigned>((tiles + 1 + 255) / 256), 256, 0, stream>>>(
      a_keys, na, b_keys, nb, tiles, Shape::tile, less, d_splits);
  ONEPASS_CUDA_CHECK_LAUNCH();
  merge_tile_kernel<Shape, Key, Value, Less>
      <<<static_cast<unsigned>(tiles), Shape::threads, merge_shared_bytes<Key, Shape>(), stream>>>(
          a_keys, a_values, na, b_keys, b_values, nb, d_splits, less, out_keys, out_values);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

}  // namespace onepass::distributed::detail
