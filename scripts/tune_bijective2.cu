// Tuning of Bijective2 (not part of the library): tile shapes (threads x items per
// thread / resident blocks per SM) and kernel structures. The library kernel against (A) per-item interleaving of evaluation and load, (B)
// warp-sized tiles with no block barriers (each warp ranks, looks back and stores
// its own tile), and (C) the Feistel round with one 32x32->64 wide multiply.
// uint64 elements, sizes 2^w + 1, against a computed-index random gather; every
// variant's output is compared with the library's.
// Build (from the repository root):
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include scripts/tune_bijective2.cu -o /tmp/tune_b2
// Run: /tmp/tune_b2 [w ...]   (default w = 20 23 26 29)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "median_event_ms.cuh"

namespace d = onepass::shuffle::gpu::detail;
namespace scan = onepass::scan;
using onepass::bijection::variable_philox;

__global__ void fill(std::uint64_t* x, std::uint64_t m) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < m; i += 256ull * gridDim.x) x[i] = i * 0x9E3779B97F4A7C15ull;
}
__global__ void gather(const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out, std::uint64_t m) {
  for (std::uint64_t j = blockIdx.x * 256ull + threadIdx.x; j < m; j += 256ull * gridDim.x) {
    std::uint64_t h = j * 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    out[j] = __ldg(in + __umul64hi(h, m));
  }
}
__global__ void count_diff(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t m, unsigned long long* c) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < m; i += 256ull * gridDim.x)
    if (a[i] != b[i]) atomicAdd(c, 1ull);
}


// (C) The round with one wide multiply: p = M0lo * L as 64 bits gives lo and the
// high word of M0lo * L; hi = p.hi + M0hi * L.
template <bool Odd>
struct wide_evaluator {
  d::philox_evaluator<24, Odd> base;
  template <int Items>
  __device__ void images(std::uint64_t first, std::uint64_t stride, std::uint64_t (&w)[Items]) const {
    constexpr std::uint32_t m_lo = static_cast<std::uint32_t>(variable_philox::multiplier);
    constexpr std::uint32_t m_hi = static_cast<std::uint32_t>(variable_philox::multiplier >> 32);
    std::uint32_t l[Items], r[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const std::uint64_t x = first + static_cast<std::uint64_t>(k) * stride;
      l[k] = static_cast<std::uint32_t>(x >> base.right_bits) & base.left_mask;
      r[k] = static_cast<std::uint32_t>(x) & base.right_mask;
    }
#pragma unroll
    for (int i = 0; i < 24; ++i) {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const std::uint64_t p = static_cast<std::uint64_t>(m_lo) * l[k];
        const std::uint32_t lo = static_cast<std::uint32_t>(p);
        const std::uint32_t hi = static_cast<std::uint32_t>(p >> 32) + m_hi * l[k];
        const std::uint32_t nl = (hi ^ base.key[i] ^ r[k]) & base.left_mask;
        if constexpr (Odd) {
          r[k] = (lo * 2u + (r[k] >> base.left_bits)) & base.right_mask;
        } else {
          r[k] = lo;
        }
        l[k] = nl;
      }
    }
#pragma unroll
    for (int k = 0; k < Items; ++k)
      w[k] = (static_cast<std::uint64_t>(l[k]) << base.right_bits) | (r[k] & base.right_mask);
  }
};

// (A) The library kernel with evaluation and load interleaved per item.
template <class Policy, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    interleaved_kernel(const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out, std::uint64_t m,
                       std::uint64_t n, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                       scan::tile_state<std::uint64_t> state) {
  __shared__ d::tile_shared<Policy> s;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31u;
  for (;;) {
    if (threadIdx.x == 0) s.tile = state.acquire_tile();
    __syncthreads();
    const std::uint64_t tile = s.tile;
    if (tile >= num_tiles) return;
    const std::uint64_t first = tile * Policy::tile_items + threadIdx.x;
    std::uint64_t value[Policy::items];
    std::uint32_t flags = 0;
#pragma unroll
    for (int k = 0; k < Policy::items; ++k) {
      std::uint64_t w[1];
      f.template images<1>(first + static_cast<std::uint64_t>(k) * Policy::block, 0, w);
      const bool flag = (first + static_cast<std::uint64_t>(k) * Policy::block < n) && (w[0] < m);
      const std::uint32_t ballot = __ballot_sync(0xFFFFFFFFu, flag);
      if (lane == 0) s.ballot[k * Policy::warps + warp] = ballot;
      flags |= static_cast<std::uint32_t>(flag) << k;
      if (flag) value[k] = in[w[0]];
    }
    __syncthreads();
    if (warp == 0) {
      const std::uint32_t aggregate = d::scan_ballots(s);
      const std::uint64_t residue = state.warp_exclusive_prefix(tile, aggregate);
      if (lane == 0) s.prefix = d::exact_prefix<Policy>(residue, tile, n, m);
    }
    __syncthreads();
    const std::uint64_t prefix = s.prefix;
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags >> k & 1u) out[prefix + d::rank_in_tile(s, k)] = value[k];
  }
}


