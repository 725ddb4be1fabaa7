// tests/gpu/gpu_test_support.hpp — what the GPU test programs share: whether a CUDA
// device is usable (a test without one is skipped with GTEST_SKIP and says so), and
// a CUDA status check that throws.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace onepass::testing {

/// True when at least one CUDA device is usable. Clears the error a failed query
/// leaves (no driver, or a driver older than the runtime).
inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

/// Throws std::runtime_error("<what>: <CUDA error string>") unless status is cudaSuccess.
inline void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace onepass::testing
