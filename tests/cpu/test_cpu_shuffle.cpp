// The fused oneTBB bijective shuffle (Algorithm 1): permutation, element types,
// determinism, unshuffle, in-place wrapper, argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "onepass/shuffle/cpu_shuffle.hpp"

namespace {

namespace sh = onepass::shuffle;
using onepass::bijection::lcg;
using onepass::bijection::variable_philox;

std::vector<std::uint64_t> iota_vec(std::size_t m) {
  std::vector<std::uint64_t> v(m);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Algorithm 1 written sequentially, the reference for the fused parallel scan.
template <class Bijection>
std::vector<std::uint64_t> sequential_reference(std::size_t m, const Bijection& f) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < (1ull << f.domain_bits()); ++i)
    if (f(i) < m) out.push_back(f(i));
  return out;
}

TEST(CpuShuffle, MatchesSequentialAlgorithm1AndIsAPermutation) {
  for (std::size_t m : {0ul, 1ul, 2ul, 5ul, 16ul, 17ul, 1000ul, 16385ul, 100003ul, (1ul << 20) + 1}) {
    const auto in = iota_vec(m);
    std::vector<std::uint64_t> out(m, ~0ull);
    const auto f = variable_philox::for_length(m, 9);
    sh::cpu::bijective_shuffle(in.data(), out.data(), m, f);
    EXPECT_EQ(out, sequential_reference(m, f)) << m;
    auto sorted = out;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, in) << m;
    const auto g = lcg::for_length(m, 9);
    sh::cpu::bijective_shuffle(in.data(), out.data(), m, g);
    EXPECT_EQ(out, sequential_reference(m, g)) << m;
  }
}

TEST(CpuShuffle, DeterministicPerSeedAndRounds) {
  const std::size_t m = 50000;
  const auto in = iota_vec(m);
  std::vector<std::uint64_t> a(m), b(m), c(m), d(m);
  sh::cpu::variable_philox_shuffle(in.data(), a.data(), m, 5);
  sh::cpu::variable_philox_shuffle(in.data(), b.data(), m, 5);
  sh::cpu::variable_philox_shuffle(in.data(), c.data(), m, 6);
  sh::cpu::variable_philox_shuffle(in.data(), d.data(), m, 5, 12);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
}

TEST(CpuShuffle, UnshuffleInvertsShuffle) {
  for (std::size_t m : {0ul, 1ul, 3ul, 17ul, 4097ul, 300001ul}) {
    const auto in = iota_vec(m);
    std::vector<std::uint64_t> shuffled(m), back(m);
    for (unsigned rounds : {1u, 24u}) {
      sh::cpu::variable_philox_shuffle(in.data(), shuffled.data(), m, 77, rounds);
      sh::cpu::variable_philox_unshuffle(shuffled.data(), back.data(), m, 77, rounds);
      EXPECT_EQ(back, in) << m;
    }
    const auto f = lcg::for_length(m, 3);
    sh::cpu::bijective_shuffle(in.data(), shuffled.data(), m, f);
    sh::cpu::bijective_unshuffle(shuffled.data(), back.data(), m, f);
    EXPECT_EQ(back, in) << m;
  }
}

TEST(CpuShuffle, InPlaceWrapperEqualsOutOfPlace) {
  const std::size_t m = 12345;
  const auto in = iota_vec(m);
  std::vector<std::uint64_t> out(m), data = in;
  const auto f = variable_philox::for_length(m, 11);
  sh::cpu::bijective_shuffle(in.data(), out.data(), m, f);
  sh::cpu::bijective_shuffle_in_place(data.data(), m, f);
  EXPECT_EQ(data, out);
  sh::cpu::bijective_unshuffle_in_place(data.data(), m, f);
  EXPECT_EQ(data, in);
}

TEST(CpuShuffle, AnyTriviallyCopyableType) {
  struct record {
    std::array<char, 13> bytes;
    bool operator==(const record& o) const { return bytes == o.bytes; }
  };
  const std::size_t m = 3000;
  std::vector<record> in(m), out(m);
  std::vector<std::uint8_t> small(m), small_out(m);
  for (std::size_t i = 0; i < m; ++i) {
    in[i].bytes.fill(static_cast<char>(i % 127));
    in[i].bytes[0] = static_cast<char>(i >> 8);
    small[i] = static_cast<std::uint8_t>(i);
  }
  const auto f = variable_philox::for_length(m, 4);
  sh::cpu::bijective_shuffle(in.data(), out.data(), m, f);
  sh::cpu::bijective_shuffle(small.data(), small_out.data(), m, f);
  const auto order = sequential_reference(m, f);
  for (std::size_t j = 0; j < m; ++j) {
    EXPECT_EQ(out[j], in[order[j]]);
    EXPECT_EQ(small_out[j], small[order[j]]);
  }
}

TEST(CpuShuffle, BadArgumentsThrowAndLeaveOutputUntouched) {
  std::vector<std::uint64_t> in = iota_vec(100), out(100, 7);
  const auto f = variable_philox::for_length(100, 1);
  EXPECT_THROW(sh::cpu::bijective_shuffle<std::uint64_t>(nullptr, out.data(), 100, f), onepass::error);
  EXPECT_THROW(sh::cpu::bijective_shuffle<std::uint64_t>(in.data(), nullptr, 100, f), onepass::error);
  EXPECT_THROW(sh::cpu::bijective_shuffle(in.data(), in.data() + 10, 50, f), onepass::error);
  const auto small = variable_philox::for_length(10, 1);  // domain 16 < 100
  EXPECT_THROW(sh::cpu::bijective_shuffle(in.data(), out.data(), 100, small), onepass::error);
  EXPECT_THROW(sh::cpu::variable_philox_shuffle(in.data(), out.data(), 100, 1, 0), onepass::error);
  EXPECT_EQ(out, std::vector<std::uint64_t>(100, 7));
  EXPECT_NO_THROW(sh::cpu::bijective_shuffle<std::uint64_t>(nullptr, nullptr, 0, f));
}

}  // namespace
