// scripts/bench_gaussian_float.cu — where the float-native warp Gaussian's time goes (issue 30):
// the in-register and to-memory kernels of gaussian_throughput rebuilt with the transform's
// parts varied one at a time, timed in one run on one GPU. Not part of the library; variants
// other than the default are cost probes, not generators (their statistics are not checked).
//
// Variants (template arguments of one kernel):
//   Layers   5 (the generator) or 4 HMIX layers;
//   Entropy  philox7 (the generator: Philox4x32-7 per four words), philox5, splitmix (two
//            SplitMix64 words per four transforms: the double generator's source),
//            none (words = the counter xor a constant: the transform's cost alone);
//   FoldC    the uniform c's "- 1.5" folded into the combination's constant (one FADD fewer).
// Rows: G outputs/s, median of 9 CUDA-event-timed launches (two warm-ups), each kernel on
// one wave of resident blocks (occupancy query); store-only floor (float4 stores of a
// counter) beside them. 2^28 outputs to memory, 2^32 in registers.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include -I scripts scripts/bench_gaussian_float.cu \
//     build/lib/libonepass.a -o /tmp/bgf && /tmp/bgf
#include <cstdint>
#include <cstdio>

#include "median_event_ms.cuh"
#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/warp_gaussian_float.cuh"
#include "onepass/random/counter_hash.hpp"

namespace g = onepass::gaussian;
namespace fl = onepass::gaussian::float_lane;

enum class entropy { philox7, philox5, splitmix, none };

constexpr unsigned block_threads = 256;

template <entropy E>
__device__ inline g::words4 words(std::uint64_t q, std::uint32_t lane, std::uint32_t k0, std::uint32_t k1,
                                  const onepass::random::counter_hash& h) {
  if constexpr (E == entropy::philox7 || E == entropy::philox5) {
    return g::philox::philox4x32(static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(q >> 32), lane, 0u, k0, k1,
                                 E == entropy::philox7 ? 7u : 5u);
  } else if constexpr (E == entropy::splitmix) {
    const std::uint64_t x = h(2 * q), y = h(2 * q + 1);
    return g::words4{{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(x >> 32), static_cast<std::uint32_t>(y),
                      static_cast<std::uint32_t>(y >> 32)}};
  } else {
    const std::uint32_t c = static_cast<std::uint32_t>(q) * 0x9E3779B9u ^ lane;
    return g::words4{{c, c ^ 0x85ebca6bu, c ^ 0xc2b2ae35u, c ^ 0x27d4eb2fu}};
  }
}

template <int Layers, bool FoldC>
__device__ inline float transform(std::uint32_t e, std::uint32_t lane_off, const float* smem, const g::float_scaled& k,
                                  float mu_folded) {
  fl::registers r = fl::load(e, lane_off, smem);
  float c = 0.0f;
#pragma unroll
  for (unsigned layer = 1; layer <= Layers; ++layer) {
    const float s = fl::mix_send(r);
    const float received = __shfl_xor_sync(0xffffffffu, s, 1u << (layer - 1));
    fl::mix_receive(r, received, e, layer);
    if (layer == fl::c_after_layer) {
      if constexpr (FoldC)
        c = fl::as_float(((e ^ fl::as_bits(r.b)) & 0x007FFFFEu) | 0x3F800001u);
      else
        c = fl::uniform_c(e, r.b);
    }
  }
  if constexpr (FoldC) return __fmaf_rn(c, k.w, __fmaf_rn(r.b, k.p1, __fmaf_rn(r.a, k.p0, mu_folded)));
  return fl::combine(r.a, r.b, c, k);
}

template <int Layers, entropy E, bool FoldC>
__device__ inline float4 four(std::uint64_t q, std::uint32_t lane, std::uint32_t lane_off, std::uint32_t k0,
                              std::uint32_t k1, const onepass::random::counter_hash& h, const float* smem,
                              const g::float_scaled& k, float mu_folded) {
  const g::words4 w = words<E>(q, lane, k0, k1, h);
  return make_float4(transform<Layers, FoldC>(w.w[0], lane_off, smem, k, mu_folded),
                     transform<Layers, FoldC>(w.w[1], lane_off, smem, k, mu_folded),
                     transform<Layers, FoldC>(w.w[2], lane_off, smem, k, mu_folded),
                     transform<Layers, FoldC>(w.w[3], lane_off, smem, k, mu_folded));
}

