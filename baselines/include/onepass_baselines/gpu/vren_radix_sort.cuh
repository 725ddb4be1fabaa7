// onepass_baselines/gpu/vren_radix_sort.cuh — the VREN GPU radix sort ported to CUDA: a
// baseline (another article's sort, not the library's) for the Onesweep experiments (the
// "VREN" series of Figs. 9–11), registered as "vren" by baselines/gpu/vren_sort.cu.
//
// Source: "GPU radix-sort", VREN engine article (paper/references.bib: vren-radix-sort).
// The article's algorithm, step by step, and how each step is done here (our own code):
//
//   LSD radix sort with 4-bit digits (radix 16): 8 passes for 32-bit keys, 16 for 64-bit
//   keys (fewer when [begin_bit, end_bit) is narrower; the last digit may be narrower than
//   4 bits). Every pass has the article's three steps:
//   1. Count. "We take a workgroup size of 32 and we dispatch the number of workgroups
//      based on the array size (ceil(N / 32))"; each workgroup counts the 16 digits of its
//      32 keys with subgroup (warp) operations instead of shared-memory atomics. Here a
//      workgroup is one warp: four __ballot_sync votes, one per digit bit, give every lane
//      the set of lanes holding digit d (the AND of the votes or their complements), and
//      lane d < 16 writes popc of that set as the workgroup's count of digit d.
//      Counts are stored digit-major: counts[d * G + g] for workgroup g of G.
//   2. Exclusive scan. The article scans the global digit counts (global offsets) and the
//      per-workgroup counts of each digit (local offsets). Both at once: the exclusive sum
//      of the digit-major count matrix is, at (d, g), (number of keys with a smaller
//      digit) + (number of keys with digit d in workgroups before g) — the global offset
//      plus the local offset of the article. The scan is cub::DeviceScan::ExclusiveSum
//      (the article treats the scan as a separate generic step; it is not the sort).
//   3. Reorder. Each workgroup re-reads its 32 keys; a key's slot is
//      offsets[d * G + g] + (number of lanes below it in the warp holding the same digit),
//      computed from the same four ballots (the article's "subgroup arithmetic" instead of a
//      shared-memory atomic). Lower lanes get lower slots, so every pass is stable and the
//      sort is stable. Values (key-value sorts) move with their keys.
//   Passes ping-pong between the output and one n-sized temporary buffer (the article's
//   "additional temporary array"), arranged so that the last pass writes the output and
//   the input is never written.
//
// Workgroups of 32 threads: a CUDA block here holds 8 independent workgroups (8 warps,
// no communication between them: no shared memory, no __syncthreads), only so that an SM
// can hold enough of them (a 32-thread block would cap occupancy at 32 blocks per SM).
// Semantically every warp is the article's 32-thread workgroup.
//
// Keys: any type with onepass::sort::radix_traits (uint32, int32, float, uint64, int64,
// double) through the order-preserving transform of key_traits.hpp; descending order sorts
// the complemented words (still stable). begin_bit/end_bit as cub::DeviceRadixSort.
// Limits: n < 2^32 (32-bit digit counts and offsets; the count matrix holds 16 ceil(n/32)
// words, about 2n bytes). Temporary storage (two-phase, as CUB): n keys + n values (pairs)
// + 2 count matrices (~4n bytes) + the scan's scratch.
//
// This is a faithful port, not a tuned sort: per pass it reads the keys twice and moves
// the count matrix three times (~2.5 x the bytes of one onesweep pass, with 2 x the passes).
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/sort_args.hpp"

