// onepass/gaussian/warp_gaussian.cuh — the warp-parallel Gaussian generator (device).
//
// Article: "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022;
// paper/references.bib: goucher2022gaussian), sections "A new algorithm", "Linear combination", "CUDA
// implementation" and "Issues with small floats". Each of the 32 lanes brings one
// uniform 32-bit entropy word; two table lookups per lane (64 base variables per
// warp), conditional negations, a five-layer butterfly of random 2x2 Hadamard mixes
// over __shfl_xor_sync, the uniform odd c = (entropy ^ b) | 1, and one double per
// lane: mu + sigma (a p0 + b p1 + c p2 [+ c p3]). The lane arithmetic is in
// lane.hpp, shared with the CPU emulation (warp_emulation.hpp): same inputs, same bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "onepass/gaussian/lane.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::gaussian {

/// Lane index within the warp (PTX %laneid), 0..31.
__device__ inline unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

/// The warp Gaussian: must be called by all 32 lanes of a warp together (converged,
/// full mask), each with its own uniform 32-bit `entropy`. `smem_table` points to
/// the 4096-entry table (normally shared memory; any readable memory works, but the
/// bank-conflict-free layout matters only in shared memory). `coeff` = p0..p3,
/// `mu` the mean and `sigma` the standard deviation of the output (any finite
/// doubles; sigma = 1, mu = 0 gives the standard normal). Returns one double per
/// lane, bit-identical to warp_emulation's output for lane lane_id().
/// F selects the 3- or 4-coefficient form. No errors (device code; caller checks).
template <form F = form::four>
__device__ inline double warp_gaussian(std::uint32_t entropy, const std::int32_t* smem_table, const coefficients& coeff,
                                       double mu = 0.0, double sigma = 1.0) {
  const unsigned my_lane = lane_id();
  lane::registers r = lane::load(entropy, my_lane, smem_table);
  std::int32_t c = 0;
#pragma unroll
  for (unsigned layer = 1; layer <= 5; ++layer) {
    const std::int32_t s = lane::mix_send(r);
    const std::int32_t received = __shfl_xor_sync(0xffffffffu, s, lane::layer_offset(layer));
    lane::mix_receive(r, received, entropy, layer);
    if (layer == lane::c_after_layer) c = lane::uniform_c(entropy, r.b);
  }
  if constexpr (F == form::three) {
    return lane::combine3(r.a, r.b, c, coeff, mu, sigma);
  } else {
    return lane::combine4(r.a, r.b, c, coeff, mu, sigma);
  }
}

/// Block-cooperative copy of a 4096-entry table into shared memory `smem_table`
/// (16 KiB, 16-byte aligned). Call from all threads of the block; ends with
/// __syncthreads(). `src` may be global, constant or parameter memory.
__device__ inline void load_table_to_shared(std::int32_t* smem_table, const std::int32_t* src) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (unsigned i = tid; i < table_entries; i += threads) smem_table[i] = src[i];
  __syncthreads();
}

}  // namespace onepass::gaussian
