// The warp Gaussian generator on the GPU equals its CPU emulation bit for bit
// (a GPU kernel and its CPU twin are compared exactly): warp_gaussian
// in both forms for random entropy, tables, coefficients, mu and sigma; the per-thread
// warp_normal_generator; and gpu::generate_normal against cpu::generate_normal.
// Label `gpu`: skipped, and reported as skipped, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/generate.cuh"
#include "onepass/gaussian/warp_emulation.hpp"
#include "onepass/gaussian/warp_gaussian.cuh"
#include "gpu_test_support.hpp"

namespace {

namespace g = onepass::gaussian;

using onepass::testing::have_gpu;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// One output per thread per form; entropy[i] is thread i's word; mu/sigma per warp.
__global__ void warp_kernel(const std::uint32_t* entropy, const g::table tab, const double* mu, const double* sigma,
                            double* out3, double* out4) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned w = i / 32;
  out3[i] = g::warp_gaussian<g::form::three>(entropy[i], smem, tab.coeff, mu[w], sigma[w]);
  out4[i] = g::warp_gaussian<g::form::four>(entropy[i], smem, tab.coeff, mu[w], sigma[w]);
}

// draws from first_draw; pairs: through next_pair (then one next() for an odd count).
__global__ void per_thread_kernel(const g::table tab, std::uint64_t seed, unsigned draws, double* out,
                                  std::uint64_t first_draw = 0, bool pairs = false) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  g::warp_normal_generator<g::form::four> gen(smem, tab.coeff, seed, t, first_draw);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned d = 0;
  if (pairs) {
    for (; d + 2 <= draws; d += 2) {
      const double2 z = gen.next_pair(1.0, 2.0);
      out[d * stride + t] = z.x;
      out[(d + 1) * stride + t] = z.y;
    }
  }
  for (; d < draws; ++d) out[d * stride + t] = gen.next(1.0, 2.0);
}

// A user's kernel as warp_normal_generator's docstring shows it: table into shared memory,
// one generator per thread, next_pair() in a loop. One warp, thread id = lane, so draw d
// of lane l is gpu::generate_normal's output 32 d + l (generate.cuh: output i = lane i % 32
// of round i / 32, entropy_source(seed, lane)(round)). Draws first_draw .. first_draw +
// 2 pairs - 1 go to out[32 (d - first_draw) + lane].
__global__ void user_style_kernel(const g::table tab, std::uint64_t seed, std::uint64_t first_draw,
                                  unsigned pairs, double mean, double stddev, double* out) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  g::warp_normal_generator<g::form::four> gen(smem, tab.coeff, seed, threadIdx.x, first_draw);
  for (unsigned k = 0; k < pairs; ++k) {
    const double2 z = gen.next_pair(mean, stddev);
    out[(2 * k) * 32 + threadIdx.x] = z.x;
    out[(2 * k + 1) * 32 + threadIdx.x] = z.y;
  }
}

// A random valid table: entries in [0, 6e7], so the worst-case |a| <= 32 * 6e7 < 2^31 - 1;
// random coefficients with p3 != 0 (so the two forms differ).
g::table random_table(std::mt19937_64& rng) {
  g::table t{};
  std::uniform_int_distribution<std::int32_t> entry(0, 60000000);
  for (auto& e : t.entries) e = entry(rng);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  t.coeff.p[0] = u(rng) * 1e-8;
  t.coeff.p[1] = u(rng) * 1e-8;
  t.coeff.p[2] = u(rng) * 1e-13;
  t.coeff.p[3] = u(rng) * 1e-29;
  return t;
}