namespace onepass::baselines::gpu {

namespace vren_detail {

// The library's key order and argument checks (sort/key_traits.hpp, sort/sort_args.hpp).
using onepass::sort::bit_range;
using onepass::sort::check_sort_buffers;
using onepass::sort::digit;
using onepass::sort::ordered_bits;
using onepass::sort::radix_traits;
using onepass::sort::resolve_bit_range;

inline constexpr unsigned digit_bits = 4;      ///< the article's radix 16
inline constexpr unsigned radix = 1u << digit_bits;
inline constexpr unsigned workgroup = 32;      ///< the article's workgroup size = one warp
inline constexpr unsigned groups_per_block = 8;
inline constexpr unsigned block_threads = workgroup * groups_per_block;
inline constexpr unsigned full_mask = 0xffffffffu;
/// Largest n: offsets and counts are 32-bit.
inline constexpr std::size_t max_items = 0xffffffffull;

/// No values: keys-only sorts.
struct no_value {};

/// The four ballots of a warp: bit b of lane l's digit, one 32-bit mask per bit.
struct digit_votes {
  unsigned bit[digit_bits];
  unsigned valid;
};

__device__ inline digit_votes vote(unsigned d, bool valid) {
  digit_votes v;
  v.valid = __ballot_sync(full_mask, valid);
#pragma unroll
  for (unsigned b = 0; b < digit_bits; ++b) v.bit[b] = __ballot_sync(full_mask, (d >> b) & 1u);
  return v;
}

/// The lanes (among the valid ones) whose digit equals d.
__device__ inline unsigned lanes_with_digit(const digit_votes& v, unsigned d) {
  unsigned m = v.valid;
#pragma unroll
  for (unsigned b = 0; b < digit_bits; ++b) m &= ((d >> b) & 1u) ? v.bit[b] : ~v.bit[b];
  return m;
}

template <class Key>
__device__ inline unsigned key_digit(Key k, unsigned shift, unsigned width, bool descending) {
  return digit(ordered_bits(k, descending), shift, width);
}

/// Step 1: counts[d * groups + g] = keys with digit d among the 32 keys of workgroup g.
template <class Key>
__global__ void __launch_bounds__(block_threads)
    count_kernel(const Key* __restrict__ keys, std::size_t n, std::uint32_t* __restrict__ counts,
                 std::size_t groups, unsigned shift, unsigned width, bool descending) {
  const std::size_t g = std::size_t{blockIdx.x} * groups_per_block + threadIdx.x / workgroup;
  if (g >= groups) return;  // warp-uniform: the whole workgroup leaves together
  const unsigned lane = threadIdx.x % workgroup;
  const std::size_t i = g * workgroup + lane;
  const bool valid = i < n;
  const unsigned d = valid ? key_digit(keys[i], shift, width, descending) : 0u;
  const digit_votes v = vote(d, valid);
  if (lane < radix) counts[std::size_t{lane} * groups + g] = static_cast<std::uint32_t>(__popc(lanes_with_digit(v, lane)));
}

/// Step 3: each key (and value) of workgroup g to offsets[d * groups + g] + its rank among
/// the lanes of g with the same digit.
template <class Key, class Value>
__global__ void __launch_bounds__(block_threads)
    reorder_kernel(const Key* __restrict__ keys_in, Key* __restrict__ keys_out, const Value* __restrict__ values_in,
                   Value* __restrict__ values_out, std::size_t n, const std::uint32_t* __restrict__ offsets,
                   std::size_t groups, unsigned shift, unsigned width, bool descending) {
  const std::size_t g = std::size_t{blockIdx.x} * groups_per_block + threadIdx.x / workgroup;
  if (g >= groups) return;
  const unsigned lane = threadIdx.x % workgroup;
  const std::size_t i = g * workgroup + lane;
  const bool valid = i < n;
  Key key{};
  unsigned d = 0;
  if (valid) {
    key = keys_in[i];
    d = key_digit(key, shift, width, descending);
  }
  const digit_votes v = vote(d, valid);  // every lane takes part in the votes
  if (!valid) return;
  const unsigned peers = lanes_with_digit(v, d);
  const unsigned rank = static_cast<unsigned>(__popc(peers & ((1u << lane) - 1u)));
  const std::size_t slot = std::size_t{offsets[std::size_t{d} * groups + g]} + rank;
  keys_out[slot] = key;
  if constexpr (!std::is_same_v<Value, no_value>) values_out[slot] = values_in[i];
}

/// Where the regions live inside the caller's temporary storage (offsets from the aligned
/// base; call_protocol.hpp's temp_layout).
struct layout {
  std::size_t alt_keys = 0, alt_values = 0, counts = 0, offsets = 0, scan = 0, scan_bytes = 0, total = 0;
  std::size_t groups = 0;
  std::size_t required() const { return total; }  // the size query's answer, alignment slack included
};

inline layout make_layout(std::size_t n, std::size_t key_size, std::size_t value_size, cudaStream_t stream) {
  layout l;
  protocol::temp_layout t;
  l.total = t.total();
  if (n == 0) return l;
  l.groups = (n + workgroup - 1) / workgroup;
  const std::size_t matrix = l.groups * radix;  // <= 2^32 - 1 + 31 ... fits: n < 2^32 gives matrix <= 2^31
  l.alt_keys = t.add(n * key_size);
  l.alt_values = t.add(n * value_size);
  l.counts = t.add(matrix * sizeof(std::uint32_t));
  l.offsets = t.add(matrix * sizeof(std::uint32_t));
  ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, l.scan_bytes, static_cast<const std::uint32_t*>(nullptr),
                                                   static_cast<std::uint32_t*>(nullptr),
                                                   static_cast<std::uint32_t>(matrix), stream));
  l.scan = t.add(l.scan_bytes);
  l.total = t.total();
  return l;
}

