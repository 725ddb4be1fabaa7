// The §5 statistics: permutation combinatorics against O(n^2) brute force, the
// chi-square test against textbook values, the Mallows-kernel closed forms against
// enumeration of all permutations, the MMD thresholds, and the parallel sampler
// (determinism, independence from the thread count, detection of bad shuffles).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <tbb/task_arena.h>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/stats/chi_square.hpp"
#include "onepass/stats/mmd.hpp"
#include "onepass/stats/permutation.hpp"
#include "onepass/stats/sampling.hpp"

namespace {

namespace st = onepass::stats;
using onepass::registry::shuffle_entry;
using onepass::registry::shuffle_params;

std::vector<std::uint64_t> identity(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  std::iota(v.begin(), v.end(), std::uint64_t{0});
  return v;
}

std::vector<std::uint64_t> random_permutation(std::size_t n, std::mt19937_64& g) {
  auto v = identity(n);
  std::shuffle(v.begin(), v.end(), g);
  return v;
}

std::uint64_t brute_inversions(const std::vector<std::uint64_t>& v) {
  std::uint64_t c = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j) c += v[i] > v[j];
  return c;
}

// The definition of n_dis in §5, pair by pair.
std::uint64_t brute_discordant(const std::vector<std::uint64_t>& s, const std::vector<std::uint64_t>& t) {
  std::uint64_t c = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = i + 1; j < s.size(); ++j)
      c += (s[i] < s[j] && t[i] > t[j]) || (s[i] > s[j] && t[i] < t[j]);
  return c;
}

// ---------------------------------------------------------------- permutation

TEST(Permutation, FactorialAndPairCount) {
  EXPECT_EQ(st::factorial(0), 1u);
  EXPECT_EQ(st::factorial(5), 120u);
  EXPECT_EQ(st::factorial(8), 40320u);
  EXPECT_EQ(st::factorial(20), 2432902008176640000ull);
  EXPECT_THROW(st::factorial(21), onepass::error);
  EXPECT_EQ(st::pair_count(0), 0u);
  EXPECT_EQ(st::pair_count(1), 0u);
  EXPECT_EQ(st::pair_count(5), 10u);
  EXPECT_EQ(st::pair_count(1000), 499500u);
}

TEST(Permutation, IsPermutation) {
  EXPECT_TRUE(st::is_permutation(std::vector<std::uint64_t>{}));
  EXPECT_TRUE(st::is_permutation(std::vector<std::uint64_t>{2, 0, 1}));
  EXPECT_FALSE(st::is_permutation(std::vector<std::uint64_t>{2, 0, 2}));
  EXPECT_FALSE(st::is_permutation(std::vector<std::uint64_t>{3, 0, 1}));
  EXPECT_FALSE(st::is_permutation(nullptr, 3));
}

TEST(Permutation, InversionsMatchBruteForce) {
  std::mt19937_64 g(7);
  for (std::size_t n : {0u, 1u, 2u, 3u, 15u, 16u, 17u, 33u, 100u, 257u, 1000u, 3001u}) {
    for (int rep = 0; rep < 5; ++rep) {
      const auto p = random_permutation(n, g);
      EXPECT_EQ(st::inversion_count(p), brute_inversions(p)) << "n=" << n;
    }
  }
  // Arbitrary values with ties: equal values are not inversions.
  std::uniform_int_distribution<std::uint64_t> small(0, 9);
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<std::uint64_t> v(200);
    for (auto& x : v) x = small(g);
    EXPECT_EQ(st::inversion_count(v), brute_inversions(v));
  }
  // Extremes: identity 0, reversal C(n, 2).
  auto rev = identity(1000);
  EXPECT_EQ(st::inversion_count(rev), 0u);
  std::reverse(rev.begin(), rev.end());
  EXPECT_EQ(st::inversion_count(rev), st::pair_count(1000));
}

