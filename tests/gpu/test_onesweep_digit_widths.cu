// Tests of the Onesweep GPU radix sort (lib/include/onepass/sort/onesweep.cuh): every
// digit width 5..9 (keys and pairs, both orders, sizes 1, tile +- 1 and several tiles)
// and small portions through detail::plan (the chaining of portions' digit starts).
// Skipped (GTEST_SKIP) without a CUDA device. Helpers: onesweep_test_support.cuh.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onesweep_test_support.cuh"

namespace {

template <unsigned D>
void check_digit_width() {
  std::uint64_t seed = 100 + D;
  for (std::size_t n : {std::size_t{1}, tile32 - 1, tile32 + 1, std::size_t{150001}}) {
    for (bool descending : {false, true}) {
      config c;
      c.descending = descending;
      check<D, std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), c, "u32 D");
      check<D, std::uint32_t>(make_keys<std::uint32_t>(pattern::entropy, n, ++seed, 3), c, "u32 q=3 D");
      check<D, std::uint64_t, std::uint64_t>(make_keys<std::uint64_t>(pattern::random, n, ++seed), c, "u64 D");
      check<D, float>(make_keys<float>(pattern::random, n, ++seed), c, "float D");
      c.begin_bit = 3;
      c.end_bit = 29;
      c.double_buffer = true;
      check<D, std::int32_t, std::uint32_t>(make_keys<std::int32_t>(pattern::random, n, ++seed), c, "i32 [3,29) D");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(Onesweep, DigitWidth5) { check_digit_width<5>(); }
TEST_F(Onesweep, DigitWidth6) { check_digit_width<6>(); }
TEST_F(Onesweep, DigitWidth7) { check_digit_width<7>(); }
TEST_F(Onesweep, DigitWidth8) { check_digit_width<8>(); }
TEST_F(Onesweep, DigitWidth9) { check_digit_width<9>(); }

// Small portions through detail::plan: the last tile of each portion hands the digit
// starts to the next portion (paper §4). Boundaries +- 1 and partial tiles.
TEST_F(Onesweep, SmallPortions) {
  std::uint64_t seed = 500;
  for (std::uint64_t portion : {std::uint64_t{1000}, std::uint64_t{tile32}, std::uint64_t{2 * tile32 + 5}}) {
    for (std::size_t n : {std::size_t(portion - 1), std::size_t(portion), std::size_t(portion + 1),
                          std::size_t(5 * portion + 3)}) {
      for (bool descending : {false, true}) {
        config c;
        c.descending = descending;
        c.portion = portion;
        check<8, std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), c, "u32 portions");
        check<8, std::uint32_t>(make_keys<std::uint32_t>(pattern::few_distinct, n, ++seed), c, "u32 portions few");
        check<8, double, std::uint64_t>(make_keys<double>(pattern::entropy, n, ++seed, 2), c, "double portions");
        check<5, std::uint64_t, std::uint32_t>(make_keys<std::uint64_t>(pattern::random, n, ++seed), c,
                                               "u64 D=5 portions");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