// (D) The library kernel with other cache hints on the random load and the store:
// Load 0 plain, 1 __ldcs (evict-first), 2 ld.global.nc.L1::no_allocate, 3 __ldlu;
// Store 0 plain, 1 __stcs (streaming), 2 __stcg (L2 only).
__device__ __forceinline__ std::uint64_t ld_no_allocate(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.global.nc.L1::no_allocate.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}
template <int Load>
__device__ __forceinline__ std::uint64_t load_hint(const std::uint64_t* p) {
  if constexpr (Load == 1) return __ldcs(p);
  else if constexpr (Load == 2) return ld_no_allocate(p);
  else if constexpr (Load == 3) return __ldlu(p);
  else return *p;
}
template <int Store>
__device__ __forceinline__ void store_hint(std::uint64_t* p, std::uint64_t v) {
  if constexpr (Store == 1) __stcs(p, v);
  else if constexpr (Store == 2) __stcg(p, v);
  else *p = v;
}

template <class Policy, class Eval, int Load, int Store>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    hinted_kernel(const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out, std::uint64_t m,
                  std::uint64_t n, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                  scan::tile_state<std::uint64_t> state) {
  __shared__ d::tile_shared<Policy> s;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31u;
  for (;;) {
    if (threadIdx.x == 0) s.tile = state.acquire_tile();
    __syncthreads();
    const std::uint64_t tile = s.tile;
    if (tile >= num_tiles) return;
    std::uint64_t w[Policy::items];
    const std::uint32_t flags = d::evaluate_and_flag<Policy>(f, tile * Policy::tile_items, n, m, s, w);
    std::uint64_t value[Policy::items];
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags >> k & 1u) value[k] = load_hint<Load>(in + w[k]);
    __syncthreads();
    if (warp == 0) {
      const std::uint32_t aggregate = d::scan_ballots(s);
      const std::uint64_t residue = state.warp_exclusive_prefix(tile, aggregate);
      if (lane == 0) s.prefix = d::exact_prefix<Policy>(residue, tile, n, m);
    }
    __syncthreads();
    const std::uint64_t prefix = s.prefix;
#pragma unroll
    for (int k = 0; k < Policy::items; ++k)
      if (flags >> k & 1u) store_hint<Store>(out + prefix + d::rank_in_tile(s, k), value[k]);
  }
}

// (B) Warp tiles: a tile is one warp's 32 x Items indices (lane l holds indices
// base + k * 32 + l); no shared memory, no block barriers.
template <int Items>
struct warp_tile {
  static constexpr std::uint64_t tile_items = 32ull * Items;
};

template <int Block, int Items, int MinBlocks, class Eval>
__global__ void __launch_bounds__(Block, MinBlocks)
    warp_tile_kernel(const std::uint64_t* __restrict__ in, std::uint64_t* __restrict__ out, std::uint64_t m,
                     std::uint64_t n, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                     scan::tile_state<std::uint64_t> state) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint32_t below = (1u << lane) - 1u;
  for (;;) {
    std::uint64_t tile = 0;
    if (lane == 0) tile = state.acquire_tile();
    tile = __shfl_sync(0xFFFFFFFFu, tile, 0);
    if (tile >= num_tiles) return;
    const std::uint64_t first = tile * warp_tile<Items>::tile_items + lane;
    std::uint64_t w[Items];
    f.template images<Items>(first, 32, w);
    std::uint32_t ballot[Items];
    std::uint64_t value[Items];
    std::uint32_t aggregate = 0;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool flag = (first + 32ull * k < n) && (w[k] < m);
      ballot[k] = __ballot_sync(0xFFFFFFFFu, flag);
      aggregate += __popc(ballot[k]);
      if (flag) value[k] = in[w[k]];
    }
    const std::uint64_t residue = state.warp_exclusive_prefix(tile, aggregate);
    const std::uint64_t prefix = d::exact_prefix<warp_tile<Items>>(residue, tile, n, m);
    std::uint32_t running = 0;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (ballot[k] >> lane & 1u) out[prefix + running + __popc(ballot[k] & below)] = value[k];
      running += __popc(ballot[k]);
    }
  }
}