TEST(Permutation, DiscordantPairsMatchBruteForce) {
  std::mt19937_64 g(11);
  st::permutation_workspace w;
  for (std::size_t n : {0u, 1u, 2u, 5u, 16u, 17u, 64u, 129u, 1000u}) {
    for (int rep = 0; rep < 5; ++rep) {
      const auto s = random_permutation(n, g);
      const auto t = random_permutation(n, g);
      const std::uint64_t expected = brute_discordant(s, t);
      EXPECT_EQ(st::discordant_pairs(s, t), expected) << "n=" << n;
      EXPECT_EQ(st::discordant_pairs(t, s), expected) << "symmetry, n=" << n;
      EXPECT_EQ(w.discordant(s.data(), t.data(), n), expected) << "workspace, n=" << n;
      EXPECT_EQ(st::discordant_pairs(s, s), 0u);
      EXPECT_EQ(st::discordant_pairs(identity(n), s), st::inversion_count(s)) << "n_dis(I, s) = inv(s)";
    }
  }
}

TEST(Permutation, DiscordantPairsRejectsNonPermutations) {
  EXPECT_THROW(st::discordant_pairs({0, 1, 1}, {0, 1, 2}), onepass::error);
  EXPECT_THROW(st::discordant_pairs({0, 1, 2}, {0, 1, 3}), onepass::error);
  EXPECT_THROW(st::discordant_pairs({0, 1, 2}, {0, 1}), onepass::error);
}

TEST(Permutation, LehmerRankIsLexicographicPosition) {
  for (std::size_t n : {1u, 2u, 3u, 5u, 7u}) {
    auto p = identity(n);
    std::uint64_t expected = 0;
    do {
      ASSERT_EQ(st::lehmer_rank(p), expected) << "n=" << n;
      ASSERT_EQ(st::permutation_from_rank(expected, n), p) << "n=" << n;
      ++expected;
    } while (std::next_permutation(p.begin(), p.end()));
    EXPECT_EQ(expected, st::factorial(n));
  }
  auto rev = identity(20);
  std::reverse(rev.begin(), rev.end());
  EXPECT_EQ(st::lehmer_rank(rev), st::factorial(20) - 1);
  EXPECT_EQ(st::lehmer_rank(identity(20)), 0u);
  std::mt19937_64 g(3);
  for (int rep = 0; rep < 100; ++rep) {
    const auto p = random_permutation(20, g);
    EXPECT_EQ(st::permutation_from_rank(st::lehmer_rank(p), 20), p);
  }
}

TEST(Permutation, LehmerRankRejectsBadInput) {
  EXPECT_THROW(st::lehmer_rank(identity(21)), onepass::error);
  EXPECT_THROW(st::lehmer_rank({0, 0, 1}), onepass::error);
  EXPECT_THROW(st::lehmer_rank({0, 5, 1}), onepass::error);
  EXPECT_THROW(st::permutation_from_rank(120, 5), onepass::error);
  EXPECT_THROW(st::permutation_from_rank(0, 21), onepass::error);
}

// ----------------------------------------------------------------- chi-square

TEST(ChiSquare, TextbookCriticalValues) {
  // Upper-tail quantiles from standard chi-square tables (the df = 120 row is the
  // often-quoted 158.950; the n = 5 test has df = 119, whose value 157.800 is
  // scipy.stats.chi2.ppf(0.99, 119) and agrees with Wilson-Hilferty to 0.02).
  EXPECT_NEAR(st::chi_square_critical_value(120, 0.01), 158.950, 0.001);
  EXPECT_NEAR(st::chi_square_critical_value(119, 0.01), 157.800, 0.001);
  const double z = 2.326348;  // standard normal upper 1% quantile
  const double c = 2.0 / (9 * 119);
  EXPECT_NEAR(st::chi_square_critical_value(119, 0.01), 119 * std::pow(1 - c + z * std::sqrt(c), 3), 0.05);
  EXPECT_NEAR(st::chi_square_critical_value(1, 0.05), 3.841, 0.001);
  EXPECT_NEAR(st::chi_square_critical_value(10, 0.01), 23.209, 0.001);
  EXPECT_NEAR(st::chi_square_critical_value(100, 0.05), 124.342, 0.001);
  // p-value at the critical value is alpha.
  EXPECT_NEAR(st::chi_square_p_value(st::chi_square_critical_value(119, 0.01), 119), 0.01, 1e-10);
  EXPECT_DOUBLE_EQ(st::chi_square_p_value(0, 119), 1.0);
}

