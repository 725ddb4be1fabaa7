// Onesweep's float_order option (lib/include/onepass/sort/onesweep.cuh, key_traits.hpp)
// against cub::DeviceRadixSort and the CPU oracle, on adversarial float and double keys
// (tests/cpu/float_order_inputs.hpp: zeros of both signs in mixed order, +-inf, NaNs
// with payloads and both signs, denormals, all-equal keys, mostly zeros):
//   - onesweep::sort_keys / sort_pairs<float_order::signed_zero_equal> equal
//     cub::DeviceRadixSort::SortKeys / SortPairs / SortKeysDescending /
//     SortPairsDescending BIT FOR BIT (keys and values; values = input index, 4 and 8
//     bytes), out-of-place against CUB's in/out form and double_buffer against CUB's
//     DoubleBuffer form, ascending and descending, full and narrowed bit ranges, at
//     n = 1, 1000, 100000 and 3'000'000 (many tiles), and with DigitBits = 6, small
//     portions (detail::plan) and 2^25 + 1000 keys (the gated atomicOr / match_any
//     launch pair of crowded places).
//     One documented exception, CUB's own: for inputs of at most one CUB single-block
//     tile, CUB's single-tile path gives the zeros +0.0's key field in DESCENDING sorts
//     too (its onesweep path, and our option, -0.0's), which shows only under a bit range
//     narrower than the key. There (descending, narrowed range, n < 65536) CUB must equal
//     either ours or the single-tile model (fk::cub_single_tile_word); everywhere else
//     it must equal ours.
//   - The same sorts also equal the CPU oracle stable_sort_oracle<signed_zero_equal>.
//   - The default overloads (no Order) and float_order::total_order equal the CPU
//     oracle in IEEE totalOrder (-0.0 before +0.0).
// Skipped (GTEST_SKIP, with a message) without a CUDA device.
// Float keys, DigitBits 6 and integer keys here; double keys, small portions and the
// crowded places in test_onesweep_float_order_double.cu (helpers: onesweep_float_order_support.cuh).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "onesweep_float_order_support.cuh"

namespace {

TEST_F(OnesweepFloatOrder, FloatSmall) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}}) check_size<float>(n, true, every_input());
}
TEST_F(OnesweepFloatOrder, Float100k) { check_size<float>(100000, true, every_input()); }
TEST_F(OnesweepFloatOrder, Float3M) {
  check_size<float>(3000000, false,
                    {fk::input::specials, fk::input::mostly_zeros, fk::input::alternating_zeros,
                     fk::input::all_negative_zero, fk::input::zeros_and_denormals, fk::input::random_with_specials});
}

/// DigitBits = 6 (five or six passes; the narrowest last place) against CUB.
TEST_F(OnesweepFloatOrder, SixBitDigits) {
  for (bool desc : {false, true})
    for (auto r : {std::pair<unsigned, unsigned>{0, 32}, std::pair<unsigned, unsigned>{8, 32}}) {
      const auto keys = fk::make_keys<float>(fk::input::mostly_zeros, 100000, 7);
      std::vector<std::uint32_t> values(keys.size());
      std::iota(values.begin(), values.end(), 0u);
      for (api a : {api::out_of_place, api::double_buffer}) {
        const auto got = ours<variant::signed_zero_equal, float, std::uint32_t, 6>(keys, &values, r.first, r.second,
                                                                                   desc, a);
        const auto cub = cub_sort<float, std::uint32_t>(keys, &values, r.first, r.second, desc, a);
        const std::string d = difference(got, cub);
        ASSERT_TRUE(d.empty()) << "DigitBits 6 " << (desc ? "descending" : "ascending") << ": " << d;
      }
    }
}

/// Integer keys accept the option and sort as without it.
TEST_F(OnesweepFloatOrder, IntegerKeysAreUnaffected) {
  std::mt19937_64 g(3);
  std::vector<std::int32_t> keys(50000);
  for (auto& k : keys) k = static_cast<std::int32_t>(g() % 3 == 0 ? std::uint32_t{0x7FFFFFFF} : g());
  for (bool desc : {false, true}) {
    const auto a = ours<variant::signed_zero_equal, std::int32_t, std::uint32_t>(keys, nullptr, 0, 32, desc,
                                                                                 api::out_of_place);
    const auto b = ours<variant::default_overload, std::int32_t, std::uint32_t>(keys, nullptr, 0, 32, desc,
                                                                                api::out_of_place);
    EXPECT_EQ(a.keys, b.keys);
  }
}

}  // namespace
