// Sweep of Bijective2 tile shapes (threads x items per thread x min blocks per SM)
// against a computed-index random gather, uint64 elements, sizes 2^w + 1.
// Build (from the repository root):
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include scripts/tune_bijective2.cu -o /tmp/tune_b2
// Run: /tmp/tune_b2 [w ...]   (default w = 14 17 20 23 26 29)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"

namespace d = onepass::shuffle::gpu::detail;
using onepass::bijection::variable_philox;

__global__ void fill(std::uint64_t* x, std::uint64_t m) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < m; i += 256ull * gridDim.x) x[i] = i * 0x9E3779B97F4A7C15ull;
}
// out[j] = in[h(j) mod m], h a 64-bit mixer (the "computed index" random gather).
__global__ void gather(const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out, std::uint64_t m) {
  for (std::uint64_t j = blockIdx.x * 256ull + threadIdx.x; j < m; j += 256ull * gridDim.x) {
    std::uint64_t h = j * 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    out[j] = __ldg(in + __umul64hi(h, m));
  }
}
__global__ void count_diff(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t m, unsigned long long* c) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < m; i += 256ull * gridDim.x)
    if (a[i] != b[i]) atomicAdd(c, 1ull);
}

template <class F>
double median_ms(F&& call, int reps = 7) {
  cudaEvent_t a, b;
  ONEPASS_CUDA_CHECK(cudaEventCreate(&a));
  ONEPASS_CUDA_CHECK(cudaEventCreate(&b));
  call();
  call();  // warm-up
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    ONEPASS_CUDA_CHECK(cudaEventRecord(a));
    call();
    ONEPASS_CUDA_CHECK(cudaEventRecord(b));
    ONEPASS_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    ONEPASS_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct context {
  std::uint64_t m;
  std::uint64_t *in, *out, *ref;
  unsigned char* temp;
  variable_philox f;
  double gather_ms;
};

template <class P>
void try_policy(context& c, const char* name) {
  std::size_t bytes = d::bijective2_temp_bytes_with<P>(c.f.domain_bits());
  const double ms = median_ms([&] { d::run_bijective2_with<P, false>(c.temp, c.in, c.out, c.m, c.f, 0); });
  unsigned long long* diff;
  ONEPASS_CUDA_CHECK(cudaMallocManaged(&diff, 8));
  *diff = 0;
  count_diff<<<1024, 256>>>(c.out, c.ref, c.m, diff);
  ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("  %-14s %9.3f ms %7.2f G/s  %.3f x gather  temp %zu B%s\n", name, ms, c.m / ms * 1e-6,
              c.gather_ms / ms, bytes, *diff ? "  OUTPUT DIFFERS" : "");
  cudaFree(diff);
}

int main(int argc, char** argv) {
  std::vector<int> ws;
  for (int i = 1; i < argc; ++i) ws.push_back(std::atoi(argv[i]));
  if (ws.empty()) ws = {14, 17, 20, 23, 26, 29};
  cudaDeviceProp prop;
  ONEPASS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int w : ws) {
    context c{(std::uint64_t{1} << w) + 1, nullptr, nullptr, nullptr, nullptr,
              variable_philox::for_length((std::uint64_t{1} << w) + 1, 42), 0};
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.in, c.m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.out, c.m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.ref, c.m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.temp, 64 << 20));
    fill<<<1024, 256>>>(c.in, c.m);
    c.gather_ms = median_ms([&] { gather<<<4096, 256>>>(c.in, c.out, c.m); });
    std::size_t bytes = 64 << 20;
    const double lib_ms = median_ms([&] {
      onepass::shuffle::gpu::bijective_shuffle(c.temp, bytes, c.in, c.ref, c.m, c.f);
    });
    std::printf("m = 2^%d + 1 (b = %u): gather %.3f ms %.2f G/s; library default %.3f ms %.2f G/s (%.3f x gather)\n", w,
                c.f.domain_bits(), c.gather_ms, c.m / c.gather_ms * 1e-6, lib_ms, c.m / lib_ms * 1e-6,
                c.gather_ms / lib_ms);
    try_policy<d::tile_policy<256, 2, 1>>(c, "256x2");
    try_policy<d::tile_policy<256, 4, 4>>(c, "256x4 min4");
    try_policy<d::tile_policy<256, 4, 6>>(c, "256x4 min6");
    try_policy<d::tile_policy<256, 8, 4>>(c, "256x8 min4");
    try_policy<d::tile_policy<256, 8, 3>>(c, "256x8 min3");
    try_policy<d::tile_policy<256, 16, 2>>(c, "256x16 min2");
    try_policy<d::tile_policy<128, 8, 8>>(c, "128x8 min8");
    try_policy<d::tile_policy<128, 16, 4>>(c, "128x16 min4");
    try_policy<d::tile_policy<512, 8, 2>>(c, "512x8 min2");
    try_policy<d::tile_policy<512, 4, 3>>(c, "512x4 min3");
    cudaFree(c.in);
    cudaFree(c.out);
    cudaFree(c.ref);
    cudaFree(c.temp);
  }
}