void expect_warp_equals_emulation(const g::table& tab, std::mt19937_64& rng, unsigned warps) {
  const unsigned n = warps * 32;
  std::vector<std::uint32_t> entropy(n);
  for (auto& e : entropy) e = static_cast<std::uint32_t>(rng());
  std::vector<double> mu(warps), sigma(warps);
  std::uniform_real_distribution<double> u(-10.0, 10.0);
  for (unsigned w = 0; w < warps; ++w) {
    mu[w] = w % 3 == 0 ? 0.0 : u(rng);
    sigma[w] = w % 3 == 0 ? 1.0 : std::fabs(u(rng));
  }
  std::uint32_t* d_entropy = nullptr;
  double *d_mu = nullptr, *d_sigma = nullptr, *d3 = nullptr, *d4 = nullptr;
  CUDA_OK(cudaMalloc(&d_entropy, n * sizeof(std::uint32_t)));
  CUDA_OK(cudaMalloc(&d_mu, warps * sizeof(double)));
  CUDA_OK(cudaMalloc(&d_sigma, warps * sizeof(double)));
  CUDA_OK(cudaMalloc(&d3, n * sizeof(double)));
  CUDA_OK(cudaMalloc(&d4, n * sizeof(double)));
  CUDA_OK(cudaMemcpy(d_entropy, entropy.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_mu, mu.data(), warps * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_sigma, sigma.data(), warps * sizeof(double), cudaMemcpyHostToDevice));
  warp_kernel<<<n / 256, 256>>>(d_entropy, tab, d_mu, d_sigma, d3, d4);
  CUDA_OK(cudaGetLastError());
  std::vector<double> x3(n), x4(n);
  CUDA_OK(cudaMemcpy(x3.data(), d3, n * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(x4.data(), d4, n * sizeof(double), cudaMemcpyDeviceToHost));
  cudaFree(d_entropy);
  cudaFree(d_mu);
  cudaFree(d_sigma);
  cudaFree(d3);
  cudaFree(d4);
  for (unsigned w = 0; w < warps; ++w) {
    std::uint32_t e[32];
    for (unsigned l = 0; l < 32; ++l) e[l] = entropy[w * 32 + l];
    double y3[32], y4[32];
    g::emulate_warp(e, tab.entries, tab.coeff, y3, mu[w], sigma[w], g::form::three);
    g::emulate_warp(e, tab.entries, tab.coeff, y4, mu[w], sigma[w], g::form::four);
    for (unsigned l = 0; l < 32; ++l) {
      ASSERT_EQ(bits_of(x3[w * 32 + l]), bits_of(y3[l])) << "3-coefficient, warp " << w << " lane " << l;
      ASSERT_EQ(bits_of(x4[w * 32 + l]), bits_of(y4[l])) << "4-coefficient, warp " << w << " lane " << l;
    }
  }
}

TEST(WarpGaussianGpu, KernelEqualsEmulationBitForBit) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  std::mt19937_64 rng(2022);
  expect_warp_equals_emulation(g::default_table(), rng, 1 << 14);
  for (int t = 0; t < 4; ++t) expect_warp_equals_emulation(random_table(rng), rng, 1 << 12);
}

// Draws from first_draw on (even: starting on a pair's low half; odd: on its high half,
// the generator's cached word then starts mid-pair), an odd number of draws.
void expect_per_thread_equals_emulation(std::uint64_t first_draw, bool pairs = false) {
  const unsigned blocks = 8, threads = 128, draws = 5;
  const std::size_t n = static_cast<std::size_t>(blocks) * threads * draws;
  const std::uint64_t seed = 77;
  double* d = nullptr;
  CUDA_OK(cudaMalloc(&d, n * sizeof(double)));
  per_thread_kernel<<<blocks, threads>>>(g::default_table(), seed, draws, d, first_draw, pairs);
  CUDA_OK(cudaGetLastError());
  std::vector<double> x(n);
  CUDA_OK(cudaMemcpy(x.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
  cudaFree(d);
  const unsigned total = blocks * threads;
  for (unsigned w = 0; w < total / 32; ++w)
    for (unsigned dr = 0; dr < draws; ++dr) {
      std::uint32_t e[32];
      for (unsigned l = 0; l < 32; ++l) e[l] = g::entropy_source(seed, w * 32 + l)(first_draw + dr);
      double y[32];
      g::emulate_warp(e, g::default_table().entries, g::default_table().coeff, y, 1.0, 2.0);
      for (unsigned l = 0; l < 32; ++l)
        ASSERT_EQ(bits_of(x[static_cast<std::size_t>(dr) * total + w * 32 + l]), bits_of(y[l]))
            << "warp " << w << " draw " << first_draw + dr << " lane " << l;
    }
}

TEST(WarpGaussianGpu, PerThreadGeneratorEqualsEmulation) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  expect_per_thread_equals_emulation(0);
}

TEST(WarpGaussianGpu, PerThreadGeneratorFromAnOddDrawEqualsEmulation) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  expect_per_thread_equals_emulation(7);
  expect_per_thread_equals_emulation((std::uint64_t{1} << 40) + 3);
}

// next_pair gives the same draws as next(), from even and odd first draws (5 draws: two
// pairs and a single).
TEST(WarpGaussianGpu, PerThreadGeneratorPairsEqualEmulation) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  expect_per_thread_equals_emulation(0, true);
  expect_per_thread_equals_emulation(7, true);
  expect_per_thread_equals_emulation((std::uint64_t{1} << 40) + 2, true);
}

