// Cache hints for the tiled Bijective2 at mid sizes (not part of the library): the
// library's forward kernel (bijective2_pipelined_kernel, with the tile shape the library
// picks) against the same kernel with (S) streaming stores of the output (st.global.cs:
// evict-first, so the written output does not push the input's lines out of L2), (L) the
// input's cp.async copies with an L2 evict_last policy, and (S+L). The random-gather bound
// of Table 1 (the shape of baselines/gpu/gather.cu: 256 threads x 4 pairs of 16-byte
// stores, index mul_high(counter_hash(i), n)) is timed with the same hints, so that a hint
// is credited to the shuffle only against a gather that may use it too.
// uint64 elements, n = 2^w + 1; every variant's output is compared with the library's,
// every gather variant's with the plain gather's.
// Build (from the repository root):
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include scripts/bench_bijective2_cache_hints.cu -o /tmp/b2hints
// Run: /tmp/b2hints [w ...]   (default w = 20 23 24 26 29)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/random/counter_hash.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "median_event_ms.cuh"

namespace d = onepass::shuffle::gpu::detail;
namespace scan = onepass::scan;
using onepass::bijection::variable_philox;

enum hint : int { plain = 0, streaming_store = 1, evict_last_load = 2, both = 3 };

__device__ __forceinline__ std::uint64_t evict_last_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

// ---------------------------------------------------------------------------------------
// The library's pipelined kernel with hints (uint64 elements only).

template <class Policy, class Eval, int Hint>
__device__ __forceinline__ std::uint32_t stage_tile_hinted(const Eval& f, std::uint64_t tile, std::uint64_t domain_size,
                                                           std::uint64_t num_items, d::tile_shared<Policy>& s,
                                                           std::uint64_t (&stage)[Policy::tile_items],
                                                           const std::uint64_t* src, std::uint64_t policy) {
  std::uint64_t w[Policy::items];
  const std::uint32_t flags = d::evaluate_and_flag<Policy>(f, tile * Policy::tile_items, domain_size, num_items, s, w);
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) {
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&stage[k * Policy::block + threadIdx.x]));
      if constexpr (Hint & evict_last_load)
        asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src + w[k]),
                     "l"(policy)
                     : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src + w[k]) : "memory");
    }
  d::cp_async_commit();
  return flags;
}

template <class Policy, int Hint>
__device__ __forceinline__ void store_staged_hinted(std::uint32_t flags, const d::tile_shared<Policy>& s,
                                                    const std::uint64_t (&stage)[Policy::tile_items],
                                                    std::uint64_t* dst) {
  const std::uint64_t prefix = s.prefix;
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) {
      unsigned long long* p = reinterpret_cast<unsigned long long*>(dst + prefix + d::rank_in_tile(s, k));
      const unsigned long long v = stage[k * Policy::block + threadIdx.x];
      if constexpr (Hint & streaming_store)
        __stcs(p, v);
      else
        *p = v;
    }
}

template <class Policy, class Eval, int Hint>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    hinted_pipelined_kernel(const std::uint64_t* __restrict__ src, std::uint64_t* __restrict__ dst,
                            std::uint64_t num_items, std::uint64_t domain_size, std::uint64_t num_tiles,
                            const __grid_constant__ Eval f, scan::tile_state<std::uint64_t> state) {
  __shared__ d::tile_shared<Policy> s[2];
  __shared__ std::uint64_t stage[2][Policy::tile_items];
  __shared__ std::uint32_t aggregate[2];
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t policy = (Hint & evict_last_load) ? evict_last_policy() : 0;

  if (threadIdx.x == 0) s[0].tile = state.acquire_tile();
  __syncthreads();
  std::uint64_t tile_a = s[0].tile;
  if (tile_a >= num_tiles) return;
  unsigned a = 0;
  std::uint32_t flags_a =
      stage_tile_hinted<Policy, Eval, Hint>(f, tile_a, domain_size, num_items, s[a], stage[a], src, policy);
  __syncthreads();
  if (warp == 0) d::publish_aggregate(state, tile_a, s[a], aggregate[a], lane);
  for (;;) {
    const unsigned b = a ^ 1u;
    if (threadIdx.x == 0) s[b].tile = state.acquire_tile();
    __syncthreads();
    const std::uint64_t tile_b = s[b].tile;
    const bool more = tile_b < num_tiles;
    std::uint32_t flags_b = 0;
    if (more)
      flags_b = stage_tile_hinted<Policy, Eval, Hint>(f, tile_b, domain_size, num_items, s[b], stage[b], src, policy);
    else
      d::cp_async_commit();
    __syncthreads();
    if (warp == 0) {
      if (more) d::publish_aggregate(state, tile_b, s[b], aggregate[b], lane);
      if (tile_a != 0) d::look_back_inclusive(state, tile_a, a, aggregate, s, domain_size, num_items, lane);
    }
    d::cp_async_wait_prior<1>();
    __syncthreads();
    store_staged_hinted<Policy, Hint>(flags_a, s[a], stage[a], dst);
    if (!more) return;
    tile_a = tile_b;
    flags_a = flags_b;
    a = b;
  }
}

