// CPU shuffle baselines of the paper's Table 2 and every other registered CPU shuffle:
// registration (names, labels, flags), permutation property at edge and large sizes,
// determinism per seed, gather output drawn from the input, argument errors; plus an
// exact and a χ² test of MergeShuffle's random merge step (onepass_baselines/cpu/merge_shuffle.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <tbb/global_control.h>

#include "onepass_baselines/cpu/baseline_common.hpp"
#include "onepass_baselines/cpu/merge_shuffle.hpp"
#include "onepass/error.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace reg = onepass::registry;
using onepass::random::counter_stream;

// Distinct, unordered input values (mix64 is a bijection), so a sort-and-compare check
// and a "drawn from the input" check are both meaningful.
std::vector<std::uint64_t> distinct_input(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = onepass::random::mix64(i + 12345);
  return v;
}

// Registry entries are built with named fields: a positional brace list of fields must not
// compile (the entry types have a (name, device[, shape]) constructor).
static_assert(!std::is_aggregate_v<reg::shuffle_entry> && !std::is_aggregate_v<reg::segmented_entry> &&
                  !std::is_aggregate_v<reg::sort_entry> && !std::is_aggregate_v<reg::gaussian_entry>,
              "registry entries are built by name");

std::vector<std::uint64_t> run_entry(const reg::shuffle_entry& e, const std::vector<std::uint64_t>& in,
                                     std::uint64_t seed) {
  std::vector<std::uint64_t> out(in.size(), 0);
  reg::shuffle_params p;
  p.seed = seed;
  e.run(in.data(), out.data(), in.size(), p);
  return out;
}

// Names of the registered CPU shuffles for which pred(entry) holds, in registry order.
template <class Pred>
std::vector<std::string> cpu_shuffle_names(Pred pred) {
  std::vector<std::string> names;
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::cpu && pred(e)) names.push_back(e.name);
  return names;
}

const std::vector<std::size_t> sizes = {0, 1, 2, 3, 17, 1000, 100003, (std::size_t{1} << 20) + 1};

// ---------------------------------------------------------------------------------------
// Registration of the Table 2 baselines.

struct expected_entry {
  const char* name;
  const char* label;
  bool permutes;
  bool deterministic;
};

TEST(BaselineRegistry, Table2CpuBaselinesAreRegisteredWithPaperLabels) {
  const expected_entry expected[] = {
      {"gather", "Gather", false, true},           {"std_shuffle", "std::shuffle", true, true},
      {"rao_sandelius", "RS", true, true},         {"merge_shuffle", "MergeShuffle", true, true},
      {"dart_throwing", "DartThrowing", true, false}, {"sort_shuffle", "SortShuffle", true, true},
  };
  for (const auto& x : expected) {
    const reg::shuffle_entry& e = reg::find_shuffle(x.name);
    EXPECT_EQ(e.label, x.label) << x.name;
    EXPECT_EQ(e.where, reg::device::cpu) << x.name;
    EXPECT_EQ(e.permutes, x.permutes) << x.name;
    EXPECT_EQ(e.deterministic, x.deterministic) << x.name;
    EXPECT_TRUE(e.uniform) << x.name;
    EXPECT_FALSE(e.uses_rounds) << x.name;
    EXPECT_FALSE(e.description.empty()) << x.name;
    EXPECT_TRUE(static_cast<bool>(e.run)) << x.name;
  }
}

// ---------------------------------------------------------------------------------------
// Properties every registered CPU shuffle must have (parameterised by registry name).

class RegisteredCpuShuffle : public ::testing::TestWithParam<std::string> {
 protected:
  const reg::shuffle_entry& entry() const { return reg::find_shuffle(GetParam()); }
};
class PermutingCpuShuffle : public RegisteredCpuShuffle {};     // permutes
class DeterministicCpuShuffle : public RegisteredCpuShuffle {};  // deterministic
class GatheringCpuShuffle : public RegisteredCpuShuffle {};      // !permutes (random gather)

TEST_P(PermutingCpuShuffle, OutputIsAPermutationOfTheInput) {
  const auto& e = entry();
  ASSERT_TRUE(e.permutes);
  for (std::size_t n : sizes) {
    const auto in = distinct_input(n);
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{0xfeedface12345678ull}}) {
      auto out = run_entry(e, in, seed);
      ASSERT_EQ(out.size(), n);
      if (n >= 17) {
        EXPECT_NE(out, in) << e.name << " left n = " << n << " in input order";
      }
      std::sort(out.begin(), out.end());
      auto sorted_in = in;
      std::sort(sorted_in.begin(), sorted_in.end());
      EXPECT_EQ(out, sorted_in) << e.name << " n = " << n << " seed = " << seed;
    }
  }
}

