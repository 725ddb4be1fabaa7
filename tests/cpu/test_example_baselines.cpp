// The README's one-file baselines (examples/baselines/) build and register themselves: the
// shuffle is a deterministic permutation listed among the CPU shuffles, the sort matches
// the oracle on every CPU shape it registers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "../../examples/baselines/example_shuffle.cpp"
#include "../../examples/baselines/example_sort.cpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace reg = onepass::registry;

TEST(ExampleBaselines, ShuffleIsRegisteredAndPermutes) {
  const auto& e = reg::find_shuffle("example_shuffle", reg::device::cpu);
  EXPECT_TRUE(e.permutes);
  std::vector<std::uint64_t> in(1000), a(1000), b(1000);
  std::iota(in.begin(), in.end(), std::uint64_t{0});
  reg::shuffle_params p;
  p.seed = 42;
  e.run(in.data(), a.data(), in.size(), p);
  e.run(in.data(), b.data(), in.size(), p);
  EXPECT_EQ(a, b);  // deterministic per seed
  EXPECT_NE(a, in);
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, in);  // a permutation
  EXPECT_THROW(e.run(nullptr, b.data(), 5, p), onepass::error);
  bool listed = false;
  for (const auto& s : reg::shuffles()) listed = listed || (s.name == "example_shuffle" && s.where == reg::device::cpu);
  EXPECT_TRUE(listed);
}

TEST(ExampleBaselines, SortMatchesTheOracle) {
  std::mt19937_64 rng(7);
  const auto& ours = reg::find_sort("example_sort", reg::sort_shape::pairs_u32_u32, reg::device::cpu);
  const auto& oracle = reg::find_sort("std_stable_sort", reg::sort_shape::pairs_u32_u32, reg::device::cpu);
  const std::size_t n = 5000;
  std::vector<std::uint32_t> k(n), v(n), ka(n), va(n), kb(n), vb(n);
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = static_cast<std::uint32_t>(rng() % 100);
    v[i] = static_cast<std::uint32_t>(i);
  }
  reg::sort_params p;
  p.descending = true;
  ours.run(k.data(), ka.data(), v.data(), va.data(), n, p);
  oracle.run(k.data(), kb.data(), v.data(), vb.data(), n, p);
  EXPECT_EQ(ka, kb);
  EXPECT_EQ(va, vb);
}