// ---------------------------------------------------------------------------------------
// The random gather of Table 1 with hints.

constexpr unsigned gather_block = 256;
constexpr unsigned gather_pairs = 4;
constexpr std::uint64_t gather_tile = std::uint64_t{gather_block} * gather_pairs * 2;

template <int Hint>
__device__ __forceinline__ std::uint64_t gather_load(const std::uint64_t* p, std::uint64_t policy) {
  if constexpr (Hint & evict_last_load) {
    std::uint64_t v;
    asm volatile("ld.global.nc.L2::cache_hint.b64 %0, [%1], %2;\n" : "=l"(v) : "l"(p), "l"(policy));
    return v;
  } else {
    return __ldg(reinterpret_cast<const unsigned long long*>(p));
  }
}

template <int Hint>
__global__ void __launch_bounds__(gather_block)
    gather_kernel(onepass::random::counter_hash hash, const std::uint64_t* __restrict__ in,
                  std::uint64_t* __restrict__ out, std::uint64_t n) {
  const std::uint64_t policy = (Hint & evict_last_load) ? evict_last_policy() : 0;
  const std::uint64_t full_tiles = n / gather_tile;
  for (std::uint64_t tile = blockIdx.x; tile < full_tiles; tile += gridDim.x) {
    const std::uint64_t base = tile * gather_tile;
    std::uint64_t w[gather_pairs][2];
#pragma unroll
    for (unsigned p = 0; p < gather_pairs; ++p) {
      const std::uint64_t i = base + 2 * (std::uint64_t{p} * gather_block + threadIdx.x);
      w[p][0] = onepass::random::mul_high(hash(i), n);
      w[p][1] = onepass::random::mul_high(hash(i + 1), n);
    }
    ulonglong2 v[gather_pairs];
#pragma unroll
    for (unsigned p = 0; p < gather_pairs; ++p) {
      v[p].x = gather_load<Hint>(in + w[p][0], policy);
      v[p].y = gather_load<Hint>(in + w[p][1], policy);
    }
#pragma unroll
    for (unsigned p = 0; p < gather_pairs; ++p) {
      ulonglong2* q = reinterpret_cast<ulonglong2*>(out + base + 2 * (std::uint64_t{p} * gather_block + threadIdx.x));
      if constexpr (Hint & streaming_store)
        __stcs(q, v[p]);
      else
        *q = v[p];
    }
  }
  if (blockIdx.x == gridDim.x - 1)
    for (std::uint64_t i = full_tiles * gather_tile + threadIdx.x; i < n; i += gather_block)
      out[i] = gather_load<Hint>(in + onepass::random::mul_high(hash(i), n), policy);
}

// ---------------------------------------------------------------------------------------

__global__ void fill(std::uint64_t* x, std::uint64_t m) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < m; i += 256ull * gridDim.x) x[i] = i * 0x9E3779B97F4A7C15ull;
}
__global__ void count_diff(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t m, unsigned long long* c) {
  for (std::uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < m; i += 256ull * gridDim.x)
    if (a[i] != b[i]) atomicAdd(c, 1ull);
}


