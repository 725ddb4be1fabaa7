// onepass/sort/hybrid_msd.cuh — hybrid MSD radix sort on the GPU (CUDA), after Stehle &
// Jacobsen, "A Memory Bandwidth-Efficient Hybrid Radix Sort on GPUs" (SIGMOD 2017; HRS
// in the Onesweep paper's Figures 9–11): onepass::sort::gpu::hybrid_msd (issue 31 naming:
// the device as a namespace, the count num_items; the old onepass::sort::hybrid_msd names
// stay one release as deprecated forwarders at the end of this file).
//
// The sort consumes 8-bit digits from the most significant end of the bit range
// [begin_bit, end_bit) of the keys' order-preserving words (sort/key_traits.hpp, the
// same transform as onesweep: ascending or descending, IEEE totalOrder for float/double).
// Work is organised in levels (HRS §4: "MSD radix sort passes"); level L handles the
// "large" buckets, those of more than local_max keys, and splits each by its digit L:
//
//   1. tile histogram (HRS §4.1, the bucket histogram): the buckets are cut into tiles of
//      tile_items keys (a tile never spans two buckets); one block per tile counts its
//      digits in shared memory and writes the 2^8 counts to a count matrix laid out
//      bucket by bucket, digit-major inside a bucket ([bucket][digit][tile of bucket]);
//   2. one exclusive scan of the whole count matrix (three kernels over chunks of 4096
//      entries, reading the level's tile count from the device): inside a bucket's
//      region, entry (d, j) minus the region's first entry is the offset, from the
//      bucket's start, of the first key of digit d in tile j — the keys of digit d of
//      earlier tiles and of all smaller digits;
//   3. scatter (HRS §4.2): one block per tile ranks its keys by digit (a block-wide
//      stable multisplit, cub::BlockRadixRankMatch over keys loaded warp-striped),
//      stages them in shared memory in digit order and writes each digit's run to its
//      place, so that global writes coalesce. A bucket whose keys all share digit L (the
//      scan shows one digit holding the bucket) is not moved: the data stays where it is
//      and the level costs only its histogram read (long common prefixes, HRS §4.4);
//   4. classification (one block per bucket, thread d for digit d): each child bucket
//      of more than local_max keys becomes a large bucket of level L + 1 (its slots in
//      the next bucket list, tile table and window table taken with atomics, so the
//      bookkeeping stays on the device: no host round trip between levels); a child of
//      (small_max, local_max] keys becomes a local-sort segment of the large shape, one
//      of (window_items, small_max] keys a segment of the small shape; smaller children
//      are batched (HRS §4.3, "merging small buckets"): a parent's small children whose
//      first key falls in the same window of window_items positions of the parent form
//      one contiguous range of at most small_max keys, finished by one block;
//   5. local finish (HRS §4.3, "local sort"): one block per segment or window loads its
//      range into shared memory, finds the bits that vary inside it, and sorts on them
//      with 8-bit stable block-wide multisplit passes (cub::BlockRadixRankMatch), least
//      significant first: over at most the top 16 varying bits, runs of keys equal on
//      those bits then finished by insertion (rare for random keys; LSD passes over every
//      varying bit when a run longer than local_tie_run is out of order), or, where a
//      predictor in registers expects long runs (low-entropy keys), straight over every
//      varying bit (local_finish.cuh), writing the final output.
// An input of at most local_max keys has no level: one block sorts it whole (step 5);
// 4-byte keys without values of (small_max, lean_max] take the lean shape, straight LSD
// passes over every varying bit (common.cuh: lean_block).
// After the last level, large buckets left with no bits to sort on (more than local_max
// equal keys) are copied to the output.
//
// Every step is stable (tiles are laid out in input order, the multisplit and the block
// sort keep ties in order), so the sort is stable: keys equal on the sorted bits keep
// their input order, and pairs keep each value with its key.
//
// Global passes: uniform 64-bit keys, 2^28 of them (local_max = 6144): level 0 (2^28 ->
// 256 buckets of 2^20), level 1 (-> 65536 buckets of about 4096), then the local finish:
// two histogram reads, two scatters and one local read and write, where onesweep makes
// one histogram read and eight scatters. Above 2^16 x local_max (about 4.0e8) uniform
// keys, a third level is needed whose buckets (about 2^14 keys at 2^30) leave each
// 4096-key tile with runs of about 16 keys per digit: the scatter's writes no longer
// coalesce, and the sort falls behind onesweep (measured on an H100 at 2^30 u64 keys:
// 0.82x onesweep; the Onesweep paper reports HRS's drop above ~550M keys).
// onepass::sort::gpu::sort_keys (sort/sort.cuh) takes onesweep there.
//
// Differences from the paper's code (the authors' published code was read, not copied):
// bucket counts never go to the host (kernels are launched for the largest possible
// number of tiles, buckets and windows, and the blocks beyond the device-side counts exit
// at once); sizes are 64-bit (any n); ties keep their order (HRS's scatter is not
// stable); digits are always 8 bits (the last level narrower when the bit range is not a
// multiple of 8).
//
// Where the steps are: hybrid_msd/common.cuh (shapes, bucket and segment lists),
// hybrid_msd/levels.cuh (steps 1-4: tile_histogram_kernel, scan_reduce_kernel /
// scan_chunks_kernel / scan_apply_kernel, scatter_kernel, classify_kernel; copy_kernel
// after the last level), hybrid_msd/local_finish.cuh (step 5: local_sort_kernel, its
// sub-steps 5a-5g marked in its body), hybrid_msd/plan.cuh (plan: the temporary storage
// and the launches of each level), and here the public entry points.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/error.hpp"
#include "onepass/sort/hybrid_msd/common.cuh"
#include "onepass/sort/hybrid_msd/plan.cuh"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort::gpu::hybrid_msd {

