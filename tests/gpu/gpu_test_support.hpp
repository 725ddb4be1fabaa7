// tests/gpu/gpu_test_support.hpp — what the GPU test programs share: whether a CUDA
// device is usable (a test without one is skipped with GTEST_SKIP and says so), a
// CUDA status check that throws, and an owning device allocation with typed copies.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

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

/// An owning device allocation of `bytes` bytes (none for 0); throws std::runtime_error
/// when cudaMalloc fails.
struct dev {
  void* p = nullptr;
  explicit dev(std::size_t bytes) {
    if (bytes) cuda_ok(cudaMalloc(&p, bytes), "cudaMalloc");
  }
  ~dev() {
    if (p) cudaFree(p);
  }
  dev(const dev&) = delete;
  dev& operator=(const dev&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

/// Copies h to the device array d (h.size() elements) and waits until the copy has landed.
/// cudaMemcpy from pageable host memory may return before its DMA to the device is done, and the
/// copy runs on the legacy default stream, which work on a cudaStreamNonBlocking stream (the
/// distributed tests' rank_team streams) does not wait for: without the synchronisation a kernel
/// on such a stream could read the array before the copy finished (seen once on an H100 under
/// ctest -j3: DistributedSort.PairsAreStable/1Ranks read zero values).
template <class T>
void upload(T* d, const std::vector<T>& h) {
  if (h.empty()) return;
  cuda_ok(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  cuda_ok(cudaStreamSynchronize(cudaStreamLegacy), "upload: synchronize the legacy stream");
}
/// The n elements of the device array d.
template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) cuda_ok(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return h;
}

}  // namespace onepass::testing
