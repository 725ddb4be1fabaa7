// onepass/shuffle/gpu_staged_shuffle.cuh — the bijective shuffle for inputs whose
// output fits in the GPU's shared memory: one cooperative launch, no look-back.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1: keep the indices i of [0, domain_size = 2^b) in order whose image f(i) is
// below num_items, gather out[j] = in[f(i_j)]) and §6 (fusion: one read and one write of the data).
// The permutation is the one of bijective2 (gpu_bijective2.cuh) and of the CPU shuffle,
// element for element; only the way the output ranks are found differs.
//
// Why a second single-pass structure: bijective2's decoupled look-back costs a
// chain of global-memory round trips when all tiles finish at once (a window of 32
// predecessors per trip), a tile-state initialisation launch, and one tile id atomic
// per tile. Below about 2^21 indices those fixed costs, not bandwidth, dominate (the
// gather of the same bytes runs from L2). Here instead every resident block owns a
// contiguous range of the domain and every warp a contiguous piece of it:
//   1. evaluate: each warp walks its piece 32 x Items indices at a time
//      (f.images<Items>), flags w < num_items, ranks its lanes with a ballot and copies the
//      flagged elements in[w] straight into the warp's piece of shared memory,
//      compacted and in index order (cp.async where the element moves as 4-, 8- or
//      16-byte words, so the loads do not hold registers);
//   2. count: the block scans its warps' counts and writes its total to
//      block_counts[block];
//   3. one grid-wide barrier (cooperative launch: every block is resident);
//   4. place: each block sums the totals of the blocks before it (its exclusive
//      prefix), then each warp writes its staged elements to consecutive outputs.
// Each element is read once (randomly) and written once (coalesced); f is evaluated
// once per index. The barrier replaces the look-back, so there is nothing to
// initialise: temporary storage is one 32-bit count per block.
//
// It applies when the staging fits: every block's ranges need at most
// `Block / 32 * warp_chunk * sizeof(T)` bytes of shared memory (the worst case of a
// fully flagged range), and all blocks must be resident at once. plan_staged()
// decides; with uint64 elements on an H100 (132 SMs, 227 KiB per SM) domains up to
// 2^21 indices fit. Larger domains take the tiles: a version that staged them in
// rounds (a grid barrier per round) measured 0.59 x the random gather at 2^23 + 1
// uint64 on the H100 where the tiles reach 0.75 x, and 0.40 x against 0.52 x at
// 2^21 + 1 (two rounds), because the random 8-byte cp.async loads of a round then
// wait for the barrier instead of overlapping the next tile's evaluation.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/scan/warp_scan.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"

