// onepass/sort/onesweep.cuh — Onesweep: single-pass-per-digit LSD radix sort on
// the GPU (CUDA), onepass::sort::gpu::onesweep (issue 31 naming: the device as a
// namespace, the count num_items; the old onepass::sort::onesweep names stay one release
// as deprecated forwarders at the end of this file).
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", §3 (algorithm) and §4 (2^31+ keys). Keys are sorted as unsigned
// words after the order-preserving transform of sort/key_traits.hpp (radix_traits;
// descending = complemented words), so the special floating-point values land as
// documented there (-0.0 before +0.0, NaNs by sign bit). The sort is stable.
// float_order::signed_zero_equal (the overloads whose first template argument is a
// float_order) orders float/double keys as cub::DeviceRadixSort does, -0.0 == +0.0:
// every place a digit is taken (histogram kernel; binning steps 3a, 3b, 6, 9b) reads
// digit_word<Order, Key>(word) instead of the word, while registers, shared memory
// and the output keep the key's own word, so output keys keep their bits. The
// default (total_order) instantiations compile to the same code as before.
//
// Kernels, per sort (d = DigitBits, r = 2^d digits, p = ceil((end_bit - begin_bit) / d)
// digit places, the last one possibly narrower):
//   1. upfront histogram (§3, Fig. 5): a grid of one wave of blocks reads the keys
//      once as 16-byte vectors and counts the digits of ALL p places in shared memory
//      (32-bit counters, shared atomics, one copy of the counters per warp), flushing
//      into 64-bit global counts (atomicAdd) after each chunk of at most 2^28 keys,
//      so no 32-bit counter can overflow;
//   2. exclusive sum: one block per place turns the p global histograms into the
//      global start of every digit (64-bit);
//   3. per place, one chained-scan digit-binning kernel (§3.2): each block takes the
//      next tile id from an atomic counter (digit_lookback::acquire_tile), loads its
//      tile of keys into registers, counts the digits of each warp (early counts: one
//      shared atomicAdd per key into the warp's histogram), publishes the tile's
//      per-digit counts through the decoupled look-back (detail::digit_lookback, one
//      channel per digit, status and value in one 32-bit word) right away, turns the
//      warps' counts into each warp's first slot of each digit in the digit-ordered
//      tile, ranks the keys with a warp-level multisplit (the lanes with the same digit
//      come from d ballots per key, one predicate per bit, detail::agreeing_lanes; the
//      lowest such lane adds their count to the warp's slot counter of the digit), so
//      every key gets its slot at once, reorganises the keys (and values) in shared
//      memory into digit order, looks back (thread k of the block for digit k, reading
//      a few predecessors at a time and spinning on a not-ready one), publishes its
//      inclusive prefixes, and writes the tile's runs of equal digits to their global
//      places, so that writes coalesce. binning_shape also builds the kernel without
//      early counts (ranks first, counts from the ranking) and with the atomicOr or
//      __match_any_sync rankings below; the benchmarks compare them.
// Low-entropy keys (§3, the short-circuit; §5, Fig. 9b):
//   - homogeneous tiles: the tile-wide count of some digit equals the tile's key count
//     exactly when every key of the tile has that digit, and thread d sees its count in
//     step 4, so the test costs no pass over the keys. Such a tile skips the shared-
//     memory reorganisation and copies its keys (and values) from the input (read a
//     moment earlier, so mostly from L2) to out[digit start + position in tile]:
//     stable, and the writes coalesce;
//   - uniform warps: the exclusive-sum kernel flags each place whose most frequent
//     digit holds at least half of the keys (dominant_place, from the histogram it
//     already has). On such a place each warp first tests whether all its keys have
//     one digit (one __all_sync, no block barrier); such a warp skips the multisplit
//     (rank = position in the warp), whose atomicOr of 32 lanes into one shared word
//     would serialise. Elsewhere the test is skipped, so uniform keys pay nothing for it.
//   - crowded places (ranking alternatives only: no default shape uses them; the
//     default shapes rank by ballots, whose cost does not depend on the digits, and
//     launch one kernel per pass): binning_shape can also rank with atomicOr, whose
//     same-address shared atomics serialise where digits repeat, or __match_any_sync,
//     which gets faster the fewer distinct values it sees. A plan whose shapes rank
//     with atomicOr has the exclusive-sum kernel compute, per place, the expected number
//     of distinct digits among 32 keys drawn from its histogram and flag the place
//     crowded below 16 (crowded_place); its passes launch as gated_launch says (a gated
//     atomicOr / match_any pair from 2^25 keys, each launch exiting before it takes a
//     tile unless the flag makes the place its own; one dynamic kernel below). The
//     tuning program (scripts/bench_onesweep.cu) injects these shapes as the plan's
//     Policy; results/recorded/nvidia-h100/tuning.txt ("Onesweep ranking alternatives")
//     has what they measured and why ballots replaced them (6b71199).
//
// Portions (§4, "strips"): a binning kernel works on at most portion_items = 2^28
// consecutive keys of its input buffer, so the look-back counts (30-bit descriptor
// values) are exact. A pass over n > 2^28 keys is one kernel per portion, in order;
// the block holding the last tile of portion q writes, per digit, "global start of the digit for
// portion q + count of the digit in portion q" into the 64-bit bin array of portion
// q + 1, which the next kernel (stream-ordered) reads as its digit starts. Portion 0's
// starts come from the exclusive-sum kernel. The histogram needs no portions beyond
// its flush chunks. Each binning kernel's look-back descriptors (one portion's:
// ceil(portion / tile) * r words of 4 bytes) are zeroed by one memset before it.
//
// Tile shape (detail::binning_policy, chosen by measurement on an H100 with
// scripts/bench_onesweep.cu): threads x keys per thread per key and value size. Keys
// stay in registers from load to the shared-memory reorganisation; per-warp digit
// counters (and the atomic_or match words) live in shared memory, reused as the key
// buffer. The public sorts take the tile shapes of the current device's architecture
// table (sm_90, measured; sm_80, untuned; other GPUs fall back to sm_80:
// onesweep/policy.cuh's file comment).
//
// Temporary storage (two-phase, like cub::DeviceRadixSort): bins (ceil(n / 2^28) * p *
// r * 8 bytes), p place flags (4 bytes each), the look-back descriptors of one portion (for 2^28 uint32 keys, d = 8
// and 8192-key tiles: 32768 tiles * 256 * 4 bytes = 32 MB; the tile depends on the
// device's table only for 8-byte keys with 8-byte values), and, for the out-of-place
// API only, one ping-pong buffer of n keys (and n values) when p >= 2. The double-buffer API needs no n-sized
// storage: the result ends in one of the caller's two buffers and the selector says
// which (like cub::DoubleBuffer).
//
// Files (along CUB's seam between tuning, block-level pieces, kernels and the host):
//   onesweep/policy.cuh            constants, double_buffer, tile shapes per architecture,
//                                  the ranking alternatives' launch policy (gated_launch)
//   onesweep/block_primitives.cuh  key transform, block exclusive sum, ballot predicate
//   onesweep/digit_lookback.cuh    the per-digit decoupled look-back (kernel 3's scan)
//   onesweep/histogram_kernel.cuh  kernels 1 and 2
//   onesweep/binning_kernel.cuh    kernel 3, in named steps
//   onesweep/plan.cuh              storage, launches, argument checks, the two drivers
//   onesweep.cuh (this file)       the public sorts
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep/plan.cuh"
#include "onepass/sort/onesweep/policy.cuh"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort::gpu::onesweep {

