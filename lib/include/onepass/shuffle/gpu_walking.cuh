// onepass/shuffle/gpu_walking.cuh — the walking permutation on the GPU (CUDA): batches of
// its images (the data-loader sampler's indices) and the shuffle through it.
//
// Source: the cycle-walking permutation of shuffle/walking_permutation.hpp (Black &
// Rogaway, CT-RSA 2002) over the VariablePhilox bijection of Mitchell et al., §3.2,
// evaluated by the shuffle's device twin (gpu_evaluator.cuh). Every position is computed
// alone: no scan, no temporary storage, one read of the input per output.
//
// Walks have different lengths (at most 2^b / N evaluations on average, a geometric tail), so a
// warp that gives each lane one position waits for its longest walk. Two structures:
//   walk_structure::warp_queue   (default) each warp owns a chunk of positions and keeps a
//       queue over it: after every evaluation the lanes whose walk ended (and the idle
//       ones) take the next positions of the chunk (one ballot, a popc rank), so lanes stay
//       busy until the chunk runs dry; only the chunk's last walks leave lanes idle.
//   walk_structure::one_per_lane a grid-stride loop, one position per lane at a time: the
//       warp waits for its longest walk (kept to measure what the queue saves).
// The images are bit-identical to walking_permutation::operator() on the host (and to the
// CPU's walking_indices): tests/gpu/test_gpu_walking.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/walking_permutation.hpp"

namespace onepass::shuffle::gpu {

/// How lanes are given positions (file comment).
enum class walk_structure {
  warp_queue,    ///< default: a per-warp queue over a chunk of positions
  one_per_lane,  ///< grid-stride, one walk per lane at a time (the warp waits for its longest walk)
};

/// "warp_queue" or "one_per_lane".
inline const char* to_string(walk_structure s) {
  return s == walk_structure::warp_queue ? "warp_queue" : "one_per_lane";
}

/// Most positions one warp's queue owns at once under walk_structure::warp_queue (a chunk):
/// 64 per lane. Launches over fewer positions than fill the GPU this way take smaller chunks.
/// Public for models of the walk's cost (experiments/walking_sampler.cu counts warp slots).
inline constexpr std::uint64_t walk_chunk = 32 * 64;

namespace detail {

using gpu::walk_chunk;
inline constexpr int walk_block_threads = 256;

/// One step of the walk: the walked bijection twist(f(y)) (Forward: f by the device twin of
/// variable_philox::operator()) or its inverse f^-1(twist(y)); twist swaps 0 and 1 when swap
/// is 1 (walking_permutation, "Parity").
template <class Evaluator>
struct forward_step {
  Evaluator e;
  std::uint64_t swap;
  __device__ std::uint64_t operator()(std::uint64_t y) const {
    std::uint64_t w[1];
    e.template images<1>(y, 0, w);
    return swap_zero_one(w[0], swap);
  }
};
struct inverse_step {
  bijection::variable_philox f;
  std::uint64_t swap;
  __device__ std::uint64_t operator()(std::uint64_t y) const { return f.inverse(swap_zero_one(y, swap)); }
};

/// Sinks: what is done with image y of output slot k, in two steps — load(y) reads what slot
/// k receives, store(k, value) writes it — so that the queue can issue a load and write it
/// one evaluation later, its latency hidden behind the next Feistel rounds.
struct index_sink {
  std::uint64_t* out;
  using value_type = std::uint64_t;
  __device__ value_type load(std::uint64_t y) const { return y; }
  __device__ void store(std::uint64_t k, const value_type& v) const { out[k] = v; }
};
template <class T>
struct gather_sink {  // out[k] = in[y]
  const T* in;
  T* out;
  using value_type = element_bits<T>;
  __device__ value_type load(std::uint64_t y) const { return reinterpret_cast<const value_type*>(in)[y]; }
  __device__ void store(std::uint64_t k, const value_type& v) const { reinterpret_cast<value_type*>(out)[k] = v; }
};

/// Output slots [0, count): slot k walks from position (first + k * stride) mod num_items.
/// Each warp owns chunks of `chunk` consecutive slots (a multiple of 32, grid-stride over the
/// chunks) and keeps a queue over each (file comment).
template <class Step, class Sink>
__global__ void __launch_bounds__(walk_block_threads) walk_queue_kernel(const __grid_constant__ Step step,
                                                                        std::uint64_t num_items, std::uint64_t first,
                                                                        std::uint64_t stride, std::uint64_t count,
                                                                        std::uint64_t chunk, Sink sink) {
  constexpr unsigned full = 0xffffffffu;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned lanes_below = (1u << lane) - 1u;
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * (walk_block_threads / 32);
  const std::uint64_t warp = static_cast<std::uint64_t>(blockIdx.x) * (walk_block_threads / 32) + threadIdx.x / 32;
  for (std::uint64_t base = warp * chunk; base < count; base += warps * chunk) {
    const std::uint64_t size = count - base < chunk ? count - base : chunk;
    // Queue over slots [base, base + size): `taken` slots handed out so far (warp-uniform).
    std::uint64_t taken = 32;
    std::uint64_t k = base + lane;
    bool open = lane < size;
    std::uint64_t y = open ? strided_position(first, stride, k, num_items) : 0;
    bool pending = false;  // a loaded value waiting to be stored in slot pending_k
    std::uint64_t pending_k = 0;
    typename Sink::value_type pending_value{};
    while (__any_sync(full, open)) {
      if (open) y = step(y);
      const bool finished = open && y < num_items;
      if (pending) sink.store(pending_k, pending_value);
      pending = finished;
      if (finished) {
        pending_value = sink.load(y);
        pending_k = k;
      }
      const bool free_lane = !open || finished;
      const unsigned free_mask = __ballot_sync(full, free_lane);
      if (free_lane) {
        const std::uint64_t s = taken + static_cast<unsigned>(__popc(free_mask & lanes_below));
        open = s < size;
        if (open) {
          k = base + s;
          y = strided_position(first, stride, k, num_items);
        }
      }
      taken += static_cast<unsigned>(__popc(free_mask));
    }
    if (pending) sink.store(pending_k, pending_value);
  }
}

template <class Step, class Sink>
__global__ void __launch_bounds__(walk_block_threads) walk_lane_kernel(const __grid_constant__ Step step,
                                                                       std::uint64_t num_items, std::uint64_t first,
                                                                       std::uint64_t stride, std::uint64_t count,
                                                                       Sink sink) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += threads) {
    std::uint64_t y = strided_position(first, stride, k, num_items);
    do {
      y = step(y);
    } while (y >= num_items);
    sink.store(k, sink.load(y));
  }
}

