// onepass/gaussian/warp_gaussian_float.cuh — the float-native warp-parallel Gaussian
// generator on the device: the warp transform (float_lane.hpp: signed float table in
// shared memory, exact float butterfly over __shfl_xor_sync, sign flips as xors of bit 31,
// three float FMAs) and a per-thread generator for user kernels that returns four floats
// (one float4, 16 bytes) per call from one Philox4x32-7 block (float_entropy.hpp).
//
// Article: "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022), sections
// "A new algorithm", "Linear combination", "CUDA implementation", "Issues with small
// floats" — in float form; the derivation, the error bound and the quantum are in
// float_lane.hpp. Bit-identical to the CPU twin (float_cpu_generate.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/gaussian/warp_gaussian.cuh"

namespace onepass::gaussian {

/// One float-native warp transform: called by all 32 lanes of a warp together
/// (converged, full mask), each with its own uniform 32-bit `entropy` and
/// `lane_off` = float_lane::lane_offset(lane_id()) (passed in so a loop computes it once). `smem_table`: the
/// signed 8192-float table (load_float_table_to_shared); `k`: scaled coefficients
/// (float_lane::scale(coeff, mean, stddev)). Returns this lane's N(mean, stddev^2) float,
/// bit-identical to emulate_float_warp's out[lane]. No errors (device code).
__device__ inline float warp_gaussian_float(std::uint32_t entropy, std::uint32_t lane_off, const float* smem_table,
                                            const float_scaled& k) {
  float_lane::registers r = float_lane::load(entropy, lane_off, smem_table);
  float c = 0.0f;
#pragma unroll
  for (unsigned layer = 1; layer <= 5; ++layer) {
    const float s = float_lane::mix_send(r);
    const float received = __shfl_xor_sync(0xffffffffu, s, 1u << (layer - 1));
    float_lane::mix_receive(r, received, entropy, layer);
    if (layer == float_lane::c_after_layer) c = float_lane::uniform_c(entropy, r.b);
  }
  return float_lane::combine(r.a, r.b, c, k);
}

/// As above, reading the lane index from %laneid.
__device__ inline float warp_gaussian_float(std::uint32_t entropy, const float* smem_table, const float_scaled& k) {
  return warp_gaussian_float(entropy, float_lane::lane_offset(lane_id()), smem_table, k);
}

/// Four warp transforms from one block of words (w.w[0..3]): .x, .y, .z, .w = transforms
/// 0, 1, 2, 3 — the order of the CPU twin (output 4 lane + j of a round); lane_off as
/// warp_gaussian_float. Warp-collective.
__device__ inline float4 warp_gaussian_float4(const words4& w, std::uint32_t lane, const float* smem_table,
                                              const float_scaled& k) {
  const float x0 = warp_gaussian_float(w.w[0], lane, smem_table, k);
  const float x1 = warp_gaussian_float(w.w[1], lane, smem_table, k);
  const float x2 = warp_gaussian_float(w.w[2], lane, smem_table, k);
  const float x3 = warp_gaussian_float(w.w[3], lane, smem_table, k);
  return make_float4(x0, x1, x2, x3);
}

/// Block-cooperative fill of the signed table (float_lane.hpp, item 1: 8192 floats,
/// 32 KiB, 16-byte aligned) in shared memory `smem_table` from the 4096 magnitudes
/// `entries` (a float_table's; global, constant or parameter memory). Call from all
/// threads of the block; ends with __syncthreads().
__device__ inline void load_float_table_to_shared(float* smem_table, const std::int32_t* entries) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (unsigned i = tid; i < float_smem_entries; i += threads) smem_table[i] = float_lane::signed_entry(entries, i);
  __syncthreads();
}

/// Per-thread float-native generator for user kernels: all 32 lanes of a warp must call
/// next4() together (converged). Holds the shared-memory table pointer, the scaled
/// coefficients, this thread's float_entropy_source and a block counter; call b of thread
/// t under seed s returns the four transforms of block b of stream t
/// (float_entropy_source(s, t)(b)) — replayable, and equal to gpu::generate_normal's round b,
/// lane t when t is the lane. Typical use (32 KiB of shared memory per block):
///
///   __shared__ alignas(16) float smem[float_smem_entries];
///   load_float_table_to_shared(smem, tab.entries);   // tab = default_float_table(), by value
///   float_normal_generator gen(smem, tab.coeff, seed, global_thread_id);
///   for (...) { const float4 z = gen.next4(); ... }
class float_normal_generator {
 public:
  /// smem_table: signed table in shared memory; coeff: the float_table's coefficients;
  /// seed: any; thread: any 64-bit id unique per thread; first_block: start; mean, stddev:
  /// of the outputs (finite, stddev >= 0; rounded as float_lane::scale documents).
  __device__ float_normal_generator(const float* smem_table, const float_coefficients& coeff, std::uint64_t seed,
                                    std::uint64_t thread, std::uint64_t first_block = 0, double mean = 0.0,
                                    double stddev = 1.0)
      : table_(smem_table),
        k_(float_lane::scale(coeff, mean, stddev)),
        source_(seed, thread),
        block_(first_block),
        lane_(float_lane::lane_offset(lane_id())) {}

  /// The next four N(mean, stddev^2) floats (16 bytes; one Philox4x32-7 block, four warp
  /// transforms). Warp-collective.
  __device__ float4 next4() { return warp_gaussian_float4(source_(block_++), lane_, table_, k_); }

  /// The next two floats: transforms 0 and 1 of the next block (transforms 2, 3 of that
  /// block are skipped: half the cost per call of next4 for a quarter less throughput).
  __device__ float2 next_pair() {
    const words4 w = source_(block_++);
    return make_float2(warp_gaussian_float(w.w[0], lane_, table_, k_), warp_gaussian_float(w.w[1], lane_, table_, k_));
  }

  /// Number of blocks consumed so far (plus first_block).
  __device__ std::uint64_t blocks() const { return block_; }

 private:
  const float* table_;
  float_scaled k_;
  float_entropy_source source_;
  std::uint64_t block_;
  std::uint32_t lane_;  // float_lane::lane_offset of this lane
};

}  // namespace onepass::gaussian