/// Sorts num_items keys (Onesweep, paper §3): d_keys_out[0, num_items) = d_keys_in[0,
/// num_items) in ascending (or, with `descending`, descending) order of the bits
/// [begin_bit, end_bit) of their order-preserving transform (sort/key_traits.hpp: for
/// float/double IEEE totalOrder, -0.0 < +0.0 and NaNs placed by their sign bit); stable:
/// keys equal on those bits keep their input order. Out-of-place: d_keys_in is not
/// modified. For CUB's order of float/double keys (-0.0 == +0.0) use
/// sort_keys<float_order::signed_zero_equal> (below).
///
/// Key: uint32_t, int32_t, float, uint64_t, int64_t or double. DigitBits: bits per
/// digit place, 5..9 (8 is fastest; ceil((end_bit - begin_bit) / DigitBits) binning
/// passes). d_keys_in, d_keys_out: device pointers to num_items keys, not overlapping.
/// begin_bit < end_bit <= 8 * sizeof(Key). num_items: up to SIZE_MAX / sizeof(Key) (the
/// keys' bytes fit in size_t; pairs: also the values'); inputs above 2^28 keys are binned in
/// portions of 2^28 (see the file comment).
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set
/// (from num_items, the bit range and DigitBits; no pointer is looked at, nothing
/// enqueued). Otherwise d_temp must hold at least that many bytes of device memory (any
/// alignment); the work is enqueued on `stream`, not waited for. Storage: num_items keys
/// for the ping-pong buffer when there are two passes or more, plus the bins and one
/// portion's look-back descriptors (about 4.1 bytes per key up to 2^28 keys at d = 8
/// for 4-byte keys; use the double_buffer overload to avoid the num_items keys).
///
/// Throws onepass::error (nothing enqueued) for end_bit > 8 * sizeof(Key), begin_bit >=
/// end_bit, num_items above that bound (in both phases, before the device is asked for its
/// architecture), and in the run phase for null or misaligned pointers with num_items > 0,
/// overlapping input and output, or temp_bytes below the query's answer; throws
/// onepass::runtime_failure when a CUDA call or launch fails. Messages name
/// "onepass::sort::gpu::onesweep::sort_keys" and the argument.
template <unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_copy<DigitBits, Key, detail::no_values>("onepass::sort::gpu::onesweep::sort_keys", d_temp,
                                                       temp_bytes, d_keys_in, d_keys_out, nullptr, nullptr,
                                                       num_items, begin_bit, end_bit, descending, stream);
}

