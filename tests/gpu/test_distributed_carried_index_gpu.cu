// tests/gpu/test_distributed_carried_index_gpu.cu — distributed::shuffle_carried_index
// (distributed/carried_index_shuffle.cuh, EXPERIMENTAL; issue 29) on 1-4 ranks as threads, one GPU
// per rank: its output equals gpu::bijective_shuffle of the concatenation (so the same permutation
// for every P and split: even, uneven, empty ranks, all on one rank), for 8-byte and 12-byte items;
// bad arguments and disagreeing seeds make every rank throw. Skips itself without enough GPUs.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/distributed/carried_index_shuffle.cuh"
#include "bijective_reference.cuh"
#include "distributed_test_support.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace od = onepass::distributed;
namespace ot = onepass::testing;

struct item12 {
  std::uint32_t a, b, c;
  bool operator==(const item12& o) const { return a == o.a && b == o.b && c == o.c; }
};

template <class T>
T make(std::uint64_t i);
template <>
std::uint64_t make<std::uint64_t>(std::uint64_t i) { return i * 0x9E3779B97F4A7C15ull + 1; }
template <>
item12 make<item12>(std::uint64_t i) {
  return {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i * 40503u), static_cast<std::uint32_t>(~i)};
}

template <class T>
void check_split(int P, const std::vector<std::uint64_t>& counts, std::uint64_t seed, const std::string& what) {
  std::uint64_t N = 0;
  for (auto c : counts) N += c;
  std::vector<T> input(N);
  for (std::uint64_t i = 0; i < N; ++i) input[i] = make<T>(i);
  const auto expected = ot::one_gpu_bijective(input, seed, onepass::bijection::default_rounds);
  std::vector<std::vector<T>> got(P);
  ot::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    std::uint64_t first = 0;
    for (int q = 0; q < r; ++q) first += counts[q];
    const std::uint64_t n = counts[r];
    std::vector<T> mine(input.begin() + first, input.begin() + first + n);
    ot::dev d_in(n * sizeof(T)), d_out(n * sizeof(T));
    if (n > 0) ot::upload(d_in.as<T>(), mine);
    od::shuffle_carried_index(d_in.as<T>(), d_out.as<T>(), n, seed, comm, stream);
    ot::cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    got[r] = ot::download(d_out.as<T>(), n);
  });
  std::vector<T> joined;
  for (int r = 0; r < P; ++r) {
    ASSERT_EQ(got[r].size(), counts[r]) << what;
    joined.insert(joined.end(), got[r].begin(), got[r].end());
  }
  ASSERT_TRUE(joined == expected) << what;
}

class CarriedIndexShuffle : public ::testing::TestWithParam<int> {};

TEST_P(CarriedIndexShuffle, EqualsOneGpuShuffleForEverySplit) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  for (std::uint64_t N : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{4097}, (std::uint64_t{1} << 20) + 7}) {
    std::vector<std::vector<std::uint64_t>> layouts;
    std::vector<std::uint64_t> even(P), last(P, 0), gaps(P, 0);
    for (int r = 0; r < P; ++r) even[r] = N / P + (static_cast<std::uint64_t>(r) < N % P ? 1 : 0);
    last[P - 1] = N;
    gaps[0] = N / 3;
    gaps[P - 1] = N - N / 3;
    layouts = {even, last, gaps};
    for (std::size_t l = 0; l < layouts.size(); ++l) {
      const std::string what = "P = " + std::to_string(P) + ", N = " + std::to_string(N) + ", layout " + std::to_string(l);
      check_split<std::uint64_t>(P, layouts[l], 11, what + ", u64");
      if (N <= 4097) check_split<item12>(P, layouts[l], 12, what + ", 12-byte items");
    }
  }
}

TEST_P(CarriedIndexShuffle, BadArgumentsThrowOnEveryRank) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  // Rank 0 passes a null input with items; every rank throws (the agreement step), none hangs.
  auto errors = ot::errors_of_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    ot::dev d(16 * sizeof(std::uint64_t));
    od::shuffle_carried_index(r == 0 ? static_cast<const std::uint64_t*>(nullptr) : d.as<std::uint64_t>(),
                              d.as<std::uint64_t>(), 16, 1, comm, stream);
  });
  EXPECT_NE(errors[0].find("d_in"), std::string::npos) << errors[0];
  for (int r = 1; r < P; ++r) EXPECT_NE(errors[r].find("rank 0"), std::string::npos) << errors[r];
  // Seeds that differ between ranks.
  if (P > 1) {
    errors = ot::errors_of_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
      ot::dev d(16 * sizeof(std::uint64_t)), o(16 * sizeof(std::uint64_t));
      od::shuffle_carried_index(d.as<std::uint64_t>(), o.as<std::uint64_t>(), 16, static_cast<std::uint64_t>(r), comm,
                                stream);
    });
    for (int r = 0; r < P; ++r) EXPECT_NE(errors[r].find("seed"), std::string::npos) << errors[r];
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, CarriedIndexShuffle, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return "P" + std::to_string(info.param); });

}  // namespace
