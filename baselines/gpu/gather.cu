// baselines/gpu/gather.cu — "Gather": the random-gather upper bound of the paper's Table 1
// (Mitchell et al. §2.2 and §6; ANCHORS.md: 28.2 G items/s computed, 26.6 index array, at
// 2^29(+1) uint64 on an H100).
//
// out[i] = in[mul_high(h(i), n)] with h the counter_hash of (domain_seed(seed, gather), 0)
// evaluated in registers (SplitMix64 finaliser: two 64-bit multiplies and three
// shift-xors) and reduced to [0, n) by Lemire's multiply-high — the same h as the CPU
// "gather", so both devices return the same array for a seed. Contiguous writes, random
// reads: the traffic any one-pass gather shuffle must at least pay. NOT a permutation
// (registry: permutes = false).
//
// Kernel shape (HOPPER.md: 16-byte accesses, several independent loads in flight): a tile
// is 256 threads x 4 pairs of consecutive elements (2048 elements). Each thread first
// computes (or, for the index-array form, loads with one 16-byte streaming load per pair)
// its 8 indices, then issues its 8 independent random 8-byte loads (read-only path), then
// writes 4 coalesced 16-byte stores. Full tiles need no bounds checks; the grid covers the
// full tiles (grid-stride beyond 2^31 - 1 blocks) and its last block also does the
// n mod 2048 tail. A misaligned out (or index array) takes a scalar grid-stride kernel.
// No temporary storage (the registry entry reports 1 byte, see gpu_baseline_common.cuh).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/gpu/gpu_baseline_common.cuh"
#include "onepass_baselines/gpu/random_gather.cuh"

