// examples/baselines/example_gaussian.cu — a Gaussian-generator baseline in one file (the
// README's example): copy it into baselines/gpu/ and gaussian_throughput, the GPU tests and
// `onepass list` pick it up by its registry name. tests/gpu/test_gpu_gaussian_registry.cu
// builds this file and checks it. This one: Box-Muller over a counter hash — pair p of the
// output comes from one SplitMix64 finaliser of (seed, p), its two 32-bit halves the two
// uniforms (a plain textbook generator, only to show the shape of an entry).
#include <cuda_runtime.h>

#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {

__device__ std::uint64_t example_hash(std::uint64_t x) {  // SplitMix64's finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void example_box_muller(T* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t p = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; 2 * p < n; p += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = example_hash(seed * 0x9e3779b97f4a7c15ull + p);
    const double u1 = (static_cast<double>(h >> 32) + 0.5) * 0x1p-32, u2 = static_cast<double>(h & 0xffffffffu) * 0x1p-32;
    double s, c;
    sincospi(2.0 * u2, &s, &c);
    const double r = sqrt(-2.0 * log(u1));
    out[2 * p] = static_cast<T>(r * c);
    if (2 * p + 1 < n) out[2 * p + 1] = static_cast<T>(r * s);
  }
}

void example_gaussian(void* d_out, std::size_t n, onepass::registry::gaussian_dtype dtype,
                      const onepass::registry::gaussian_params& p, void* stream) {
  onepass::require(n == 0 || d_out != nullptr, "registry entry example_gaussian", "d_out", "must not be null when n > 0");
  if (n == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == onepass::registry::gaussian_dtype::f64) {
    example_box_muller<double><<<1024, 256, 0, s>>>(static_cast<double*>(d_out), n, p.seed);
  } else {
    example_box_muller<float><<<1024, 256, 0, s>>>(static_cast<float*>(d_out), n, p.seed);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

const onepass::registry::gaussian_registrar example_gaussian_registration{[] {
  onepass::registry::gaussian_entry e{"example_gaussian", onepass::registry::device::gpu};
  e.label = "Example (Box-Muller over a counter hash)";
  e.description = "the README's one-file Gaussian baseline";
  e.entropy = "SplitMix64 finaliser of (seed, pair)";
  e.dtypes = {onepass::registry::gaussian_dtype::f64, onepass::registry::gaussian_dtype::f32};
  e.gpu_run = example_gaussian;
  return e;
}()};

}  // namespace