namespace onepass::shuffle::gpu::detail {

/// Threads per block of the staged kernel and indices per lane per step.
inline constexpr int staged_block = 512;
inline constexpr int staged_items = 2;
/// Indices a warp handles per step (its piece is a multiple of this).
inline constexpr std::uint32_t staged_step = 32u * staged_items;
/// Domains of more than 2^staged_max_bits indices never take the staged path
/// (ranks and counts are 32-bit; far larger than any shared memory holds).
inline constexpr unsigned staged_max_bits = 30;

/// Launch shape of the staged kernel for one call.
struct staged_plan {
  bool fits = false;              ///< false: the caller takes bijective2
  std::uint32_t warp_chunk = 0;   ///< indices per warp (a multiple of staged_step)
  std::uint32_t blocks = 0;       ///< grid size (every block resident)
  std::size_t shared_bytes = 0;   ///< dynamic shared memory per block
};

/// Device properties the plan needs, queried once per device.
struct staged_device {
  unsigned sms = 0;                    ///< streaming multiprocessors
  std::size_t shared_per_sm = 0;       ///< shared memory per SM (bytes)
  std::size_t shared_per_block = 0;    ///< opt-in maximum per block (bytes)
  std::size_t reserved_per_block = 0;  ///< shared memory the system keeps per block
  int max_threads_per_sm = 0;
  bool cooperative = false;            ///< cooperative launches supported
};

inline staged_device query_staged_device() {
  constexpr int cached_devices = 64;
  static staged_device cache[cached_devices];
  static std::atomic<bool> cached[cached_devices];
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  if (device < cached_devices && cached[device].load(std::memory_order_acquire)) return cache[device];
  int sms = 0, per_sm = 0, per_block = 0, reserved = 0, threads = 0, coop = 0;
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  staged_device d;
  d.sms = static_cast<unsigned>(sms > 0 ? sms : 1);
  d.shared_per_sm = static_cast<std::size_t>(per_sm > 0 ? per_sm : 0);
  d.shared_per_block = static_cast<std::size_t>(per_block > 0 ? per_block : 0);
  d.reserved_per_block = static_cast<std::size_t>(reserved > 0 ? reserved : 0);
  d.max_threads_per_sm = threads;
  d.cooperative = coop != 0;
  if (device < cached_devices) {
    cache[device] = d;
    cached[device].store(true, std::memory_order_release);
  }
  return d;
}

/// Static shared memory of the staged kernel (warp offsets, the block's prefix), an
/// upper bound used by the plan.
inline constexpr std::size_t staged_static_shared = 512;

/// The staged plan for a domain of 2^domain_bits indices and elements of `element_bytes`
/// bytes on a device `d`, for a kernel of which at most `kernel_blocks_per_sm` blocks
/// fit on an SM by threads and registers alone (its occupancy without dynamic shared
/// memory): the smallest warp piece (a multiple of staged_step) whose blocks all fit
/// on the device at once. Pure host arithmetic (tested on the CPU).
inline staged_plan plan_staged(unsigned domain_bits, std::size_t element_bytes, const staged_device& d,
                               unsigned kernel_blocks_per_sm) {
  staged_plan plan;
  if (!d.cooperative || domain_bits > staged_max_bits || d.shared_per_sm == 0 || element_bytes == 0 ||
      kernel_blocks_per_sm == 0)
    return plan;
  constexpr std::uint64_t warps = staged_block / 32;
  const std::uint64_t domain_size = std::uint64_t{1} << domain_bits;
  std::uint64_t threads_limit =
      d.max_threads_per_sm > 0 ? static_cast<std::uint64_t>(d.max_threads_per_sm) / staged_block : 1;
  if (threads_limit > kernel_blocks_per_sm) threads_limit = kernel_blocks_per_sm;
  const std::uint64_t max_blocks_by_threads = static_cast<std::uint64_t>(d.sms) * (threads_limit > 0 ? threads_limit : 1);
  // Start from the piece that spreads the domain over every warp the device holds.
  std::uint64_t chunk =
      (domain_size + max_blocks_by_threads * warps - 1) / (max_blocks_by_threads * warps);
  chunk = (chunk + staged_step - 1) / staged_step * staged_step;
  const std::uint64_t dynamic_limit =
      d.shared_per_block > staged_static_shared ? d.shared_per_block - staged_static_shared : 0;
  for (; chunk * warps * element_bytes <= dynamic_limit; chunk += staged_step) {
    const std::uint64_t dynamic = chunk * warps * element_bytes;
    const std::uint64_t per_block = dynamic + staged_static_shared + d.reserved_per_block;
    std::uint64_t per_sm = d.shared_per_sm / per_block;
    if (per_sm > threads_limit) per_sm = threads_limit;
    if (per_sm == 0) break;
    const std::uint64_t blocks = (domain_size + chunk * warps - 1) / (chunk * warps);
    if (blocks <= per_sm * d.sms) {
      plan.fits = true;
      plan.warp_chunk = static_cast<std::uint32_t>(chunk);
      plan.blocks = static_cast<std::uint32_t>(blocks);
      plan.shared_bytes = static_cast<std::size_t>(dynamic);
      return plan;
    }
  }
  return plan;
}

/// Temporary storage of the staged path: one 32-bit count per block (at most one
/// block per 512 * staged_step indices), 256-byte aligned with slack.
inline std::size_t staged_temp_bytes(unsigned domain_bits) {
  const std::uint64_t domain_size =
      std::uint64_t{1} << (domain_bits > staged_max_bits ? staged_max_bits : domain_bits);
  const std::uint64_t per_block = static_cast<std::uint64_t>(staged_block / 32) * staged_step;
  const std::uint64_t blocks = (domain_size + per_block - 1) / per_block;
  protocol::temp_layout layout;
  layout.add(static_cast<std::size_t>(blocks) * sizeof(std::uint32_t));
  return layout.total();
}

/// Copies one element from global to shared memory: as cp.async (4-, 8- or 16-byte
/// words, completed by cp_async_wait_all) when its unit allows, else through a register.
template <class Bits>
__device__ __forceinline__ void stage_element(Bits* shared_dst, const Bits* global_src) {
  using unit = typename Bits::unit;
  if constexpr (sizeof(unit) >= 4) {
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
#pragma unroll
    for (std::size_t p = 0; p < Bits::parts; ++p) {
      const unsigned dst = base + static_cast<unsigned>(p * sizeof(unit));
      const void* src = &global_src->part[p];
      if constexpr (sizeof(unit) == 4) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
      } else if constexpr (sizeof(unit) == 8) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src) : "memory");
      } else {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
      }
    }
  } else {
    *shared_dst = *global_src;
  }
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
/// Closes this thread's cp.async copies issued since the last commit into one group.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/// Waits until at most `Pending` of this thread's most recent cp.async groups are incomplete.
template <int Pending>
__device__ __forceinline__ void cp_async_wait_prior() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// ----------------------------------------------------------------------------
// The staged kernel's steps 2 and 4 (numbered as in the file comment).

