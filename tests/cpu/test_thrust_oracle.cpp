// The paper's key schedule makes onepass's VariablePhilox shuffle equal, element
// for element, to thrust::shuffle_copy(thrust::host, ..., std::mt19937_64(seed))
// from the CUDA toolkit's CCCL headers (compiled here for the host, no GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "onepass/shuffle/cpu_shuffle.hpp"

#ifdef ONEPASS_HAVE_THRUST_ORACLE
#include <thrust/execution_policy.h>
#include <thrust/shuffle.h>
#endif

namespace {

std::vector<std::uint64_t> sizes() {
  std::vector<std::uint64_t> m = {0, 1, 2, 3, 15, 16, 17};
  for (unsigned k = 5; k <= 20; ++k) {
    m.push_back((1ull << k) - 1);
    m.push_back(1ull << k);
    m.push_back((1ull << k) + 1);
  }
  return m;
}

TEST(ThrustOracle, VariablePhiloxShuffleEqualsThrustShuffleCopy) {
#ifndef ONEPASS_HAVE_THRUST_ORACLE
  GTEST_SKIP() << "CCCL headers (thrust/shuffle.h) not found at configure time";
#else
  for (std::uint64_t m : sizes()) {
    std::vector<std::uint64_t> in(m), ours(m), theirs(m);
    std::iota(in.begin(), in.end(), 0);
    const std::vector<std::uint64_t> seeds = m <= 4096 ? std::vector<std::uint64_t>{0, 1, 2, 42, 12345, ~0ull}
                                                       : std::vector<std::uint64_t>{7, 2026};
    for (std::uint64_t seed : seeds) {
      onepass::shuffle::cpu::variable_philox_shuffle(in.data(), ours.data(), m, seed);
      thrust::shuffle_copy(thrust::host, in.begin(), in.end(), theirs.begin(), std::mt19937_64(seed));
      ASSERT_EQ(ours, theirs) << "m = " << m << ", seed = " << seed;
    }
  }
#endif
}

}  // namespace
