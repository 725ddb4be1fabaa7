// Bijectivity and inverse tests of VariablePhilox and LCG (paper §3.1-3.2):
// exhaustive for every domain 2^1 .. 2^20, sampled for larger domains up to 2^64.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"

namespace {

using onepass::bijection::lcg;
using onepass::bijection::variable_philox;

template <class Bijection>
void expect_exhaustive_bijection(const Bijection& f) {
  const unsigned bits = f.domain_bits();
  const std::uint64_t n = std::uint64_t{1} << bits;
  std::vector<bool> seen(n, false);
  for (std::uint64_t x = 0; x < n; ++x) {
    const std::uint64_t y = f(x);
    ASSERT_LT(y, n) << "bits " << bits << " x " << x;
    ASSERT_FALSE(seen[y]) << "bits " << bits << ": two inputs map to " << y;
    seen[y] = true;
    ASSERT_EQ(f.inverse(y), x) << "bits " << bits;
  }
}

TEST(VariablePhilox, ExhaustiveBijectionAndInverseUpTo2Pow20) {
  for (unsigned bits = 1; bits <= 20; ++bits) {
    for (unsigned rounds : {1u, 2u, 7u, 24u}) {
      expect_exhaustive_bijection(variable_philox(bits, std::mt19937_64(bits * 1000 + rounds), rounds));
    }
  }
}

TEST(Lcg, ExhaustiveBijectionAndInverseUpTo2Pow20) {
  for (unsigned bits = 1; bits <= 20; ++bits) expect_exhaustive_bijection(lcg(bits, std::mt19937_64(bits)));
}

template <class Bijection>
void expect_sampled_inverse(const Bijection& f) {
  const unsigned bits = f.domain_bits();
  std::mt19937_64 g(bits);
  for (int k = 0; k < 20000; ++k) {
    const std::uint64_t x = g() & onepass::low_mask(bits);
    const std::uint64_t y = f(x);
    ASSERT_EQ(y & ~onepass::low_mask(bits), 0u) << "bits " << bits;
    ASSERT_EQ(f.inverse(y), x) << "bits " << bits;
  }
}

TEST(VariablePhilox, InverseOnLargeDomainsUpTo2Pow64) {
  for (unsigned bits = 21; bits <= 64; ++bits) expect_sampled_inverse(variable_philox(bits, std::mt19937_64(bits)));
}

TEST(Lcg, InverseOnLargeDomainsUpTo2Pow64) {
  for (unsigned bits = 21; bits <= 64; ++bits) expect_sampled_inverse(lcg(bits, std::mt19937_64(bits)));
}

TEST(VariablePhilox, KeysAreLow32BitsOfMt19937_64) {
  std::mt19937_64 g(42);
  const auto f = variable_philox::for_length(1000, 42, 24);
  EXPECT_EQ(f.domain_bits(), 10u);
  for (unsigned i = 0; i < 24; ++i) EXPECT_EQ(f.key(i), static_cast<std::uint32_t>(g())) << i;
}

TEST(VariablePhilox, ScheduleDomainBits) {
  using onepass::bijection::schedule_domain_bits;
  EXPECT_EQ(schedule_domain_bits(0), 4u);
  EXPECT_EQ(schedule_domain_bits(16), 4u);
  EXPECT_EQ(schedule_domain_bits(17), 5u);
  EXPECT_EQ(schedule_domain_bits((1ull << 40) + 1), 41u);
  EXPECT_EQ(schedule_domain_bits(~0ull), 64u);
}

TEST(VariablePhilox, DifferentSeedsGiveDifferentPermutations) {
  const auto a = variable_philox::for_length(1 << 16, 1), b = variable_philox::for_length(1 << 16, 2);
  int same = 0;
  for (std::uint64_t x = 0; x < 1024; ++x) same += a(x) == b(x);
  EXPECT_LT(same, 10);
}

TEST(Bijections, RejectBadArguments) {
  EXPECT_THROW(variable_philox(0, std::mt19937_64(1)), onepass::error);
  EXPECT_THROW(variable_philox(65, std::mt19937_64(1)), onepass::error);
  EXPECT_THROW(variable_philox(10, std::mt19937_64(1), 0), onepass::error);
  EXPECT_THROW(variable_philox(10, std::mt19937_64(1), 65), onepass::error);
  EXPECT_THROW(lcg(0, std::mt19937_64(1)), onepass::error);
  try {
    variable_philox(10, std::mt19937_64(1), 0);
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find("rounds"), std::string::npos);
  }
}

}  // namespace

namespace {
TEST(VariablePhilox, ImagesOfRunEqualSingleEvaluations) {
  for (unsigned bits : {1u, 4u, 7u, 20u, 33u, 64u}) {
    const variable_philox f(bits, std::mt19937_64(bits), 24);
    for (std::uint64_t first : {0ull, 8ull, 1000ull}) {
      std::uint64_t w[8];
      f.images_of_run<8>(first, w);  // w: std::uint64_t[8]
      for (int k = 0; k < 8; ++k) {
        const std::uint64_t x = (first + k) & onepass::low_mask(bits);
        if (x != first + k) continue;  // past the end of a tiny domain
        EXPECT_EQ(w[k], f(x)) << bits << " " << first + k;
      }
    }
  }
}
}  // namespace
