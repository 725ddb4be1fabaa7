// onepass/shuffle/gpu_bijective0.cuh — Bijective0: the bijective shuffle in separate
// passes (evaluate, then select, then gather).
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1) and §6 (Bijective0: the transformation, stream compaction and gather in
// separate passes). images[i] = f(i) for all domain_size indices (domain_size * 8 bytes of
// temporary storage), cub::DeviceSelect::If keeps the images below num_items
// (num_items * 8 more bytes), a gather kernel moves out[j] = in[selected[j]].
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_select.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/gpu_shuffle_protocol.cuh"

namespace onepass::shuffle::gpu::detail {

/// Pass 1: images[i] = f(i) for i in [0, domain_size); grid-stride.
template <class Eval>
__global__ void __launch_bounds__(256)
    bijective0_evaluate_kernel(std::uint64_t domain_size, const __grid_constant__ Eval f,
                               std::uint64_t* __restrict__ images) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < domain_size;
       i += stride) {
    std::uint64_t w[1];
    f.template images<1>(i, 0, w);
    images[i] = w[0];
  }
}

/// Pass 2 (cub::DeviceSelect::If): the selection predicate, image below num_items.
struct image_below {
  std::uint64_t num_items;
  __host__ __device__ bool operator()(std::uint64_t w) const { return w < num_items; }
};

/// Pass 3: out[j] = in[selected[j]] for j in [0, num_items); grid-stride.
template <class T>
__global__ void __launch_bounds__(256)
    bijective0_gather_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t num_items,
                             const std::uint64_t* __restrict__ selected) {
  using element = element_bits<T>;
  const element* __restrict__ src = reinterpret_cast<const element*>(in);
  element* __restrict__ dst = reinterpret_cast<element*>(out);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < num_items;
       j += stride)
    dst[j] = src[selected[j]];
}

// ----------------------------------------------------------------------------
// Host side.

/// Offsets of bijective0's arrays in its temporary storage.
struct bijective0_slots {
  std::size_t images, selected, count, cub, total, cub_bytes;
};

inline bijective0_slots bijective0_layout(std::uint64_t domain_size, std::uint64_t num_items) {
  std::size_t cub_bytes = 0;
  ONEPASS_CUDA_CHECK(cub::DeviceSelect::If(nullptr, cub_bytes, static_cast<const std::uint64_t*>(nullptr),
                                           static_cast<std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
                                           static_cast<std::int64_t>(domain_size), image_below{num_items}));
  protocol::temp_layout layout = shuffle_layout();
  bijective0_slots slots{};
  slots.images = layout.add(domain_size * sizeof(std::uint64_t));
  slots.selected = layout.add(num_items * sizeof(std::uint64_t));
  slots.count = layout.add(sizeof(std::uint64_t));
  slots.cub = layout.add(cub_bytes);
  slots.cub_bytes = cub_bytes;
  slots.total = layout.total();
  return slots;
}

/// Enqueues bijective0; arguments already checked (domain_bits <= 56), d_temp at least
/// bijective0_layout(2^b, num_items).total bytes.
template <class T, class Bijection>
void run_bijective0(void* d_temp, const T* d_in, T* d_out, std::uint64_t num_items, const Bijection& f,
                    cudaStream_t stream) {
  const std::uint64_t domain_size = std::uint64_t{1} << f.domain_bits();
  const bijective0_slots slots = bijective0_layout(domain_size, num_items);
  unsigned char* base = protocol::aligned_start(d_temp);
  auto* images = reinterpret_cast<std::uint64_t*>(base + slots.images);
  auto* selected = reinterpret_cast<std::uint64_t*>(base + slots.selected);
  auto* count = reinterpret_cast<std::uint64_t*>(base + slots.count);
  with_evaluator(f, [&](const auto& eval) {
    using E = std::decay_t<decltype(eval)>;
    bijective0_evaluate_kernel<E><<<device::stride_grid(domain_size, 256), 256, 0, stream>>>(domain_size, eval, images);
    ONEPASS_CUDA_CHECK_LAUNCH();
  });
  std::size_t cub_bytes = slots.cub_bytes;
  ONEPASS_CUDA_CHECK(cub::DeviceSelect::If(base + slots.cub, cub_bytes, static_cast<const std::uint64_t*>(images),
                                           selected, count, static_cast<std::int64_t>(domain_size),
                                           image_below{num_items}, stream));
  bijective0_gather_kernel<T><<<device::stride_grid(num_items, 256), 256, 0, stream>>>(d_in, d_out, num_items,
                                                                                       selected);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

}  // namespace onepass::shuffle::gpu::detail