/// Sorts num_items (key, value) pairs by key (Onesweep, paper §3), stable: as sort_keys,
/// and d_values_out[i] is the value that came with d_keys_out[i]. Value: any trivially
/// copyable type of 4 or 8 bytes (moved as its bytes); d_values_in, d_values_out: device
/// pointers to num_items values, aligned to sizeof(Value), not overlapping each other.
/// Temporary storage: sort_keys's plus num_items values for the ping-pong buffer.
/// Throws as sort_keys, also for null, misaligned or overlapping value pointers.
template <unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                const Value* d_values_in, Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0,
                unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_copy<DigitBits, Key, Value>("onepass::sort::gpu::onesweep::sort_pairs", d_temp, temp_bytes,
                                           d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, begin_bit,
                                           end_bit, descending, stream);
}

/// Sorts the num_items keys of keys.current() (double-buffer variant, like
/// cub::DoubleBuffer): both buffers (num_items keys each, not overlapping) may be
/// overwritten; on return keys.selector names the buffer that holds the sorted keys (it
/// flips once per binning pass, i.e. ceil((end_bit - begin_bit) / DigitBits) times;
/// unchanged for num_items == 0). Order, stability, bit range and errors as sort_keys
/// (plus a selector other than 0 or 1). Temporary storage: only the bins and one
/// portion's look-back descriptors (no buffer of num_items keys).
template <unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_buffers<DigitBits, Key, detail::no_values>("onepass::sort::gpu::onesweep::sort_keys", d_temp,
                                                          temp_bytes, keys, nullptr, num_items, begin_bit, end_bit,
                                                          descending, stream);
}

/// Sorts num_items pairs held in keys.current() / values.current() (double-buffer
/// variant): as the keys-only double-buffer sort_keys; keys.selector and values.selector
/// flip together. Values as in sort_pairs.
template <unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_buffers<DigitBits, Key, Value>("onepass::sort::gpu::onesweep::sort_pairs", d_temp, temp_bytes, keys,
                                              &values, num_items, begin_bit, end_bit, descending, stream);
}