template <class Step, class Sink>
void launch_walk(const Step& step, std::uint64_t num_items, std::uint64_t first, std::uint64_t stride,
                 std::uint64_t count, const Sink& sink, walk_structure structure, cudaStream_t stream) {
  if (count == 0) return;
  if (structure == walk_structure::warp_queue) {
    // Chunks of up to walk_chunk slots, smaller where that leaves warps of the GPU without
    // a chunk (about 64 resident warps per SM): count / warps rounded up to a multiple of 32.
    const std::uint64_t warps = static_cast<std::uint64_t>(device::multiprocessors()) * 64;
    std::uint64_t chunk = (count + warps - 1) / warps;
    chunk = (chunk + 31) / 32 * 32;
    chunk = chunk < walk_chunk ? chunk : walk_chunk;
    const std::uint64_t per_block = chunk * (walk_block_threads / 32);
    const unsigned grid = device::stride_grid(count, per_block);
    walk_queue_kernel<Step, Sink>
        <<<grid, walk_block_threads, 0, stream>>>(step, num_items, first, stride, count, chunk, sink);
  } else {
    const unsigned grid = device::stride_grid(count, walk_block_threads);
    walk_lane_kernel<Step, Sink><<<grid, walk_block_threads, 0, stream>>>(step, num_items, first, stride, count, sink);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// Runs the walk forward (the device twin of f) or backward (f^-1).
template <bool Forward, class Sink>
void walk(const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride, std::uint64_t count,
          const Sink& sink, walk_structure structure, cudaStream_t stream) {
  if constexpr (Forward) {
    with_evaluator(sigma.bijection(), [&](const auto& e) {
      using E = std::decay_t<decltype(e)>;
      launch_walk(forward_step<E>{e, sigma.swap01()}, sigma.num_items(), first, stride, count, sink, structure,
                  stream);
    });
  } else {
    launch_walk(inverse_step{sigma.bijection(), sigma.swap01()}, sigma.num_items(), first, stride, count, sink,
                structure, stream);
  }
}

inline void check_walk_range(const char* function, const walking_permutation& sigma, std::uint64_t first,
                             std::uint64_t stride, std::uint64_t count, const void* d_out) {
  onepass::shuffle::detail::check_strided_range(function, sigma, first, stride, count);
  if (count == 0) return;
  protocol::check_not_null(function, "d_out", d_out, "when count > 0");
  protocol::check_byte_count(function, "count", count, sizeof(std::uint64_t));
}

/// The walking shuffles need no temporary storage; the query answers one byte (as CUB does),
/// so that a caller's second call, with a non-null d_temp, runs.
inline constexpr std::size_t walking_temp_bytes = 1;

template <bool Forward, class T>
void walking_shuffle_impl(const char* function, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                          std::uint64_t num_items, const walking_permutation& sigma, walk_structure structure,
                          cudaStream_t stream) {
  onepass::shuffle::detail::check_items_of(function, sigma, num_items);
  if (!protocol::query_or_check(function, d_temp, temp_bytes, walking_temp_bytes, num_items == 0, [&] {
        protocol::check_not_null(function, "d_in", d_in, "when num_items > 0");
        protocol::check_not_null(function, "d_out", d_out, "when num_items > 0");
        protocol::check_byte_count(function, "num_items", num_items, sizeof(T));
        protocol::check_disjoint(function, "d_out", d_out, "d_in", d_in, num_items, sizeof(T),
                                 " (out-of-place operation)");
      }))
    return;
  walk<Forward>(sigma, 0, 1, num_items, gather_sink<T>{d_in, d_out}, structure, stream);
}

}  // namespace detail

/// d_out[k] = sigma((first + k * stride) mod N) for k in [0, count), N = sigma.num_items():
/// a batch of the global order sigma read with a stride (a data-loader rank r of P from
/// global position g: first = g + r, stride = P). Bit-identical to the host's
/// walking_permutation::operator() and the CPU cpu::walking_indices.
///
/// d_out: device memory for count uint64. stride >= 1; first + (count - 1) * stride < 2^64.
/// Enqueued on `stream`, not waited for; no temporary storage. Throws onepass::error naming
/// count, stride or d_out (null with count > 0) before anything is enqueued;
/// onepass::runtime_failure when the launch fails.
inline void walking_indices(std::uint64_t* d_out, std::uint64_t first, std::uint64_t stride, std::uint64_t count,
                            const walking_permutation& sigma, cudaStream_t stream = 0,
                            walk_structure structure = walk_structure::warp_queue) {
  detail::check_walk_range("onepass::shuffle::gpu::walking_indices", sigma, first, stride, count, d_out);
  detail::walk<true>(sigma, first, stride, count, detail::index_sink{d_out}, structure, stream);
}

/// d_out[k] = sigma^-1((first + k * stride) mod N): where each index stands in the global
/// order. Walks f^-1 (the bijection's generic inverse: slower per evaluation than the
/// forward walk). Arguments and errors as walking_indices.
inline void walking_inverse_indices(std::uint64_t* d_out, std::uint64_t first, std::uint64_t stride,
                                    std::uint64_t count, const walking_permutation& sigma, cudaStream_t stream = 0,
                                    walk_structure structure = walk_structure::warp_queue) {
  detail::check_walk_range("onepass::shuffle::gpu::walking_inverse_indices", sigma, first, stride, count, d_out);
  detail::walk<false>(sigma, first, stride, count, detail::index_sink{d_out}, structure, stream);
}

/// Shuffle through the walking permutation: d_out[j] = d_in[sigma(j)], j in [0, num_items)
/// — the same permutation as the CPU cpu::walking_shuffle for sigma. One pass, no scan: each
/// element is read once (a random gather) and written once.
///
/// CUB's two-phase protocol: with d_temp == nullptr only temp_bytes is set (1: no storage is
/// used) and nothing is enqueued; otherwise d_temp must be non-null with temp_bytes >= 1.
/// T: any trivially copyable type. d_in, d_out: device pointers to num_items elements each,
/// not overlapping; num_items must equal sigma.num_items() (<= 2^63). Enqueued on `stream`.
/// Throws onepass::error naming the argument (num_items, d_in, d_out, temp_bytes) before
/// anything is enqueued; onepass::runtime_failure when the launch fails.
template <class T>
void walking_shuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::uint64_t num_items,
                     const walking_permutation& sigma, cudaStream_t stream = 0,
                     walk_structure structure = walk_structure::warp_queue) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu::walking_shuffle: T must be trivially copyable");
  detail::walking_shuffle_impl<true>("onepass::shuffle::gpu::walking_shuffle", d_temp, temp_bytes, d_in, d_out,
                                     num_items, sigma, structure, stream);
}

/// Inverse of walking_shuffle for the same sigma: d_out[sigma(j)] = d_in[j], computed as
/// d_out[i] = d_in[sigma^-1(i)] (a gather through the inverse walk), so
/// walking_unshuffle(walking_shuffle(x)) == x. Protocol, arguments and errors as
/// walking_shuffle.
template <class T>
void walking_unshuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::uint64_t num_items,
                       const walking_permutation& sigma, cudaStream_t stream = 0,
                       walk_structure structure = walk_structure::warp_queue) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu::walking_unshuffle: T must be trivially copyable");
  detail::walking_shuffle_impl<false>("onepass::shuffle::gpu::walking_unshuffle", d_temp, temp_bytes, d_in, d_out,
                                      num_items, sigma, structure, stream);
}

}  // namespace onepass::shuffle::gpu
