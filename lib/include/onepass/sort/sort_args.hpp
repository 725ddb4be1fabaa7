// onepass/sort/sort_args.hpp — argument checks every onepass sort makes (host only, no
// CUDA): the bit range [begin_bit, end_bit) of the key sorted on and the buffers of an
// out-of-place keys-only or key-value sort, built from the rules of onepass/call_protocol.hpp.
// Used by the library's sorts (the oneTBB CPU radix sort, ...) and by the sort baselines
// built on the library (baselines/: the VREN sort, the GPU sort baselines, the std::stable_sort
// oracle), so that they reject the same inputs with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onepass/call_protocol.hpp"

namespace onepass::sort {

/// Marker value type of the keys-only sorts (the one definition; onesweep and the GPU
/// sort baselines name it as their own `no_values`).
struct no_values {};

/// Bits [begin, end) of the (transformed) key a sort orders by (call_protocol.hpp).
using protocol::bit_range;
/// end_bit == 0 means the key's width (call_protocol.hpp).
using protocol::resolve_bit_range;

/// Checks that num_items keys of key_size bytes and num_items values of value_size bytes (0:
/// keys only) fit in size_t: throws onepass::error naming `function` and "num_items" otherwise.
/// Needs no pointer and no device, so a sort can check it before anything else.
inline void check_item_bytes(const char* function, std::size_t num_items, std::size_t key_size,
                             std::size_t value_size) {
  protocol::check_byte_count(function, "num_items", num_items, key_size > value_size ? key_size : value_size);
}

/// Checks the buffers of an out-of-place sort of num_items keys of key_size bytes (and, when
/// value_size > 0, num_items values of value_size bytes): non-null when num_items > 0, and no
/// output overlapping an input or the other output. Keys-only sorts (value_size == 0) ignore
/// the value pointers. num_items == 0 accepts null pointers. Throws onepass::error naming
/// `function` and the argument ("num_items" when num_items * the larger size overflows).
inline void check_sort_buffers(const char* function, const void* keys_in, const void* keys_out, const void* values_in,
                               const void* values_out, std::size_t num_items, std::size_t key_size,
                               std::size_t value_size) {
  if (num_items == 0) return;
  check_item_bytes(function, num_items, key_size, value_size);
  protocol::check_not_null(function, "keys_in", keys_in, "when num_items > 0");
  protocol::check_not_null(function, "keys_out", keys_out, "when num_items > 0");
  const std::size_t kb = num_items * key_size, vb = num_items * value_size;
  protocol::check_disjoint_bytes(function, "keys_out", keys_out, kb, "keys_in", keys_in, kb, " (out-of-place sort)");
  if (value_size == 0) return;
  protocol::check_not_null(function, "values_in", values_in, "when num_items > 0 (key-value sort)");
  protocol::check_not_null(function, "values_out", values_out, "when num_items > 0 (key-value sort)");
  protocol::check_disjoint_bytes(function, "values_out", values_out, vb, "values_in", values_in, vb,
                                 " (out-of-place sort)");
  protocol::check_disjoint_bytes(function, "values_out", values_out, vb, "keys_in", keys_in, kb);
  protocol::check_disjoint_bytes(function, "keys_out", keys_out, kb, "values_in", values_in, vb);
  protocol::check_disjoint_bytes(function, "values_out", values_out, vb, "keys_out", keys_out, kb);
}

}  // namespace onepass::sort
