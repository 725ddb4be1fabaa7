// random/mt19937_64_prefix.hpp against std::mt19937_64: the first outputs bit for bit,
// and the VariablePhilox round keys the shuffle's schedule draws from them.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/random/mt19937_64_prefix.hpp"

namespace {

TEST(Mt19937Prefix, EqualsTheStandardEngine) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5489}, std::uint64_t{0x123456789abcdefull},
                             ~std::uint64_t{0}, std::uint64_t{1} << 63}) {
    std::mt19937_64 engine(seed);
    std::uint64_t got[64];
    onepass::random::mt19937_64_prefix(seed, 64, got);
    for (unsigned k = 0; k < 64; ++k) ASSERT_EQ(got[k], engine()) << "seed " << seed << ", output " << k;
  }
}

TEST(Mt19937Prefix, ShorterPrefixesAndClamp) {
  std::mt19937_64 engine(2026);
  std::uint64_t want[64];
  for (auto& w : want) w = engine();
  for (unsigned count : {0u, 1u, 2u, 24u, 63u}) {
    std::uint64_t got[64] = {};
    onepass::random::mt19937_64_prefix(2026, count, got);
    for (unsigned k = 0; k < count; ++k) EXPECT_EQ(got[k], want[k]) << "count " << count << ", output " << k;
    for (unsigned k = count; k < 64; ++k) EXPECT_EQ(got[k], 0u) << "count " << count << " wrote output " << k;
  }
  std::uint64_t got[65] = {};
  onepass::random::mt19937_64_prefix(2026, 100, got);  // clamped to 64
  EXPECT_EQ(got[63], want[63]);
  EXPECT_EQ(got[64], 0u);
}

TEST(Mt19937Prefix, GivesTheShufflesRoundKeys) {
  for (std::uint64_t seed : {std::uint64_t{7}, std::uint64_t{0xfeedfacecafebeefull}}) {
    for (unsigned rounds : {1u, 24u, 64u}) {
      const auto f = onepass::bijection::variable_philox::for_length(1000, seed, rounds);
      std::uint64_t words[64];
      onepass::random::mt19937_64_prefix(seed, rounds, words);
      for (unsigned i = 0; i < rounds; ++i) EXPECT_EQ(f.key(i), static_cast<std::uint32_t>(words[i]));
    }
  }
}

}  // namespace