// ----------------------------------------------------------------------------
// The same four sorts with the order of floating-point keys chosen (key_traits.hpp):
//   gpu::onesweep::sort_keys<float_order::signed_zero_equal>(d_temp, temp_bytes, d_in, d_out,
//                                                            num_items);
//   gpu::onesweep::sort_pairs<float_order::signed_zero_equal, 8>(d_temp, temp_bytes, keys, values,
//                                                                num_items, 0, 32, true, stream);
// Order first, then DigitBits (default 8), Key and Value deduced. (Order is the first
// template parameter of separate overloads, not a parameter after DigitBits: existing
// calls that name the key type, sort_keys<8, std::uint32_t>(...), keep compiling.)
//   float_order::total_order: exactly the overloads above (IEEE totalOrder).
//   float_order::signed_zero_equal: float/double keys in cub::DeviceRadixSort's order:
//     -0.0 and +0.0 are equal keys and keep their input order among themselves (stable);
//     NaNs, infinities, denormals and all other keys as total_order. Output keys keep
//     their exact bits (a -0.0 comes out as -0.0). Bit for bit the output of
//     cub::DeviceRadixSort::SortKeys / SortPairs (and the Descending forms, in/out and
//     DoubleBuffer) for the same keys, values and bit range, with one exception that
//     is CUB's own: for inputs of at most one CUB single-block tile (on sm_90, CCCL
//     3.0: 4864 keys, 2304 when the key or the value has 8 bytes) CUB takes another
//     code path, which in DESCENDING sorts restricted to a bit range narrower than the
//     key gives the zeros +0.0's key field rather than -0.0's (key_traits.hpp); with
//     the full key width, or ascending, both agree. Integer keys: accepted,
//     no effect (CUB's -0.0 handling is floating-point only, and generic code can pass
//     one Order for every key type).
// Shapes, accepted ranges, storage, errors and paper section as the overloads above;
// the temporary storage does not depend on Order.

/// sort_keys (out-of-place) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_copy<DigitBits, Key, detail::no_values, Order>("onepass::sort::gpu::onesweep::sort_keys", d_temp,
                                                              temp_bytes, d_keys_in, d_keys_out, nullptr, nullptr,
                                                              num_items, begin_bit, end_bit, descending, stream);
}

/// sort_pairs (out-of-place) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                const Value* d_values_in, Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0,
                unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_copy<DigitBits, Key, Value, Order>("onepass::sort::gpu::onesweep::sort_pairs", d_temp, temp_bytes,
                                                  d_keys_in, d_keys_out, d_values_in, d_values_out, num_items,
                                                  begin_bit, end_bit, descending, stream);
}

/// sort_keys (double-buffer) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_buffers<DigitBits, Key, detail::no_values, Order>("onepass::sort::gpu::onesweep::sort_keys", d_temp,
                                                                 temp_bytes, keys, nullptr, num_items, begin_bit,
                                                                 end_bit, descending, stream);
}

/// sort_pairs (double-buffer) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_buffers<DigitBits, Key, Value, Order>("onepass::sort::gpu::onesweep::sort_pairs", d_temp, temp_bytes,
                                                     keys, &values, num_items, begin_bit, end_bit, descending,
                                                     stream);
}

}  // namespace onepass::sort::gpu::onesweep

