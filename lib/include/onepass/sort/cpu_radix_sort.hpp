// onepass/sort/cpu_radix_sort.hpp — the CPU counterpart of the GPU sorts: a oneTBB
// parallel LSD radix sort. (The std::stable_sort oracle the tests compare every sort with
// is a baseline: <onepass_baselines/cpu/stable_sort_oracle.hpp>.)
//
// It sorts by the order of key_traits.hpp: the unsigned order of ordered_bits(key,
// descending), restricted to bits [begin_bit, end_bit) (key_field), stable (keys equal on
// those bits keep their input order). Any key type with radix_traits (uint32, int32, float,
// uint64, int64, double); keys-only or key-value (any trivially copyable value type).
// Out of place: the inputs are not written; outputs must not overlap inputs.
// Floating-point keys: IEEE totalOrder by default (-0.0 before +0.0); the overloads whose
// first template argument is a float_order take digit_word<Order, Key>(ordered_bits(...))
// instead, so float_order::signed_zero_equal orders like cub::DeviceRadixSort (-0.0 ==
// +0.0, stable; key_traits.hpp) -- the same option as onesweep::sort_keys/sort_pairs.
//
// Parallel LSD radix sort (radix_sort_keys / radix_sort_pairs). 8-bit digits; the input is
// cut into C consecutive chunks (C about 8 x the worker count, at least 16 Ki keys each,
// 1 for small inputs). One parallel pass first counts the digits of every digit place over
// the whole input (the multiset of keys, hence these totals, never changes — the Onesweep
// idea): a digit place where one digit holds all n keys leaves the order unchanged and is
// skipped. Each remaining pass: (1) per-chunk digit histograms (tbb::parallel_for over
// chunks), (2) offsets: chunk c's first slot for digit d = keys with a smaller digit + keys
// with digit d in chunks before c, (3) each chunk scatters its keys in input order
// (parallel_for over chunks). Chunks in order, keys in order within a chunk: stable.
// Passes ping-pong between the output and one n-sized scratch array, arranged so that the
// last pass writes the output. Memory: n keys (+ n values) of scratch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort {

namespace cpu_detail {

inline constexpr unsigned digit_bits = 8;
inline constexpr unsigned radix = 1u << digit_bits;
inline constexpr std::size_t min_chunk = std::size_t{1} << 14;

/// No values: keys-only sorts.
struct no_value {};

template <float_order Order, class Key>
inline std::uint32_t key_digit(Key k, bool descending, unsigned shift, unsigned width) {
  return digit(digit_word<Order, Key>(ordered_bits(k, descending)), shift, width);
}

inline std::size_t chunk_count(std::size_t n) {
  const std::size_t workers = static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const std::size_t by_size = n / min_chunk;
  return std::max<std::size_t>(1, std::min(by_size, 8 * workers));
}

template <class Key, class Value, float_order Order = float_order::total_order>
void radix_sort(const char* fn, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                std::size_t n, unsigned begin_bit, unsigned end_bit, bool descending) {
  static_assert(std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value>,
                "keys and values must be trivially copyable");
  constexpr bool pairs = !std::is_same_v<Value, no_value>;
  const bit_range bits = resolve_bit_range(fn, radix_traits<Key>::bits, begin_bit, end_bit);
  check_sort_buffers(fn, keys_in, keys_out, values_in, values_out, n, sizeof(Key), pairs ? sizeof(Value) : 0);
  if (n == 0) return;

  const unsigned places = (bits.width() + digit_bits - 1) / digit_bits;
  auto shift_of = [&](unsigned p) { return bits.begin + p * digit_bits; };
  auto width_of = [&](unsigned p) { return std::min(digit_bits, bits.end - shift_of(p)); };

  const std::size_t chunks = chunk_count(n);
  const std::size_t chunk_size = (n + chunks - 1) / chunks;
  auto chunk_begin = [&](std::size_t c) { return std::min(n, c * chunk_size); };
  using histogram = std::array<std::size_t, radix>;

  // Totals of every digit place in one pass over the input (they never change).
  std::vector<std::vector<histogram>> place_counts(chunks, std::vector<histogram>(places, histogram{}));
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t c = r.begin(); c != r.end(); ++c) {
      auto& h = place_counts[c];
      for (std::size_t i = chunk_begin(c), e = chunk_begin(c + 1); i < e; ++i) {
        const auto word = digit_word<Order, Key>(ordered_bits(keys_in[i], descending));
        for (unsigned p = 0; p < places; ++p) ++h[p][digit(word, shift_of(p), width_of(p))];
      }
    }
  });
  std::vector<unsigned> work;  // digit places that change the order
  for (unsigned p = 0; p < places; ++p) {
    histogram total{};
    for (std::size_t c = 0; c < chunks; ++c)
      for (unsigned d = 0; d < radix; ++d) total[d] += place_counts[c][p][d];
    if (*std::max_element(total.begin(), total.end()) != n) work.push_back(p);
  }

  if (work.empty()) {  // already in order on these bits: a stable sort is the identity
    std::memcpy(static_cast<void*>(keys_out), keys_in, n * sizeof(Key));
    if constexpr (pairs) std::memcpy(static_cast<void*>(values_out), values_in, n * sizeof(Value));
    return;
  }

  std::vector<Key> scratch_keys(work.size() > 1 ? n : 0);
  std::vector<Value> scratch_values(pairs && work.size() > 1 ? n : 0);
  std::vector<histogram> offsets(chunks);
  const Key* src_keys = keys_in;
  const Value* src_values = values_in;
  for (std::size_t k = 0; k < work.size(); ++k) {
    const unsigned shift = shift_of(work[k]), width = width_of(work[k]);
    const bool to_output = (work.size() - 1 - k) % 2 == 0;
    Key* dst_keys = to_output ? keys_out : scratch_keys.data();
    Value* dst_values = to_output ? values_out : (pairs ? scratch_values.data() : nullptr);
    // (1) per-chunk histograms of this digit place (the first pass reuses the upfront counts).
    if (k == 0) {
      for (std::size_t c = 0; c < chunks; ++c) offsets[c] = place_counts[c][work[k]];
    } else {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t c = r.begin(); c != r.end(); ++c) {
          histogram h{};
          for (std::size_t i = chunk_begin(c), e = chunk_begin(c + 1); i < e; ++i)
            ++h[key_digit<Order>(src_keys[i], descending, shift, width)];
          offsets[c] = h;
        }
      });
    }
    // (2) exclusive scan, digit-major: slot of (chunk c, digit d).
    std::size_t running = 0;
    for (unsigned d = 0; d < radix; ++d)
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t count = offsets[c][d];
        offsets[c][d] = running;
        running += count;
      }
    // (3) stable scatter, chunk by chunk.
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t c = r.begin(); c != r.end(); ++c) {
        histogram& slot = offsets[c];
        for (std::size_t i = chunk_begin(c), e = chunk_begin(c + 1); i < e; ++i) {
          const std::size_t at = slot[key_digit<Order>(src_keys[i], descending, shift, width)]++;
          dst_keys[at] = src_keys[i];
          if constexpr (pairs) dst_values[at] = src_values[i];
        }
      }
    });
    src_keys = dst_keys;
    src_values = dst_values;
  }
}

}  // namespace cpu_detail

