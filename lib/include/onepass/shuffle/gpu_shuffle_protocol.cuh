// onepass/shuffle/gpu_shuffle_protocol.cuh — the call protocol of the GPU shuffles:
// the largest length, the argument checks, the two-phase temporary storage.
//
// Shared by the public entry points (gpu_shuffle.cuh, gpu_segmented_shuffle.cuh) and
// the fusion runners (gpu_bijective0/1/2.cuh). The general rules (null, overlap, size
// checks; the 256-byte aligned temporary layout; the size query) are
// onepass/call_protocol.hpp; this header applies them to the shuffle's arguments.
//
// Names across the GPU shuffle: `num_items` is the number of items of the sequence
// shuffled (the paper's m), `domain_bits` the bijection's b and `domain_size` its
// domain 2^b >= num_items, the power of two the sequence is padded to (the paper's n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"

namespace onepass::shuffle::gpu {

/// Largest sequence length the GPU shuffle accepts.
inline constexpr std::uint64_t max_length = std::uint64_t{1} << 63;

namespace detail {

// Temporary storage, argument checks and the two-phase protocol: onepass/call_protocol.hpp;
// grids: onepass/launch_geometry.cuh.

/// Consecutive 256-byte aligned arrays of one temporary buffer; every array (also an
/// empty one) has an address of its own.
inline protocol::temp_layout shuffle_layout() {
  return protocol::temp_layout(protocol::temp_layout::empty_arrays::take_a_unit);
}

/// Checks num_items and the bijection's domain (both phases).
template <class Bijection>
void check_sizes(const char* function, std::size_t num_items, const Bijection& f) {
  protocol::check_at_most(function, "num_items", num_items, max_length, "in [0, 2^63]");
  const unsigned domain_bits = f.domain_bits();
  require(domain_bits >= 1 && domain_bits <= 63, function, "bijection",
          "domain must be 2^b with b in [1, 63], got b = " + std::to_string(domain_bits));
  require((std::uint64_t{1} << domain_bits) >= num_items, function, "bijection",
          "domain 2^" + std::to_string(domain_bits) + " must hold num_items = " + std::to_string(num_items) +
              " indices");
}

/// Checks pointers and overlap (run phase, num_items > 0).
template <class T>
void check_pointers(const char* function, const T* d_in, const T* d_out, std::size_t num_items) {
  protocol::check_not_null(function, "d_in", d_in, "when num_items > 0");
  protocol::check_not_null(function, "d_out", d_out, "when num_items > 0");
  protocol::check_byte_count(function, "num_items", num_items, sizeof(T));
  protocol::check_disjoint(function, "d_out", d_out, "d_in", d_in, num_items, sizeof(T), " (out-of-place operation)");
}

/// The two-phase protocol shared by the entry points (protocol::query_or_check): a query
/// (d_temp == nullptr) sets temp_bytes = required; num_items == 0 has nothing to do;
/// otherwise the pointers, then the temporary storage are checked (throwing
/// onepass::error). True when the caller should run.
template <class T>
bool query_or_check(const char* function, void* d_temp, std::size_t& temp_bytes, std::size_t required,
                    const T* d_in, const T* d_out, std::size_t num_items) {
  return protocol::query_or_check(function, d_temp, temp_bytes, required, num_items == 0,
                                  [&] { check_pointers(function, d_in, d_out, num_items); });
}

}  // namespace detail
}  // namespace onepass::shuffle::gpu