struct context {
  std::uint64_t m;
  std::uint64_t *in, *out, *ref;
  unsigned char* temp;
  variable_philox f;
  double gather_ms;
};

void report(context& c, const char* name, double ms) {
  unsigned long long* diff;
  ONEPASS_CUDA_CHECK(cudaMallocManaged(&diff, 8));
  *diff = 0;
  count_diff<<<1024, 256>>>(c.out, c.ref, c.m, diff);
  ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("  %-26s %9.3f ms %7.2f G/s  %.3f x gather%s\n", name, ms, c.m / ms * 1e-6, c.gather_ms / ms,
              *diff ? "  OUTPUT DIFFERS" : "");
  cudaFree(diff);
}

template <class Kernel>
unsigned grid_for(Kernel kernel, int block, std::uint64_t tiles) {
  int sms = 0, per_sm = 0;
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  ONEPASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
  const std::uint64_t slots = static_cast<std::uint64_t>(sms) * per_sm;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(slots, tiles)));
}

// Times `kernel` over the domain of c.f in `tiles` tiles of `block` threads.
template <class Kernel, class Eval>
void time_kernel(context& c, const char* name, Kernel kernel, int block, std::uint64_t tiles, const Eval& e) {
  const std::uint64_t n = std::uint64_t{1} << c.f.domain_bits();
  const scan::tile_state<std::uint64_t> state(c.temp, tiles);
  const unsigned grid = grid_for(kernel, block, tiles);
  report(c, name, median_ms([&] {
           state.initialize(0);
           kernel<<<grid, block>>>(c.in, c.out, c.m, n, tiles, e, state);
         }));
}

template <class Policy, class Eval>
void block_variant(context& c, const char* name, const Eval& e, bool interleave) {
  const std::uint64_t tiles = d::tiles_for<Policy>(std::uint64_t{1} << c.f.domain_bits());
  if (interleave) {
    time_kernel(c, name, &interleaved_kernel<Policy, Eval>, Policy::block, tiles, e);
  } else {
    time_kernel(c, name, &d::bijective2_kernel<Policy, std::uint64_t, Eval, false>, Policy::block, tiles, e);
  }
}

template <class Policy, int Load, int Store, class Eval>
void hinted_variant(context& c, const char* name, const Eval& e) {
  const std::uint64_t tiles = d::tiles_for<Policy>(std::uint64_t{1} << c.f.domain_bits());
  time_kernel(c, name, &hinted_kernel<Policy, Eval, Load, Store>, Policy::block, tiles, e);
}

template <int Block, int Items, int MinBlocks, class Eval>
void warp_variant(context& c, const char* name, const Eval& e) {
  const std::uint64_t tiles = std::max<std::uint64_t>(1, (std::uint64_t{1} << c.f.domain_bits()) / warp_tile<Items>::tile_items);
  // grid_for caps the grid at the resident blocks; each block holds Block / 32 warp tiles.
  time_kernel(c, name, &warp_tile_kernel<Block, Items, MinBlocks, Eval>, Block, tiles, e);
}