TEST_P(DeterministicCpuShuffle, SameSeedSameOutputOtherSeedOtherOutput) {
  const auto& e = entry();
  ASSERT_TRUE(e.deterministic);
  for (std::size_t n : {std::size_t{1000}, (std::size_t{1} << 20) + 1}) {
    const auto in = distinct_input(n);
    const auto a = run_entry(e, in, 42);
    const auto b = run_entry(e, in, 42);
    const auto c = run_entry(e, in, 43);
    EXPECT_EQ(a, b) << e.name << " n = " << n;
    EXPECT_NE(a, c) << e.name << " n = " << n;
  }
}

TEST_P(DeterministicCpuShuffle, SameOutputWithOneThreadAsWithAll) {
  // "Deterministic" means the output depends on the seed only, not on how many threads
  // oneTBB uses or how it schedules them.
  const auto& e = entry();
  const auto in = distinct_input((std::size_t{1} << 20) + 1);
  const auto parallel = run_entry(e, in, 314);
  std::vector<std::uint64_t> serial;
  {
    tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    serial = run_entry(e, in, 314);
  }
  EXPECT_EQ(parallel, serial) << e.name;
}

TEST_P(GatheringCpuShuffle, OutputIsDrawnFromTheInput) {
  const auto& e = entry();
  ASSERT_FALSE(e.permutes);
  for (std::size_t n : sizes) {
    const auto in = distinct_input(n);
    auto values = in;
    std::sort(values.begin(), values.end());
    auto out = run_entry(e, in, 7);
    ASSERT_EQ(out.size(), n);
    std::size_t foreign = 0;
    for (std::uint64_t v : out) foreign += !std::binary_search(values.begin(), values.end(), v);
    EXPECT_EQ(foreign, 0u) << e.name << " n = " << n;
    if (n >= 100003) {
      // n independent uniform indices hit n(1 - (1 - 1/n)^n) ~ 0.632 n distinct values;
      // the standard deviation is about 0.24 sqrt(n), so [0.62, 0.645] is > 10 sigma wide.
      std::sort(out.begin(), out.end());
      const auto distinct = static_cast<std::size_t>(std::unique(out.begin(), out.end()) - out.begin());
      const double fraction = static_cast<double>(distinct) / static_cast<double>(n);
      EXPECT_GT(fraction, 0.62) << e.name << " n = " << n;
      EXPECT_LT(fraction, 0.645) << e.name << " n = " << n;
    }
  }
}

TEST_P(RegisteredCpuShuffle, NullPointersWithPositiveLengthThrow) {
  const auto& e = entry();
  std::vector<std::uint64_t> in = distinct_input(5), out(5);
  const reg::shuffle_params p;
  EXPECT_THROW(e.run(nullptr, out.data(), 5, p), onepass::error) << e.name;
  EXPECT_THROW(e.run(in.data(), nullptr, 5, p), onepass::error) << e.name;
  EXPECT_NO_THROW(e.run(nullptr, nullptr, 0, p)) << e.name;
}

bool any_entry(const reg::shuffle_entry&) { return true; }
bool is_permutation(const reg::shuffle_entry& e) { return e.permutes; }
bool is_deterministic(const reg::shuffle_entry& e) { return e.deterministic; }
bool is_gather(const reg::shuffle_entry& e) { return !e.permutes; }
std::string param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(Registry, RegisteredCpuShuffle, ::testing::ValuesIn(cpu_shuffle_names(any_entry)),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Registry, PermutingCpuShuffle, ::testing::ValuesIn(cpu_shuffle_names(is_permutation)),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Registry, DeterministicCpuShuffle,
                         ::testing::ValuesIn(cpu_shuffle_names(is_deterministic)), param_name);
INSTANTIATE_TEST_SUITE_P(Registry, GatheringCpuShuffle, ::testing::ValuesIn(cpu_shuffle_names(is_gather)),
                         param_name);

