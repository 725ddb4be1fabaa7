// python/src/onepass_cuda_common.cuh — helpers shared by the CUDA translation units of the
// Python package's GPU module (onepass_cuda*.cu; split so that a parallel build compiles the
// sort instantiations side by side): device scope, stream-ordered temporary buffers, an
// iota kernel, and the typed sort wrappers.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <string>

#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass_cuda.hpp"

namespace onepass_py {

/// Sort (key, value) pairs with 4-byte (v32) or 8-byte (v64) values: onepass::sort::gpu::sort_pairs
/// for the key type of (kind, key_bytes); defined in onepass_cuda_pairs32.cu / _pairs64.cu.
std::string sort_pairs_v32(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                           std::uintptr_t values_out, std::uint64_t n, char key_kind, unsigned key_bytes,
                           unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream);
std::string sort_pairs_v64(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                           std::uintptr_t values_out, std::uint64_t n, char key_kind, unsigned key_bytes,
                           unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream);

/// The 8-byte-key half of sort_pairs_v64 (onepass_cuda_pairs64_wide.cu).
std::string sort_pairs_v64_wide(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                                std::uintptr_t values_out, std::uint64_t n, char key_kind, unsigned begin_bit,
                                unsigned end_bit, bool descending, std::uintptr_t stream);

namespace {

template <std::size_t N>
struct alignas(N) item_of {
  unsigned char b[N];
};

/// A 16-byte item as two 8-byte words (16-byte aligned).
struct alignas(16) item16 {
  std::uint64_t a, b;
};

/// The item type the kernels move for an element of N bytes: the unsigned integer of that
/// width (or item16), so that a kernel that copies items as values (the segmented
/// shuffle's staging) moves one word, not N bytes one by one.
template <std::size_t N>
using word_item = std::conditional_t<
    N == 1, std::uint8_t,
    std::conditional_t<N == 2, std::uint16_t,
                       std::conditional_t<N == 4, std::uint32_t, std::conditional_t<N == 8, std::uint64_t, item16>>>>;

inline cudaStream_t as_stream(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }
template <class T>
inline T* as_ptr(std::uintptr_t p) {
  return reinterpret_cast<T*>(p);
}

/// Raises the release threshold of `device`'s default memory pool to the maximum, once per
/// device, so that the temporary storage of one call is reused by the next instead of being
/// given back to the driver at every synchronisation (cudaMemPoolAttrReleaseThreshold; the
/// pool's memory is still reused by any cudaMallocAsync user of the pool).
inline void keep_pool(int device) {
  static std::atomic<unsigned long long> done{0};
  if (device < 0 || device >= 64) return;
  const unsigned long long bit = 1ull << device;
  if (done.load() & bit) return;
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    std::uint64_t threshold = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
  cudaGetLastError();
  done.fetch_or(bit);
}

/// Makes `device` current for the scope, restoring the previous device.
class device_scope {
 public:
  explicit device_scope(int device) {
    ONEPASS_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) ONEPASS_CUDA_CHECK(cudaSetDevice(device));
    keep_pool(device);
  }
  ~device_scope() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = 0;
};

/// Device memory from cudaMallocAsync on a stream, given back with cudaFreeAsync on it
/// (stream-ordered: freed after the work enqueued before the release).
class stream_buffer {
 public:
  stream_buffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes) ONEPASS_CUDA_CHECK(cudaMallocAsync(&ptr_, bytes, stream));
  }
  ~stream_buffer() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
  }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

template <class T>
__global__ void iota_kernel(T* out, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = i;
  }
}

inline unsigned grid_for(std::uint64_t work, int device) {
  int sms = 1;
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::uint64_t wanted = (work + 255) / 256;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, std::uint64_t(sms) * 16)));
}

inline void launch_iota(std::uint64_t* out, std::uint64_t n, cudaStream_t stream, int device) {
  if (n == 0) return;
  iota_kernel<std::uint64_t><<<grid_for(n, device), 256, 0, stream>>>(out, n);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

}  // namespace
}  // namespace onepass_py
