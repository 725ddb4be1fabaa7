// The walking permutation on the GPU (shuffle/gpu_walking.cuh): batches of images equal to
// the CPU's bit for bit (both walk structures, forward and inverse, strided reads that wrap,
// worst-case sizes 2^k + 1, huge N), every output slot written once (poisoned output, guard
// zone), the shuffle and unshuffle of several element types, and the argument checks.
// Label `gpu`: skipped, and reported as skipped, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/gpu_walking.cuh"
#include "../cpu/test_support.hpp"
#include "gpu_test_support.hpp"

namespace {

using onepass::shuffle::walking_permutation;
using onepass::shuffle::gpu::walk_structure;
namespace ot = onepass::testing;

#define REQUIRE_GPU() \
  if (!ot::have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped"

constexpr std::uint64_t poison = 0xa5a5a5a5a5a5a5a5ull;
constexpr std::uint64_t guard = 64;

std::vector<std::uint64_t> gpu_indices(const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride,
                                       std::uint64_t count, walk_structure structure, bool inverse) {
  ot::dev d((count + guard) * sizeof(std::uint64_t));
  ot::cuda_ok(cudaMemset(d.p, 0xa5, (count + guard) * sizeof(std::uint64_t)), "memset");
  if (inverse) {
    onepass::shuffle::gpu::walking_inverse_indices(d.as<std::uint64_t>(), first, stride, count, sigma, 0, structure);
  } else {
    onepass::shuffle::gpu::walking_indices(d.as<std::uint64_t>(), first, stride, count, sigma, 0, structure);
  }
  ot::cuda_ok(cudaDeviceSynchronize(), "walking_indices");
  auto all = ot::download(d.as<std::uint64_t>(), count + guard);
  for (std::uint64_t g = count; g < count + guard; ++g) EXPECT_EQ(all[g], poison) << "guard zone written at " << g;
  all.resize(count);
  return all;
}

TEST(GpuWalking, IndicesEqualTheCpuBatch) {
  REQUIRE_GPU();
  for (std::uint64_t n : {1ull, 2ull, 5ull, 17ull, 1000ull, 4097ull, (1ull << 16) + 1, 1ull << 16, (1ull << 20) + 1,
                          (1ull << 22) + 1, 3000000ull}) {
    for (unsigned rounds : {24u, 7u}) {
      const auto sigma = walking_permutation::for_length(n, n * 3 + rounds, rounds);
      std::vector<std::uint64_t> cpu(n), cpu_inverse(n);
      onepass::shuffle::cpu::walking_indices(cpu.data(), 0, 1, n, sigma);
      onepass::shuffle::cpu::walking_inverse_indices(cpu_inverse.data(), 0, 1, n, sigma);
      for (walk_structure s : {walk_structure::warp_queue, walk_structure::one_per_lane}) {
        EXPECT_EQ(gpu_indices(sigma, 0, 1, n, s, false), cpu) << "n " << n << " " << to_string(s);
        EXPECT_EQ(gpu_indices(sigma, 0, 1, n, s, true), cpu_inverse) << "n " << n << " " << to_string(s);
      }
    }
  }
}

TEST(GpuWalking, StridedReadsThatWrapAndHugeDomains) {
  REQUIRE_GPU();
  for (std::uint64_t n : std::vector<std::uint64_t>{10007, 3000000000ull, (1ull << 33) + 1, 1ull << 63}) {
    const auto sigma = walking_permutation::for_length(n, 99);
    for (std::uint64_t stride : {1ull, 3ull, 8ull}) {
      const std::uint64_t count = 200000;
      const std::uint64_t first = n > count ? n - count : 5;  // wraps past n
      std::vector<std::uint64_t> cpu(count);
      onepass::shuffle::cpu::walking_indices(cpu.data(), first, stride, count, sigma);
      for (walk_structure s : {walk_structure::warp_queue, walk_structure::one_per_lane})
        EXPECT_EQ(gpu_indices(sigma, first, stride, count, s, false), cpu) << "n " << n << " stride " << stride;
    }
  }
}

template <class T>
void check_shuffle(std::uint64_t n, walk_structure structure) {
  const auto sigma = walking_permutation::for_length(n, 1234 + n);
  std::vector<T> x(n);
  // Distinct bytes per element: element i's byte b is (i * 131 + b * 7) mod 256 xor (i >> 8).
  for (std::uint64_t i = 0; i < n; ++i) {
    auto* bytes = reinterpret_cast<unsigned char*>(&x[i]);
    for (std::size_t b = 0; b < sizeof(T); ++b) bytes[b] = static_cast<unsigned char>((i * 131 + b * 7) ^ (i >> 8));
  }
  std::vector<T> expected(n);
  onepass::shuffle::cpu::walking_shuffle(x.data(), expected.data(), n, sigma);
  ot::dev din(n * sizeof(T)), dout((n + guard) * sizeof(T)), dback(n * sizeof(T));
  ot::upload(din.as<T>(), x);
  ot::cuda_ok(cudaMemset(dout.p, 0xa5, (n + guard) * sizeof(T)), "memset");
  std::size_t bytes = 0;
  onepass::shuffle::gpu::walking_shuffle<T>(nullptr, bytes, din.as<T>(), dout.as<T>(), n, sigma, 0, structure);
  ASSERT_GE(bytes, 1u);
  ot::dev temp(bytes);
  onepass::shuffle::gpu::walking_shuffle<T>(temp.p, bytes, din.as<T>(), dout.as<T>(), n, sigma, 0, structure);
  onepass::shuffle::gpu::walking_unshuffle<T>(temp.p, bytes, dout.as<T>(), dback.as<T>(), n, sigma, 0, structure);
  ot::cuda_ok(cudaDeviceSynchronize(), "walking_shuffle");
  const auto got = ot::download(dout.as<T>(), n + guard);
  ASSERT_EQ(std::memcmp(got.data(), expected.data(), n * sizeof(T)), 0) << "n " << n << " size " << sizeof(T);
  std::vector<unsigned char> tail(guard * sizeof(T));
  std::memcpy(tail.data(), got.data() + n, tail.size());
  for (unsigned char c : tail) ASSERT_EQ(c, 0xa5);
  const auto unshuffled = ot::download(dback.as<T>(), n);
  ASSERT_EQ(std::memcmp(unshuffled.data(), x.data(), n * sizeof(T)), 0) << "unshuffle, n " << n;
}

struct bytes3 {
  unsigned char b[3];
};
struct alignas(16) bytes16 {
  std::uint64_t a, b;
};

TEST(GpuWalking, ShuffleAndUnshuffleEqualTheCpu) {
  REQUIRE_GPU();
  for (std::uint64_t n : {1ull, 33ull, 4097ull, (1ull << 18) + 1, 1000000ull}) {
    for (walk_structure s : {walk_structure::warp_queue, walk_structure::one_per_lane}) {
      check_shuffle<std::uint64_t>(n, s);
      check_shuffle<std::uint32_t>(n, s);
      check_shuffle<bytes3>(n, s);
      check_shuffle<bytes16>(n, s);
    }
  }
}

using onepass::testing::error_of;

TEST(GpuWalking, BadArgumentsAreNamedAndNothingRuns) {
  REQUIRE_GPU();
  const auto sigma = walking_permutation::for_length(100, 1);
  ot::dev d(100 * sizeof(std::uint64_t)), e(100 * sizeof(std::uint64_t));
  auto* p = d.as<std::uint64_t>();
  EXPECT_NE(error_of([&] { onepass::shuffle::gpu::walking_indices(p, 0, 0, 10, sigma); }).find("stride"),
            std::string::npos);
  EXPECT_NE(error_of([&] { onepass::shuffle::gpu::walking_indices(nullptr, 0, 1, 10, sigma); }).find("d_out"),
            std::string::npos);
  std::size_t bytes = 0;
  EXPECT_NE(error_of([&] {
              onepass::shuffle::gpu::walking_shuffle<std::uint64_t>(nullptr, bytes, p, e.as<std::uint64_t>(), 99,
                                                                    sigma);
            }).find("num_items"),
            std::string::npos);
  bytes = 1;
  EXPECT_NE(error_of([&] {
              onepass::shuffle::gpu::walking_shuffle<std::uint64_t>(e.p, bytes, p, p + 1, 100, sigma);
            }).find("overlap"),
            std::string::npos);
  bytes = 0;
  EXPECT_NE(error_of([&] {
              onepass::shuffle::gpu::walking_shuffle<std::uint64_t>(e.p, bytes, p, e.as<std::uint64_t>(), 100, sigma);
            }).find("temp_bytes"),
            std::string::npos);
}

}  // namespace
