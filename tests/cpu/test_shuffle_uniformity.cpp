// Paper §5 applied to every registered CPU shuffle: the chi-square test over the
// 5! = 120 permutations of length 5 at alpha = 0.01 must pass for every entry
// marked uniform and fail for the others (LCG); VariablePhilox must fail with
// very few rounds and pass with the recommended 24 (Fig. 6). The registry is read
// at run time, so baselines added later are tested without editing this file.
//
// Each verdict is for one fixed seed set, so it is reproducible; a uniform
// shuffle fails a fixed seed set with probability alpha = 1% a priori.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onepass/harness/registry.hpp"
#include "onepass/stats/chi_square.hpp"
#include "onepass/stats/mmd.hpp"
#include "onepass/stats/sampling.hpp"

namespace {

namespace st = onepass::stats;
using onepass::registry::device;
using onepass::registry::shuffle_entry;

constexpr std::size_t length = 5;
constexpr std::uint64_t samples = 120000;  // 1000 expected per cell
constexpr double alpha = 0.01;
constexpr std::uint64_t base_seed = 20240601;

std::vector<std::string> cpu_permuting_shuffles() {
  std::vector<std::string> names;
  for (const auto& e : onepass::registry::shuffles())
    if (e.where == device::cpu && e.permutes) names.push_back(e.name);
  return names;
}

st::chi_square_result chi_square_of(const shuffle_entry& e, unsigned rounds) {
  return st::chi_square_shuffle(e, st::sampling_plan{length, samples, base_seed, rounds}, alpha);
}

std::string describe(const st::chi_square_result& r) {
  return "X^2 = " + std::to_string(r.statistic) + ", critical value = " + std::to_string(r.critical_value) +
         ", p = " + std::to_string(r.p_value);
}

class RegisteredShuffle : public ::testing::TestWithParam<std::string> {};

TEST_P(RegisteredShuffle, ChiSquareVerdictMatchesUniformFlag) {
  const shuffle_entry& e = onepass::registry::find_shuffle(GetParam());
  const auto r = chi_square_of(e, 24);
  EXPECT_EQ(r.samples, samples);
  EXPECT_EQ(r.cells, 120u);
  if (e.uniform) {
    EXPECT_TRUE(r.passes) << e.name << " is marked uniform but fails: " << describe(r);
  } else {
    EXPECT_FALSE(r.passes) << e.name << " is marked non-uniform but passes: " << describe(r);
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, RegisteredShuffle, ::testing::ValuesIn(cpu_permuting_shuffles()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ShuffleUniformity, RegistryHasTheLibraryShuffles) {
  const auto names = cpu_permuting_shuffles();
  EXPECT_NE(std::find(names.begin(), names.end(), "variable_philox"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "lcg"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "walking"), names.end());
  EXPECT_FALSE(onepass::registry::find_shuffle("lcg").uniform);
}

TEST(ShuffleUniformity, LcgFailsChiSquare) {
  const auto r = chi_square_of(onepass::registry::find_shuffle("lcg"), 24);
  EXPECT_FALSE(r.passes) << describe(r);
  EXPECT_LT(r.p_value, 1e-10) << describe(r);
}

TEST(ShuffleUniformity, VariablePhiloxFewRoundsFail) {
  const auto& philox = onepass::registry::find_shuffle("variable_philox");
  for (unsigned rounds : {1u, 2u, 3u}) {
    const auto r = chi_square_of(philox, rounds);
    EXPECT_FALSE(r.passes) << rounds << " rounds: " << describe(r);
  }
}

TEST(ShuffleUniformity, VariablePhilox24RoundsPassesChiSquareAndMmd) {
  const auto& philox = onepass::registry::find_shuffle("variable_philox");
  const auto r = chi_square_of(philox, 24);
  EXPECT_TRUE(r.passes) << describe(r);
  // The MMD tests at a length where chi-square is intractable (Fig. 8, n = 100).
  const auto m = st::mmd_shuffle(philox, st::sampling_plan{100, 20000, base_seed, 24}, st::default_mallows_lambda, alpha);
  EXPECT_TRUE(m.one_sample.passes_normal) << m.one_sample.statistic << " vs " << m.one_sample.normal_threshold;
  EXPECT_TRUE(m.pairwise.passes_normal) << m.pairwise.statistic << " vs " << m.pairwise.normal_threshold;
  EXPECT_TRUE(m.one_sample.passes_hoeffding);
  EXPECT_TRUE(m.pairwise.passes_hoeffding);
}

}  // namespace