unsigned long long differences(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t m,
                               unsigned long long* d_count) {
  ONEPASS_CUDA_CHECK(cudaMemset(d_count, 0, sizeof(unsigned long long)));
  count_diff<<<1024, 256>>>(a, b, m, d_count);
  unsigned long long h = 0;
  ONEPASS_CUDA_CHECK(cudaMemcpy(&h, d_count, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

struct context {
  std::uint64_t m;
  std::uint64_t *in, *out, *ref, *gather_ref;
  void* temp;
  unsigned long long* count;
  variable_philox f;
};

template <int Hint>
double time_gather(context& c) {
  const onepass::random::counter_hash hash(12345, 0);
  const unsigned grid = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(c.m / gather_tile, 1u << 30)));
  return median_ms([&] { gather_kernel<Hint><<<grid, gather_block>>>(hash, c.in, c.out, c.m); }, 11);
}

template <class Policy, int Hint, class Eval>
double time_shuffle(context& c, const Eval& e) {
  const std::uint64_t domain_size = std::uint64_t{1} << c.f.domain_bits();
  const std::uint64_t tiles = d::tiles_for<Policy>(domain_size);
  const scan::tile_state<std::uint64_t> state(onepass::protocol::aligned_start(c.temp), tiles);
  constexpr auto kernel = &hinted_pipelined_kernel<Policy, Eval, Hint>;
  const unsigned grid = onepass::device::resident_grid<kernel>(Policy::block, tiles);
  return median_ms(
      [&] {
        state.initialize(0);
        kernel<<<grid, Policy::block>>>(c.in, c.out, c.m, domain_size, tiles, e, state);
      },
      11);
}

const char* hint_name(int h) {
  switch (h) {
    case plain: return "plain";
    case streaming_store: return "S: st.global.cs";
    case evict_last_load: return "L: L2 evict_last loads";
    default: return "S+L";
  }
}

int main(int argc, char** argv) {
  std::vector<int> ws;
  for (int i = 1; i < argc; ++i) ws.push_back(std::atoi(argv[i]));
  if (ws.empty()) ws = {20, 23, 24, 26, 29};
  cudaDeviceProp prop;
  ONEPASS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  for (int w : ws) {
    const std::uint64_t m = (std::uint64_t{1} << w) + 1;
    context c{m, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, variable_philox::for_length(m, 42)};
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.in, m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.out, m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.ref, m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.gather_ref, m * 8));
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.count, sizeof(unsigned long long)));
    std::size_t bytes = 0;
    onepass::shuffle::gpu::bijective_shuffle<std::uint64_t>(nullptr, bytes, c.in, c.ref, m, c.f);
    ONEPASS_CUDA_CHECK(cudaMalloc(&c.temp, bytes));
    fill<<<1024, 256>>>(c.in, m);
    const double lib_ms =
        median_ms([&] { onepass::shuffle::gpu::bijective_shuffle(c.temp, bytes, c.in, c.ref, m, c.f); }, 11);
    double g[4];
    g[plain] = time_gather<plain>(c);
    ONEPASS_CUDA_CHECK(cudaMemcpy(c.gather_ref, c.out, m * 8, cudaMemcpyDeviceToDevice));
    g[streaming_store] = time_gather<streaming_store>(c);
    const auto gd1 = differences(c.out, c.gather_ref, m, c.count);
    g[evict_last_load] = time_gather<evict_last_load>(c);
    const auto gd2 = differences(c.out, c.gather_ref, m, c.count);
    g[both] = time_gather<both>(c);
    const auto gd3 = differences(c.out, c.gather_ref, m, c.count);
    const double best_gather = *std::min_element(g, g + 4);
    std::printf("n = 2^%d + 1 (b = %u): library %.4f ms, %.2f G/s (%s); gather variants differ in %llu/%llu/%llu\n", w,
                c.f.domain_bits(), lib_ms, m / lib_ms * 1e-6,
                d::takes_staged_structure<std::uint64_t>(c.f) ? "staged" : "tiled", gd1, gd2, gd3);
    for (int h = 0; h < 4; ++h)
      std::printf("  gather  %-24s %.4f ms %7.2f G/s; library / this %.3f\n", hint_name(h), g[h], m / g[h] * 1e-6,
                  g[h] / lib_ms);
    if (!d::takes_staged_structure<std::uint64_t>(c.f)) {
      d::with_evaluator(c.f, [&](const auto& e) {
        d::with_policy<std::uint64_t>(c.f.domain_bits(), [&](auto policy) {
          using P = decltype(policy);
          double t[4];
          unsigned long long diff[4];
          t[plain] = time_shuffle<P, plain>(c, e);
          diff[plain] = differences(c.out, c.ref, m, c.count);
          t[streaming_store] = time_shuffle<P, streaming_store>(c, e);
          diff[streaming_store] = differences(c.out, c.ref, m, c.count);
          t[evict_last_load] = time_shuffle<P, evict_last_load>(c, e);
          diff[evict_last_load] = differences(c.out, c.ref, m, c.count);
          t[both] = time_shuffle<P, both>(c, e);
          diff[both] = differences(c.out, c.ref, m, c.count);
          for (int h = 0; h < 4; ++h)
            std::printf("  shuffle %-24s %.4f ms %7.2f G/s; / plain gather %.3f, / same-hint gather %.3f, "
                        "/ best gather %.3f; differs from library in %llu\n",
                        hint_name(h), t[h], m / t[h] * 1e-6, g[plain] / t[h], g[h] / t[h], best_gather / t[h],
                        diff[h]);
        });
      });
    }
    cudaFree(c.in);
    cudaFree(c.out);
    cudaFree(c.ref);
    cudaFree(c.gather_ref);
    cudaFree(c.temp);
    cudaFree(c.count);
  }
}