TEST(WarpGaussianGpu, GenerateNormalEqualsCpuTwin) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  std::mt19937_64 rng(5);
  const g::table other = random_table(rng);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{64},
                        std::size_t{65}, std::size_t{96}, std::size_t{97}, std::size_t{127}, std::size_t{1000}, (std::size_t{1} << 20) + 7, std::size_t{1} << 24})
    for (g::form f : {g::form::three, g::form::four})
      for (const g::table* tab : {&g::default_table(), &other}) {
        double* d = nullptr;
        CUDA_OK(cudaMalloc(&d, n * sizeof(double)));
        const std::uint64_t seed = 1234567 + n;
        g::gpu::generate_normal(d, n, 0.5, 3.0, seed, *tab, f, stream);
        std::vector<double> x(n), y(n);
        CUDA_OK(cudaMemcpyAsync(x.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        cudaFree(d);
        g::cpu::generate_normal(y.data(), n, 0.5, 3.0, seed, *tab, f);
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(bits_of(x[i]), bits_of(y[i])) << "n " << n << " i " << i << " form " << static_cast<int>(f);
      }
  // Default overload (default table, 4-coefficient form).
  const std::size_t n = 4099;
  double* d = nullptr;
  CUDA_OK(cudaMalloc(&d, n * sizeof(double)));
  g::gpu::generate_normal(d, n, 0.0, 1.0, 42);
  std::vector<double> x(n), y(n);
  CUDA_OK(cudaMemcpy(x.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
  cudaFree(d);
  g::cpu::generate_normal(y.data(), n, 0.0, 1.0, 42);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(bits_of(x[i]), bits_of(y[i])) << "i " << i;
  CUDA_OK(cudaStreamDestroy(stream));
}

// float output on the GPU equals the CPU twin bit for bit (both forms, a partial round).
TEST(WarpGaussianGpu, GenerateNormalFloatEqualsCpuTwin) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  for (g::form f : {g::form::three, g::form::four}) {
    const std::size_t n = 100003;
    float* d = nullptr;
    CUDA_OK(cudaMalloc(&d, n * sizeof(float)));
    g::gpu::generate_normal(d, n, -1.0, 0.5, 9, g::default_table(), f);
    std::vector<float> x(n), y(n);
    CUDA_OK(cudaMemcpy(x.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    cudaFree(d);
    g::cpu::generate_normal(y.data(), n, -1.0, 0.5, 9, g::default_table(), f);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(std::memcmp(&x[i], &y[i], sizeof(float)), 0) << "i " << i << " form " << static_cast<int>(f);
  }
}

__global__ void pair_float_kernel(const g::table tab, std::uint64_t seed, double* exact, float* rounded) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  g::warp_normal_generator<g::form::four> a(smem, tab.coeff, seed, t), b(smem, tab.coeff, seed, t);
  const double2 z = a.next_pair(0.5, 2.0);
  const float2 w = b.next_pair_float(0.5, 2.0);
  exact[2 * t] = z.x;
  exact[2 * t + 1] = z.y;
  rounded[2 * t] = w.x;
  rounded[2 * t + 1] = w.y;
}

// The API's float draws are its double draws rounded to nearest.
TEST(WarpGaussianGpu, PerThreadFloatPairIsTheDoublePairRounded) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const unsigned threads = 4 * 256;
  double* e = nullptr;
  float* r = nullptr;
  CUDA_OK(cudaMalloc(&e, 2 * threads * sizeof(double)));
  CUDA_OK(cudaMalloc(&r, 2 * threads * sizeof(float)));
  pair_float_kernel<<<4, 256>>>(g::default_table(), 5, e, r);
  CUDA_OK(cudaGetLastError());
  std::vector<double> x(2 * threads);
  std::vector<float> y(2 * threads);
  CUDA_OK(cudaMemcpy(x.data(), e, x.size() * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(y.data(), r, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(e);
  cudaFree(r);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], static_cast<float>(x[i])) << "i " << i;
}

TEST(WarpGaussianGpu, GenerateNormalChecksArgumentsBeforeLaunching) {
  // The checks run on the host before any CUDA call, so this needs no GPU.
  EXPECT_THROW(g::gpu::generate_normal(nullptr, 8, 0.0, 1.0, 1), onepass::error);
  double dummy = 0;  // never written: the checks fail first
  EXPECT_THROW(g::gpu::generate_normal(&dummy, 1, 0.0, -1.0, 1), onepass::error);
  EXPECT_THROW(g::gpu::generate_normal(&dummy, 1, NAN, 1.0, 1), onepass::error);
  g::gpu::generate_normal(nullptr, 0, 0.0, 1.0, 1);  // n = 0: nothing to do
}

}  // namespace

// The API test: the draws of the per-thread API in a user-style kernel equal
// gpu::generate_normal's outputs for the same seed, mean, stddev and offsets (an even and an
// odd first draw).
TEST(WarpGaussianGpu, UserKernelDrawsEqualGenerateNormal) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const g::table& tab = g::default_table();
  constexpr unsigned pairs = 50;
  const std::uint64_t seed = 777;
  for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{10}, std::uint64_t{13}}) {
    const std::size_t n = static_cast<std::size_t>(first + 2 * pairs) * 32;
    double *d_all = nullptr, *d_user = nullptr;
    CUDA_OK(cudaMalloc(&d_all, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&d_user, 2 * pairs * 32 * sizeof(double)));
    g::gpu::generate_normal(d_all, n, 0.25, 1.5, seed, tab, g::form::four);
    user_style_kernel<<<1, 32>>>(tab, seed, first, pairs, 0.25, 1.5, d_user);
    CUDA_OK(cudaGetLastError());
    std::vector<double> all(n), user(2 * pairs * 32);
    CUDA_OK(cudaMemcpy(all.data(), d_all, n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(user.data(), d_user, user.size() * sizeof(double), cudaMemcpyDeviceToHost));
    cudaFree(d_all);
    cudaFree(d_user);
    for (std::size_t j = 0; j < user.size(); ++j)
      ASSERT_EQ(bits_of(user[j]), bits_of(all[first * 32 + j])) << "first draw " << first << " output " << j;
  }
}
