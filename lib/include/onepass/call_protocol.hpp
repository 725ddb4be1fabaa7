// onepass/call_protocol.hpp — the one home of the rules every onepass entry point (CPU
// and GPU primitives, baselines, harnesses) applies to its arguments, and of CUB's
// two-phase temporary-storage protocol (host only, no CUDA):
//   - argument checks: null pointers, alignment, overlapping (non-disjoint) ranges, size
//     limits, the sorted bit range [begin_bit, end_bit);
//   - temporary storage: d_temp == nullptr is a size query that sets temp_bytes and does
//     nothing else; otherwise temp_bytes must be at least the query's answer. The storage
//     is carved into 256-byte aligned arrays from the first 256-byte boundary of d_temp
//     (temp_layout); every answer includes temp_alignment bytes of slack, so d_temp may
//     have any alignment.
// Every check throws onepass::error (error.hpp) with the message
// "<function>: <argument> <requirement>", naming the argument and the accepted range, and
// builds that message only when it throws (the checks cost a comparison on the hot path).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "onepass/error.hpp"

namespace onepass::protocol {

/// Throws onepass::error("<function>: <argument> <requirement>").
[[noreturn]] inline void fail(const char* function, const char* argument, const std::string& requirement) {
  throw error(std::string(function) + ": " + argument + " " + requirement);
}

// ----------------------------------------------------------------------------
// Pointers.

/// Throws onepass::error "<argument> must not be null <when>" (e.g. when = "when n > 0")
/// when p is null. Callers skip the check where null is allowed (nothing to do).
inline void check_not_null(const char* function, const char* argument, const void* p, const char* when) {
  if (p == nullptr) fail(function, argument, std::string("must not be null ") + when);
}

/// Throws onepass::error "<argument> must be aligned to <alignment> bytes" unless the
/// address p is a multiple of `alignment` (>= 1).
inline void check_aligned(const char* function, const char* argument, const void* p, std::size_t alignment) {
  if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0)
    fail(function, argument, "must be aligned to " + std::to_string(alignment) + " bytes");
}

