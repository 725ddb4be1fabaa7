// CPU tests of the shuffle family's names (issue 31: the device as a namespace,
// shuffle::cpu:: / shuffle::gpu::, one contract per name on both devices, the element count
// num_items): cpu::bijective_shuffle is out of place (in, out, num_items, f) as
// gpu::bijective_shuffle, and cpu::bijective_shuffle_in_place gives the same permutation in
// place; every deprecated alias in onepass::shuffle (cpu_shuffle.hpp,
// cpu_segmented_shuffle.hpp, cpu_walking.hpp, cpu_images.hpp; removed after one release)
// still compiles and gives output identical to its new name, and the same errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "test_support.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_images.hpp"
#include "onepass/shuffle/cpu_segmented_shuffle.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/walking_permutation.hpp"

namespace sh = onepass::shuffle;
using onepass::bijection::lcg;
using onepass::bijection::variable_philox;
using u64 = std::uint64_t;

namespace {

using onepass::testing::error_of;
using onepass::testing::same_bits;

// Not a power of two, larger than one oneTBB task of the scan (2^14 indices).
constexpr std::size_t num_items = 3 * 16384 + 77;

std::vector<u64> iota_vec(std::size_t n, u64 first = 1000) {
  std::vector<u64> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

}  // namespace

TEST(ShuffleNames, InPlaceEqualsOutOfPlace) {
  const auto in = iota_vec(num_items);
  for (unsigned rounds : {1u, 24u}) {
    const auto f = variable_philox::for_length(num_items, 17, rounds);
    std::vector<u64> out(num_items);
    sh::cpu::bijective_shuffle(in.data(), out.data(), num_items, f);
    auto data = in;
    sh::cpu::bijective_shuffle_in_place(data.data(), num_items, f);
    EXPECT_EQ(data, out) << "rounds " << rounds;
    EXPECT_NE(out, in);
    std::vector<u64> back(num_items);
    sh::cpu::bijective_unshuffle(out.data(), back.data(), num_items, f);
    EXPECT_EQ(back, in);
    sh::cpu::bijective_unshuffle_in_place(data.data(), num_items, f);
    EXPECT_EQ(data, in);
  }
  const auto g = lcg::for_length(num_items, 5);
  std::vector<u64> out(num_items);
  sh::cpu::bijective_shuffle(in.data(), out.data(), num_items, g);
  auto data = in;
  sh::cpu::bijective_shuffle_in_place(data.data(), num_items, g);
  EXPECT_EQ(data, out);
  // The seeded conveniences are the bijective shuffle with their bijection.
  std::vector<u64> seeded(num_items);
  sh::cpu::variable_philox_shuffle(in.data(), seeded.data(), num_items, 17, 24);
  sh::cpu::bijective_shuffle(in.data(), out.data(), num_items, variable_philox::for_length(num_items, 17, 24));
  EXPECT_EQ(seeded, out);
  sh::cpu::lcg_shuffle(in.data(), seeded.data(), num_items, 5);
  sh::cpu::bijective_shuffle(in.data(), out.data(), num_items, g);
  EXPECT_EQ(seeded, out);
  // Nothing to do, null allowed, for num_items = 0 in place too.
  sh::cpu::bijective_shuffle_in_place<u64>(nullptr, 0, g);
}

TEST(ShuffleNames, WalkingIndicesTakeTheGpuArgumentOrder) {
  // cpu::walking_indices(out, first, stride, count, sigma), as gpu::walking_indices.
  const sh::walking_permutation sigma = sh::walking_permutation::for_length(1000, 3);
  std::vector<u64> out(250), inverse(250);
  sh::cpu::walking_indices(out.data(), 7, 4, out.size(), sigma);
  sh::cpu::walking_inverse_indices(inverse.data(), 7, 4, inverse.size(), sigma);
  for (std::size_t k = 0; k < out.size(); ++k) {
    ASSERT_EQ(out[k], sigma((7 + 4 * k) % 1000)) << k;
    ASSERT_EQ(sigma(inverse[k]), (7 + 4 * k) % 1000) << k;
  }
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

TEST(ShuffleNames, DeprecatedBijectiveAliasesEqualNewNames) {
  const auto in = iota_vec(num_items);
  const auto f = variable_philox::for_length(num_items, 99, 24);
  std::vector<u64> want(num_items), got(num_items);
  // bijective_shuffle_copy -> cpu::bijective_shuffle (out of place).
  sh::cpu::bijective_shuffle(in.data(), want.data(), num_items, f);
  sh::bijective_shuffle_copy(in.data(), got.data(), num_items, f);
  EXPECT_EQ(got, want);
  // bijective_unshuffle_copy -> cpu::bijective_unshuffle.
  sh::cpu::bijective_unshuffle(in.data(), want.data(), num_items, f);
  sh::bijective_unshuffle_copy(in.data(), got.data(), num_items, f);
  EXPECT_EQ(got, want);
  // The old in-place bijective_shuffle -> cpu::bijective_shuffle_in_place.
  auto a = in, b = in;
  sh::cpu::bijective_shuffle_in_place(a.data(), num_items, f);
  sh::bijective_shuffle(b.data(), num_items, f);
  EXPECT_EQ(a, b);
  sh::cpu::bijective_unshuffle_in_place(a.data(), num_items, f);
  sh::bijective_unshuffle(b.data(), num_items, f);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, in);
  // The seeded conveniences, default and explicit rounds.
  sh::cpu::variable_philox_shuffle(in.data(), want.data(), num_items, 42);
  sh::variable_philox_shuffle_copy(in.data(), got.data(), num_items, 42);
  EXPECT_EQ(got, want);
  sh::cpu::variable_philox_shuffle(in.data(), want.data(), num_items, 42, 7);
  sh::variable_philox_shuffle_copy(in.data(), got.data(), num_items, 42, 7);
  EXPECT_EQ(got, want);
  sh::cpu::variable_philox_unshuffle(in.data(), want.data(), num_items, 42);
  sh::variable_philox_unshuffle_copy(in.data(), got.data(), num_items, 42);
  EXPECT_EQ(got, want);
  sh::cpu::variable_philox_unshuffle(in.data(), want.data(), num_items, 42, 7);
  sh::variable_philox_unshuffle_copy(in.data(), got.data(), num_items, 42, 7);
  EXPECT_EQ(got, want);
  sh::cpu::lcg_shuffle(in.data(), want.data(), num_items, 8);
  sh::lcg_shuffle_copy(in.data(), got.data(), num_items, 8);
  EXPECT_EQ(got, want);
  // The same errors: overlap and a bad rounds are rejected by the aliases as by the new names.
  EXPECT_THROW(sh::bijective_shuffle_copy(got.data(), got.data() + 1, 100, f), onepass::error);
  EXPECT_THROW(sh::cpu::bijective_shuffle(got.data(), got.data() + 1, 100, f), onepass::error);
  EXPECT_THROW(sh::variable_philox_shuffle_copy(in.data(), got.data(), 100, 1, 0), onepass::error);
  EXPECT_NE(error_of([&] { sh::bijective_shuffle_copy<u64>(nullptr, got.data(), 10, f); }).find("in"),
            std::string::npos);
}

TEST(ShuffleNames, DeprecatedSegmentedAliasesEqualNewNames) {
  const u64 rows = 37, length = 300, n = rows * length + 11;
  const auto in = iota_vec(n);
  std::vector<u64> offsets{0};  // ragged rows; the items past the last offset are copied
  for (u64 s = 1; s <= rows; ++s) offsets.push_back(offsets.back() + length - s % 3);
  const u64 segments = offsets.size() - 1;
  ASSERT_LE(offsets.back(), n);
  std::vector<u64> want(n), got(n);
  sh::cpu::segmented_shuffle(in.data(), want.data(), n, offsets.data(), segments, 5);
  sh::segmented_shuffle(in.data(), got.data(), n, offsets.data(), segments, 5);
  EXPECT_EQ(got, want);
  sh::cpu::segmented_unshuffle(in.data(), want.data(), n, offsets.data(), segments, 5, 9);
  sh::segmented_unshuffle(in.data(), got.data(), n, offsets.data(), segments, 5, 9);
  EXPECT_EQ(got, want);
  const u64 m = rows * length;
  std::vector<u64> want_rows(m), got_rows(m);
  sh::cpu::segmented_shuffle(in.data(), want_rows.data(), rows, length, 6);
  sh::segmented_shuffle(in.data(), got_rows.data(), rows, length, 6);
  EXPECT_EQ(got_rows, want_rows);
  sh::cpu::segmented_unshuffle(in.data(), want_rows.data(), rows, length, 6, 3);
  sh::segmented_unshuffle(in.data(), got_rows.data(), rows, length, 6, 3);
  EXPECT_EQ(got_rows, want_rows);
  EXPECT_THROW(sh::segmented_shuffle(in.data(), got.data(), n, offsets.data(), segments, 5, 0), onepass::error);
}

TEST(ShuffleNames, DeprecatedWalkingAliasesEqualNewNames) {
  const u64 n = 5000;
  const sh::walking_permutation sigma = sh::walking_permutation::for_length(n, 12);
  const auto in = iota_vec(n);
  std::vector<u64> want(n), got(n);
  sh::cpu::walking_shuffle(in.data(), want.data(), n, sigma);
  sh::walking_shuffle(in.data(), got.data(), n, sigma);
  EXPECT_EQ(got, want);
  sh::cpu::walking_unshuffle(in.data(), want.data(), n, sigma);
  sh::walking_unshuffle(in.data(), got.data(), n, sigma);
  EXPECT_EQ(got, want);
  // The old walking_indices keeps its old argument order (sigma first, out last).
  std::vector<u64> want_idx(700), got_idx(700);
  sh::cpu::walking_indices(want_idx.data(), 3, 7, want_idx.size(), sigma);
  sh::walking_indices(sigma, 3, 7, got_idx.size(), got_idx.data());
  EXPECT_EQ(got_idx, want_idx);
  sh::cpu::walking_inverse_indices(want_idx.data(), 3, 7, want_idx.size(), sigma);
  sh::walking_inverse_indices(sigma, 3, 7, got_idx.size(), got_idx.data());
  EXPECT_EQ(got_idx, want_idx);
  EXPECT_NE(error_of([&] { sh::walking_indices(sigma, 0, 0, 10, got_idx.data()); }).find("stride"), std::string::npos);
}

TEST(ShuffleNames, DeprecatedForEachImageEqualsNewName) {
  const u64 m = 70000;
  const auto f = variable_philox::for_length(m, 4, 24);
  std::vector<u64> want, got;
  sh::cpu::for_each_image(f, m, m - 5, [&](const u64* w, std::size_t c) { want.insert(want.end(), w, w + c); });
  sh::for_each_image(f, m, m - 5, [&](const u64* w, std::size_t c) { got.insert(got.end(), w, w + c); });
  EXPECT_EQ(want.size(), m - 5);
  EXPECT_EQ(got, want);
  // The stream is the permutation cpu::bijective_shuffle applies to 0, 1, ..., m - 1.
  const auto identity = iota_vec(m, 0);
  std::vector<u64> shuffled(m);
  sh::cpu::bijective_shuffle(identity.data(), shuffled.data(), m, f);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), shuffled.begin()));
}

#pragma GCC diagnostic pop
