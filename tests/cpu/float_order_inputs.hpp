// tests/cpu/float_order_inputs.hpp — adversarial floating-point sort inputs and an
// independent model of float_order (key_traits.hpp), shared by the CPU test
// (tests/cpu/test_float_order.cpp) and the GPU test against cub::DeviceRadixSort
// (tests/gpu/test_onesweep_float_order.cu). Host code only.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/sort/key_traits.hpp"

namespace onepass::testing::float_keys {

using onepass::sort::float_order;
using onepass::sort::ordered_bits;
using onepass::sort::radix_traits;

template <class F>
using bits_of = typename radix_traits<F>::bits_type;

template <class F>
F from_bits_raw(bits_of<F> b) {
  return onepass::sort::detail::bit_cast_from<F, bits_of<F>>(b);
}
template <class F>
bits_of<F> raw_bits(F f) {
  return onepass::sort::detail::bit_cast_to<F, bits_of<F>>(f);
}

/// IEEE layout of F: sign bit, exponent mask, quiet-NaN bit, fraction mask.
template <class F>
struct layout {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  using B = bits_of<F>;
  static constexpr unsigned fraction_bits = std::is_same_v<F, float> ? 23 : 52;
  static constexpr B sign = B{1} << (sizeof(B) * 8 - 1);
  static constexpr B fraction = (B{1} << fraction_bits) - 1;
  static constexpr B exponent = static_cast<B>(~sign & ~fraction);
  static constexpr B quiet = B{1} << (fraction_bits - 1);
};

/// Raw bit patterns of the special values, both signs of each: zeros, infinities,
/// quiet and signalling NaNs with several payloads (all-ones fraction included),
/// denormals (smallest, second smallest, largest), the smallest normal, +-1, the
/// largest finite.
template <class F>
std::vector<bits_of<F>> special_bits() {
  using L = layout<F>;
  using B = bits_of<F>;
  const B one = raw_bits<F>(F(1));
  const B magnitudes[] = {
      B{0},                              // zero
      L::exponent,                       // infinity
      L::exponent | L::quiet,            // default quiet NaN
      L::exponent | L::quiet | B{1},     // quiet NaN, payload 1
      L::exponent | L::quiet | B{0x2345},  // quiet NaN, payload 0x2345
      L::exponent | B{1},                // signalling NaN, payload 1
      L::exponent | (L::quiet >> 1),     // signalling NaN, high payload
      L::exponent | L::fraction,         // NaN, all-ones fraction (the largest word)
      B{1},                              // smallest denormal
      B{2},                              // second smallest denormal
      L::fraction,                       // largest denormal
      L::fraction + 1,                   // smallest normal
      one,                               // 1.0
      static_cast<B>(L::exponent - 1),   // largest finite
  };
  std::vector<B> out;
  for (B m : magnitudes) {
    out.push_back(m);
    out.push_back(static_cast<B>(m | L::sign));
  }
  return out;
}

template <class F>
bool is_zero(F f) {
  return (raw_bits<F>(f) & ~layout<F>::sign) == 0;
}

/// The inputs the float_order tests sort.
enum class input {
  specials,              ///< uniform draws from special_bits (zeros of both signs ~7 %)
  mostly_zeros,          ///< 90 % zeros of random sign, the rest specials (uniform warps and tiles)
  all_negative_zero,     ///< every key -0.0
  all_positive_zero,     ///< every key +0.0
  alternating_zeros,     ///< -0.0, +0.0, -0.0, ...
  all_one_nan,           ///< every key the same negative NaN with a payload (all-equal)
  zeros_and_denormals,   ///< zeros and the smallest denormals of both signs: ties under narrowed bit ranges
  random_with_specials,  ///< uniform random bits, 25 % replaced by specials
};

inline const input all_inputs[] = {input::specials,          input::mostly_zeros,        input::all_negative_zero,
                                   input::all_positive_zero, input::alternating_zeros,   input::all_one_nan,
                                   input::zeros_and_denormals, input::random_with_specials};

inline std::string to_string(input i) {
  switch (i) {
    case input::specials: return "specials";
    case input::mostly_zeros: return "mostly_zeros";
    case input::all_negative_zero: return "all_negative_zero";
    case input::all_positive_zero: return "all_positive_zero";
    case input::alternating_zeros: return "alternating_zeros";
    case input::all_one_nan: return "all_one_nan";
    case input::zeros_and_denormals: return "zeros_and_denormals";
    case input::random_with_specials: return "random_with_specials";
  }
  return "?";
}

template <class F>
std::vector<F> make_keys(input kind, std::size_t n, std::uint64_t seed) {
  using L = layout<F>;
  using B = bits_of<F>;
  const auto specials = special_bits<F>();
  std::mt19937_64 g(seed);
  auto special = [&] { return specials[g() % specials.size()]; };
  std::vector<F> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    B b = 0;
    switch (kind) {
      case input::specials: b = special(); break;
      case input::mostly_zeros: b = g() % 10 != 0 ? ((g() & 1) ? L::sign : B{0}) : special(); break;
      case input::all_negative_zero: b = L::sign; break;
      case input::all_positive_zero: b = 0; break;
      case input::alternating_zeros: b = (i % 2 == 0) ? L::sign : B{0}; break;
      case input::all_one_nan: b = static_cast<B>(L::sign | L::exponent | L::quiet | B{0x2345}); break;
      case input::zeros_and_denormals: {
        const B small[] = {0, 0, 1, 2, 3, 0xFF, 0x100};
        b = small[g() % 7] | ((g() & 1) ? L::sign : B{0});
        break;
      }
      case input::random_with_specials: b = g() % 4 == 0 ? special() : static_cast<B>(g()); break;
    }
    keys[i] = from_bits_raw<F>(b);
  }
  return keys;
}

/// The order's model, written from the keys' side rather than the words': under
/// signed_zero_equal every zero sorts as +0.0 when ascending and as -0.0 when
/// descending (the zero that total order places second, i.e. CUB onesweep's
/// substitution); otherwise the key's own transformed word. Compare with key_field.
template <float_order Order, class F>
bits_of<F> model_word(F key, bool descending) {
  if (Order == float_order::signed_zero_equal && is_zero(key)) {
    return ordered_bits(descending ? F(-0.0) : F(0.0), descending);
  }
  return ordered_bits(key, descending);
}

/// CUB's single-tile path (BlockRadixSort: the digit extractor maps -0.0 to +0.0 before
/// any descending reversal): every zero sorts as +0.0 in both orders.
template <class F>
bits_of<F> cub_single_tile_word(F key, bool descending) {
  return ordered_bits(is_zero(key) ? F(0.0) : key, descending);
}

}  // namespace onepass::testing::float_keys
