// The float-native warp Gaussian generator on the GPU (warp_gaussian_float.cuh,
// generate.cuh's gpu::generate_normal(float*, ..., method::float_native)) equals its CPU twin
// (cpu::generate_normal, float_cpu_generate.hpp) bit for bit: gpu::generate_normal for several n (n < 32, n not a
// multiple of 128, large n, an output pointer not 16-byte aligned) and seeds, mean/stddev;
// the per-thread float_normal_generator (next4, next_pair) against the same outputs; the
// single warp transform against emulate_float_warp for random entropy; and
// method::rounded_double against the double generator rounded.
// Label `gpu`: skipped, and reported as skipped, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/generate.cuh"
#include "onepass/gaussian/warp_gaussian_float.cuh"
#include "gpu_test_support.hpp"

namespace {

namespace g = onepass::gaussian;

using onepass::testing::have_gpu;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// One warp transform per warp: entropy[i] is thread i's word.
__global__ void warp_float_kernel(const std::uint32_t* entropy, const g::float_table tab, g::float_scaled k,
                                  float* out) {
  __shared__ alignas(16) float smem[g::float_smem_entries];
  g::load_float_table_to_shared(smem, tab.entries);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = g::warp_gaussian_float(entropy[i], smem, k);
}

// The user-kernel API: thread t (its lane in a 32-thread launch) makes `calls` next4()
// calls from first_block; output of call c is out[(c * 32 + t) * 4 + j] — the order of
// gpu::generate_normal's round first_block + c. With pair = true, next_pair() instead (two
// floats per call: transforms 0, 1).
__global__ void user_float_kernel(const g::float_table tab, std::uint64_t seed, std::uint64_t first_block,
                                  unsigned calls, double mean, double stddev, bool pair, float* out) {
  __shared__ alignas(16) float smem[g::float_smem_entries];
  g::load_float_table_to_shared(smem, tab.entries);
  const unsigned t = threadIdx.x;
  g::float_normal_generator gen(smem, tab.coeff, seed, t, first_block, mean, stddev);
  for (unsigned c = 0; c < calls; ++c) {
    if (pair) {
      const float2 z = gen.next_pair();
      out[(c * 32 + t) * 4 + 0] = z.x;
      out[(c * 32 + t) * 4 + 1] = z.y;
    } else {
      const float4 z = gen.next4();
      out[(c * 32 + t) * 4 + 0] = z.x;
      out[(c * 32 + t) * 4 + 1] = z.y;
      out[(c * 32 + t) * 4 + 2] = z.z;
      out[(c * 32 + t) * 4 + 3] = z.w;
    }
  }
}

}  // namespace

TEST(GaussianFloatGpu, WarpTransformEqualsTheCpuEmulation) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const g::float_table& tab = g::default_float_table();
  const std::vector<float> st = g::signed_float_table(tab);
  constexpr unsigned warps = 256, threads = warps * 32;
  std::mt19937 rng(17);
  std::vector<std::uint32_t> e(threads);
  for (auto& v : e) v = rng();
  for (double sigma : {1.0, 0.3, 7.0}) {
    const g::float_scaled k = g::float_lane::scale(tab.coeff, sigma == 1.0 ? 0.0 : -1.25, sigma);
    std::uint32_t* d_e = nullptr;
    float* d_out = nullptr;
    CUDA_OK(cudaMalloc(&d_e, threads * sizeof(std::uint32_t)));
    CUDA_OK(cudaMalloc(&d_out, threads * sizeof(float)));
    CUDA_OK(cudaMemcpy(d_e, e.data(), threads * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    warp_float_kernel<<<warps / 8, 256>>>(d_e, tab, k, d_out);
    CUDA_OK(cudaGetLastError());
    std::vector<float> got(threads);
    CUDA_OK(cudaMemcpy(got.data(), d_out, threads * sizeof(float), cudaMemcpyDeviceToHost));
    cudaFree(d_e);
    cudaFree(d_out);
    for (unsigned w = 0; w < warps; ++w) {
      std::uint32_t ew[32];
      for (unsigned l = 0; l < 32; ++l) ew[l] = e[w * 32 + l];
      float want[32];
      g::emulate_float_warp(ew, st.data(), k, want);
      for (unsigned l = 0; l < 32; ++l)
        ASSERT_EQ(bits_of(got[w * 32 + l]), bits_of(want[l])) << "sigma " << sigma << " warp " << w << " lane " << l;
    }
  }
}

TEST(GaussianFloatGpu, GenerateNormalEqualsTheCpuTwin) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const std::size_t sizes[] = {1, 5, 31, 32, 33, 127, 128, 129, 1000, 4096, 100003, std::size_t{1} << 20};
  const std::uint64_t seeds[] = {0, 1, 0xdeadbeefcafef00dull};
  for (std::uint64_t seed : seeds) {
    for (std::size_t n : sizes) {
      for (int offset : {0, 1}) {  // offset 1: out not 16-byte aligned (scalar stores)
        float* d_buf = nullptr;
        CUDA_OK(cudaMalloc(&d_buf, (n + 8) * sizeof(float)));
        CUDA_OK(cudaMemset(d_buf, 0x7f, (n + 8) * sizeof(float)));
        const double mean = seed == 1 ? 0.5 : 0.0, stddev = seed == 1 ? 3.0 : 1.0;
        g::gpu::generate_normal(d_buf + offset, n, mean, stddev, seed, g::method::float_native);
        CUDA_OK(cudaDeviceSynchronize());
        std::vector<float> got(n + 8), want(n);
        CUDA_OK(cudaMemcpy(got.data(), d_buf, (n + 8) * sizeof(float), cudaMemcpyDeviceToHost));
        cudaFree(d_buf);
        g::cpu::generate_normal(want.data(), n, mean, stddev, seed, g::method::float_native);
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(bits_of(got[i + offset]), bits_of(want[i])) << "seed " << seed << " n " << n << " offset "
                                                                 << offset << " i " << i;
        for (std::size_t i = n + offset; i < n + 8; ++i) ASSERT_EQ(bits_of(got[i]), 0x7f7f7f7fu) << "past n: " << i;
        if (offset == 1) ASSERT_EQ(bits_of(got[0]), 0x7f7f7f7fu) << "before out";
      }
    }
  }
}

