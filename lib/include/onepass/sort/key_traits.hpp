// onepass/sort/key_traits.hpp — order-preserving bit transforms for LSD radix
// sorting (host+device), shared by the onesweep sort, the VREN sort, the oneTBB CPU
// radix sort and the tests' oracle.
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", §2 (keys are sorted as unsigned integers after an order-
// preserving transform), the standard "radix twiddle" of signed and IEEE-754 keys.
//
// to_bits(key) maps a key to an unsigned word such that unsigned order of the words
// is the sort order of the keys:
//   unsigned   identity;
//   signed     flip the sign bit (two's complement order);
//   float/double  sign bit set: flip every bit; sign bit clear: set the sign bit.
// For floating-point keys this is a TOTAL order, and it is the order every onepass
// sort produces (documented placement of the special values):
//   NaNs with the sign bit set  <  -inf  <  negative numbers  <  -0.0  <  +0.0
//   <  positive numbers  <  +inf  <  NaNs with the sign bit clear;
//   NaNs among themselves by payload (as unsigned words after the transform).
// So -0.0 sorts strictly before +0.0. A NaN goes where its sign bit sends it:
// std::numeric_limits<T>::quiet_NaN() has the sign bit clear and sorts last
// (ascending); 0.0/0.0 computed on x86 has it set and sorts first. Descending
// order is the reverse of
// this total order (the transform's words are complemented), still stable: equal
// words keep their input order.
//
// float_order (below) selects how float/double keys compare; integer keys accept
// either value and sort the same (as CUB, whose -0.0 handling applies to floating-
// point keys only):
//   float_order::total_order (the DEFAULT of every onepass sort): the total order
//     above, -0.0 < +0.0.
//   float_order::signed_zero_equal: as cub::DeviceRadixSort (CCCL 3.x), -0.0 and
//     +0.0 are equal keys, so they keep their input order among themselves (the
//     sort is stable); every other key, NaNs included, is placed as in total_order.
//     Only the word that digits are taken from changes (digit_word): the transformed
//     word 0x7F..F (ascending: -0.0; descending, complemented: +0.0) is read as
//     0x80..0 (ascending: +0.0; descending: -0.0), the substitution CUB's onesweep
//     digit extractor (ProcessFloatMinusZero, applied after its descending
//     complement) makes. The keys written out keep their own bits (-0.0 stays -0.0).
//     With the whole key width sorted, the zeros simply sort together where +0.0
//     (ascending) or -0.0 (descending) sorts in total_order. With a bit range
//     [begin_bit, end_bit) narrower than the key, the zeros' key field is that of
//     0x80..0, so they tie with the other keys whose field equals it. (CUB's
//     single-tile path, taken for inputs of at most one CUB tile -- on sm_90 4864
//     keys, 2304 with 8-byte keys or values -- substitutes +0.0's word in BOTH
//     orders, i.e. 0x7F..F when descending; for descending sorts with a narrowed bit
//     range it can therefore place the zeros differently from CUB's onesweep path and
//     from this option; ascending, or with the full width, they agree.)
//
// Digit places: digit(word, shift, digit_bits) = (word >> shift) & (2^digit_bits - 1).
// begin_bit/end_bit restrict the sort to bits [begin_bit, end_bit) of the
// transformed word (as cub::DeviceRadixSort does); keys equal on those bits keep
// their input order.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "onepass/config.hpp"

