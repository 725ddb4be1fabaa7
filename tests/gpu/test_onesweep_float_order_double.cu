// Onesweep's float_order option with double keys (the cases of
// test_onesweep_float_order.cu's file comment), detail::plan with small portions, and
// 2^25 + 1000 keys (the crowded places' launch pair; label gpu_long). Skipped
// (GTEST_SKIP, with a message) without a CUDA device. Helpers:
// onesweep_float_order_support.cuh.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "onesweep_float_order_support.cuh"

namespace {

TEST_F(OnesweepFloatOrder, DoubleSmall) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}}) check_size<double>(n, true, every_input());
}
TEST_F(OnesweepFloatOrder, Double100k) { check_size<double>(100000, true, every_input()); }
TEST_F(OnesweepFloatOrder, Double3M) {
  check_size<double>(3000000, false,
                     {fk::input::specials, fk::input::mostly_zeros, fk::input::alternating_zeros,
                      fk::input::all_one_nan, fk::input::zeros_and_denormals, fk::input::random_with_specials});
}

/// detail::plan with Order and small portions (the chaining of digit starts between
/// portions) against CUB.
TEST_F(OnesweepFloatOrder, SmallPortionsThroughThePlan) {
  using plan = os::detail::plan<8, double, os::detail::no_values, os::detail::plan<8, double>::policy,
                                float_order::signed_zero_equal>;
  const auto keys = fk::make_keys<double>(fk::input::specials, 100000, 9);
  for (bool desc : {false, true}) {
    const std::size_t n = keys.size();
    dev k0(n * sizeof(double)), k1(n * sizeof(double));
    upload(k0.as<double>(), keys);
    const std::uint64_t portion = 2 * plan::policy::tile_items + 5;
    plan p(n, 0, 64, desc, portion);
    dev temp(p.temp_bytes());
    p.bind(temp.p);
    p.histogram(k0.as<double>(), 0);
    p.exclusive_sum(0);
    double* buffers[2] = {k0.as<double>(), k1.as<double>()};
    int sel = 0;
    for (unsigned place = 0; place < p.num_places(); ++place, sel ^= 1)
      p.binning_pass(place, buffers[sel], buffers[sel ^ 1], nullptr, nullptr, 0);
    check_cuda(cudaDeviceSynchronize(), "plan sort");
    sorted<double, std::uint32_t> got;
    got.keys = download(buffers[sel], n);
    const auto cub = cub_sort<double, std::uint32_t>(keys, nullptr, 0, 64, desc, api::out_of_place);
    const std::string d = difference(got, cub);
    ASSERT_TRUE(d.empty()) << "plan, portions of " << portion << " keys, " << (desc ? "descending" : "ascending")
                           << ": " << d;
  }
}

/// 2^25 + 1000 keys, mostly zeros: above pair_min_items, so the atomicOr kernel and its
/// match_any twin are both launched (crowded places take the latter), keys-only float
/// and double. Compared with CUB only (the CPU oracle would take seconds).
TEST_F(OnesweepFloatOrder, CrowdedPlacesAboveTwoToThe25) {
  const std::size_t n = (std::size_t{1} << 25) + 1000;
  for (bool desc : {false, true}) {
    {
      const auto keys = fk::make_keys<float>(fk::input::mostly_zeros, n, 21);
      const auto got = ours<variant::signed_zero_equal, float, std::uint32_t>(keys, nullptr, 0, 32, desc,
                                                                              api::out_of_place);
      const auto cub = cub_sort<float, std::uint32_t>(keys, nullptr, 0, 32, desc, api::out_of_place);
      const std::string d = difference(got, cub);
      ASSERT_TRUE(d.empty()) << "float 2^25+1000 " << (desc ? "descending" : "ascending") << ": " << d;
    }
    {
      const auto keys = fk::make_keys<double>(fk::input::mostly_zeros, n, 22);
      const auto got = ours<variant::signed_zero_equal, double, std::uint32_t>(keys, nullptr, 0, 64, desc,
                                                                               api::double_buffer);
      const auto cub = cub_sort<double, std::uint32_t>(keys, nullptr, 0, 64, desc, api::double_buffer);
      const std::string d = difference(got, cub);
      ASSERT_TRUE(d.empty()) << "double 2^25+1000 " << (desc ? "descending" : "ascending") << ": " << d;
    }
  }
}

}  // namespace