/// Warps per staged block.
inline constexpr int staged_warps = staged_block / 32;

/// 2. Warp 0, after the warps' counts are in warp_offset[0, staged_warps): turns them into
/// each warp's exclusive offset inside the block, warp_offset[staged_warps] = the block's
/// count, also written to block_counts[blockIdx.x].
__device__ __forceinline__ void scan_warp_counts(std::uint32_t (&warp_offset)[staged_warps + 1],
                                                 std::uint32_t* block_counts, unsigned lane) {
  const std::uint32_t mine = lane < staged_warps ? warp_offset[lane] : 0u;
  const std::uint32_t inclusive = scan::warp_inclusive_sum(mine, lane);
  if (lane < staged_warps) warp_offset[lane] = inclusive - mine;
  if (lane == 31) {
    warp_offset[staged_warps] = inclusive;
    block_counts[blockIdx.x] = inclusive;
  }
}

/// 4. The block's exclusive prefix (all threads): the sum of the counts of the blocks
/// before it, each warp summing a part into block_prefix_part; contains a block barrier.
__device__ __forceinline__ std::uint64_t block_exclusive_prefix(const std::uint32_t* block_counts,
                                                                std::uint64_t (&block_prefix_part)[staged_warps],
                                                                unsigned lane, unsigned warp) {
  std::uint64_t partial = 0;
  for (unsigned b = threadIdx.x; b < blockIdx.x; b += staged_block) partial += __ldcg(block_counts + b);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) partial += __shfl_down_sync(0xFFFFFFFFu, partial, d);
  if (lane == 0) block_prefix_part[warp] = partial;
  __syncthreads();
  std::uint64_t prefix = 0;
#pragma unroll
  for (int v = 0; v < staged_warps; ++v) prefix += block_prefix_part[v];
  return prefix;
}