/// BlockLoop: rounds in groups of 8 per block (control flow block-uniform, as
/// generate_normal's kernel); else a grid-stride loop over a per-warp round index (the
/// compiler wraps every shuffle in WARPSYNC/ENDCOLLECTIVE).
template <int Layers, entropy E, bool FoldC, bool ToMemory, bool BlockLoop = true>
__global__ void __launch_bounds__(block_threads)
    kernel(float4* out, double* sink, std::uint64_t rounds, std::uint64_t seed, const g::float_table tab) {
  __shared__ alignas(16) float smem[g::float_smem_entries];
  g::load_float_table_to_shared(smem, tab.entries);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const g::float_scaled k = fl::scale(tab.coeff, 0.0, 1.0);
  const float mu_folded = k.mu - 1.5f * k.w;
  const std::uint32_t k0 = static_cast<std::uint32_t>(seed) ^ g::float_seed_salt0;
  const std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32) ^ g::float_seed_salt1;
  const onepass::random::counter_hash h(seed, lane);
  const std::uint32_t lane_off = fl::lane_offset(lane);
  float acc = 0.0f;
  if constexpr (BlockLoop) {
    const std::uint64_t groups = rounds / 8;  // rounds: a multiple of 8 here
#pragma unroll 2
    for (std::uint64_t gi = blockIdx.x; gi < groups; gi += gridDim.x) {
      const std::uint64_t q = gi * 8 + (threadIdx.x >> 5);
      const float4 x = four<Layers, E, FoldC>(q, lane, lane_off, k0, k1, h, smem, k, mu_folded);
      if constexpr (ToMemory)
        out[q * 32 + lane] = x;
      else
        acc += (x.x + x.y) + (x.z + x.w);
    }
  } else {
#pragma unroll 2
    for (std::uint64_t q = warp; q < rounds; q += warps) {
      const float4 x = four<Layers, E, FoldC>(q, lane, lane_off, k0, k1, h, smem, k, mu_folded);
      if constexpr (ToMemory)
        out[q * 32 + lane] = x;
      else
        acc += (x.x + x.y) + (x.z + x.w);
    }
  }
  if constexpr (!ToMemory) sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void store_only(float4* out, std::uint64_t n4) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n4;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const float f = static_cast<float>(i);
    out[i] = make_float4(f, f, f, f);
  }
}

int sms = 0;

/// Resident blocks of a kernel on the whole GPU (one wave).
template <class K>
unsigned one_wave(K kernel) {
  int per_sm = 0;
  ONEPASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  return static_cast<unsigned>(sms * per_sm);
}

template <int Layers, entropy E, bool FoldC, bool BlockLoop = true>
void row(const char* name, float4* out, double* sink, std::uint64_t mem_rounds, std::uint64_t reg_rounds,
         const g::float_table& tab) {
  constexpr auto km = kernel<Layers, E, FoldC, true, BlockLoop>;
  constexpr auto kr = kernel<Layers, E, FoldC, false, BlockLoop>;
  const unsigned bm = one_wave(km), br = one_wave(kr);
  const double mem = median_ms([&] { km<<<bm, block_threads>>>(out, sink, mem_rounds, 7, tab); });
  const double reg = median_ms([&] { kr<<<br, block_threads>>>(out, sink, reg_rounds, 7, tab); });
  std::printf("%-40s to memory %7.1f G/s   in registers %7.1f G/s   (%u / %u blocks)\n", name,
              mem_rounds * 128 / mem / 1e6, reg_rounds * 128 / reg / 1e6, bm, br);
}

int main() {
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::uint64_t mem_rounds = (std::uint64_t{1} << 28) / 128, reg_rounds = (std::uint64_t{1} << 32) / 128;
  float4* out = nullptr;
  double* sink = nullptr;
  ONEPASS_CUDA_CHECK(cudaMalloc(&out, (std::uint64_t{1} << 28) * sizeof(float)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&sink, sms * 16 * block_threads * sizeof(double)));
  const g::float_table& tab = g::default_float_table();
  const double so = median_ms([&] { store_only<<<sms * 8, block_threads>>>(out, (std::uint64_t{1} << 28) / 4); });
  const double so16 = median_ms([&] { store_only<<<sms * 16, block_threads>>>(out, (std::uint64_t{1} << 28) / 4); });
  std::printf("%-40s to memory %7.1f G/s\n", "store-only (float4, 16 blocks per SM)", (double{1 << 28}) / so16 / 1e6);
  std::printf("%-40s to memory %7.1f G/s\n", "store-only (float4, 8 blocks per SM)", (double{1 << 28}) / so / 1e6);
  row<5, entropy::philox7, false, false>("5 layers, philox7, per-warp loop", out, sink, mem_rounds, reg_rounds, tab);
  row<5, entropy::philox7, false>("5 layers, philox7 (the generator)", out, sink, mem_rounds, reg_rounds, tab);
  row<5, entropy::philox7, true>("5 layers, philox7, fold c", out, sink, mem_rounds, reg_rounds, tab);
  row<5, entropy::philox5, false>("5 layers, philox5", out, sink, mem_rounds, reg_rounds, tab);
  row<5, entropy::splitmix, false>("5 layers, splitmix64", out, sink, mem_rounds, reg_rounds, tab);
  row<5, entropy::none, false>("5 layers, no entropy cost", out, sink, mem_rounds, reg_rounds, tab);
  row<4, entropy::philox7, false>("4 layers, philox7", out, sink, mem_rounds, reg_rounds, tab);
  row<4, entropy::philox7, true>("4 layers, philox7, fold c", out, sink, mem_rounds, reg_rounds, tab);
  row<4, entropy::none, false>("4 layers, no entropy cost", out, sink, mem_rounds, reg_rounds, tab);
  row<4, entropy::splitmix, true>("4 layers, splitmix64, fold c", out, sink, mem_rounds, reg_rounds, tab);
  ONEPASS_CUDA_CHECK(cudaGetLastError());
  cudaFree(out);
  cudaFree(sink);
  return 0;
}