TEST(ChiSquare, PerfectlyUniformCountsPass) {
  const std::vector<std::uint64_t> counts(120, 1000);
  const auto r = st::chi_square_permutations(counts, 5, 0.01);
  EXPECT_EQ(r.statistic, 0.0);
  EXPECT_EQ(r.degrees_of_freedom, 119u);
  EXPECT_EQ(r.samples, 120000u);
  EXPECT_EQ(r.cells, 120u);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  EXPECT_NEAR(r.critical_value, 157.800, 0.001);
  EXPECT_TRUE(r.passes);
}

TEST(ChiSquare, AllInOneCellFails) {
  std::vector<std::uint64_t> counts(120, 0);
  counts[17] = 120000;
  const auto r = st::chi_square_permutations(counts, 5, 0.01);
  // X^2 = ((N - E)^2 + 119 E^2) / E with E = N / 120, i.e. 119 N.
  EXPECT_NEAR(r.statistic, 119.0 * 120000, 1e-6);
  EXPECT_LT(r.p_value, 1e-100);
  EXPECT_FALSE(r.passes);
}

TEST(ChiSquare, HandComputedStatistic) {
  const auto r = st::chi_square_uniform({10, 20, 30}, 0.05);  // E = 20: (100 + 0 + 100) / 20
  EXPECT_DOUBLE_EQ(r.statistic, 10.0);
  EXPECT_EQ(r.degrees_of_freedom, 2u);
  EXPECT_NEAR(r.p_value, std::exp(-5.0), 1e-12);  // chi-square(2) tail is exp(-x/2)
  EXPECT_NEAR(r.critical_value, -2 * std::log(0.05), 1e-9);
  EXPECT_FALSE(r.passes);
}

TEST(ChiSquare, RejectsBadInput) {
  EXPECT_THROW(st::chi_square_uniform({5}, 0.01), onepass::error);
  EXPECT_THROW(st::chi_square_uniform({0, 0}, 0.01), onepass::error);
  EXPECT_THROW(st::chi_square_uniform({1, 2}, 0.0), onepass::error);
  EXPECT_THROW(st::chi_square_uniform({1, 2}, 1.0), onepass::error);
  EXPECT_THROW(st::chi_square_permutations(std::vector<std::uint64_t>(119, 1), 5, 0.01), onepass::error);
  EXPECT_THROW(st::chi_square_permutations(std::vector<std::uint64_t>(2, 1), 9, 0.01), onepass::error);
  EXPECT_THROW(st::chi_square_critical_value(0, 0.01), onepass::error);
}

// ----------------------------------------------------------- Mallows / MMD

TEST(Mallows, KernelValues) {
  EXPECT_DOUBLE_EQ(st::mallows_kernel(0, 5, 5.0), 1.0);
  EXPECT_DOUBLE_EQ(st::mallows_kernel(10, 5, 5.0), std::exp(-5.0));
  EXPECT_DOUBLE_EQ(st::mallows_kernel(3, 5, 5.0), std::exp(-1.5));
  EXPECT_DOUBLE_EQ(st::mallows_kernel(0, 1, 5.0), 1.0);
  EXPECT_THROW(st::mallows_kernel(11, 5, 5.0), onepass::error);
  EXPECT_THROW(st::mallows_kernel(1, 5, -1.0), onepass::error);
}

