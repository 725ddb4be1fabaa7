// float_order (lib/include/onepass/sort/key_traits.hpp) on the CPU: digit_word, the
// oracle stable_sort_oracle<Order> (onepass_baselines/cpu/stable_sort_oracle.hpp) and the
// oneTBB cpu::sort_keys/pairs<Order>.
//   - digit_word: under signed_zero_equal only the float/double word 0x7F..F changes
//     (to 0x80..0); integer keys and total_order leave every word alone.
//   - The oracle under both orders equals an independent model (a std::stable_sort by a
//     word computed from the key's side: every zero sorts as +0.0 ascending, as -0.0
//     descending -- CUB onesweep's semantics), for float and double, ascending and
//     descending, keys and pairs, full and narrowed bit ranges, on adversarial inputs
//     (tests/cpu/float_order_inputs.hpp: zeros of both signs in mixed order, +-inf,
//     NaNs with payloads and both signs, denormals, all-equal keys).
//   - Properties stated directly: with the full width, signed_zero_equal differs from
//     total_order only inside the run of zeros, which holds the zeros in input order
//     (stability checked through the values = input indices); total_order puts -0.0
//     before +0.0 (after, descending); NaNs by sign bit at the ends in both orders;
//     all-equal keys come out in input order; a hand-worked descending narrowed-range
//     case.
//   - The oneTBB radix sort equals the oracle bit for bit (keys and values) under both
//     orders, sizes up to several chunks; integer keys sort identically under both orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "onepass/sort/cpu_radix_sort.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"

#include "float_order_inputs.hpp"

namespace {

namespace s = onepass::sort;
using onepass::baselines::stable_sort_oracle;  // the tests' oracle (a baseline)
namespace fk = onepass::testing::float_keys;
using s::float_order;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

const char* name(float_order o) { return o == float_order::total_order ? "total_order" : "signed_zero_equal"; }

struct range {
  unsigned begin, end;  // end 0: the key width (the CPU API's convention)
};

template <class F>
std::vector<range> ranges() {
  constexpr unsigned w = s::radix_traits<F>::bits;
  constexpr unsigned fraction = fk::layout<F>::fraction_bits;
  return {{0, 0}, {0, w - 1}, {1, w}, {8, w}, {fraction, w}, {w - 1, w}, {0, 8}, {3, w - 3}, {0, 1}};
}

std::string describe(const char* type, fk::input in, std::size_t n, range r, bool desc, float_order o) {
  return std::string(type) + " " + fk::to_string(in) + " n=" + std::to_string(n) + " bits [" +
         std::to_string(r.begin) + "," + std::to_string(r.end) + ") " + (desc ? "descending " : "ascending ") +
         name(o);
}

/// Input indices in model order (std::stable_sort by the model word's key field).
template <float_order Order, class F>
std::vector<std::uint32_t> model_order(const std::vector<F>& keys, range r, bool desc) {
  const unsigned end = r.end == 0 ? s::radix_traits<F>::bits : r.end;
  std::vector<std::uint32_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    return s::key_field(fk::model_word<Order>(keys[a], desc), r.begin, end) <
           s::key_field(fk::model_word<Order>(keys[b], desc), r.begin, end);
  });
  return idx;
}

/// Oracle (keys, pairs with u32 and u64 values) and the oneTBB sort (keys, pairs) under
/// Order, against the model, bit for bit.
template <float_order Order, class F>
void check_against_model(const std::vector<F>& keys, range r, bool desc, const std::string& what) {
  const std::size_t n = keys.size();
  const auto idx = model_order<Order>(keys, r, desc);
  std::vector<F> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = keys[idx[i]];
  std::vector<std::uint32_t> v32(n), expected_v32(idx);
  std::iota(v32.begin(), v32.end(), 0u);
  std::vector<std::uint64_t> v64(n), expected_v64(n);
  for (std::size_t i = 0; i < n; ++i) v64[i] = (std::uint64_t{0xABCD} << 40) + i;
  for (std::size_t i = 0; i < n; ++i) expected_v64[i] = v64[idx[i]];

  std::vector<F> out(n);
  stable_sort_oracle<Order>(keys.data(), out.data(), n, r.begin, r.end, desc);
  ASSERT_TRUE(same_bits(out, expected)) << what << ": oracle keys";
  std::vector<std::uint32_t> out_v32(n);
  stable_sort_oracle<Order>(keys.data(), out.data(), v32.data(), out_v32.data(), n, r.begin, r.end, desc);
  ASSERT_TRUE(same_bits(out, expected)) << what << ": oracle pairs, keys";
  ASSERT_EQ(out_v32, expected_v32) << what << ": oracle pairs, values (stability)";

  std::vector<F> tbb(n);
  s::cpu::sort_keys<Order>(keys.data(), tbb.data(), n, r.begin, r.end, desc);
  ASSERT_TRUE(same_bits(tbb, expected)) << what << ": oneTBB radix keys";
  std::vector<std::uint64_t> tbb_v64(n);
  s::cpu::sort_pairs<Order>(keys.data(), tbb.data(), v64.data(), tbb_v64.data(), n, r.begin, r.end, desc);
  ASSERT_TRUE(same_bits(tbb, expected)) << what << ": oneTBB radix pairs, keys";
  ASSERT_EQ(tbb_v64, expected_v64) << what << ": oneTBB radix pairs, values (stability)";
}

