// onepass_baselines/cpu/stable_sort_oracle.hpp — the std::stable_sort oracle every sort is
// tested against (the CPU sort "std_stable_sort", baselines/cpu/std_stable_sort.cpp): a
// baseline and a test oracle, not part of the library.
//
// It sorts by the library's key order (onepass/sort/key_traits.hpp): the unsigned order of
// ordered_bits(key, descending), restricted to bits [begin_bit, end_bit) (key_field),
// stable. Any key type with radix_traits (uint32, int32, float, uint64, int64, double);
// keys-only or key-value (any trivially copyable value type). Out of place: the inputs are
// not written; outputs must not overlap inputs. The arguments are checked as the library's
// sorts check them (onepass/sort/sort_args.hpp), with the same messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/sort_args.hpp"

namespace onepass::baselines {

/// The oracle: std::stable_sort of the indices 0..n-1 by key_field(digit_word<Order,
/// Key>(ordered_bits(key, descending)), begin_bit, end_bit), then a gather of keys (and
/// values; values_in == values_out == nullptr for keys-only, or use the overload without
/// values). Same argument checks as the library's sort::radix_sort_*. Sequential. Order
/// (key_traits.hpp): float_order::total_order is IEEE totalOrder (what the overloads without an Order
/// argument use), float_order::signed_zero_equal cub::DeviceRadixSort's order (-0.0 ==
/// +0.0, stable; onesweep::sort_keys<float_order::signed_zero_equal> must match it bit
/// for bit). Keys are gathered, so every output key keeps its own bits.
template <sort::float_order Order, class Key, class Value>
void stable_sort_oracle(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                        unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  const char* fn = "onepass::baselines::stable_sort_oracle";
  namespace s = onepass::sort;
  const s::bit_range bits = s::resolve_bit_range(fn, s::radix_traits<Key>::bits, begin_bit, end_bit);
  const bool pairs = values_in != nullptr || values_out != nullptr;
  s::check_sort_buffers(fn, keys_in, keys_out, values_in, values_out, n, sizeof(Key), pairs ? sizeof(Value) : 0);
  using bits_type = typename s::radix_traits<Key>::bits_type;
  std::vector<bits_type> field(n);
  for (std::size_t i = 0; i < n; ++i)
    field[i] = s::key_field(s::digit_word<Order, Key>(s::ordered_bits(keys_in[i], descending)), bits.begin, bits.end);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return field[a] < field[b]; });
  for (std::size_t i = 0; i < n; ++i) keys_out[i] = keys_in[order[i]];
  if (pairs)
    for (std::size_t i = 0; i < n; ++i) values_out[i] = values_in[order[i]];
}

/// stable_sort_oracle in IEEE totalOrder (float_order::total_order).
template <class Key, class Value>
void stable_sort_oracle(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                        unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  stable_sort_oracle<sort::float_order::total_order, Key, Value>(keys_in, keys_out, values_in, values_out, n,
                                                                 begin_bit, end_bit, descending);
}

/// Keys-only form of stable_sort_oracle, floating-point keys ordered by `Order`.
template <sort::float_order Order, class Key>
void stable_sort_oracle(const Key* keys_in, Key* keys_out, std::size_t n, unsigned begin_bit = 0, unsigned end_bit = 0,
                        bool descending = false) {
  stable_sort_oracle<Order, Key, std::uint32_t>(keys_in, keys_out, nullptr, nullptr, n, begin_bit, end_bit, descending);
}

/// Keys-only form of stable_sort_oracle (IEEE totalOrder).
template <class Key>
void stable_sort_oracle(const Key* keys_in, Key* keys_out, std::size_t n, unsigned begin_bit = 0, unsigned end_bit = 0,
                        bool descending = false) {
  stable_sort_oracle<sort::float_order::total_order, Key, std::uint32_t>(keys_in, keys_out, nullptr, nullptr, n,
                                                                         begin_bit, end_bit, descending);
}

}  // namespace onepass::baselines