namespace onepass::baselines::gpu {
namespace {

constexpr unsigned block_threads = 256;
constexpr unsigned pairs_per_thread = 4;
constexpr std::uint64_t tile_items = std::uint64_t{block_threads} * pairs_per_thread * 2;

/// Index computed in registers: mul_high(h(i), n).
struct computed_index {
  random::counter_hash hash;
  std::uint64_t n;
  __device__ std::uint64_t operator()(std::uint64_t i) const { return random::mul_high(hash(i), n); }
  /// Indices of the pair (i, i + 1), i even.
  __device__ void pair(std::uint64_t i, std::uint64_t& a, std::uint64_t& b) const {
    a = (*this)(i);
    b = (*this)(i + 1);
  }
};

/// Index read from an array (streamed once: evict-first loads).
struct array_index {
  const std::uint64_t* idx;
  __device__ std::uint64_t operator()(std::uint64_t i) const {
    return __ldcs(reinterpret_cast<const unsigned long long*>(idx + i));
  }
  /// One 16-byte load for the pair (i, i + 1), i even; idx must be 16-byte aligned.
  __device__ void pair(std::uint64_t i, std::uint64_t& a, std::uint64_t& b) const {
    const ulonglong2 v = __ldcs(reinterpret_cast<const ulonglong2*>(idx + i));
    a = v.x;
    b = v.y;
  }
};

__device__ __forceinline__ std::uint64_t load_random(const std::uint64_t* in, std::uint64_t i) {
  return __ldg(reinterpret_cast<const unsigned long long*>(in + i));
}

/// out[i] = in[index(i)] over full tiles with 16-byte stores; the last block does the tail.
template <class Index>
__global__ void __launch_bounds__(block_threads)
    gather_vector_kernel(Index index, const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out,
                         std::uint64_t n) {
  const std::uint64_t full_tiles = n / tile_items;
  for (std::uint64_t tile = blockIdx.x; tile < full_tiles; tile += gridDim.x) {
    const std::uint64_t base = tile * tile_items;
    std::uint64_t w[pairs_per_thread][2];
#pragma unroll
    for (unsigned p = 0; p < pairs_per_thread; ++p)
      index.pair(base + 2 * (std::uint64_t{p} * block_threads + threadIdx.x), w[p][0], w[p][1]);
    ulonglong2 v[pairs_per_thread];
#pragma unroll
    for (unsigned p = 0; p < pairs_per_thread; ++p) {
      v[p].x = load_random(in, w[p][0]);
      v[p].y = load_random(in, w[p][1]);
    }
#pragma unroll
    for (unsigned p = 0; p < pairs_per_thread; ++p)
      *reinterpret_cast<ulonglong2*>(out + base + 2 * (std::uint64_t{p} * block_threads + threadIdx.x)) = v[p];
  }
  if (blockIdx.x == gridDim.x - 1)
    for (std::uint64_t i = full_tiles * tile_items + threadIdx.x; i < n; i += block_threads)
      out[i] = load_random(in, index(i));
}

/// Scalar fallback for misaligned pointers: one element per thread and grid step.
template <class Index>
__global__ void __launch_bounds__(block_threads)
    gather_scalar_kernel(Index index, const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out,
                         std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = load_random(in, index(i));
}

template <class Index>
void launch_gather(Index index, bool vector, const std::uint64_t* in, std::uint64_t* out, std::uint64_t n,
                   cudaStream_t stream) {
  if (n == 0) return;
  if (vector) {
    gather_vector_kernel<<<grid_blocks(n / tile_items, 1), block_threads, 0, stream>>>(index, in, out, n);
  } else {
    gather_scalar_kernel<<<grid_blocks(n, block_threads), block_threads, 0, stream>>>(index, in, out, n);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

computed_index computed_index_for(std::size_t n, std::uint64_t seed) {
  return computed_index{random::counter_hash(domain_seed(seed, algorithm_domain::gather), 0), n};
}

}  // namespace

void random_gather(const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n, std::uint64_t seed,
                   cudaStream_t stream) {
  const char* fn = "random_gather";
  check_length(fn, n);
  check_shuffle_arguments(fn, d_in, d_out, n);
  launch_gather(computed_index_for(n, seed), is_aligned(d_out, 16), d_in, d_out, n, stream);
}

void random_gather_indexed(const std::uint64_t* d_idx, const std::uint64_t* d_in, std::uint64_t* d_out,
                           std::size_t n, cudaStream_t stream) {
  const char* fn = "random_gather_indexed";
  check_length(fn, n);
  check_shuffle_arguments(fn, d_in, d_out, n);
  if (n > 0) protocol::check_not_null(fn, "d_idx", d_idx, "when n > 0");
  launch_gather(array_index{d_idx}, is_aligned(d_out, 16) && is_aligned(d_idx, 16), d_in, d_out, n, stream);
}

void fill_random_indices(std::uint64_t* d_idx, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  const char* fn = "fill_random_indices";
  check_length(fn, n);
  if (n > 0) protocol::check_not_null(fn, "d_idx", d_idx, "when n > 0");
  launch_fill(computed_index_for(n, seed), d_idx, n, stream);
}

namespace {

void gather_gpu_run(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                    std::size_t n, const registry::shuffle_params& params, void* stream) {
  if (size_query("gather (gpu)", temp, temp_bytes, temp_layout{}.total(), d_in, d_out, n)) return;
  random_gather(d_in, d_out, n, params.seed, as_stream(stream));
}

// The index-array form for the experiments (registry::gpu_index_gather).
const bool index_gather_registered = [] {
  registry::gpu_index_gather g;
  g.fill_indices = [](std::uint64_t* d_idx, std::size_t n, std::uint64_t seed, void* stream) {
    fill_random_indices(d_idx, n, seed, as_stream(stream));
  };
  g.gather = [](const std::uint64_t* d_idx, const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n,
                void* stream) { random_gather_indexed(d_idx, d_in, d_out, n, as_stream(stream)); };
  registry::set_gpu_index_gather(std::move(g));
  return true;
}();

const registry::registrar gather_gpu_registration{[] {
  registry::shuffle_entry e{"gather", registry::device::gpu};
  e.label = "Gather";
  e.description =
      "random gather upper bound out[i] = in[h(i) mod n], index computed in registers (not a permutation), CUDA";
  e.permutes = false;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  e.gpu_run = gather_gpu_run;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines::gpu