// ----------------------------------------------------------------------------

TEST(FloatOrderDigitWord, OnlyTheZeroWordOfFloatingKeysChanges) {
  constexpr auto z = float_order::signed_zero_equal;
  constexpr auto t = float_order::total_order;
  // The transformed words of the zeros.
  EXPECT_EQ(s::ordered_bits(-0.0f, false), 0x7FFFFFFFu);
  EXPECT_EQ(s::ordered_bits(+0.0f, false), 0x80000000u);
  EXPECT_EQ(s::ordered_bits(+0.0f, true), 0x7FFFFFFFu);
  EXPECT_EQ(s::ordered_bits(-0.0f, true), 0x80000000u);
  EXPECT_EQ(s::ordered_bits(-0.0, false), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(s::ordered_bits(+0.0, true), 0x7FFFFFFFFFFFFFFFull);
  static_assert(s::digit_word<z, float>(0x7FFFFFFFu) == 0x80000000u);
  static_assert(s::digit_word<z, double>(0x7FFFFFFFFFFFFFFFull) == 0x8000000000000000ull);
  static_assert(s::digit_word<t, float>(0x7FFFFFFFu) == 0x7FFFFFFFu);
  static_assert(s::digit_word<t, double>(0x7FFFFFFFFFFFFFFFull) == 0x7FFFFFFFFFFFFFFFull);
  // Integer keys: no effect under either order (their 0x7F..F is an ordinary key).
  static_assert(s::digit_word<z, std::uint32_t>(0x7FFFFFFFu) == 0x7FFFFFFFu);
  static_assert(s::digit_word<z, std::int32_t>(0x7FFFFFFFu) == 0x7FFFFFFFu);
  static_assert(s::digit_word<z, std::uint64_t>(0x7FFFFFFFFFFFFFFFull) == 0x7FFFFFFFFFFFFFFFull);
  static_assert(s::digit_word<z, std::int64_t>(0x7FFFFFFFFFFFFFFFull) == 0x7FFFFFFFFFFFFFFFull);
  // Every other float word is itself (neighbours and extremes; a sample of the rest).
  for (std::uint32_t w : {0u, 1u, 0x7FFFFFFEu, 0x80000000u, 0x80000001u, 0xFFFFFFFFu})
    EXPECT_EQ((s::digit_word<z, float>(w)), w) << std::hex << w;
  std::mt19937_64 g(3);
  for (int i = 0; i < 100000; ++i) {
    const auto w = static_cast<std::uint32_t>(g());
    if (w != 0x7FFFFFFFu) {
      ASSERT_EQ((s::digit_word<z, float>(w)), w);
    }
    const std::uint64_t d = g();
    if (d != 0x7FFFFFFFFFFFFFFFull) {
      ASSERT_EQ((s::digit_word<z, double>(d)), d);
    }
  }
}

template <class F>
class FloatOrder : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FloatOrder, FloatTypes);