/// True when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte. Empty
/// ranges and null pointers overlap nothing. Addresses are compared as integers (relational
/// operators on pointers into different arrays are unspecified in C++), by distance, so
/// no end address is formed and nothing overflows.
inline bool overlaps(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a == nullptr || b == nullptr || a_bytes == 0 || b_bytes == 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

/// True when the arrays a[0, count) and b[0, count) of `element_bytes`-byte elements
/// (>= 1) share a byte; count * element_bytes is never formed, so any count is exact.
inline bool arrays_overlap(const void* a, const void* b, std::uint64_t count, std::size_t element_bytes) {
  if (a == nullptr || b == nullptr || count == 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  const std::uint64_t distance = x < y ? y - x : x - y;  // bytes
  return distance / element_bytes < count;               // distance < count * element_bytes
}

/// Throws onepass::error "<argument> must not overlap <other><note>" when the arrays
/// p[0, count) (the argument) and q[0, count) (`other`) of `element_bytes`-byte elements
/// overlap (arrays_overlap). `note` is appended as is, e.g. " (out-of-place operation)".
inline void check_disjoint(const char* function, const char* argument, const void* p, const char* other,
                           const void* q, std::uint64_t count, std::size_t element_bytes, const char* note = "") {
  if (arrays_overlap(p, q, count, element_bytes))
    fail(function, argument, std::string("must not overlap ") + other + note);
}

/// As check_disjoint for byte ranges of different lengths: p[0, p_bytes) (the argument)
/// and q[0, q_bytes) (`other`), compared by overlaps().
inline void check_disjoint_bytes(const char* function, const char* argument, const void* p, std::size_t p_bytes,
                                 const char* other, const void* q, std::size_t q_bytes, const char* note = "") {
  if (overlaps(p, p_bytes, q, q_bytes)) fail(function, argument, std::string("must not overlap ") + other + note);
}

// ----------------------------------------------------------------------------
// Sizes.

/// Throws onepass::error "<argument> must be <accepted>, got <value>" unless value <= most;
/// `accepted` states the range, e.g. "in [0, 2^63]" or "at most 2^56".
inline void check_at_most(const char* function, const char* argument, std::uint64_t value, std::uint64_t most,
                          const char* accepted) {
  if (value > most) fail(function, argument, std::string("must be ") + accepted + ", got " + std::to_string(value));
}

/// Throws onepass::error "<argument> must be in [least, most], got <value>" unless
/// least <= value <= most.
inline void check_in_range(const char* function, const char* argument, std::uint64_t value, std::uint64_t least,
                           std::uint64_t most) {
  if (value < least || value > most)
    fail(function, argument,
         "must be in [" + std::to_string(least) + ", " + std::to_string(most) + "], got " + std::to_string(value));
}

/// Throws onepass::error unless `count` elements of `element_bytes` bytes (>= 1) fit in the
/// address space (count * element_bytes <= SIZE_MAX): "<argument> must be at most
/// SIZE_MAX / <element_bytes> (the bytes of <argument> <element_bytes>-byte elements must fit
/// in size_t), got <count>".
inline void check_byte_count(const char* function, const char* argument, std::uint64_t count,
                             std::size_t element_bytes) {
  if (count > SIZE_MAX / element_bytes) {
    const std::string size = std::to_string(element_bytes);
    fail(function, argument,
         "must be at most SIZE_MAX / " + size + " (the bytes of " + argument + " " + size +
             "-byte elements must fit in size_t), got " + std::to_string(count));
  }
}

// ----------------------------------------------------------------------------
// The bit range of a sort.

/// Bits [begin, end) of the (order-preserving transform of the) key a sort orders by;
/// begin < end <= key width.
struct bit_range {
  unsigned begin = 0;
  unsigned end = 0;
  unsigned width() const { return end - begin; }
};

/// Throws onepass::error "begin_bit must be less than end_bit (<end>), got <begin_bit>"
/// unless begin_bit < end.
inline void check_begin_bit(const char* function, unsigned begin_bit, unsigned end) {
  if (begin_bit >= end)
    fail(function, "begin_bit",
         "must be less than end_bit (" + std::to_string(end) + "), got " + std::to_string(begin_bit));
}

/// Resolves (begin_bit, end_bit) for keys of `key_bits` bits, end_bit == 0 meaning the
/// key's width. Throws onepass::error naming end_bit ("must be in [1, key_bits] (0 means
/// the key width key_bits)") or begin_bit (check_begin_bit) unless begin_bit < end <= key_bits.
inline bit_range resolve_bit_range(const char* function, unsigned key_bits, unsigned begin_bit, unsigned end_bit) {
  const unsigned end = end_bit == 0 ? key_bits : end_bit;
  if (end > key_bits)
    fail(function, "end_bit",
         "must be in [1, " + std::to_string(key_bits) + "] (0 means the key width " + std::to_string(key_bits) +
             "), got " + std::to_string(end_bit));
  check_begin_bit(function, begin_bit, end);
  return bit_range{begin_bit, end};
}

/// The bit range as given, without the end_bit == 0 convention (onesweep, the hybrid
/// sort): throws onepass::error naming end_bit ("must be in [1, key_bits] (the key's
/// width)") unless end_bit <= key_bits, then begin_bit unless begin_bit < end_bit.
inline bit_range check_bit_range(const char* function, unsigned key_bits, unsigned begin_bit, unsigned end_bit) {
  if (end_bit > key_bits)
    fail(function, "end_bit",
         "must be in [1, " + std::to_string(key_bits) + "] (the key's width), got " + std::to_string(end_bit));
  check_begin_bit(function, begin_bit, end_bit);
  return bit_range{begin_bit, end_bit};
}

// ----------------------------------------------------------------------------
// Temporary storage.

/// Alignment of every array carved out of a caller's temporary storage (bytes; CUB's).
inline constexpr std::size_t temp_alignment = 256;

/// `bytes` rounded up to a multiple of temp_alignment (0 stays 0).
constexpr std::size_t align_up(std::size_t bytes) { return (bytes + temp_alignment - 1) / temp_alignment * temp_alignment; }

/// The first temp_alignment boundary at or after `d_temp` (temporary storage may start at
/// any address; every size query's answer includes temp_alignment bytes of slack).
inline unsigned char* aligned_start(void* d_temp) {
  const auto address = reinterpret_cast<std::uintptr_t>(d_temp);
  return reinterpret_cast<unsigned char*>((address + temp_alignment - 1) / temp_alignment * temp_alignment);
}

/// Consecutive 256-byte aligned arrays carved out of one temporary buffer: add() reserves
/// each array (rounded up to temp_alignment) and returns its offset from
/// aligned_start(d_temp); total() is the size query's answer, the arrays plus
/// temp_alignment bytes of slack (so a multiple of 256, and at least 256).
class temp_layout {
 public:
  /// What an array of 0 bytes reserves: nothing (its offset is the next array's), or one
  /// temp_alignment unit, so that every array has an address of its own.
  enum class empty_arrays { take_nothing, take_a_unit };

  explicit temp_layout(empty_arrays empty = empty_arrays::take_nothing) : empty_(empty) {}

  /// Reserves an array of `bytes` bytes; returns its offset from the aligned start.
  std::size_t add(std::size_t bytes) {
    const std::size_t offset = used_;
    used_ += align_up(bytes == 0 && empty_ == empty_arrays::take_a_unit ? 1 : bytes);
    return offset;
  }
  /// Bytes reserved from the aligned start (a multiple of temp_alignment).
  std::size_t used() const { return used_; }
  /// Bytes the caller must provide: used() plus temp_alignment of alignment slack.
  std::size_t total() const { return used_ + temp_alignment; }
  /// The array at `offset` (from add()) inside the caller's storage d_temp.
  template <class T = unsigned char>
  static T* at(void* d_temp, std::size_t offset) {
    return reinterpret_cast<T*>(aligned_start(d_temp) + offset);
  }

 private:
  std::size_t used_ = 0;
  empty_arrays empty_;
};

/// Temporary storage of an in-place sort that keeps its alternate buffers in the caller's
/// temporary storage: from aligned_start(d_temp), the sort's own `sort_bytes`, then n keys,
/// then n values (value_size 0: none), each 256-byte aligned; `total` is the bytes to ask
/// for, alignment slack included.
struct alternate_buffers_layout {
  std::size_t keys = 0, values = 0, total = 0;  ///< offsets from aligned_start; size query answer
  alternate_buffers_layout(std::size_t sort_bytes, std::size_t n, std::size_t key_size, std::size_t value_size) {
    temp_layout layout;
    layout.add(sort_bytes);
    keys = layout.add(n * key_size);
    values = layout.add(value_size ? n * value_size : 0);
    total = layout.total();
  }
};

/// Throws onepass::error "temp_bytes must be at least <required> bytes (the size query's
/// answer), got <temp_bytes>" unless temp_bytes >= required.
inline void check_temp_bytes(const char* function, std::size_t temp_bytes, std::size_t required) {
  if (temp_bytes < required)
    fail(function, "temp_bytes",
         "must be at least " + std::to_string(required) + " bytes (the size query's answer), got " +
             std::to_string(temp_bytes));
}

/// As check_temp_bytes, the message naming the size the answer was for: "(the size
/// query's answer for <size_name> = <size>)".
inline void check_temp_bytes(const char* function, std::size_t temp_bytes, std::size_t required,
                             const char* size_name, std::uint64_t size) {
  if (temp_bytes < required)
    fail(function, "temp_bytes",
         "must be at least " + std::to_string(required) + " bytes (the size query's answer for " + size_name +
             " = " + std::to_string(size) + "), got " + std::to_string(temp_bytes));
}

/// The query phase: when d_temp is null, sets temp_bytes = required and returns true (the
/// caller returns at once, having looked at no pointer and enqueued nothing); otherwise
/// returns false. Throws nothing.
inline bool answer_query(const void* d_temp, std::size_t& temp_bytes, std::size_t required) {
  if (d_temp != nullptr) return false;
  temp_bytes = required;
  return true;
}

/// The two-phase protocol of an entry point, in this order: a query (d_temp == nullptr)
/// sets temp_bytes = required and returns false; `nothing_to_do` (e.g. n == 0) returns
/// false with nothing checked; otherwise check_arguments() runs (the pointer checks, which
/// throw onepass::error), then check_temp_bytes(function, temp_bytes, required), and the
/// result is true: the caller runs. Everything is checked before anything is written.
template <class CheckArguments>
bool query_or_check(const char* function, void* d_temp, std::size_t& temp_bytes, std::size_t required,
                    bool nothing_to_do, CheckArguments&& check_arguments) {
  if (answer_query(d_temp, temp_bytes, required)) return false;
  if (nothing_to_do) return false;
  std::forward<CheckArguments>(check_arguments)();
  check_temp_bytes(function, temp_bytes, required);
  return true;
}

}  // namespace onepass::protocol
