// python/src/onepass_cuda.cu — the GPU launches of onepass's Python package (declared in
// onepass_cuda.hpp): thin wrappers over the library's CUDA entry points with CUB-style
// two-phase temporary storage taken from cudaMallocAsync on the caller's stream.
//
//   shuffle / unshuffle  onepass::shuffle::gpu::bijective_shuffle / bijective_unshuffle with
//                        variable_philox::for_length(n, seed, rounds) (Mitchell et al.,
//                        "Bandwidth-Optimal Random Shuffling for GPUs", §3.2, §4 Algorithm 1,
//                        §6 the single-pass fusion): the permutation of the CPU
//                        cpu::variable_philox_shuffle, element for element.
//   segmented            onepass::shuffle::gpu::segmented_shuffle / segmented_unshuffle.
//   walking_indices      onepass::shuffle::gpu::walking_indices (cycle walking, Black & Rogaway
//                        CT-RSA 2002, over VariablePhilox): a batch of onepass.data's order.
//   sort / argsort       in onepass_cuda_sort.cu, _pairs32.cu, _pairs64.cu.
//   normal               onepass::gaussian::gpu::generate_normal (article "Training a random
//                        Gaussian generator"), equal to cpu::generate_normal bit for bit;
//                        floats by method: float_native (issue 30; equal to
//                        cpu::generate_normal with a float_table) or rounded_double (the doubles rounded).
#include "onepass_cuda_common.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/gaussian/generate.cuh"
#include "onepass/shuffle/gpu_segmented_shuffle.cuh"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/gpu_walking.cuh"