TYPED_TEST(FloatOrder, OracleAndRadixSortEqualTheModel) {
  using F = TypeParam;
  const char* type = sizeof(F) == 4 ? "float" : "double";
  std::uint64_t seed = 10;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{70000}})
    for (fk::input in : fk::all_inputs) {
      const auto keys = fk::make_keys<F>(in, n, ++seed);
      for (const range& r : ranges<F>())
        for (bool desc : {false, true}) {
          check_against_model<float_order::total_order>(keys, r, desc,
                                                        describe(type, in, n, r, desc, float_order::total_order));
          check_against_model<float_order::signed_zero_equal>(
              keys, r, desc, describe(type, in, n, r, desc, float_order::signed_zero_equal));
          if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

TYPED_TEST(FloatOrder, DefaultOverloadsAreTotalOrder) {
  using F = TypeParam;
  const auto keys = fk::make_keys<F>(fk::input::specials, 5000, 77);
  for (bool desc : {false, true}) {
    std::vector<F> a(keys.size()), b(keys.size()), c(keys.size()), d(keys.size());
    stable_sort_oracle(keys.data(), a.data(), keys.size(), 0, 0, desc);
    stable_sort_oracle<float_order::total_order>(keys.data(), b.data(), keys.size(), 0, 0, desc);
    s::cpu::sort_keys(keys.data(), c.data(), keys.size(), 0, 0, desc);
    s::cpu::sort_keys<float_order::total_order>(keys.data(), d.data(), keys.size(), 0, 0, desc);
    EXPECT_TRUE(same_bits(a, b));
    EXPECT_TRUE(same_bits(a, c));
    EXPECT_TRUE(same_bits(a, d));
  }
}

/// Full width: the two orders differ only inside the run of zeros; under
/// signed_zero_equal that run is in input order, under total_order -0.0 comes first
/// (ascending) or last (descending); NaNs sit at the ends by sign bit.
TYPED_TEST(FloatOrder, ZerosAreOneStableRunAndEverythingElseIsTotalOrder) {
  using F = TypeParam;
  for (fk::input in : fk::all_inputs)
    for (std::size_t n : {std::size_t{1}, std::size_t{999}, std::size_t{40000}})
      for (bool desc : {false, true}) {
        const auto keys = fk::make_keys<F>(in, n, 500 + n);
        std::vector<std::uint32_t> v(n), vt(n), vz(n);
        std::iota(v.begin(), v.end(), 0u);
        std::vector<F> kt(n), kz(n);
        stable_sort_oracle<float_order::total_order>(keys.data(), kt.data(), v.data(), vt.data(), n, 0, 0, desc);
        stable_sort_oracle<float_order::signed_zero_equal>(keys.data(), kz.data(), v.data(), vz.data(), n, 0, 0,
                                                              desc);
        const std::string what = fk::to_string(in) + " n=" + std::to_string(n) + (desc ? " descending" : " ascending");
        std::size_t zeros_seen = 0;
        bool second_sign_seen = false;  // total_order: -0.0 then +0.0 (descending: +0.0 then -0.0)
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(fk::is_zero(kt[i]), fk::is_zero(kz[i])) << what << ": zero run moved at " << i;
          if (!fk::is_zero(kt[i])) {
            ASSERT_EQ(fk::raw_bits(kt[i]), fk::raw_bits(kz[i])) << what << ": non-zero key differs at " << i;
            ASSERT_EQ(vt[i], vz[i]) << what << ": non-zero value differs at " << i;
            continue;
          }
          // signed_zero_equal: zeros in input order (their values increase).
          if (zeros_seen > 0 && fk::is_zero(kz[i - 1])) {
            ASSERT_LT(vz[i - 1], vz[i]) << what << ": zeros not stable";
          }
          ASSERT_EQ(fk::raw_bits(kz[i]), fk::raw_bits(keys[vz[i]])) << what << ": output key is not its input's bits";
          ++zeros_seen;
          if (std::signbit(kt[i]) == desc) {
            second_sign_seen = true;
          } else {
            ASSERT_FALSE(second_sign_seen) << what << ": total_order places the zeros' signs wrongly at " << i;
          }
        }
        // NaNs by sign bit: negative NaNs at the ascending front (descending back).
        if (n > 1) {
          const F first = desc ? kz.back() : kz.front();
          const F last = desc ? kz.front() : kz.back();
          bool has_negative_nan = false, has_positive_nan = false;
          for (F k : keys) {
            has_negative_nan |= std::isnan(k) && std::signbit(k);
            has_positive_nan |= std::isnan(k) && !std::signbit(k);
          }
          if (has_negative_nan) {
            EXPECT_TRUE(std::isnan(first) && std::signbit(first)) << what;
          }
          if (has_positive_nan) {
            EXPECT_TRUE(std::isnan(last) && !std::signbit(last)) << what;
          }
        }
      }
}

TYPED_TEST(FloatOrder, AllEqualKeysKeepInputOrder) {
  using F = TypeParam;
  for (fk::input in : {fk::input::all_negative_zero, fk::input::all_positive_zero, fk::input::all_one_nan,
                       fk::input::alternating_zeros})
    for (const range& r : ranges<F>())
      for (bool desc : {false, true}) {
        const std::size_t n = 20000;
        const auto keys = fk::make_keys<F>(in, n, 1);
        std::vector<std::uint32_t> v(n), out_v(n), tbb_v(n);
        std::iota(v.begin(), v.end(), 0u);
        std::vector<F> out(n), tbb(n);
        stable_sort_oracle<float_order::signed_zero_equal>(keys.data(), out.data(), v.data(), out_v.data(), n,
                                                              r.begin, r.end, desc);
        s::cpu::sort_pairs<float_order::signed_zero_equal>(keys.data(), tbb.data(), v.data(), tbb_v.data(), n,
                                                            r.begin, r.end, desc);
        ASSERT_EQ(out_v, v) << fk::to_string(in) << ": not the identity";
        ASSERT_EQ(tbb_v, v) << fk::to_string(in) << ": oneTBB not the identity";
        ASSERT_TRUE(same_bits(out, keys));
        ASSERT_TRUE(same_bits(tbb, keys));
      }
}

// Hand-worked: descending, bits [8, 32) of float. Words (complemented): +denorm_min
// 0x7FFFFFFE -> field 0x7FFFFF; +0.0 0x7FFFFFFF; -0.0 0x80000000 -> field 0x800000.
// signed_zero_equal reads +0.0's word as 0x80000000 (CUB onesweep), so both zeros have
// field 0x800000 and follow the denormal in input order; total_order ties +0.0 with the
// denormal instead. (CUB's single-tile path would tie both zeros with the denormal.)
TEST(FloatOrderNarrowedRange, DescendingZerosTakeMinusZerosField) {
  const float denorm = std::numeric_limits<float>::denorm_min();
  const std::vector<float> in = {+0.0f, denorm, -0.0f, +0.0f};
  std::vector<float> out(in.size());
  stable_sort_oracle<float_order::signed_zero_equal>(in.data(), out.data(), in.size(), 8, 32, true);
  const std::vector<float> expected_zero_equal = {denorm, +0.0f, -0.0f, +0.0f};
  EXPECT_TRUE(same_bits(out, expected_zero_equal));
  stable_sort_oracle<float_order::total_order>(in.data(), out.data(), in.size(), 8, 32, true);
  const std::vector<float> expected_total = {+0.0f, denorm, +0.0f, -0.0f};
  EXPECT_TRUE(same_bits(out, expected_total));
  // Ascending [8, 32): -0.0 0x7FFFFFFF reads as 0x80000000 (field 0x800000), tying with
  // +0.0 and with +denorm_min (0x80000001, field 0x800000); all in input order.
  stable_sort_oracle<float_order::signed_zero_equal>(in.data(), out.data(), in.size(), 8, 32, false);
  EXPECT_TRUE(same_bits(out, in));
}

template <class I>
class IntegerKeys : public ::testing::Test {};
using IntegerTypes = ::testing::Types<std::uint32_t, std::int32_t, std::uint64_t, std::int64_t>;
TYPED_TEST_SUITE(IntegerKeys, IntegerTypes);

TYPED_TEST(IntegerKeys, SignedZeroEqualHasNoEffect) {
  using I = TypeParam;
  using B = typename s::radix_traits<I>::bits_type;
  const B high = B{1} << (sizeof(B) * 8 - 1);
  std::mt19937_64 g(5);
  // Keys whose transformed words are 0x7F..F, 0x80..0 and neighbours, among random ones.
  const B words[] = {static_cast<B>(high - 1), high, static_cast<B>(high - 2), static_cast<B>(high + 1)};
  std::vector<I> keys(30000);
  for (auto& k : keys)
    k = s::radix_traits<I>::from_bits(g() % 2 ? words[g() % 4] : static_cast<B>(g()));
  for (bool desc : {false, true})
    for (range r : {range{0, 0}, range{8, 0}, range{0, 8}}) {
      std::vector<I> a(keys.size()), b(keys.size()), c(keys.size());
      stable_sort_oracle<float_order::total_order>(keys.data(), a.data(), keys.size(), r.begin, r.end, desc);
      stable_sort_oracle<float_order::signed_zero_equal>(keys.data(), b.data(), keys.size(), r.begin, r.end, desc);
      s::cpu::sort_keys<float_order::signed_zero_equal>(keys.data(), c.data(), keys.size(), r.begin, r.end, desc);
      EXPECT_EQ(a, b);
      EXPECT_EQ(a, c);
    }
}

}  // namespace
