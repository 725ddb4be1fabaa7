// The walking permutation (cycle walking over VariablePhilox, shuffle/walking_permutation.hpp)
// and its CPU batches (shuffle/cpu_walking.hpp): a permutation of [0, N) for every N, its
// inverse, the batch equal to the element-wise walk, strided reads, the exact mean cost 2^b / N,
// the walk-length bound, the shuffle and unshuffle, the range, and the argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "onepass/bits.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/walking_permutation.hpp"

namespace {

using onepass::shuffle::walking_permutation;

const std::vector<std::uint64_t> sizes = {1, 2, 3, 5, 8, 9, 16, 17, 100, 1000, 4096, 4097, (1u << 16) + 1, 1u << 16,
                                          (1u << 20) + 1};

TEST(WalkingPermutation, IsAPermutationWithItsInverse) {
  for (std::uint64_t n : sizes) {
    for (std::uint64_t seed : {0ull, 1ull, 0xdeadbeefull}) {
      const auto sigma = walking_permutation::for_length(n, seed);
      std::vector<char> seen(n, 0);
      for (std::uint64_t j = 0; j < n; ++j) {
        const std::uint64_t y = sigma(j);
        ASSERT_LT(y, n) << "n " << n;
        ASSERT_FALSE(seen[y]) << "n " << n << " image " << y << " twice";
        seen[y] = 1;
        ASSERT_EQ(sigma.inverse(y), j) << "n " << n;
      }
    }
  }
}

TEST(WalkingPermutation, UsesTheShufflesBijectionAndDiffersBySeed) {
  const std::uint64_t n = 1000;
  const auto a = walking_permutation::for_length(n, 1), b = walking_permutation::for_length(n, 2);
  EXPECT_EQ(a.domain_bits(), onepass::bijection::schedule_domain_bits(n));
  const auto f = onepass::bijection::variable_philox::for_length(n, 1);
  for (unsigned i = 0; i < f.rounds(); ++i) EXPECT_EQ(a.bijection().key(i), f.key(i));
  std::size_t same = 0;
  for (std::uint64_t j = 0; j < n; ++j) same += a(j) == b(j);
  EXPECT_LT(same, 20u);  // two independent permutations share ~1 fixed position on average
  // sigma(j) is the first of g(j), g(g(j)), ... below n, g = twist o f (0 and 1 swapped after f
  // when bit 31 of round key 0 is set).
  const std::uint64_t swap = (f.key(0) >> 31) & 1u;
  EXPECT_EQ(a.swap01(), swap);
  auto g = [&](std::uint64_t x) {
    const std::uint64_t y = f(x);
    return y < 2 ? y ^ swap : y;
  };
  for (std::uint64_t j = 0; j < n; ++j) {
    std::uint64_t y = g(j);
    while (y >= n) y = g(y);
    ASSERT_EQ(a(j), y);
  }
}

// Every VariablePhilox bijection is an even permutation; the walk's twist makes sigma even or
// odd with equal chance. At n = 16 (sigma = the twisted f itself) and n = 5, over 4000 seeds,
// the share of odd permutations is 1/2 within 5 standard errors (0.04); without the twist it
// is 0 at n = 16 and 0.54 at n = 5.
TEST(WalkingPermutation, OddAndEvenWithEqualChance) {
  for (std::uint64_t n : {16ull, 5ull, 12ull}) {
    const int seeds = 4000;
    int odd = 0;
    for (int s = 0; s < seeds; ++s) {
      const auto sigma = walking_permutation::for_length(n, static_cast<std::uint64_t>(s) * 7919 + 1);
      std::vector<char> seen(n, 0);
      std::uint64_t cycles = 0;
      for (std::uint64_t j = 0; j < n; ++j) {
        if (seen[j]) continue;
        ++cycles;
        for (std::uint64_t y = j; !seen[y]; y = sigma(y)) seen[y] = 1;
      }
      odd += static_cast<int>((n - cycles) & 1);  // parity = (n - cycles) mod 2
    }
    EXPECT_NEAR(static_cast<double>(odd) / seeds, 0.5, 0.04) << "n " << n;
  }
}

// Over all positions the walks visit every element of the domain once, except the elements
// of the walked bijection's cycles that avoid [0, N) altogether: the total number of evaluations is 2^b minus
// those, so the mean is at most 2^b / N. No walk exceeds 2^b - N + 1.
TEST(WalkingPermutation, MeanCostIsAtMostDomainOverItemsAndWalksAreBounded) {
  for (std::uint64_t n : {5ull, 9ull, 100ull, 1025ull, 65536ull, 65537ull, 1000003ull}) {
    const auto sigma = walking_permutation::for_length(n, 7);
    const auto& f = sigma.bijection();
    const std::uint64_t domain = std::uint64_t{1} << sigma.domain_bits();
    std::vector<char> visited(domain, 0);
    std::uint64_t total = 0, longest = 0;
    for (std::uint64_t j = 0; j < n; ++j) {
      std::uint64_t k = 0;
      ASSERT_EQ(sigma.walk(j, k), sigma(j));
      total += k;
      longest = std::max(longest, k);
      std::uint64_t y = j;
      do {
        y = sigma.twist(f(y));
        ASSERT_FALSE(visited[y]) << "n " << n << ": " << y << " on two walks";
        visited[y] = 1;
      } while (y >= n);
    }
    std::uint64_t unvisited = 0;
    for (std::uint64_t x = 0; x < domain; ++x) {
      if (visited[x]) continue;
      ++unvisited;
      // x lies on a cycle of f with no element below n.
      std::uint64_t y = x;
      do {
        ASSERT_GE(y, n) << "n " << n;
        y = sigma.twist(f(y));
      } while (y != x);
    }
    EXPECT_EQ(total + unvisited, domain) << "n " << n;
    EXPECT_LE(longest, domain - n + 1) << "n " << n;
  }
}

TEST(WalkingIndices, BatchEqualsTheElementwiseWalk) {
  for (std::uint64_t n : sizes) {
    const auto sigma = walking_permutation::for_length(n, 42, 24);
    std::vector<std::uint64_t> out(n), inv(n);
    onepass::shuffle::cpu::walking_indices(out.data(), 0, 1, n, sigma);
    onepass::shuffle::cpu::walking_inverse_indices(inv.data(), 0, 1, n, sigma);
    for (std::uint64_t j = 0; j < n; ++j) {
      ASSERT_EQ(out[j], sigma(j)) << "n " << n << " j " << j;
      ASSERT_EQ(inv[j], sigma.inverse(j)) << "n " << n << " j " << j;
    }
  }
}

TEST(WalkingIndices, OtherRoundCountsAndOddDomains) {
  for (unsigned rounds : {1u, 5u, 24u, 64u}) {
    for (std::uint64_t n : {3ull, 77ull, 5000ull, 70000ull}) {
      const auto sigma = walking_permutation::for_length(n, rounds * 13, rounds);
      std::vector<std::uint64_t> out(n);
      onepass::shuffle::cpu::walking_indices(out.data(), 0, 1, n, sigma);
      for (std::uint64_t j = 0; j < n; ++j) ASSERT_EQ(out[j], sigma(j));
    }
  }
}

// A rank r of P reads positions r, r + P, ... (mod N for the padding): interleaving the
// ranks' reads gives the global order, whatever P.
TEST(WalkingIndices, StridedReadsInterleaveToTheGlobalOrder) {
  const std::uint64_t n = 10007;
  const auto sigma = walking_permutation::for_length(n, 3);
  std::vector<std::uint64_t> global(n + 9);
  onepass::shuffle::cpu::walking_indices(global.data(), 0, 1, global.size(), sigma);  // positions past n wrap
  for (std::uint64_t p = 0; p < global.size(); ++p) ASSERT_EQ(global[p], sigma(p % n));
  for (std::uint64_t ranks = 1; ranks <= 8; ++ranks) {
    const std::uint64_t per_rank = (n + ranks - 1) / ranks;
    for (std::uint64_t r = 0; r < ranks; ++r) {
      std::vector<std::uint64_t> mine(per_rank);
      onepass::shuffle::cpu::walking_indices(mine.data(), r, ranks, per_rank, sigma);
      for (std::uint64_t k = 0; k < per_rank; ++k) ASSERT_EQ(mine[k], global[r + k * ranks]) << "P " << ranks;
    }
  }
  // The range form reads the same.
  const onepass::shuffle::walking_range range(sigma, 2, 3, 100);
  ASSERT_EQ(range.size(), 100u);
  std::uint64_t k = 0;
  for (std::uint64_t v : range) ASSERT_EQ(v, global[2 + 3 * k++]);
  EXPECT_EQ(range.end() - range.begin(), 100);
  EXPECT_EQ(range.begin()[7], global[2 + 21]);
}

TEST(WalkingIndices, HugeDomains) {
  // N near 2^63 and the 3e9: spot checks of the batch against the element walk.
  for (std::uint64_t n : std::vector<std::uint64_t>{3000000000ull, (std::uint64_t{1} << 40) + 1, std::uint64_t{1} << 63}) {
    const auto sigma = walking_permutation::for_length(n, 11);
    std::vector<std::uint64_t> out(4096);
    const std::uint64_t first = n - 2000;  // crosses the wrap to position 0
    onepass::shuffle::cpu::walking_indices(out.data(), first, 1, out.size(), sigma);
    for (std::uint64_t k = 0; k < out.size(); ++k) {
      const std::uint64_t y = sigma((first + k) % n);
      ASSERT_EQ(out[k], y);
      ASSERT_LT(y, n);
      ASSERT_EQ(sigma.inverse(y), (first + k) % n);
    }
  }
}

TEST(WalkingShuffle, ShuffleThenUnshuffleIsIdentity) {
  for (std::uint64_t n : {0ull, 1ull, 17ull, 4097ull, 100000ull}) {
    const auto sigma = walking_permutation::for_length(n, 5);
    std::vector<double> x(n), y(n), z(n);
    for (std::uint64_t i = 0; i < n; ++i) x[i] = 0.5 * static_cast<double>(i);
    onepass::shuffle::cpu::walking_shuffle(x.data(), y.data(), n, sigma);
    for (std::uint64_t j = 0; j < n; ++j) ASSERT_EQ(y[j], x[sigma(j)]);
    onepass::shuffle::cpu::walking_unshuffle(y.data(), z.data(), n, sigma);
    EXPECT_EQ(z, x);
  }
}

using onepass::testing::error_of;

TEST(WalkingPermutation, BadArgumentsAreNamed) {
  using onepass::bijection::variable_philox;
  EXPECT_NE(error_of([] { walking_permutation(17, variable_philox::for_length(16, 1)); }).find("num_items"),
            std::string::npos);
  EXPECT_NE(error_of([] { walking_permutation::for_length((std::uint64_t{1} << 63) + 1, 1); }).find("num_items"),
            std::string::npos);
  const auto sigma = walking_permutation::for_length(100, 1);
  std::vector<std::uint64_t> out(10, 7);
  EXPECT_NE(error_of([&] { onepass::shuffle::cpu::walking_indices(out.data(), 0, 0, 10, sigma); }).find("stride"),
            std::string::npos);
  EXPECT_NE(error_of([&] { onepass::shuffle::cpu::walking_indices(nullptr, 0, 1, 10, sigma); }).find("out"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { onepass::shuffle::cpu::walking_indices(out.data(), ~0ull - 3, 2, 10, sigma); }).find("count"),
      std::string::npos);
  const auto empty = walking_permutation::for_length(0, 1);
  EXPECT_NE(error_of([&] { onepass::shuffle::cpu::walking_indices(out.data(), 0, 1, 1, empty); }).find("count"),
            std::string::npos);
  EXPECT_EQ(out, std::vector<std::uint64_t>(10, 7));  // untouched
  std::vector<int> a(100), b(99);
  EXPECT_NE(
      error_of([&] { onepass::shuffle::cpu::walking_shuffle(a.data(), b.data(), 99, sigma); }).find("num_items"),
      std::string::npos);
  EXPECT_NE(
      error_of([&] { onepass::shuffle::cpu::walking_shuffle(a.data(), a.data() + 1, 100, sigma); }).find("overlap"),
      std::string::npos);
  EXPECT_NE(error_of([&] { onepass::shuffle::walking_range(sigma, 0, 0, 3); }).find("stride"), std::string::npos);
}

TEST(EpochSeed, DistinctPerEpochAndStable) {
  using onepass::shuffle::epoch_seed;
  std::vector<std::uint64_t> s;
  for (std::uint64_t e = 0; e < 1000; ++e) s.push_back(epoch_seed(12345, e));
  std::sort(s.begin(), s.end());
  EXPECT_EQ(std::unique(s.begin(), s.end()), s.end());
  static_assert(epoch_seed(1, 2) == epoch_seed(1, 2));
  EXPECT_NE(epoch_seed(1, 0), epoch_seed(2, 0));
}

}  // namespace
