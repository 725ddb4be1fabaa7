// scripts/bench_keys.cuh — what the standalone sort benches in scripts/ (bench_onesweep.cu,
// bench_local_finish.cu; not part of the library) share: CK, which stops the program on a CUDA
// error, event_ms (median_event_ms.cuh: one call between two CUDA events), and the device fills of their inputs — uniform words (splitmix64 of the index),
// Onesweep Fig. 9's low-entropy keys (the AND of q uniform words) and the index (values that
// show stability).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "median_event_ms.cuh"  // event_ms

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

template <class T>
__global__ void fill_random(T* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[i] = static_cast<T>(z);
  }
}
/// Low-entropy keys (paper §5, Fig. 9): the AND of q uniform words (q = 1: uniform).
template <class T>
__global__ void fill_and(T* p, std::size_t n, std::uint64_t seed, int q) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t acc = ~std::uint64_t{0};
    for (int r = 0; r < q; ++r) {
      std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed + 0x632BE59BD9B4E019ull * r;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      acc &= z;
    }
    p[i] = static_cast<T>(acc);
  }
}
template <class T>
__global__ void fill_index(T* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<T>(i);
}