TEST(Mallows, ClosedFormMomentsEqualEnumeration) {
  for (double lambda : {5.0, 0.7, 12.0}) {
    for (std::size_t n = 1; n <= 7; ++n) {
      auto p = identity(n);
      double sum = 0, sum_sq = 0;
      do {
        const double k = st::mallows_kernel(brute_inversions(p), n, lambda);
        sum += k;
        sum_sq += k * k;
      } while (std::next_permutation(p.begin(), p.end()));
      const double count = static_cast<double>(st::factorial(n));
      const double mean = sum / count, mean_sq = sum_sq / count;
      const auto m = st::mallows_uniform_moments(n, lambda);
      EXPECT_NEAR(m.mean, mean, 1e-13) << "n=" << n << " lambda=" << lambda;
      EXPECT_NEAR(m.mean_square, mean_sq, 1e-13) << "n=" << n << " lambda=" << lambda;
      EXPECT_NEAR(m.variance, mean_sq - mean * mean, 1e-13) << "n=" << n << " lambda=" << lambda;
    }
  }
}

TEST(Mallows, ExpectationIsTheSameFromEveryPermutation) {
  // Right invariance: E_{σ' ~ U} K(σ, σ') does not depend on σ (n = 5, all 120 σ').
  const std::size_t n = 5;
  const double expected = st::mallows_uniform_moments(n, 5.0).mean;
  std::mt19937_64 g(5);
  for (int rep = 0; rep < 5; ++rep) {
    const auto sigma = random_permutation(n, g);
    auto tau = identity(n);
    double sum = 0;
    do sum += st::mallows_kernel(st::discordant_pairs(sigma, tau), n, 5.0);
    while (std::next_permutation(tau.begin(), tau.end()));
    EXPECT_NEAR(sum / 120, expected, 1e-14);
  }
}

TEST(Mallows, LargeNMomentsAreFiniteAndSensible) {
  for (std::size_t n : {100u, 1000u, 100000u}) {
    const auto m = st::mallows_uniform_moments(n, 5.0);
    // x = n_dis / C(n,2) has mean 1/2 and variance (2n+5) / (18 n (n-1)) ~ 1/(9n), so
    // by the delta method E K ~ e^{-2.5} (1 + 25/(18 n)) and Var K ~ 25 e^{-5} / (9 n).
    EXPECT_NEAR(m.mean / std::exp(-2.5), 1 + 25.0 / (18.0 * n), 2.0 / n) << n;
    EXPECT_NEAR(m.variance * n / (25 * std::exp(-5.0) / 9), 1.0, 0.1) << n;
    EXPECT_GT(m.variance, 0);
  }
  const auto constant = st::mallows_uniform_moments(1, 5.0);
  EXPECT_EQ(constant.mean, 1.0);
  EXPECT_EQ(constant.variance, 0.0);
}

TEST(Mmd, Thresholds) {
  EXPECT_NEAR(st::hoeffding_threshold(0.01, 1000000), std::sqrt(std::log(200.0) / 2e6), 1e-15);
  // sqrt(2) erf^-1(0.95) is the two-sided 5% normal quantile 1.959964.
  EXPECT_NEAR(st::normal_threshold(1.0, 0.05, 1), 1.959964, 1e-6);
  EXPECT_NEAR(st::normal_threshold(4.0, 0.01, 100), 2.575829 * 2 / 10, 1e-6);
  EXPECT_THROW(st::hoeffding_threshold(0.01, 0), onepass::error);
  EXPECT_THROW(st::normal_threshold(-1, 0.01, 10), onepass::error);
  EXPECT_THROW(st::normal_threshold(1, 1.5, 10), onepass::error);
}

TEST(Mmd, TestFromSums) {
  const auto m = st::mallows_uniform_moments(5, 5.0);
  const auto exact = st::mmd_test(st::mmd_form::one_sample, 5, 5.0, 0.01, m.mean * 1000, 1000);
  EXPECT_NEAR(exact.statistic, 0.0, 1e-12);
  EXPECT_TRUE(exact.passes_hoeffding);
  EXPECT_TRUE(exact.passes_normal);
  // Every sample the identity: the kernel mean is 1.
  const auto stuck = st::mmd_test(st::mmd_form::pairwise, 5, 5.0, 0.01, 500, 500);
  EXPECT_NEAR(stuck.statistic, 1 - m.mean, 1e-15);
  EXPECT_FALSE(stuck.passes_hoeffding);
  EXPECT_FALSE(stuck.passes_normal);
  EXPECT_LT(stuck.normal_threshold, stuck.hoeffding_threshold);
  EXPECT_STREQ(st::to_string(stuck.form), "pairwise");
  EXPECT_THROW(st::mmd_test(st::mmd_form::one_sample, 1, 5.0, 0.01, 1, 1), onepass::error);
  EXPECT_THROW(st::mmd_test(st::mmd_form::one_sample, 5, 5.0, 0.01, 11, 10), onepass::error);
  EXPECT_THROW(st::mmd_test(st::mmd_form::one_sample, 5, 0.0, 0.01, 1, 10), onepass::error);
}