template <bool Odd>
void run_all(context& c) {
  const auto e = d::philox_evaluator<24, Odd>::from(c.f);
  const wide_evaluator<Odd> we{e};
  using P6 = d::tile_policy<256, 4, 6>;
  block_variant<P6>(c, "lib 256x4/6", e, false);
  // Run 1 of results/recorded/nvidia-h100/tuning.txt: structures A-C.
  block_variant<P6>(c, "C wide 256x4/6", we, false);
  block_variant<P6>(c, "A interleave 256x4/6", e, true);
  block_variant<P6>(c, "A+C 256x4/6", we, true);
  block_variant<d::tile_policy<256, 8, 4>>(c, "A interleave 256x8/4", e, true);
  warp_variant<256, 4, 6>(c, "B warp 32x4 (256/6)", e);
  warp_variant<256, 8, 6>(c, "B warp 32x8 (256/6)", e);
  warp_variant<256, 8, 4>(c, "B warp 32x8 (256/4)", e);
  warp_variant<256, 16, 3>(c, "B warp 32x16 (256/3)", e);
  warp_variant<256, 16, 4>(c, "B warp 32x16 (256/4)", e);
  warp_variant<256, 8, 6>(c, "B+C warp 32x8 (256/6)", we);
  warp_variant<256, 16, 4>(c, "B+C warp 32x16 (256/4)", we);
  // Run 2: cache hints (D) and tile shapes.
  hinted_variant<P6, 0, 0>(c, "D copy plain", e);
  hinted_variant<P6, 1, 0>(c, "D ldcs", e);
  hinted_variant<P6, 2, 0>(c, "D ld.nc.no_allocate", e);
  hinted_variant<P6, 3, 0>(c, "D ldlu", e);
  hinted_variant<P6, 0, 1>(c, "D stcs", e);
  hinted_variant<P6, 0, 2>(c, "D stcg", e);
  hinted_variant<P6, 2, 1>(c, "D no_allocate+stcs", e);
  block_variant<d::tile_policy<256, 4, 7>>(c, "lib 256x4/7", e, false);
  block_variant<d::tile_policy<256, 4, 8>>(c, "lib 256x4/8", e, false);
  block_variant<d::tile_policy<256, 2, 8>>(c, "lib 256x2/8", e, false);
  block_variant<d::tile_policy<128, 4, 12>>(c, "lib 128x4/12", e, false);
  block_variant<d::tile_policy<128, 4, 16>>(c, "lib 128x4/16", e, false);
  block_variant<d::tile_policy<512, 4, 3>>(c, "lib 512x4/3", e, false);
  block_variant<d::tile_policy<512, 2, 4>>(c, "lib 512x2/4", e, false);
  block_variant<d::tile_policy<1024, 2, 2>>(c, "lib 1024x2/2", e, false);
  // Run 3: small inputs (the library's small tile is 256x2/1 below 2^22 indices).
  block_variant<d::tile_policy<256, 2, 1>>(c, "lib 256x2/1 (small)", e, false);
  block_variant<d::tile_policy<256, 2, 4>>(c, "lib 256x2/4", e, false);
  block_variant<d::tile_policy<128, 2, 8>>(c, "lib 128x2/8", e, false);
  block_variant<d::tile_policy<128, 2, 16>>(c, "lib 128x2/16", e, false);
  block_variant<d::tile_policy<64, 4, 16>>(c, "lib 64x4/16", e, false);
  block_variant<d::tile_policy<64, 2, 32>>(c, "lib 64x2/32", e, false);
  block_variant<d::tile_policy<256, 1, 8>>(c, "lib 256x1/8", e, false);
  block_variant<d::tile_policy<128, 1, 16>>(c, "lib 128x1/16", e, false);
}

int main(int argc, char** argv) {
  std::vector<int> ws;
  for (int i = 1; i < argc; ++i) ws.push_back(std::atoi(argv[i]));
  if (ws.empty()) ws = {20, 23, 26, 29};
  cudaDeviceProp prop;
  ONEPASS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int w : ws) {
    context c{(std::uint64_t{1} << w) + 1, nullptr, nullptr, nullptr, nullptr,
              variable_philox::for_length((std::uint64_t{1} << w) + 1, 42), 0};
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.in, c.m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.out, c.m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.ref, c.m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.temp, 256 << 20));
    fill<<<1024, 256>>>(c.in, c.m);
    c.gather_ms = median_ms([&] { gather<<<4096, 256>>>(c.in, c.out, c.m); });
    std::size_t bytes = 256 << 20;
    const double lib_ms = median_ms([&] {
      onepass::shuffle::gpu::bijective_shuffle(c.temp, bytes, c.in, c.ref, c.m, c.f);
    });
    std::printf("m = 2^%d + 1 (b = %u): gather %.3f ms %.2f G/s; library %.3f ms %.2f G/s (%.3f x gather)\n", w,
                c.f.domain_bits(), c.gather_ms, c.m / c.gather_ms * 1e-6, lib_ms, c.m / lib_ms * 1e-6,
                c.gather_ms / lib_ms);
    if (c.f.domain_bits() & 1u) {
      run_all<true>(c);
    } else {
      run_all<false>(c);
    }
    cudaFree(c.in);
    cudaFree(c.out);
    cudaFree(c.ref);
    cudaFree(c.temp);
  }
}
