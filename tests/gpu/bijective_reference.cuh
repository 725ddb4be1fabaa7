// tests/gpu/bijective_reference.cuh — the one-GPU reference the distributed shuffle tests compare
// with: gpu::bijective_shuffle (forward) or gpu::bijective_unshuffle of a whole input on device 0.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "gpu_test_support.hpp"

namespace onepass::testing {

/// gpu::bijective_shuffle (forward) or gpu::bijective_unshuffle of `input` on device 0 with
/// variable_philox::for_length(N, seed, rounds); empty for an empty input.
template <class T>
std::vector<T> one_gpu_bijective(const std::vector<T>& input, std::uint64_t seed, unsigned rounds, bool forward = true) {
  const std::uint64_t N = input.size();
  if (N == 0) return {};
  cuda_ok(cudaSetDevice(0), "cudaSetDevice");
  const auto f = onepass::bijection::variable_philox::for_length(N, seed, rounds);
  dev d_in(N * sizeof(T)), d_out(N * sizeof(T));
  upload(d_in.as<T>(), input);
  std::size_t bytes = 0;
  namespace gpu = onepass::shuffle::gpu;
  if (forward) gpu::bijective_shuffle(nullptr, bytes, d_in.as<T>(), d_out.as<T>(), N, f);
  else gpu::bijective_unshuffle(nullptr, bytes, d_in.as<T>(), d_out.as<T>(), N, f);
  dev temp(bytes);
  if (forward) gpu::bijective_shuffle(temp.p, bytes, d_in.as<T>(), d_out.as<T>(), N, f);
  else gpu::bijective_unshuffle(temp.p, bytes, d_in.as<T>(), d_out.as<T>(), N, f);
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return download(d_out.as<T>(), N);
}

}  // namespace onepass::testing