// ------------------------------------------------------------------ sampling

// Reference shuffles written here (not registered): Fisher-Yates with its own
// engine per seed (uniform), the identity (stuck), one fixed random permutation
// for every seed (one-sample looks fine, pairwise K = 1), and a broken one.
shuffle_entry test_entry(std::string name, onepass::registry::shuffle_fn run) {
  shuffle_entry e;
  e.name = std::move(name);
  e.run = std::move(run);
  return e;
}

void fisher_yates(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  std::copy(in, in + n, out);
  std::mt19937_64 g(seed);
  for (std::size_t i = n; i > 1; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(out[i - 1], out[pick(g)]);
  }
}

const shuffle_entry uniform_entry = test_entry(
    "test_fisher_yates",
    [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
      fisher_yates(in, out, n, p.seed ^ 0x9E3779B97F4A7C15ull);
    });
const shuffle_entry identity_entry = test_entry(
    "test_identity", [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params&) {
      std::copy(in, in + n, out);
    });
const shuffle_entry frozen_entry = test_entry(
    "test_frozen", [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params&) {
      fisher_yates(in, out, n, 12345);
    });
const shuffle_entry broken_entry = test_entry(
    "test_broken", [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params&) {
      std::copy(in, in + n, out);
      out[0] = out[1];
    });

TEST(Sampling, CountsSumToSamplesAndUniformShufflePasses) {
  const st::sampling_plan plan{5, 60000, 1000, 24};
  const auto counts = st::sample_permutation_counts(uniform_entry, plan);
  ASSERT_EQ(counts.size(), 120u);
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), 60000u);
  const auto r = st::chi_square_permutations(counts, 5, 0.01);
  EXPECT_TRUE(r.passes) << r.statistic << " vs " << r.critical_value;
  EXPECT_GT(r.p_value, 0.01);
  const auto stuck = st::chi_square_shuffle(identity_entry, plan, 0.01);
  EXPECT_FALSE(stuck.passes);
  EXPECT_EQ(stuck.statistic, 119.0 * 60000);
}

TEST(Sampling, CountsMatchSequentialLoop) {
  const st::sampling_plan plan{4, 3001, 77, 24};  // odd size, partial last block
  std::vector<std::uint64_t> expected(24, 0), in = identity(4), out(4);
  for (std::uint64_t k = 0; k < plan.samples; ++k) {
    uniform_entry.run(in.data(), out.data(), 4, shuffle_params{plan.base_seed + k, plan.rounds});
    ++expected[st::lehmer_rank(out)];
  }
  EXPECT_EQ(st::sample_permutation_counts(uniform_entry, plan), expected);
}

