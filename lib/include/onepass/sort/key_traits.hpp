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
/// `bits` (its width), to_bits / from_bits (the order-preserving transform and its
/// inverse). Defined for uint32_t, int32_t, float, uint64_t, int64_t, double.
template <class Key>
struct radix_traits;

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
