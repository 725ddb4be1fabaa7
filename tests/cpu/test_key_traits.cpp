// Tests of onepass/sort/key_traits.hpp: to_bits preserves order (unsigned order of
// the words = the keys' order, a total order for floating point), from_bits inverts
// it bit for bit, descending complements the words, the documented placement of
// -0.0, +0.0, infinities and NaNs, digit() and key_field().
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "onepass/sort/key_traits.hpp"

namespace {

using onepass::sort::digit;
using onepass::sort::key_field;
using onepass::sort::ordered_bits;
using onepass::sort::radix_traits;

/// The key whose raw bits are the low bits of w (no order transform).
template <class Key>
Key from_word(std::uint64_t w) {
  using bits_type = typename radix_traits<Key>::bits_type;
  return onepass::sort::detail::bit_cast_from<Key, bits_type>(static_cast<bits_type>(w));
}

template <class Key>
bool same_bits(Key a, Key b) {
  return std::memcmp(&a, &b, sizeof(Key)) == 0;
}

// Round trip on random bit patterns (NaN payloads included) and order agreement
// with operator< wherever operator< is a strict order (no NaN involved).
template <class Key>
void check_round_trip_and_order() {
  using traits = radix_traits<Key>;
  static_assert(traits::bits == sizeof(Key) * 8);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    const Key a = from_word<Key>(rng()), b = from_word<Key>(rng());
    ASSERT_TRUE(same_bits(traits::from_bits(traits::to_bits(a)), a));
    const auto wa = traits::to_bits(a), wb = traits::to_bits(b);
    EXPECT_EQ(ordered_bits(a, true), static_cast<decltype(wa)>(~wa));
    bool comparable = true;
    if constexpr (std::is_floating_point_v<Key>) comparable = !std::isnan(a) && !std::isnan(b);
    if (comparable) {
      if (a < b) {
        ASSERT_LT(wa, wb) << a << " < " << b;
      } else if (b < a) {
        ASSERT_GT(wa, wb) << a << " > " << b;
      } else if (!same_bits(a, b)) {
        // Equal values with different bits: only -0.0 and +0.0.
        ASSERT_TRUE(std::is_floating_point_v<Key>);
      } else {
        ASSERT_EQ(wa, wb);
      }
    }
  }
}

TEST(KeyTraits, Uint32) { check_round_trip_and_order<std::uint32_t>(); }
TEST(KeyTraits, Int32) { check_round_trip_and_order<std::int32_t>(); }
TEST(KeyTraits, Float) { check_round_trip_and_order<float>(); }
TEST(KeyTraits, Uint64) { check_round_trip_and_order<std::uint64_t>(); }
TEST(KeyTraits, Int64) { check_round_trip_and_order<std::int64_t>(); }
TEST(KeyTraits, Double) { check_round_trip_and_order<double>(); }

template <class I>
void check_integer_extremes() {
  using L = std::numeric_limits<I>;
  const I values[] = {L::min(), static_cast<I>(L::min() + 1), static_cast<I>(-1), 0, 1,
                      static_cast<I>(L::max() - 1), L::max()};
  for (std::size_t i = 0; i + 1 < sizeof(values) / sizeof(values[0]); ++i) {
    if (values[i] < values[i + 1]) {
      EXPECT_LT(radix_traits<I>::to_bits(values[i]), radix_traits<I>::to_bits(values[i + 1]));
    }
  }
  EXPECT_EQ(radix_traits<I>::to_bits(L::min()), 0u);
  EXPECT_EQ(radix_traits<I>::to_bits(L::max()), static_cast<typename radix_traits<I>::bits_type>(~0ull));
}

TEST(KeyTraits, IntegerExtremes) {
  check_integer_extremes<std::int32_t>();
  check_integer_extremes<std::int64_t>();
  check_integer_extremes<std::uint32_t>();
  check_integer_extremes<std::uint64_t>();
}

// The documented total order: -NaN < -inf < negatives < -0.0 < +0.0 < positives <
// +inf < +NaN.
template <class F>
void check_special_order() {
  using L = std::numeric_limits<F>;
  const F ordered[] = {-L::quiet_NaN(), -L::infinity(), L::lowest(), F(-1), -L::min(), -L::denorm_min(), -F(0),
                       F(0),          L::denorm_min(),  L::min(),    F(1),  L::max(),  L::infinity(),     L::quiet_NaN()};
  ASSERT_TRUE(std::signbit(-L::quiet_NaN()));
  ASSERT_FALSE(std::signbit(L::quiet_NaN()));
  const std::size_t count = sizeof(ordered) / sizeof(ordered[0]);
  for (std::size_t i = 0; i + 1 < count; ++i) {
    EXPECT_LT(radix_traits<F>::to_bits(ordered[i]), radix_traits<F>::to_bits(ordered[i + 1])) << "at " << i;
    // Descending reverses it.
    EXPECT_GT(ordered_bits(ordered[i], true), ordered_bits(ordered[i + 1], true)) << "at " << i;
  }
  for (std::size_t i = 0; i < count; ++i)
    EXPECT_TRUE(same_bits(radix_traits<F>::from_bits(radix_traits<F>::to_bits(ordered[i])), ordered[i]));
}

TEST(KeyTraits, FloatSpecialValues) { check_special_order<float>(); }
TEST(KeyTraits, DoubleSpecialValues) { check_special_order<double>(); }

TEST(KeyTraits, DigitAndKeyField) {
  const std::uint32_t w = 0xABCD1234u;
  EXPECT_EQ(digit(w, 0, 8), 0x34u);
  EXPECT_EQ(digit(w, 8, 8), 0x12u);
  EXPECT_EQ(digit(w, 28, 4), 0xAu);
  EXPECT_EQ(digit(w, 4, 5), (w >> 4) & 31u);
  EXPECT_EQ(key_field(w, 0, 32), w);
  EXPECT_EQ(key_field(w, 8, 16), 0x12u);
  EXPECT_EQ(key_field(w, 31, 32), 1u);
  const std::uint64_t v = 0x0123456789ABCDEFull;
  EXPECT_EQ(digit(v, 56, 8), 0x01u);
  EXPECT_EQ(key_field(v, 0, 64), v);
  EXPECT_EQ(key_field(v, 4, 12), 0xDEull);
  EXPECT_EQ(key_field(v, 60, 64), 0x0ull);
}

}  // namespace
