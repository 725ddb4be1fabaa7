// The bijections evaluated in a CUDA kernel equal their host evaluation bit for
// bit (every GPU kernel with a CPU twin is compared with it exactly). Label `gpu`:
// skipped, and reported as skipped, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "gpu_test_support.hpp"

namespace {

using onepass::bijection::lcg;
using onepass::bijection::variable_philox;

using onepass::testing::have_gpu;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

template <class Bijection>
__global__ void evaluate(Bijection f, std::uint64_t stride, std::uint64_t count, std::uint64_t* image,
                         std::uint64_t* preimage) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  const std::uint64_t x = (i * stride) & onepass::low_mask(f.domain_bits());
  image[i] = f(x);
  preimage[i] = f.inverse(x);
}

template <class Bijection>
void expect_device_equals_host(const Bijection& f) {
  const std::uint64_t count = 1 << 16;
  const std::uint64_t stride = 0x9E3779B97F4A7C15ull;  // spreads samples over the whole domain
  std::uint64_t *d_image = nullptr, *d_preimage = nullptr;
  CUDA_OK(cudaMalloc(&d_image, count * sizeof(std::uint64_t)));
  CUDA_OK(cudaMalloc(&d_preimage, count * sizeof(std::uint64_t)));
  evaluate<<<(count + 255) / 256, 256>>>(f, stride, count, d_image, d_preimage);
  CUDA_OK(cudaGetLastError());
  std::vector<std::uint64_t> image(count), preimage(count);
  CUDA_OK(cudaMemcpy(image.data(), d_image, count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(preimage.data(), d_preimage, count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  cudaFree(d_image);
  cudaFree(d_preimage);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t x = (i * stride) & onepass::low_mask(f.domain_bits());
    ASSERT_EQ(image[i], f(x)) << "bits " << f.domain_bits() << " x " << x;
    ASSERT_EQ(preimage[i], f.inverse(x)) << "bits " << f.domain_bits() << " x " << x;
  }
}

TEST(BijectionGpu, VariablePhiloxDeviceEqualsHost) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  for (unsigned bits = 1; bits <= 64; ++bits)
    for (unsigned rounds : {1u, 24u, 64u}) expect_device_equals_host(variable_philox(bits, std::mt19937_64(bits), rounds));
}

TEST(BijectionGpu, LcgDeviceEqualsHost) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  for (unsigned bits = 1; bits <= 64; ++bits) expect_device_equals_host(lcg(bits, std::mt19937_64(bits)));
}

}  // namespace
