// onepass_baselines/gpu/gpu_baseline_common.cuh — helpers shared by the GPU shuffle baselines of
// the paper's Table 1 (baselines/gpu/*.cu): CUDA error checks, CUB-style two-phase
// temporary storage (query, then run), argument checks and launch geometry.
// Shared by the baselines (target onepass_baselines) and their tests; not part of the library.
//
// Conventions every GPU baseline here follows (registry::gpu_shuffle_fn):
// - temp == nullptr is a size query: it sets temp_bytes and does nothing else (it checks
//   only n, not the pointers). The answer is always >= 1 byte (temp_layout's answers include
//   256 bytes of alignment slack), also for n = 0 and for algorithms that need no scratch,
//   so that the run call (with a non-null temp) can never be mistaken for a query.
// - The run call checks, in this order: null d_in / d_out with n > 0, overlapping ranges,
//   temp_bytes below the query's answer; each throws onepass::error naming the argument.
//   Nothing is enqueued and nothing is written when it throws.
// - n = 0 enqueues nothing. All work goes to the given stream; nothing synchronises it.
// - Every CUDA runtime call and kernel launch is checked with ONEPASS_CUDA_CHECK /
//   ONEPASS_CUDA_CHECK_LAUNCH (onepass/cuda_check.hpp): a failure throws
//   onepass::runtime_failure with the file, line, call and CUDA's error name and text.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"

namespace onepass::baselines::gpu {

/// Largest n any GPU baseline here accepts: the scratch of the most demanding one
/// (randperm: about 4 words per element plus CUB's) must stay representable in size_t.
inline constexpr std::size_t max_elements = std::size_t{1} << 56;

/// Alignment of every region carved out of the caller's temporary storage (call_protocol.hpp).
using protocol::temp_alignment;

/// Random-stream domains of the GPU-only baselines, continuing algorithm_domain of the CPU
/// baselines (1..5, whose values the GPU twins reuse so that GPU gather and GPU
/// SortShuffle equal their CPU twins bit for bit).
inline constexpr std::uint64_t randperm_domain = 0x101;

/// Layout of several regions inside one block of temporary storage (call_protocol.hpp):
/// add() returns each region's offset from the 256-byte-aligned base, total() is the size
/// query's answer (alignment slack included, so at least 256 bytes), at<T>(temp, offset)
/// the region inside the caller's storage.
using protocol::temp_layout;

/// Throws onepass::error unless n <= max_elements (call before sizing anything by n).
inline void check_length(const char* function, std::size_t n) {
  protocol::check_at_most(function, "n", n, max_elements, "at most 2^56");
}

/// Two-phase protocol, first step of every gpu_run. Checks n (also in a query). When temp
/// is null, sets temp_bytes = required and returns true (the caller returns at once).
/// Otherwise checks the pointers, then temp_bytes >= required (also for n = 0), and returns
/// false. Throws onepass::error naming `function` and the argument.
inline bool size_query(const char* function, void* temp, std::size_t& temp_bytes, std::size_t required,
                       const std::uint64_t* d_in, const std::uint64_t* d_out, std::size_t n) {
  check_length(function, n);
  if (protocol::answer_query(temp, temp_bytes, required)) return true;
  check_shuffle_arguments(function, d_in, d_out, n);  // null with n > 0, overlap
  protocol::check_temp_bytes(function, temp_bytes, required, "n", n);
  return false;
}

/// The cudaStream_t behind the registry's void* stream.
inline cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

/// Blocks for `work_items` independent pieces of `per_block` each, capped at the grid
/// limit (kernels loop over the rest with a grid stride). At least 1.
inline unsigned grid_blocks(std::uint64_t work_items, std::uint64_t per_block) {
  return device::stride_grid(work_items, per_block, 0x7fffffffu);
}

/// True when p is aligned to `bytes`.
inline bool is_aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

/// Threads per block of the element-wise kernels here.
inline constexpr unsigned fill_block_threads = 256;
/// Pairs of consecutive elements per thread and tile of fill_kernel: a tile is
/// fill_block_threads * fill_pairs_per_thread * 2 elements.
inline constexpr unsigned fill_pairs_per_thread = 4;
inline constexpr std::uint64_t fill_tile_items = std::uint64_t{fill_block_threads} * fill_pairs_per_thread * 2;

/// out[i] = gen(i) for i in [0, n). Vector form (Vector = true, out 16-byte aligned): each
/// thread writes fill_pairs_per_thread 16-byte pairs of a tile, consecutive threads
/// consecutive pairs (coalesced), over full tiles with a grid stride; the last block also
/// writes the tail n mod tile with 8-byte stores. Scalar form: one element per thread and
/// step. Gen: trivially copyable, `__device__ std::uint64_t operator()(std::uint64_t) const`.
template <bool Vector, class Gen>
__global__ void __launch_bounds__(fill_block_threads) fill_kernel(Gen gen, std::uint64_t* __restrict__ out,
                                                                  std::uint64_t n) {
  if constexpr (Vector) {
    const std::uint64_t full_tiles = n / fill_tile_items;
    for (std::uint64_t tile = blockIdx.x; tile < full_tiles; tile += gridDim.x) {
      const std::uint64_t base = tile * fill_tile_items;
#pragma unroll
      for (unsigned p = 0; p < fill_pairs_per_thread; ++p) {
        const std::uint64_t i = base + 2 * (std::uint64_t{p} * fill_block_threads + threadIdx.x);
        ulonglong2 v;
        v.x = gen(i);
        v.y = gen(i + 1);
        *reinterpret_cast<ulonglong2*>(out + i) = v;
      }
    }
    if (blockIdx.x == gridDim.x - 1)
      for (std::uint64_t i = full_tiles * fill_tile_items + threadIdx.x; i < n; i += fill_block_threads) out[i] = gen(i);
  } else {
    const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
    for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = gen(i);
  }
}

/// Enqueues fill_kernel on `stream` (vector form when out is 16-byte aligned); n = 0 does
/// nothing. Checks the launch.
template <class Gen>
void launch_fill(Gen gen, std::uint64_t* out, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (is_aligned(out, 16)) {
    fill_kernel<true><<<grid_blocks(n / fill_tile_items, 1), fill_block_threads, 0, stream>>>(gen, out, n);
  } else {
    fill_kernel<false><<<grid_blocks(n, fill_block_threads), fill_block_threads, 0, stream>>>(gen, out, n);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

}  // namespace onepass::baselines::gpu