template <class Key, class Value>
void sort(const char* fn, void* temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
          const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
          bool descending, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<Value>, "values must be trivially copyable");
  constexpr bool pairs = !std::is_same_v<Value, no_value>;
  constexpr std::size_t value_size = pairs ? sizeof(Value) : 0;
  using bits_type = typename radix_traits<Key>::bits_type;
  const bit_range bits = resolve_bit_range(fn, radix_traits<Key>::bits, begin_bit, end_bit);
  require(n <= max_items, fn, "n", "must be below 2^32 (32-bit digit offsets), got " + std::to_string(n));
  const layout l = make_layout(n, sizeof(Key), value_size, stream);
  if (protocol::answer_query(temp, temp_bytes, l.required())) return;
  check_sort_buffers(fn, keys_in, keys_out, values_in, values_out, n, sizeof(Key), value_size);
  protocol::check_temp_bytes(fn, temp_bytes, l.required(), "n", n);
  if (n == 0) return;
  static_assert(sizeof(bits_type) == sizeof(Key), "radix_traits bits_type must have the key's size");

  char* base = reinterpret_cast<char*>(protocol::aligned_start(temp));
  Key* alt_keys = reinterpret_cast<Key*>(base + l.alt_keys);
  Value* alt_values = pairs ? reinterpret_cast<Value*>(base + l.alt_values) : nullptr;
  auto* counts = reinterpret_cast<std::uint32_t*>(base + l.counts);
  auto* offsets = reinterpret_cast<std::uint32_t*>(base + l.offsets);
  void* scan_temp = base + l.scan;
  const auto matrix = static_cast<std::uint32_t>(l.groups * radix);
  const std::size_t blocks = (l.groups + groups_per_block - 1) / groups_per_block;
  require(blocks <= 0x7fffffffu, fn, "n", "needs too many blocks");

  const unsigned passes = (bits.width() + digit_bits - 1) / digit_bits;
  const Key* src_keys = keys_in;
  const Value* src_values = values_in;
  for (unsigned p = 0; p < passes; ++p) {
    const unsigned shift = bits.begin + p * digit_bits;
    const unsigned width = bits.end - shift < digit_bits ? bits.end - shift : digit_bits;
    // The last pass writes the output; earlier ones alternate so that they get there.
    const bool to_output = (passes - 1 - p) % 2 == 0;
    Key* dst_keys = to_output ? keys_out : alt_keys;
    Value* dst_values = to_output ? values_out : alt_values;
    count_kernel<Key><<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(src_keys, n, counts, l.groups, shift,
                                                                                 width, descending);
    ONEPASS_CUDA_CHECK_LAUNCH();
    std::size_t scan_bytes = l.scan_bytes;
    ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, offsets, matrix, stream));
    reorder_kernel<Key, Value><<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(
        src_keys, dst_keys, src_values, dst_values, n, offsets, l.groups, shift, width, descending);
    ONEPASS_CUDA_CHECK_LAUNCH();
    src_keys = dst_keys;
    src_values = dst_values;
  }
}

}  // namespace vren_detail

/// VREN radix sort of keys_in[0, n) into keys_out[0, n) (ascending by the key order of
/// key_traits.hpp, or descending), stable, on bits [begin_bit, end_bit) of the transformed
/// key (end_bit = 0: the key's width). Two-phase temporary storage: temp == nullptr only
/// sets temp_bytes. Work is enqueued on `stream`. keys_out must not overlap keys_in.
/// Throws onepass::error on bad arguments (n >= 2^32, bad bit range, null pointers with
/// n > 0, overlapping buffers, temp_bytes too small), runtime_failure on CUDA errors.
template <class Key>
void vren_sort_keys(void* temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out, std::size_t n,
                    unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false, cudaStream_t stream = 0) {
  vren_detail::sort<Key, vren_detail::no_value>("onepass::baselines::gpu::vren_sort_keys", temp, temp_bytes, keys_in,
                                                keys_out, nullptr, nullptr, n, begin_bit, end_bit, descending, stream);
}

/// As vren_sort_keys, with values_in[0, n) permuted alongside into values_out[0, n)
/// (stable: equal keys keep their input order). No output may overlap an input.
template <class Key, class Value>
void vren_sort_pairs(void* temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out, const Value* values_in,
                     Value* values_out, std::size_t n, unsigned begin_bit = 0, unsigned end_bit = 0,
                     bool descending = false, cudaStream_t stream = 0) {
  vren_detail::sort<Key, Value>("onepass::baselines::gpu::vren_sort_pairs", temp, temp_bytes, keys_in, keys_out,
                                values_in, values_out, n, begin_bit, end_bit, descending, stream);
}

}  // namespace onepass::baselines::gpu
