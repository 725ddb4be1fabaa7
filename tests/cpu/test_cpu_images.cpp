// shuffle::cpu::for_each_image (onepass/shuffle/cpu_images.hpp): the stream of images in order is
// the permutation the CPU bijective shuffle applies, for VariablePhilox and LCG, whole or its
// first `limit` indices, across batch boundaries; bad bijections are named.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_images.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"

namespace {

namespace bij = onepass::bijection;
namespace sh = onepass::shuffle;

/// The images for_each_image passes, concatenated; `calls` counts the sink's calls.
template <class Bijection>
std::vector<std::uint64_t> streamed(const Bijection& f, std::uint64_t m, std::uint64_t limit, int* calls = nullptr) {
  std::vector<std::uint64_t> out;
  sh::cpu::for_each_image(f, m, limit, [&](const std::uint64_t* w, std::size_t c) {
    out.insert(out.end(), w, w + c);
    if (calls) ++*calls;
  });
  return out;
}

/// The shuffle of 0, 1, ..., m - 1 with f: out[j] = f's j-th kept image.
template <class Bijection>
std::vector<std::uint64_t> shuffled_iota(const Bijection& f, std::uint64_t m) {
  std::vector<std::uint64_t> in(m), out(m);
  std::iota(in.begin(), in.end(), std::uint64_t{0});
  sh::cpu::bijective_shuffle(in.data(), out.data(), m, f);
  return out;
}

TEST(CpuImages, EqualsTheShuffleOfTheIdentityVariablePhilox) {
  // Sizes below, at and across the 2^20-index batches (2^21 + 3 spans three batches of a
  // 2^22 domain); 5 and 1 have tiny domains.
  for (std::uint64_t m : {1ull, 5ull, 1000ull, (1ull << 20) - 1, (1ull << 20) + 1, (1ull << 21) + 3}) {
    const auto f = bij::variable_philox::for_length(m, 0x5eed + m, 24);
    EXPECT_EQ(streamed(f, m, m), shuffled_iota(f, m)) << "m = " << m;
  }
}

TEST(CpuImages, EqualsTheShuffleOfTheIdentityLcg) {
  for (std::uint64_t m : {2ull, 777ull, (1ull << 20) + 17}) {
    const auto f = bij::lcg::for_length(m, 42 + m);
    EXPECT_EQ(streamed(f, m, m), shuffled_iota(f, m)) << "m = " << m;
  }
}

TEST(CpuImages, LimitPassesTheFirstIndicesOnly) {
  const std::uint64_t m = (1ull << 20) + 5;
  const auto f = bij::variable_philox::for_length(m, 7, 24);
  const std::vector<std::uint64_t> whole = shuffled_iota(f, m);
  for (std::uint64_t limit : {std::uint64_t{1}, std::uint64_t{100}, (std::uint64_t{1} << 20) - 3, m - 1}) {
    const std::vector<std::uint64_t> head = streamed(f, m, limit);
    ASSERT_EQ(head.size(), limit);
    EXPECT_TRUE(std::equal(head.begin(), head.end(), whole.begin())) << "limit = " << limit;
  }
  EXPECT_EQ(streamed(f, m, m + 100).size(), m);  // a limit above m passes the permutation once
  EXPECT_EQ(streamed(f, m, ~0ull).size(), m);
}

TEST(CpuImages, NothingForAnEmptySequenceOrLimit) {
  const auto f = bij::variable_philox::for_length(10, 1, 24);
  int calls = 0;
  EXPECT_TRUE(streamed(f, 0, 10, &calls).empty());
  EXPECT_TRUE(streamed(f, 10, 0, &calls).empty());
  EXPECT_EQ(calls, 0);
}

TEST(CpuImages, ADomainTooSmallIsNamed) {
  const auto f = bij::variable_philox::for_length(100, 1, 24);  // domain 2^b >= 100, < 2^20
  try {
    streamed(f, std::uint64_t{1} << 20, 10);
    FAIL() << "expected onepass::error";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find("for_each_image"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f"), std::string::npos) << e.what();
  }
}

}  // namespace