/// Sorts num_items keys with the hybrid MSD radix sort (Stehle & Jacobsen 2017, §4; see the
/// file comment): d_keys_out[0, num_items) = d_keys_in[0, num_items) in ascending (or, with
/// `descending`, descending) order of the bits [begin_bit, end_bit) of their
/// order-preserving transform (sort/key_traits.hpp, as onesweep::sort_keys: IEEE
/// totalOrder for float/double). Stable: keys equal on those bits keep their input order.
/// Out-of-place: d_keys_in is not modified.
///
/// Key: uint32_t, int32_t, float, uint64_t, int64_t or double. d_keys_in, d_keys_out:
/// device pointers to num_items keys, not overlapping. begin_bit < end_bit <= 8 *
/// sizeof(Key). num_items: any size_t. Global passes: at most ceil((end_bit - begin_bit) /
/// 8) levels, each a histogram read and a scatter of the keys still in buckets of more
/// than local_max = 6144 keys, then one shared-memory finish per bucket of at most
/// local_max keys.
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set
/// (from num_items and the bit range; nothing enqueued). Otherwise d_temp must hold at
/// least that many bytes (any alignment); the work is enqueued on `stream`, not waited
/// for. Storage: num_items keys of scratch when num_items > local_max, plus about 1.2
/// bytes per key of bookkeeping (count matrix, its scan, bucket and tile lists) for 8-byte
/// keys, 0.6 for 4-byte keys.
///
/// Throws onepass::error (nothing enqueued) for end_bit > 8 * sizeof(Key) or begin_bit >=
/// end_bit, and in the run phase for null or misaligned pointers with num_items > 0,
/// overlapping input and output, or temp_bytes below the query's answer; throws
/// onepass::runtime_failure when a CUDA call or launch fails. Messages name
/// "onepass::sort::gpu::hybrid_msd::sort_keys" and the argument.
template <class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  onepass::sort::gpu::onesweep::detail::check_types<Key, detail::no_values>();
  detail::sort_copy<Key, detail::no_values>("onepass::sort::gpu::hybrid_msd::sort_keys", d_temp, temp_bytes,
                                            d_keys_in, d_keys_out, nullptr, nullptr, num_items, begin_bit, end_bit,
                                            descending, stream);
}

