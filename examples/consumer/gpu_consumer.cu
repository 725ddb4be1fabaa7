// The GPU half of the consumer (links onepass::cuda): shuffles 0..n-1 on the GPU with
// onepass's bijective shuffle (variable Philox bijection, bijective2), checks that the
// result is a permutation of the input, that it is the CPU shuffle's permutation for the
// same seed and that the GPU unshuffle restores the input; then sorts n pseudo-random
// 32-bit keys with onepass::sort::gpu::sort_keys and checks the result against std::sort.
// Prints one line. Without a usable GPU (cudaGetDeviceCount fails or finds none) it prints
// "gpu_consumer: skipped: no GPU (...)" and exits 0. Exit code 1 when a check fails or
// onepass throws.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <vector>

#include <onepass/bijection/variable_philox.hpp>
#include <onepass/cuda_check.hpp>
#include <onepass/shuffle/cpu_shuffle.hpp>
#include <onepass/shuffle/gpu_shuffle.cuh>
#include <onepass/sort/sort.cuh>
#include <onepass/version.hpp>

namespace {

int fail(const char* what) {
  std::fprintf(stderr, "gpu_consumer: FAILED: %s\n", what);
  return 1;
}

/// A device buffer of `count` elements of T, freed when it goes out of scope. At least one
/// byte, so that the pointer is never null (a null d_temp asks for the storage size).
template <class T>
struct device_buffer {
  T* ptr = nullptr;
  explicit device_buffer(std::size_t count) {
    ONEPASS_CUDA_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(count * sizeof(T), 1)));
  }
  ~device_buffer() { cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

template <class T>
void to_device(const std::vector<T>& host, device_buffer<T>& device) {
  ONEPASS_CUDA_CHECK(cudaMemcpy(device.ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
void to_host(const device_buffer<T>& device, std::vector<T>& host) {
  ONEPASS_CUDA_CHECK(cudaMemcpy(host.data(), device.ptr, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

int run() {
  const std::size_t n = 100000;
  const std::uint64_t seed = 42;
  namespace gpu = onepass::shuffle::gpu;

  // Shuffle 0..n-1, then unshuffle, with CUB's two-phase temporary storage.
  std::vector<std::uint32_t> in(n), shuffled(n), restored(n), cpu_shuffled(n);
  std::iota(in.begin(), in.end(), 0u);
  const auto f = onepass::bijection::variable_philox::for_length(n, seed);
  device_buffer<std::uint32_t> d_in(n), d_shuffled(n), d_restored(n);
  to_device(in, d_in);
  std::size_t shuffle_bytes = 0, unshuffle_bytes = 0;
  gpu::bijective_shuffle(nullptr, shuffle_bytes, d_in.ptr, d_shuffled.ptr, n, f);
  gpu::bijective_unshuffle(nullptr, unshuffle_bytes, d_shuffled.ptr, d_restored.ptr, n, f);
  device_buffer<unsigned char> d_shuffle_temp(std::max(shuffle_bytes, unshuffle_bytes));
  gpu::bijective_shuffle(d_shuffle_temp.ptr, shuffle_bytes, d_in.ptr, d_shuffled.ptr, n, f);
  gpu::bijective_unshuffle(d_shuffle_temp.ptr, unshuffle_bytes, d_shuffled.ptr, d_restored.ptr, n, f);
  to_host(d_shuffled, shuffled);
  to_host(d_restored, restored);

  std::vector<std::uint32_t> sorted_shuffle = shuffled;
  std::sort(sorted_shuffle.begin(), sorted_shuffle.end());
  if (sorted_shuffle != in) return fail("the GPU shuffle's output is not a permutation of its input");
  if (shuffled == in) return fail("the GPU shuffle left the input in order");
  onepass::shuffle::cpu::variable_philox_shuffle(in.data(), cpu_shuffled.data(), n, seed);
  if (shuffled != cpu_shuffled) return fail("the GPU shuffle's permutation differs from the CPU shuffle's");
  if (restored != in) return fail("the GPU unshuffle did not restore the input");

  // Sort n pseudo-random 32-bit keys; onepass::sort::gpu::sort_keys picks onesweep or the hybrid MSD sort.
  std::vector<std::uint32_t> keys(n), sorted(n);
  std::mt19937 gen(static_cast<std::uint32_t>(seed));
  for (auto& k : keys) k = static_cast<std::uint32_t>(gen());
  device_buffer<std::uint32_t> d_keys(n), d_sorted(n);
  to_device(keys, d_keys);
  std::size_t sort_bytes = 0;
  onepass::sort::gpu::sort_keys(nullptr, sort_bytes, d_keys.ptr, d_sorted.ptr, n);
  device_buffer<unsigned char> d_sort_temp(sort_bytes);
  const onepass::sort::gpu::algorithm ran =
      onepass::sort::gpu::sort_keys(d_sort_temp.ptr, sort_bytes, d_keys.ptr, d_sorted.ptr, n);
  to_host(d_sorted, sorted);
  std::sort(keys.begin(), keys.end());
  if (sorted != keys) return fail("onepass::sort::gpu::sort_keys' output differs from std::sort of its input");

  cudaDeviceProp prop{};
  ONEPASS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("gpu_consumer: onepass %s on %s shuffled %zu keys (same permutation as the CPU) and sorted %zu keys (%s): OK\n",
              ONEPASS_VERSION_STRING, prop.name, n, n, onepass::sort::gpu::to_string(ran));
  return 0;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("gpu_consumer: skipped: no GPU (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found none");
    return 0;
  }
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_consumer: FAILED: %s\n", e.what());
    return 1;
  }
}
