// onepass/sort/sort_args.hpp — argument checks every onepass sort makes (host only, no
// CUDA): the bit range [begin_bit, end_bit) of the key sorted on and the buffers of an
// out-of-place keys-only or key-value sort. Shared by the VREN sort, the oneTBB CPU radix
// sort and the GPU sort baselines (baselines/gpu/gpu_sort_common.cuh), so that they
// reject the same inputs with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/error.hpp"

namespace onepass::sort {

/// Marker value type of the keys-only sorts (the one definition; onesweep and the GPU
/// sort baselines name it as their own `no_values`).
struct no_values {};

/// Bits [begin, end) of the (transformed) key a sort orders by; begin < end <= key width.
struct bit_range {
  unsigned begin = 0;
  unsigned end = 0;
  unsigned width() const { return end - begin; }
};

/// Resolves (begin_bit, end_bit) for keys of `key_bits` bits: end_bit == 0 means the key's
/// width. Throws onepass::error naming `function` unless begin_bit < end <= key_bits.
inline bit_range resolve_bit_range(const char* function, unsigned key_bits, unsigned begin_bit, unsigned end_bit) {
  const unsigned end = end_bit == 0 ? key_bits : end_bit;
  require(end <= key_bits, function, "end_bit",
          "must be in [1, " + std::to_string(key_bits) + "] (0 means the key width " + std::to_string(key_bits) +
              "), got " + std::to_string(end_bit));
  require(begin_bit < end, function, "begin_bit",
          "must be less than end_bit (" + std::to_string(end) + "), got " + std::to_string(begin_bit));
  return bit_range{begin_bit, end};
}

namespace detail {
inline bool overlaps(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a == nullptr || b == nullptr || a_bytes == 0 || b_bytes == 0) return false;
  // Addresses compared as integers: relational operators on pointers into different
  // arrays are unspecified in C++.
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}
}  // namespace detail

/// Checks the buffers of an out-of-place sort of n keys of key_size bytes (and, when
/// value_size > 0, n values of value_size bytes): non-null when n > 0, and no output
/// overlapping an input or the other output. Keys-only sorts (value_size == 0) ignore the
/// value pointers. n == 0 accepts null pointers. Throws onepass::error naming `function`.
inline void check_sort_buffers(const char* function, const void* keys_in, const void* keys_out, const void* values_in,
                               const void* values_out, std::size_t n, std::size_t key_size, std::size_t value_size) {
  if (n == 0) return;
  const std::size_t widest = key_size > value_size ? key_size : value_size;
  require(n <= SIZE_MAX / widest, function, "n", "is too large for the address space, got " + std::to_string(n));
  require(keys_in != nullptr, function, "keys_in", "must not be null when n > 0");
  require(keys_out != nullptr, function, "keys_out", "must not be null when n > 0");
  const std::size_t kb = n * key_size, vb = n * value_size;
  require(!detail::overlaps(keys_in, kb, keys_out, kb), function, "keys_out",
          "must not overlap keys_in (out-of-place sort)");
  if (value_size == 0) return;
  require(values_in != nullptr, function, "values_in", "must not be null when n > 0 (key-value sort)");
  require(values_out != nullptr, function, "values_out", "must not be null when n > 0 (key-value sort)");
  require(!detail::overlaps(values_in, vb, values_out, vb), function, "values_out",
          "must not overlap values_in (out-of-place sort)");
  require(!detail::overlaps(keys_in, kb, values_out, vb), function, "values_out", "must not overlap keys_in");
  require(!detail::overlaps(values_in, vb, keys_out, kb), function, "keys_out", "must not overlap values_in");
  require(!detail::overlaps(keys_out, kb, values_out, vb), function, "values_out", "must not overlap keys_out");
}

}  // namespace onepass::sort