namespace onepass_py {
namespace {

namespace sh = onepass::shuffle;

/// Rows of `units` words U: out row (a, j) = in row (a, p[j]) (Inverse: out row (a, p[j]) =
/// in row (a, j)), a < outer, j < n.
template <class U, bool Inverse>
__global__ void move_rows_kernel(const U* in, U* out, const std::uint64_t* p, std::uint64_t outer, std::uint64_t n,
                                 std::uint64_t units) {
  const std::uint64_t total = outer * n * units;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::uint64_t u = i % units, row = i / units;
    const std::uint64_t j = row % n, a = row / n;
    if (Inverse) {
      out[(a * n + p[j]) * units + u] = in[i];
    } else {
      out[i] = in[(a * n + p[j]) * units + u];
    }
  }
}

template <class U>
void launch_move_rows(std::uintptr_t in, std::uintptr_t out, const std::uint64_t* p, std::uint64_t outer,
                      std::uint64_t n, std::uint64_t row_bytes, bool inverse, cudaStream_t stream, int device) {
  const std::uint64_t units = row_bytes / sizeof(U);
  const unsigned grid = grid_for(outer * n * units, device);
  if (inverse) {
    move_rows_kernel<U, true><<<grid, 256, 0, stream>>>(as_ptr<const U>(in), as_ptr<U>(out), p, outer, n, units);
  } else {
    move_rows_kernel<U, false><<<grid, 256, 0, stream>>>(as_ptr<const U>(in), as_ptr<U>(out), p, outer, n, units);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

template <class T>
void shuffle_typed(std::uintptr_t in, std::uintptr_t out, std::uint64_t n, std::uint64_t seed, unsigned rounds,
                   bool inverse, cudaStream_t stream) {
  const auto f = onepass::bijection::variable_philox::for_length(n, seed, rounds);
  std::size_t bytes = 0;
  if (inverse) {
    sh::gpu::bijective_unshuffle<T>(nullptr, bytes, as_ptr<const T>(in), as_ptr<T>(out), n, f, stream);
  } else {
    sh::gpu::bijective_shuffle<T>(nullptr, bytes, as_ptr<const T>(in), as_ptr<T>(out), n, f,
                                  sh::gpu::fusion::bijective2, stream);
  }
  stream_buffer temp(bytes, stream);
  if (inverse) {
    sh::gpu::bijective_unshuffle<T>(temp.get(), bytes, as_ptr<const T>(in), as_ptr<T>(out), n, f, stream);
  } else {
    sh::gpu::bijective_shuffle<T>(temp.get(), bytes, as_ptr<const T>(in), as_ptr<T>(out), n, f,
                                  sh::gpu::fusion::bijective2, stream);
  }
}

/// p (device, n uint64) = the permutation for (n, seed, rounds); iota in `scratch` (n uint64).
void permutation_into(std::uint64_t* p, std::uint64_t* scratch, std::uint64_t n, std::uint64_t seed, unsigned rounds,
                      cudaStream_t stream, int device) {
  launch_iota(scratch, n, stream, device);
  shuffle_typed<std::uint64_t>(reinterpret_cast<std::uintptr_t>(scratch), reinterpret_cast<std::uintptr_t>(p), n,
                               seed, rounds, false, stream);
}

template <class T>
void segmented_typed(std::uintptr_t in, std::uintptr_t out, std::uint64_t num_items, std::uintptr_t offsets,
                     unsigned offset_bytes, std::uint64_t num_segments, std::uint64_t row_length, std::uint64_t seed,
                     unsigned rounds, bool inverse, cudaStream_t stream) {
  const T* src = as_ptr<const T>(in);
  T* dst = as_ptr<T>(out);
  auto run = [&](void* temp, std::size_t& bytes) {
    if (offsets == 0) {
      if (inverse) sh::gpu::segmented_unshuffle(temp, bytes, src, dst, num_segments, row_length, seed, rounds, stream);
      else sh::gpu::segmented_shuffle(temp, bytes, src, dst, num_segments, row_length, seed, rounds, stream);
    } else if (offset_bytes == 8) {
      const auto* off = as_ptr<const std::int64_t>(offsets);
      if (inverse) sh::gpu::segmented_unshuffle(temp, bytes, src, dst, num_items, off, num_segments, seed, rounds, stream);
      else sh::gpu::segmented_shuffle(temp, bytes, src, dst, num_items, off, num_segments, seed, rounds, stream);
    } else {
      const auto* off = as_ptr<const std::int32_t>(offsets);
      if (inverse) sh::gpu::segmented_unshuffle(temp, bytes, src, dst, num_items, off, num_segments, seed, rounds, stream);
      else sh::gpu::segmented_shuffle(temp, bytes, src, dst, num_items, off, num_segments, seed, rounds, stream);
    }
  };
  std::size_t bytes = 0;
  run(nullptr, bytes);
  stream_buffer temp(bytes, stream);
  run(temp.get(), bytes);
}

}  // namespace

std::string shuffle_rows(std::uintptr_t in, std::uintptr_t out, std::uint64_t outer, std::uint64_t n,
                         std::uint64_t row_bytes, std::uint64_t seed, unsigned rounds, bool inverse,
                         std::uintptr_t stream_id, int device) {
  if (outer == 0 || n == 0 || row_bytes == 0) return "empty";
  onepass::require(n <= sh::gpu::max_length, "onepass.shuffle", "x", "must have at most 2^63 rows");
  device_scope scope(device);
  const cudaStream_t stream = as_stream(stream_id);
  const std::uintptr_t address = in | out;
  if (outer == 1) {
    switch (row_bytes) {
      case 1: shuffle_typed<std::uint8_t>(in, out, n, seed, rounds, inverse, stream); return "bijective_shuffle";
      case 2:
        if (address % 2 == 0) { shuffle_typed<std::uint16_t>(in, out, n, seed, rounds, inverse, stream); return "bijective_shuffle"; }
        break;
      case 4:
        if (address % 4 == 0) { shuffle_typed<std::uint32_t>(in, out, n, seed, rounds, inverse, stream); return "bijective_shuffle"; }
        break;
      case 8:
        if (address % 8 == 0) { shuffle_typed<std::uint64_t>(in, out, n, seed, rounds, inverse, stream); return "bijective_shuffle"; }
        break;
      case 16:
        if (address % 16 == 0) { shuffle_typed<item_of<16>>(in, out, n, seed, rounds, inverse, stream); return "bijective_shuffle"; }
        break;
      default: break;
    }
  }
  // Any row size, any outer count: the permutation once, then rows moved by a word kernel.
  stream_buffer p(n * sizeof(std::uint64_t), stream), scratch(n * sizeof(std::uint64_t), stream);
  permutation_into(p.as<std::uint64_t>(), scratch.as<std::uint64_t>(), n, seed, rounds, stream, device);
  const std::uint64_t common = row_bytes | address;
  const std::uint64_t* perm = p.as<const std::uint64_t>();
  if (common % 16 == 0) launch_move_rows<uint4>(in, out, perm, outer, n, row_bytes, inverse, stream, device);
  else if (common % 8 == 0) launch_move_rows<std::uint64_t>(in, out, perm, outer, n, row_bytes, inverse, stream, device);
  else if (common % 4 == 0) launch_move_rows<std::uint32_t>(in, out, perm, outer, n, row_bytes, inverse, stream, device);
  else if (common % 2 == 0) launch_move_rows<std::uint16_t>(in, out, perm, outer, n, row_bytes, inverse, stream, device);
  else launch_move_rows<std::uint8_t>(in, out, perm, outer, n, row_bytes, inverse, stream, device);
  return "permutation_gather";
}

void permutation(std::uintptr_t out, std::uint64_t n, std::uint64_t seed, unsigned rounds, std::uintptr_t stream_id,
                 int device) {
  if (n == 0) return;
  device_scope scope(device);
  const cudaStream_t stream = as_stream(stream_id);
  stream_buffer scratch(n * sizeof(std::uint64_t), stream);
  permutation_into(as_ptr<std::uint64_t>(out), scratch.as<std::uint64_t>(), n, seed, rounds, stream, device);
}

void walking_indices(std::uintptr_t out, std::uint64_t count, std::uint64_t num_items, std::uint64_t seed,
                     unsigned rounds, std::uint64_t first, std::uint64_t stride, std::uintptr_t stream_id, int device) {
  const auto sigma = sh::walking_permutation::for_length(num_items, seed, rounds);
  if (count == 0) return;
  device_scope scope(device);
  sh::gpu::walking_indices(as_ptr<std::uint64_t>(out), first, stride, count, sigma, as_stream(stream_id));
}

void segmented(std::uintptr_t in, std::uintptr_t out, std::uint64_t num_items, unsigned item_bytes,
               std::uintptr_t offsets, unsigned offset_bytes, std::uint64_t num_segments, std::uint64_t row_length,
               std::uint64_t seed, unsigned rounds, bool inverse, std::uintptr_t stream_id, int device) {
  device_scope scope(device);
  const cudaStream_t stream = as_stream(stream_id);
  switch (item_bytes) {
    case 1: segmented_typed<word_item<1>>(in, out, num_items, offsets, offset_bytes, num_segments, row_length, seed, rounds, inverse, stream); break;
    case 2: segmented_typed<word_item<2>>(in, out, num_items, offsets, offset_bytes, num_segments, row_length, seed, rounds, inverse, stream); break;
    case 4: segmented_typed<word_item<4>>(in, out, num_items, offsets, offset_bytes, num_segments, row_length, seed, rounds, inverse, stream); break;
    case 8: segmented_typed<word_item<8>>(in, out, num_items, offsets, offset_bytes, num_segments, row_length, seed, rounds, inverse, stream); break;
    case 16: segmented_typed<word_item<16>>(in, out, num_items, offsets, offset_bytes, num_segments, row_length, seed, rounds, inverse, stream); break;
    default: throw onepass::error("x: items must have 1, 2, 4, 8 or 16 bytes");
  }
}

void normal(std::uintptr_t out, std::uint64_t n, bool single, double mean, double stddev, std::uint64_t seed, int form,
            int method, std::uintptr_t stream_id, int device) {
  namespace g = onepass::gaussian;
  if (single) {
    onepass::require(method == static_cast<int>(g::method::float_native) ||
                         method == static_cast<int>(g::method::rounded_double),
                     "normal", "method", "must be 0 (float_native) or 1 (rounded_double)");
  }
  if (n == 0) return;
  device_scope scope(device);
  const g::form f = form == 3 ? g::form::three : g::form::four;
  if (single && method == static_cast<int>(g::method::float_native)) {
    // The float-native generator with default_float_table(): cpu::generate_normal's values.
    g::gpu::generate_normal(as_ptr<float>(out), n, mean, stddev, seed, g::method::float_native, as_stream(stream_id));
  } else if (single) {
    g::gpu::generate_normal(as_ptr<float>(out), n, mean, stddev, seed, g::default_table(), f, as_stream(stream_id));
  } else {
    g::gpu::generate_normal(as_ptr<double>(out), n, mean, stddev, seed, g::default_table(), f, as_stream(stream_id));
  }
}

std::uintptr_t allocate(std::size_t bytes, std::uintptr_t stream_id, int device) {
  device_scope scope(device);
  void* p = nullptr;
  ONEPASS_CUDA_CHECK(cudaMallocAsync(&p, std::max<std::size_t>(bytes, 1), as_stream(stream_id)));
  return reinterpret_cast<std::uintptr_t>(p);
}

void release(std::uintptr_t ptr, std::uintptr_t stream_id, int device) noexcept {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  if (previous != device) cudaSetDevice(device);
  cudaFreeAsync(reinterpret_cast<void*>(ptr), as_stream(stream_id));
  if (previous != device) cudaSetDevice(previous);
}

void synchronize(std::uintptr_t stream_id, int device) {
  device_scope scope(device);
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream_id)));
}

void stream_wait(std::uintptr_t producer, std::uintptr_t consumer, int device) {
  if (producer == consumer) return;
  device_scope scope(device);
  cudaEvent_t event;
  ONEPASS_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(event, as_stream(producer));
  const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(as_stream(consumer), event, 0) : recorded;
  cudaEventDestroy(event);
  ONEPASS_CUDA_CHECK(waited);
}

int pointer_device(std::uintptr_t ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) return -1;
  return attributes.device;
}

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace onepass_py