TEST(Sampling, KernelSumsMatchSequentialLoopAndIgnoreThreadCount) {
  const std::size_t n = 37;
  const double lambda = 5.0;
  const st::sampling_plan plan{n, 1001, 5, 24};  // odd: last sample unpaired
  double one = 0, pair = 0;
  std::uint64_t inv = 0;
  std::vector<std::uint64_t> in = identity(n), out(n), prev(n);
  for (std::uint64_t k = 0; k < plan.samples; ++k) {
    uniform_entry.run(in.data(), out.data(), n, shuffle_params{plan.base_seed + k, plan.rounds});
    inv += brute_inversions(out);
    one += st::mallows_kernel(brute_inversions(out), n, lambda);
    if (k % 2 == 1 && k < 1000) pair += st::mallows_kernel(brute_discordant(prev, out), n, lambda);
    prev = out;
  }
  const auto s = st::sample_mallows_kernel_sums(uniform_entry, plan, lambda);
  EXPECT_EQ(s.one_sample_terms, 1001u);
  EXPECT_EQ(s.pairwise_terms, 500u);
  EXPECT_EQ(s.inversion_sum, inv);
  EXPECT_NEAR(s.one_sample_sum, one, 1e-9);
  EXPECT_NEAR(s.pairwise_sum, pair, 1e-9);

  // Bit-identical with one thread and with all threads (fixed reduction order).
  st::mallows_kernel_sums single;
  tbb::task_arena one_thread(1);
  one_thread.execute([&] { single = st::sample_mallows_kernel_sums(uniform_entry, plan, lambda); });
  EXPECT_EQ(single.one_sample_sum, s.one_sample_sum);
  EXPECT_EQ(single.pairwise_sum, s.pairwise_sum);
  const auto again = st::sample_mallows_kernel_sums(uniform_entry, plan, lambda);
  EXPECT_EQ(again.one_sample_sum, s.one_sample_sum);
  EXPECT_EQ(again.pairwise_sum, s.pairwise_sum);
}

TEST(Sampling, MmdPassesUniformAndCatchesStuckAndFrozenShuffles) {
  const st::sampling_plan plan{50, 20000, 9, 24};
  const auto uniform = st::mmd_shuffle(uniform_entry, plan, 5.0, 0.01);
  EXPECT_TRUE(uniform.one_sample.passes_normal) << uniform.one_sample.statistic;
  EXPECT_TRUE(uniform.one_sample.passes_hoeffding);
  EXPECT_TRUE(uniform.pairwise.passes_normal) << uniform.pairwise.statistic;
  EXPECT_TRUE(uniform.pairwise.passes_hoeffding);
  EXPECT_EQ(uniform.one_sample.effective_samples, 20000u);
  EXPECT_EQ(uniform.pairwise.effective_samples, 10000u);

  const auto stuck = st::mmd_shuffle(identity_entry, plan, 5.0, 0.01);
  EXPECT_FALSE(stuck.one_sample.passes_hoeffding);
  EXPECT_FALSE(stuck.pairwise.passes_hoeffding);
  EXPECT_DOUBLE_EQ(stuck.one_sample.kernel_mean, 1.0);

  // The same permutation every time: only the pairwise form can see it.
  const auto frozen = st::mmd_shuffle(frozen_entry, plan, 5.0, 0.01);
  EXPECT_DOUBLE_EQ(frozen.pairwise.kernel_mean, 1.0);
  EXPECT_FALSE(frozen.pairwise.passes_normal);
  EXPECT_FALSE(frozen.pairwise.passes_hoeffding);
}

TEST(Sampling, RejectsBadArguments) {
  EXPECT_THROW(st::sample_permutation_counts(broken_entry, {5, 10, 0, 24}), onepass::error);
  EXPECT_THROW(st::sample_mallows_kernel_sums(broken_entry, {5, 10, 0, 24}, 5.0), onepass::error);
  EXPECT_THROW(st::sample_permutation_counts(uniform_entry, {9, 10, 0, 24}), onepass::error);
  EXPECT_THROW(st::sample_permutation_counts(uniform_entry, {5, 0, 0, 24}), onepass::error);
  EXPECT_THROW(st::sample_mallows_kernel_sums(uniform_entry, {5, 1, 0, 24}, 5.0), onepass::error);
  EXPECT_THROW(st::sample_mallows_kernel_sums(uniform_entry, {5, 10, 0, 24}, 0.0), onepass::error);
  shuffle_entry gather = uniform_entry;
  gather.permutes = false;
  EXPECT_THROW(st::sample_permutation_counts(gather, {5, 10, 0, 24}), onepass::error);
  EXPECT_THROW(st::chi_square_shuffle(uniform_entry, {5, 10, 0, 24}, 0.0), onepass::error);
}

}  // namespace