namespace onepass::sort {

/// Radix traits of a key type: `bits_type` (the unsigned word the sort works on),
/// `bits` (its width), `is_floating` (float, double), to_bits / from_bits (the
/// order-preserving transform and its inverse). Defined for uint32_t, int32_t, float,
/// uint64_t, int64_t, double.
template <class Key>
struct radix_traits;

/// How a sort orders floating-point keys (float, double); see the file comment.
/// Integer keys accept both values and sort identically under them.
enum class float_order {
  /// IEEE 754 totalOrder: -0.0 sorts before +0.0, NaNs by sign bit and payload. The
  /// default of every onepass sort.
  total_order,
  /// cub::DeviceRadixSort's order: -0.0 and +0.0 compare equal (stable: input order
  /// among themselves); everything else as total_order. Output keys keep their bits.
  signed_zero_equal
};

namespace detail {
template <class Key, class Bits>
ONEPASS_HD inline Bits bit_cast_to(Key k) {
  Bits b;
  std::memcpy(&b, &k, sizeof(Bits));
  return b;
}
template <class Key, class Bits>
ONEPASS_HD inline Key bit_cast_from(Bits b) {
  Key k;
  std::memcpy(&k, &b, sizeof(Bits));
  return k;
}

template <class Key, class Bits, int Kind>  // Kind 0 unsigned, 1 signed, 2 floating
struct twiddle {
  using bits_type = Bits;
  static constexpr unsigned bits = sizeof(Bits) * 8;
  static constexpr bool is_floating = Kind == 2;
  static constexpr Bits sign = Bits{1} << (bits - 1);
  ONEPASS_HD static Bits to_bits(Key k) {
    const Bits b = bit_cast_to<Key, Bits>(k);
    if constexpr (Kind == 0) {
      return b;
    } else if constexpr (Kind == 1) {
      return b ^ sign;
    } else {
      return (b & sign) ? static_cast<Bits>(~b) : static_cast<Bits>(b | sign);
    }
  }
  ONEPASS_HD static Key from_bits(Bits b) {
    if constexpr (Kind == 0) {
      return bit_cast_from<Key, Bits>(b);
    } else if constexpr (Kind == 1) {
      return bit_cast_from<Key, Bits>(b ^ sign);
    } else {
      return bit_cast_from<Key, Bits>((b & sign) ? static_cast<Bits>(b & ~sign) : static_cast<Bits>(~b));
    }
  }
};
}  // namespace detail

template <>
struct radix_traits<std::uint32_t> : detail::twiddle<std::uint32_t, std::uint32_t, 0> {};
template <>
struct radix_traits<std::int32_t> : detail::twiddle<std::int32_t, std::uint32_t, 1> {};
template <>
struct radix_traits<float> : detail::twiddle<float, std::uint32_t, 2> {};
template <>
struct radix_traits<std::uint64_t> : detail::twiddle<std::uint64_t, std::uint64_t, 0> {};
template <>
struct radix_traits<std::int64_t> : detail::twiddle<std::int64_t, std::uint64_t, 1> {};
template <>
struct radix_traits<double> : detail::twiddle<double, std::uint64_t, 2> {};

/// The transformed word of `key` for the given order: ascending as to_bits,
/// descending its complement. Unsigned order of the result is the sort order.
template <class Key>
ONEPASS_HD inline typename radix_traits<Key>::bits_type ordered_bits(Key key, bool descending) {
  const auto b = radix_traits<Key>::to_bits(key);
  return descending ? static_cast<typename radix_traits<Key>::bits_type>(~b) : b;
}

/// The word a sort under `Order` takes digits (and key fields) from, given a key's
/// transformed word `word` (ordered_bits: to_bits, complemented when descending).
/// total_order, and integer keys under either order: `word` itself.
/// signed_zero_equal with float/double keys: 0x7F..F (the word of -0.0 ascending, of
/// +0.0 descending) becomes 0x80..0 (+0.0 ascending, -0.0 descending), every other
/// word is itself -- the substitution cub::DeviceRadixSort's onesweep makes. The two
/// words are adjacent, so only the zeros' relative order (and, under a narrowed bit
/// range, which keys they tie with) changes. The sort moves the key's own word.
template <float_order Order, class Key>
ONEPASS_HD constexpr typename radix_traits<Key>::bits_type digit_word(typename radix_traits<Key>::bits_type word) {
  using bits_type = typename radix_traits<Key>::bits_type;
  if constexpr (Order == float_order::signed_zero_equal && radix_traits<Key>::is_floating) {
    constexpr bits_type high = bits_type{1} << (radix_traits<Key>::bits - 1);  // 0x80..0
    return word == static_cast<bits_type>(high - 1) ? high : word;
  } else {
    return word;
  }
}

/// Digit at bit offset `shift` (0 <= shift < bits) of width `digit_bits` (1..16).
template <class Bits>
ONEPASS_HD inline std::uint32_t digit(Bits word, unsigned shift, unsigned digit_bits) {
  return static_cast<std::uint32_t>(word >> shift) & ((1u << digit_bits) - 1u);
}

/// The bits [begin_bit, end_bit) of a transformed word, shifted down: the part of
/// the key a sort restricted to those bits compares.
template <class Bits>
ONEPASS_HD inline Bits key_field(Bits word, unsigned begin_bit, unsigned end_bit) {
  constexpr unsigned width = sizeof(Bits) * 8;
  const Bits shifted = word >> begin_bit;
  const unsigned used = end_bit - begin_bit;
  return used >= width ? shifted : static_cast<Bits>(shifted & ((Bits{1} << used) - 1));
}

}  // namespace onepass::sort