/// The staged kernel (see the file comment). Launched cooperatively with
/// plan.blocks blocks of staged_block threads and plan.shared_bytes of dynamic
/// shared memory. domain_size: 2^b; num_items: the output length; block_counts:
/// plan.blocks words of scratch.
template <class T, class Eval>
__global__ void __launch_bounds__(staged_block)
    staged_shuffle_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t num_items,
                          std::uint64_t domain_size, std::uint32_t warp_chunk, const __grid_constant__ Eval f,
                          std::uint32_t* __restrict__ block_counts) {
  using element = element_bits<T>;
  extern __shared__ __align__(16) unsigned char staged_shared[];
  __shared__ std::uint32_t warp_offset[staged_warps + 1];
  __shared__ std::uint64_t block_prefix_part[staged_warps];
  const element* __restrict__ src = reinterpret_cast<const element*>(in);
  element* __restrict__ dst = reinterpret_cast<element*>(out);
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  element* piece = reinterpret_cast<element*>(staged_shared) + static_cast<std::size_t>(warp) * warp_chunk;

  // 1. Evaluate the warp's piece and stage its flagged elements in index order. (In the
  // kernel body: moved into a device function, nvcc 13.0 compiles the staging address of
  // 1- and 2-byte elements, copied through registers, differently.)
  const std::uint64_t begin = (static_cast<std::uint64_t>(blockIdx.x) * staged_warps + warp) * warp_chunk;
  const std::uint64_t end = begin + warp_chunk < domain_size ? begin + warp_chunk : domain_size;
  std::uint32_t count = 0;
  for (std::uint64_t base = begin; base < end; base += staged_step) {
    std::uint64_t w[staged_items];
    f.template images<staged_items>(base + lane, 32, w);
#pragma unroll
    for (int k = 0; k < staged_items; ++k) {
      const bool flag = (base + static_cast<std::uint64_t>(k) * 32 + lane < end) && (w[k] < num_items);
      const std::uint32_t ballot = __ballot_sync(0xFFFFFFFFu, flag);
      if (flag) stage_element(piece + count + __popc(ballot & lanes_below), src + w[k]);
      count += static_cast<std::uint32_t>(__popc(ballot));
    }
  }

  // 2. The block's count and each warp's offset inside the block.
  if (lane == 0) warp_offset[warp] = count;
  cp_async_wait_all();
  __syncthreads();
  if (warp == 0) scan_warp_counts(warp_offset, block_counts, lane);

  // 3. Every block's count is written (the grid barrier orders memory).
  cooperative_groups::this_grid().sync();

  // 4. Place: the block's exclusive prefix plus the warp's offset, then the warp's staged
  // elements to consecutive outputs.
  const std::uint64_t prefix = block_exclusive_prefix(block_counts, block_prefix_part, lane, warp) + warp_offset[warp];
  for (std::uint32_t j = lane; j < count; j += 32) dst[prefix + j] = piece[j];
}

/// The staged plan of the current device for elements T and evaluator Eval.
template <class T, class Eval>
staged_plan plan_staged_for(unsigned domain_bits) {
  const staged_device d = query_staged_device();
  if (!d.cooperative || domain_bits > staged_max_bits) return staged_plan{};
  // Blocks per SM by threads and registers: the kernel's occupancy without dynamic shared
  // memory (device::resident_blocks caches it per device as SMs x blocks per SM).
  constexpr auto kernel = &staged_shuffle_kernel<T, Eval>;
  const unsigned per_sm = device::resident_blocks<kernel>(staged_block) / device::multiprocessors();
  return plan_staged(domain_bits, sizeof(T), d, per_sm);
}

/// Enqueues the staged shuffle with plan `plan` (fits) on `stream`; d_temp holds at
/// least staged_temp_bytes(b) bytes. Throws onepass::runtime_failure when the
/// launch fails.
template <class T, class Eval>
void run_staged_with(void* d_temp, const T* d_in, T* d_out, std::uint64_t num_items, std::uint64_t domain_size,
                     const Eval& eval, const staged_plan& plan, cudaStream_t stream) {
  constexpr auto kernel = &staged_shuffle_kernel<T, Eval>;
  // The opt-in shared memory limit, set once per device for this instantiation.
  constexpr int cached_devices = 64;
  static std::atomic<bool> opted_in[cached_devices];
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  if (device >= cached_devices || !opted_in[device].load(std::memory_order_acquire)) {
    // The opt-in limit less the kernel's static shared memory (plan_staged keeps the
    // plan under the opt-in limit less staged_static_shared, an upper bound of it).
    const staged_device d = query_staged_device();
    cudaFuncAttributes attributes{};
    ONEPASS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    require(attributes.sharedSizeBytes <= staged_static_shared, "onepass::shuffle::gpu::detail::run_staged_with",
            "kernel", "static shared memory exceeds staged_static_shared (the plan's bound)");
    const std::size_t dynamic_limit = d.shared_per_block - attributes.sharedSizeBytes;
    ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(dynamic_limit)));
    if (device < cached_devices) opted_in[device].store(true, std::memory_order_release);
  }
  auto* counts = protocol::temp_layout::at<std::uint32_t>(d_temp, 0);
  std::uint32_t chunk = plan.warp_chunk;
  const T* in_arg = d_in;
  T* out_arg = d_out;
  void* args[] = {&in_arg, &out_arg, &num_items, &domain_size, &chunk, const_cast<Eval*>(&eval), &counts};
  ONEPASS_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(plan.blocks),
                                                 dim3(staged_block), args, plan.shared_bytes, stream));
}

}  // namespace onepass::shuffle::gpu::detail