// An unknown name is a library error (onepass::error) that names the function, the
// argument and what is registered; the CLI words its own message for --algorithm.
TEST(BaselineRegistry, UnknownNamesThrowLibraryErrorsListingTheRegistered) {
  try {
    reg::find_shuffle("no_such_shuffle");
    ADD_FAILURE() << "find_shuffle accepted an unknown name";
  } catch (const onepass::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("onepass::registry::find_shuffle: name:"), std::string::npos) << what;
    EXPECT_NE(what.find("'no_such_shuffle'"), std::string::npos) << what;
    EXPECT_NE(what.find("variable_philox"), std::string::npos) << what;
    EXPECT_EQ(what.find("--algorithm"), std::string::npos) << what;
  }
  try {
    reg::find_sort("no_such_sort", reg::sort_shape::keys_u32, reg::device::cpu);
    ADD_FAILURE() << "find_sort accepted an unknown name";
  } catch (const onepass::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("onepass::registry::find_sort: name:"), std::string::npos) << what;
    EXPECT_NE(what.find("std_stable_sort"), std::string::npos) << what;
    EXPECT_EQ(what.find("--algorithm"), std::string::npos) << what;
  }
}

TEST(BaselineRegistry, BaselinesGivenTheSameSeedReturnDifferentPermutations) {
  // Each baseline keys its streams with its own domain of the seed; without that, RS and
  // MergeShuffle (both plain Fisher–Yates below their thresholds) would coincide.
  const char* names[] = {"std_shuffle", "rao_sandelius", "merge_shuffle", "sort_shuffle", "dart_throwing"};
  for (std::size_t n : {std::size_t{1000}, std::size_t{100003}}) {
    const auto in = distinct_input(n);
    std::vector<std::vector<std::uint64_t>> outs;
    for (const char* name : names) outs.push_back(run_entry(reg::find_shuffle(name), in, 11));
    for (std::size_t a = 0; a < outs.size(); ++a)
      for (std::size_t b = a + 1; b < outs.size(); ++b)
        EXPECT_NE(outs[a], outs[b]) << names[a] << " vs " << names[b] << " n = " << n;
  }
}

TEST(BaselineArguments, OverlappingRangesThrowForTheBaselines) {
  std::vector<std::uint64_t> buffer = distinct_input(64);
  const reg::shuffle_params p;
  for (const char* name :
       {"gather", "std_shuffle", "rao_sandelius", "merge_shuffle", "dart_throwing", "sort_shuffle"}) {
    const auto& e = reg::find_shuffle(name);
    EXPECT_THROW(e.run(buffer.data(), buffer.data(), 64, p), onepass::error) << name;
    EXPECT_THROW(e.run(buffer.data(), buffer.data() + 10, 32, p), onepass::error) << name;
  }
}

// ---------------------------------------------------------------------------------------
// MergeShuffle's merge step.

// Random source that replays a recorded list of choices and records new ones as 0, so
// that all decision paths of a deterministic procedure can be enumerated like an
// odometer, each path carrying probability prod(1 / range).
class replay_source {
 public:
  unsigned bit() { return static_cast<unsigned>(draw(2)); }
  std::uint64_t uniform_below(std::uint64_t range) { return draw(range); }

  void restart() {
    pos_ = 0;
    probability_ = 1.0;
  }
  double probability() const { return probability_; }
  // Moves to the next path; false when every path has been visited.
  bool advance() {
    path_.resize(pos_);
    while (!path_.empty() && path_.back().first + 1 == path_.back().second) path_.pop_back();
    if (path_.empty()) return false;
    ++path_.back().first;
    return true;
  }

 private:
  std::uint64_t draw(std::uint64_t range) {
    EXPECT_GE(range, 1u);
    if (pos_ == path_.size()) path_.emplace_back(0, range);
    EXPECT_EQ(path_[pos_].second, range) << "decision ranges must depend only on earlier choices";
    probability_ /= static_cast<double>(range);
    return path_[pos_++].first;
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> path_;  // (choice, range)
  std::size_t pos_ = 0;
  double probability_ = 1.0;
};

// The authors' kind of mistake, for a negative control: insertion index in [0, i)
// instead of [0, i] (range shrunk by one).
class exclusive_insertion_source : public replay_source {
 public:
  std::uint64_t uniform_below(std::uint64_t range) { return replay_source::uniform_below(range > 1 ? range - 1 : 1); }
};

// Rank of a permutation of {0..n-1} in lexicographic order (Lehmer code).
std::size_t permutation_rank(const std::vector<int>& p) {
  std::size_t rank = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::size_t smaller = 0;
    for (std::size_t j = i + 1; j < p.size(); ++j) smaller += p[j] < p[i];
    rank = rank * (p.size() - i) + smaller;
  }
  return rank;
}