TEST(GaussianFloatGpu, MethodsAndStreamOverloadAgree) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const std::size_t n = 5000;
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  CUDA_OK(cudaMalloc(&d_a, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_b, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_c, n * sizeof(float)));
  cudaStream_t s = nullptr;
  CUDA_OK(cudaStreamCreate(&s));
  g::gpu::generate_normal(d_a, n, 0.0, 1.0, 9, s);  // stream overload: the default, float_native (issue 30)
  g::gpu::generate_normal(d_b, n, 0.0, 1.0, 9, g::method::rounded_double, s);       // the double rounded
  g::gpu::generate_normal(d_c, n, 0.0, 1.0, 9, g::default_float_table(), s);        // explicit float table
  CUDA_OK(cudaStreamSynchronize(s));
  cudaStreamDestroy(s);
  std::vector<float> a(n), b(n), c(n), wa(n), wb(n);
  CUDA_OK(cudaMemcpy(a.data(), d_a, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(b.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  g::cpu::generate_normal(wa.data(), n, 0.0, 1.0, 9, g::method::float_native);
  g::cpu::generate_normal(wb.data(), n, 0.0, 1.0, 9, g::default_table(), g::form::four);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(bits_of(a[i]), bits_of(wa[i])) << i;
    ASSERT_EQ(bits_of(c[i]), bits_of(wa[i])) << i;
    ASSERT_EQ(bits_of(b[i]), bits_of(wb[i])) << i;
  }
  EXPECT_THROW(g::gpu::generate_normal(d_a, n, 0.0, -1.0, 9, g::method::float_native), onepass::error);
  EXPECT_THROW(g::gpu::generate_normal(static_cast<float*>(nullptr), n, 0.0, 1.0, 9, g::method::float_native), onepass::error);
  EXPECT_THROW(g::gpu::generate_normal(d_a, n, 0.0, 1.0, 9, static_cast<g::method>(3)), onepass::error);
}

TEST(GaussianFloatGpu, UserKernelDrawsEqualGenerateNormal) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const g::float_table& tab = g::default_float_table();
  constexpr unsigned calls = 40;
  const std::uint64_t seed = 777;
  for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{3}}) {
    for (bool pair : {false, true}) {
      const std::size_t n = static_cast<std::size_t>(first + calls) * 128;
      float *d_all = nullptr, *d_user = nullptr;
      CUDA_OK(cudaMalloc(&d_all, n * sizeof(float)));
      CUDA_OK(cudaMalloc(&d_user, calls * 128 * sizeof(float)));
      CUDA_OK(cudaMemset(d_user, 0, calls * 128 * sizeof(float)));
      g::gpu::generate_normal(d_all, n, 0.25, 1.5, seed, tab);
      user_float_kernel<<<1, 32>>>(tab, seed, first, calls, 0.25, 1.5, pair, d_user);
      CUDA_OK(cudaGetLastError());
      std::vector<float> all(n), user(calls * 128);
      CUDA_OK(cudaMemcpy(all.data(), d_all, n * sizeof(float), cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(user.data(), d_user, user.size() * sizeof(float), cudaMemcpyDeviceToHost));
      cudaFree(d_all);
      cudaFree(d_user);
      for (std::size_t j = 0; j < user.size(); ++j) {
        if (pair && j % 4 >= 2) continue;
        ASSERT_EQ(bits_of(user[j]), bits_of(all[first * 128 + j])) << "first " << first << " pair " << pair << " j " << j;
      }
    }
  }
}