// ============================================================================
// Deprecated names (issue 31 naming convention: the device as a namespace, the count
// num_items), removed after one release. onepass::sort::onesweep:: is now
// onepass::sort::gpu::onesweep::. Each forwarder calls the gpu::onesweep overload with the
// same template and function arguments (same output, same errors, which name the new
// function); the public types and constants are the same entities by using-declaration.
// Call the new names qualified: an unqualified call with a double_buffer argument finds
// gpu::onesweep::sort_keys / sort_pairs by argument-dependent lookup, and, where these
// forwarders are visible too (a using-directive for onepass::sort::onesweep), both.
namespace onepass::sort::onesweep {

using gpu::onesweep::default_portion_items;
using gpu::onesweep::double_buffer;
using gpu::onesweep::max_digit_bits;
using gpu::onesweep::min_digit_bits;

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_keys<DigitBits>(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, ...).
template <unsigned DigitBits = 8, class Key>
[[deprecated("use onepass::sort::gpu::onesweep::sort_keys")]] void sort_keys(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
    unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
    cudaStream_t stream = 0) {
  gpu::onesweep::sort_keys<DigitBits, Key>(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit,
                                           descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_pairs<DigitBits>(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
/// d_values_out, num_items, ...).
template <unsigned DigitBits = 8, class Key, class Value>
[[deprecated("use onepass::sort::gpu::onesweep::sort_pairs")]] void sort_pairs(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
    Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  gpu::onesweep::sort_pairs<DigitBits, Key, Value>(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
                                                   d_values_out, num_items, begin_bit, end_bit, descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_keys<DigitBits>(d_temp, temp_bytes, keys, num_items, ...) (double buffer).
template <unsigned DigitBits = 8, class Key>
[[deprecated("use onepass::sort::gpu::onesweep::sort_keys")]] void sort_keys(
    void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items, unsigned begin_bit = 0,
    unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  gpu::onesweep::sort_keys<DigitBits, Key>(d_temp, temp_bytes, keys, num_items, begin_bit, end_bit, descending,
                                           stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_pairs<DigitBits>(d_temp, temp_bytes, keys, values, num_items, ...)
/// (double buffer).
template <unsigned DigitBits = 8, class Key, class Value>
[[deprecated("use onepass::sort::gpu::onesweep::sort_pairs")]] void sort_pairs(
    void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
    std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  gpu::onesweep::sort_pairs<DigitBits, Key, Value>(d_temp, temp_bytes, keys, values, num_items, begin_bit, end_bit,
                                                   descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_keys<Order, DigitBits>(d_temp, temp_bytes, d_keys_in, d_keys_out,
/// num_items, ...).
template <float_order Order, unsigned DigitBits = 8, class Key>
[[deprecated("use onepass::sort::gpu::onesweep::sort_keys<Order>")]] void sort_keys(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
    unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
    cudaStream_t stream = 0) {
  gpu::onesweep::sort_keys<Order, DigitBits, Key>(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, begin_bit,
                                                  end_bit, descending, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_pairs<Order, DigitBits>(d_temp, temp_bytes, d_keys_in, d_keys_out,
/// d_values_in, d_values_out, num_items, ...).
template <float_order Order, unsigned DigitBits = 8, class Key, class Value>
[[deprecated("use onepass::sort::gpu::onesweep::sort_pairs<Order>")]] void sort_pairs(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
    Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  gpu::onesweep::sort_pairs<Order, DigitBits, Key, Value>(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
                                                          d_values_out, num_items, begin_bit, end_bit, descending,
                                                          stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_keys<Order, DigitBits>(d_temp, temp_bytes, keys, num_items, ...)
/// (double buffer).
template <float_order Order, unsigned DigitBits = 8, class Key>
[[deprecated("use onepass::sort::gpu::onesweep::sort_keys<Order>")]] void sort_keys(
    void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items, unsigned begin_bit = 0,
    unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  gpu::onesweep::sort_keys<Order, DigitBits, Key>(d_temp, temp_bytes, keys, num_items, begin_bit, end_bit, descending,
                                                  stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::onesweep::sort_pairs<Order, DigitBits>(d_temp, temp_bytes, keys, values, num_items,
/// ...) (double buffer).
template <float_order Order, unsigned DigitBits = 8, class Key, class Value>
[[deprecated("use onepass::sort::gpu::onesweep::sort_pairs<Order>")]] void sort_pairs(
    void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
    std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  gpu::onesweep::sort_pairs<Order, DigitBits, Key, Value>(d_temp, temp_bytes, keys, values, num_items, begin_bit,
                                                          end_bit, descending, stream);
}

}  // namespace onepass::sort::onesweep