std::size_t factorial(std::size_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }

// Exact output distribution of random_merge over all (n1 + n2)! orders, when the two runs
// are independent uniformly random orders of {0..n1-1} and {n1..n1+n2-1}.
template <class Source>
std::vector<double> exact_merge_distribution(std::size_t n1, std::size_t n2) {
  const std::size_t n = n1 + n2;
  std::vector<double> distribution(factorial(n), 0.0);
  std::vector<int> first(n1), second(n2);
  std::iota(first.begin(), first.end(), 0);
  std::iota(second.begin(), second.end(), static_cast<int>(n1));
  const double run_weight = 1.0 / static_cast<double>(factorial(n1) * factorial(n2));
  do {
    do {
      Source source;
      do {
        source.restart();
        std::vector<int> t(first);
        t.insert(t.end(), second.begin(), second.end());
        onepass::baselines::random_merge(t.data(), n1, n2, source);
        distribution[permutation_rank(t)] += run_weight * source.probability();
      } while (source.advance());
    } while (std::next_permutation(second.begin(), second.end()));
  } while (std::next_permutation(first.begin(), first.end()));
  return distribution;
}

TEST(MergeShuffleMerge, ExactlyUniformOnSmallRuns) {
  const std::pair<std::size_t, std::size_t> cases[] = {{0, 3}, {3, 0}, {1, 1}, {1, 2}, {2, 1}, {2, 2},
                                                      {2, 3}, {3, 2}, {1, 4}, {4, 1}, {3, 3}, {2, 4}};
  for (const auto& [n1, n2] : cases) {
    const auto distribution = exact_merge_distribution<replay_source>(n1, n2);
    const double uniform = 1.0 / static_cast<double>(distribution.size());
    double total = 0;
    for (std::size_t r = 0; r < distribution.size(); ++r) {
      total += distribution[r];
      EXPECT_NEAR(distribution[r], uniform, 1e-12) << "n1 = " << n1 << " n2 = " << n2 << " order rank " << r;
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
  }
}

TEST(MergeShuffleMerge, ExclusiveInsertionRangeIsDetectedAsBiased) {
  // Negative control: the exactness check above must reject an off-by-one insertion range.
  const auto distribution = exact_merge_distribution<exclusive_insertion_source>(2, 3);
  const double uniform = 1.0 / static_cast<double>(distribution.size());
  double max_deviation = 0;
  for (double p : distribution) max_deviation = std::max(max_deviation, std::abs(p - uniform));
  EXPECT_GT(max_deviation, 1e-3);
}

TEST(MergeShuffleMerge, ChiSquareUniformWithCounterStreamRuns2And3) {
  // Shuffle runs of sizes 2 and 3 by Fisher–Yates and merge them, drawing from the real
  // counter-based streams; the 5! = 120 output orders must pass a χ² test at α = 0.001.
  constexpr std::size_t n1 = 2, n2 = 3, n = n1 + n2, cells = 120, samples = 240000;
  std::vector<double> count(cells, 0.0);
  for (std::size_t s = 0; s < samples; ++s) {
    std::vector<int> t(n);
    std::iota(t.begin(), t.end(), 0);
    counter_stream runs(2024, 2 * s), merge(2024, 2 * s + 1);
    onepass::baselines::fisher_yates(t.data(), n1, runs);
    onepass::baselines::fisher_yates(t.data() + n1, n2, runs);
    onepass::baselines::random_merge(t.data(), n1, n2, merge);
    count[permutation_rank(t)] += 1;
  }
  const double expected = static_cast<double>(samples) / cells;
  double statistic = 0;
  for (double c : count) statistic += (c - expected) * (c - expected) / expected;
  const boost::math::chi_squared chi2(cells - 1);
  const double critical = boost::math::quantile(boost::math::complement(chi2, 0.001));
  EXPECT_LT(statistic, critical) << "chi2 = " << statistic << " with " << cells - 1 << " dof";
}

TEST(MergeShuffleMerge, MergesUnequalAndEmptyRunsIntoAPermutation) {
  for (const auto& [n1, n2] : std::vector<std::pair<std::size_t, std::size_t>>{
           {0, 0}, {0, 1}, {1, 0}, {1000, 1}, {1, 1000}, {777, 12345}}) {
    std::vector<std::uint64_t> t(n1 + n2);
    std::iota(t.begin(), t.end(), 0);
    counter_stream rng(5, n1 * 100000 + n2);
    onepass::baselines::random_merge(t.data(), n1, n2, rng);
    std::vector<std::uint64_t> sorted(t);
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint64_t> expected(n1 + n2);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(sorted, expected) << n1 << "+" << n2;
  }
}

// ---------------------------------------------------------------------------------------
// The counter-based generator the baselines share.

TEST(CounterHash, ExactUniformBelowAndFreshBits) {
  // Every value of a small range appears with frequency 1/range (χ² at α = 0.001), and
  // the bits are balanced; both would fail for a broken reduction or bit reuse.
  counter_stream rng(99, 3);
  constexpr std::size_t range = 7, draws = 70000;
  std::array<double, range> count{};
  for (std::size_t i = 0; i < draws; ++i) {
    const auto v = rng.uniform_below(range);
    ASSERT_LT(v, range);
    count[v] += 1;
  }
  double statistic = 0;
  for (double c : count) statistic += (c - draws / 7.0) * (c - draws / 7.0) / (draws / 7.0);
  const boost::math::chi_squared chi2(range - 1);
  EXPECT_LT(statistic, boost::math::quantile(boost::math::complement(chi2, 0.001)));

  counter_stream bits(99, 4);
  std::size_t ones = 0;
  const std::size_t words_before = bits.words_drawn();
  for (int i = 0; i < 64 * 1000; ++i) ones += bits.bit();
  EXPECT_EQ(bits.words_drawn() - words_before, 1000u);  // 64 decisions per word, no reuse
  EXPECT_NEAR(static_cast<double>(ones), 32000.0, 5 * std::sqrt(64000 * 0.25));
  EXPECT_EQ(rng.uniform_below(1), 0u);
}

TEST(CounterHash, StreamsAndSeedsDiffer) {
  const onepass::random::counter_hash a(1, 0), b(1, 1), c(2, 0);
  EXPECT_NE(a.key(), b.key());
  EXPECT_NE(a.key(), c.key());
  EXPECT_NE(a(0), b(0));
  EXPECT_NE(a(0), a(1));
  EXPECT_EQ(a(12345), onepass::random::counter_hash(1, 0)(12345));
}

// The (name, device) constructor sets the key and leaves every other field at its default;
// sort_family carries the fields a sort shares across its shapes.
TEST(Registry, EntriesBuiltByName) {
  const reg::shuffle_entry s{"x", reg::device::gpu};
  EXPECT_EQ(s.name, "x");
  EXPECT_EQ(s.where, reg::device::gpu);
  EXPECT_TRUE(s.permutes && s.uniform && s.deterministic && !s.uses_rounds);
  reg::sort_family f{"y", "Y", "one line"};
  f.in_place = true;
  const reg::sort_entry e = f.entry(reg::device::gpu, reg::sort_shape::keys_f32);
  EXPECT_EQ(e.name, "y");
  EXPECT_EQ(e.label, "Y");
  EXPECT_EQ(e.description, "one line");
  EXPECT_EQ(e.shape, reg::sort_shape::keys_f32);
  EXPECT_TRUE(e.in_place);
  EXPECT_FALSE(e.float_zeros_equal);
  const auto& stable = reg::find_sort("std_stable_sort", reg::sort_shape::pairs_u64_u64, reg::device::cpu);
  EXPECT_EQ(stable.label, reg::find_sort("std_stable_sort", reg::sort_shape::keys_u32, reg::device::cpu).label);
  EXPECT_TRUE(static_cast<bool>(stable.run));
  EXPECT_FALSE(stable.in_place);
}

// The index-array gather comes with the GPU baselines (a CUDA build) and is registered once.
TEST(Registry, IndexArrayGatherOfThisBuild) {
#ifdef ONEPASS_HAVE_CUDA_SOURCES
  ASSERT_TRUE(reg::has_gpu_index_gather());
  EXPECT_TRUE(static_cast<bool>(reg::find_gpu_index_gather().fill_indices));
  EXPECT_TRUE(static_cast<bool>(reg::find_gpu_index_gather().gather));
  EXPECT_THROW(reg::set_gpu_index_gather(reg::find_gpu_index_gather()), onepass::error);
#else
  EXPECT_FALSE(reg::has_gpu_index_gather());
  EXPECT_THROW(reg::find_gpu_index_gather(), onepass::error);
  EXPECT_THROW(reg::set_gpu_index_gather(reg::gpu_index_gather{}), onepass::error);  // empty functions
#endif
}

}  // namespace