/// Sorts num_items (key, value) pairs by key with the hybrid MSD radix sort, stable: as
/// sort_keys, and d_values_out[i] is the value that came with d_keys_out[i]. Value: any
/// trivially copyable type of 4 or 8 bytes; d_values_in, d_values_out: device pointers to
/// num_items values, aligned to sizeof(Value), not overlapping each other. Temporary
/// storage: sort_keys's plus num_items values of scratch when num_items > local_max.
/// Throws as sort_keys, also for null, misaligned or overlapping value pointers.
template <class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0,
                unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  onepass::sort::gpu::onesweep::detail::check_types<Key, Value>();
  detail::sort_copy<Key, Value>("onepass::sort::gpu::hybrid_msd::sort_pairs", d_temp, temp_bytes, d_keys_in,
                                d_keys_out, d_values_in, d_values_out, num_items, begin_bit, end_bit, descending,
                                stream);
}

/// Sorts the num_items keys of keys.current() (double-buffer variant): both buffers
/// (num_items keys each, not overlapping) may be overwritten; the sorted keys end in
/// keys.current() (the selector is not changed). Order, stability, bit range and errors as
/// sort_keys (plus a selector other than 0 or 1). Temporary storage: the bookkeeping only
/// (no buffer of num_items keys).
template <class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  onepass::sort::gpu::onesweep::detail::check_types<Key, detail::no_values>();
  detail::sort_buffers<Key, detail::no_values>("onepass::sort::gpu::hybrid_msd::sort_keys", d_temp, temp_bytes, keys,
                                               nullptr, num_items, begin_bit, end_bit, descending, stream);
}

/// Sorts num_items pairs held in keys.current() / values.current() (double-buffer
/// variant): as the keys-only double-buffer sort_keys; the sorted pairs end in the current
/// buffers.
template <class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  onepass::sort::gpu::onesweep::detail::check_types<Key, Value>();
  detail::sort_buffers<Key, Value>("onepass::sort::gpu::hybrid_msd::sort_pairs", d_temp, temp_bytes, keys, &values,
                                   num_items, begin_bit, end_bit, descending, stream);
}

}  // namespace onepass::sort::gpu::hybrid_msd

// ============================================================================
// Deprecated names (issue 31 naming convention: the device as a namespace, the count
// num_items), removed after one release. onepass::sort::hybrid_msd:: is now
// onepass::sort::gpu::hybrid_msd::. Each forwarder calls the gpu::hybrid_msd overload with
// the same arguments (same output, same errors, which name the new function); the public
// type and constants are the same entities by using-declaration. Call the new names
// qualified (see the note at the end of onesweep.cuh).
namespace onepass::sort::hybrid_msd {

using gpu::hybrid_msd::digit_bits;
using gpu::hybrid_msd::double_buffer;
using gpu::hybrid_msd::radix;

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::hybrid_msd::sort_keys(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, ...).
template <class Key>
[[deprecated("use onepass::sort::gpu::hybrid_msd::sort_keys")]] void sort_keys(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
    unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
    cudaStream_t stream = 0) {
  gpu::hybrid_msd::sort_keys<Key>(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit,
                                  descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::hybrid_msd::sort_pairs(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
/// d_values_out, num_items, ...).
template <class Key, class Value>
[[deprecated("use onepass::sort::gpu::hybrid_msd::sort_pairs")]] void sort_pairs(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
    Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  gpu::hybrid_msd::sort_pairs<Key, Value>(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                                          num_items, begin_bit, end_bit, descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::hybrid_msd::sort_keys(d_temp, temp_bytes, keys, num_items, ...) (double buffer).
template <class Key>
[[deprecated("use onepass::sort::gpu::hybrid_msd::sort_keys")]] void sort_keys(
    void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items, unsigned begin_bit = 0,
    unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  gpu::hybrid_msd::sort_keys<Key>(d_temp, temp_bytes, keys, num_items, begin_bit, end_bit, descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::hybrid_msd::sort_pairs(d_temp, temp_bytes, keys, values, num_items, ...) (double
/// buffer).
template <class Key, class Value>
[[deprecated("use onepass::sort::gpu::hybrid_msd::sort_pairs")]] void sort_pairs(
    void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
    std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  gpu::hybrid_msd::sort_pairs<Key, Value>(d_temp, temp_bytes, keys, values, num_items, begin_bit, end_bit, descending,
                                          stream);
}

}  // namespace onepass::sort::hybrid_msd