/// Parallel (oneTBB) stable LSD radix sort of keys_in[0, n) into keys_out[0, n), ascending
/// by key_traits.hpp's order (descending: its reverse), on bits [begin_bit, end_bit) of the
/// transformed key (end_bit = 0: the key width). Throws onepass::error on a bad bit range,
/// null pointers with n > 0 or overlapping buffers.
template <class Key>
void radix_sort_keys(const Key* keys_in, Key* keys_out, std::size_t n, unsigned begin_bit = 0, unsigned end_bit = 0,
                     bool descending = false) {
  cpu_detail::radix_sort<Key, cpu_detail::no_value>("onepass::sort::radix_sort_keys", keys_in, keys_out, nullptr,
                                                    nullptr, n, begin_bit, end_bit, descending);
}

/// As radix_sort_keys, with values_in[0, n) permuted alongside into values_out[0, n).
template <class Key, class Value>
void radix_sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                      unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, Value>("onepass::sort::radix_sort_pairs", keys_in, keys_out, values_in, values_out, n,
                                     begin_bit, end_bit, descending);
}

/// radix_sort_keys with floating-point keys ordered by `Order` (key_traits.hpp):
/// radix_sort_keys<float_order::signed_zero_equal>(...) treats -0.0 and +0.0 as equal
/// (stable among themselves), as cub::DeviceRadixSort; float_order::total_order is the
/// overload above. Integer keys: same result under both. Arguments and errors as above.
template <float_order Order, class Key>
void radix_sort_keys(const Key* keys_in, Key* keys_out, std::size_t n, unsigned begin_bit = 0, unsigned end_bit = 0,
                     bool descending = false) {
  cpu_detail::radix_sort<Key, cpu_detail::no_value, Order>("onepass::sort::radix_sort_keys", keys_in, keys_out,
                                                           nullptr, nullptr, n, begin_bit, end_bit, descending);
}

/// radix_sort_pairs with floating-point keys ordered by `Order` (as radix_sort_keys<Order>).
template <float_order Order, class Key, class Value>
void radix_sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                      unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, Value, Order>("onepass::sort::radix_sort_pairs", keys_in, keys_out, values_in,
                                            values_out, n, begin_bit, end_bit, descending);
}

}  // namespace onepass::sort
