// onepass/gaussian/generate.cuh — device-wide generation of normal samples with the
// warp Gaussian generator (gpu::generate_normal), and a per-thread API for use inside user
// kernels.
//
// Names (issue 31): gpu::generate_normal here and cpu::generate_normal (cpu_generate.hpp,
// float_cpu_generate.hpp) have the same overloads and contracts (the CPU ones without the
// stream); the element count is num_items. The old onepass::gaussian::generate_normal is a
// deprecated alias of gpu::generate_normal, kept for one release.
//
// Article: "Training a random Gaussian generator" (whole generator; its point, section
// "Tail tests and measuring the speed": generating in registers beats loading
// precomputed numbers). Output order and entropy are those of cpu_generate.hpp:
// output i = lane i % 32 of warp round i / 32, with entropy_source(seed, lane)(round),
// so gpu::generate_normal equals cpu::generate_normal bit for bit.
//
// Floats (method): method::float_native is the default for float* without a table since the
// float-native generator's GPU output and statistics were checked on an H100 (issue 30); it is the
// float-native generator (float_lane.hpp, warp_gaussian_float.cuh; output order of
// float_cpu_generate.hpp: round r, lane l writes the float4 out[128 r + 4 l .. + 3]);
// method::rounded_double, and every float call that passes a double `table` and `form`,
// is the double generator rounded to nearest (the path before the float-native one).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/cuda_check.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/entropy.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/warp_gaussian.cuh"
#include "onepass/gaussian/warp_gaussian_float.cuh"
#include "onepass/launch_geometry.cuh"

namespace onepass::gaussian {

/// Per-thread generator for user kernels: all 32 lanes of a warp must call next()
/// together (converged). Holds the shared-memory table pointer, coefficients, this
/// thread's entropy_source and a draw counter; draw d of thread t under seed s uses
/// entropy_source(s, t)(d) — replayable. Load the table first with
/// load_table_to_shared (16 KiB of shared memory per block).
///
/// One hash of the entropy source feeds two draws (entropy_source::pair: draws 2q and
/// 2q + 1 are the low and high halves of one 64-bit word). next_pair() uses that: it
/// returns draws d and d + 1 from one hash and the two warp transforms are independent,
/// so it is the fast use (the in-register kernels of experiments/gaussian_throughput.cu
/// do the same); next() hashes once per draw. Typical use:
///
///   __shared__ alignas(16) std::int32_t smem[table_entries];
///   load_table_to_shared(smem, tab.entries);
///   warp_normal_generator<form::four> gen(smem, tab.coeff, seed, global_thread_id);
///   for (...) { const double2 z = gen.next_pair(); ... z.x ... z.y ... }
template <form F = form::four>
class warp_normal_generator {
 public:
  /// smem_table: 4096-entry table in shared memory; coeff: p0..p3; seed: any; thread:
  /// any 64-bit id unique per thread (e.g. the global thread index); first_draw: start.
  __device__ warp_normal_generator(const std::int32_t* smem_table, const coefficients& coeff, std::uint64_t seed,
                                   std::uint64_t thread, std::uint64_t first_draw = 0)
      : table_(smem_table), coeff_(coeff), source_(seed, thread), draw_(first_draw) {}

  /// Next N(mu, sigma^2) sample (mu, sigma finite; sigma >= 0). Warp-collective.
  __device__ double next(double mu = 0.0, double sigma = 1.0) {
    return warp_gaussian<F>(source_(draw_++), table_, coeff_, mu, sigma);
  }

  /// The next two N(mu, sigma^2) samples, draws d (.x) and d + 1 (.y) — the same values
  /// as two next() calls. From an even draw (the usual case: first_draw even and only
  /// next_pair calls) both come from one hash; from an odd one, from two. Warp-collective.
  __device__ double2 next_pair(double mu = 0.0, double sigma = 1.0) {
    std::uint64_t word;
    if ((draw_ & 1u) == 0) {
      word = source_.pair(draw_ >> 1);
    } else {  // straddles two pairs: high half of one, low half of the next
      word = (source_.pair(draw_ >> 1) >> 32) | (source_.pair((draw_ >> 1) + 1) << 32);
    }
    draw_ += 2;
    return make_double2(warp_gaussian<F>(static_cast<std::uint32_t>(word), table_, coeff_, mu, sigma),
                        warp_gaussian<F>(static_cast<std::uint32_t>(word >> 32), table_, coeff_, mu, sigma));
  }

  /// next_pair() rounded to float (round to nearest): the float draws of the generator.
  __device__ float2 next_pair_float(double mu = 0.0, double sigma = 1.0) {
    const double2 z = next_pair(mu, sigma);
    return make_float2(static_cast<float>(z.x), static_cast<float>(z.y));
  }

  /// Number of draws consumed so far (plus first_draw).
  __device__ std::uint64_t draws() const { return draw_; }

 private:
  const std::int32_t* table_;
  coefficients coeff_;
  entropy_source source_;
  std::uint64_t draw_;
};

namespace detail {

/// Threads per block of gpu::generate_normal (a multiple of 32).
inline constexpr unsigned generate_block = 256;

/// Grid-stride over warp-round pairs: warp w handles pairs q = w, w + W, ...; pair q is
/// rounds 2q (low halves of entropy_source::pair(q)) and 2q + 1 (high halves), i.e.
/// outputs 64q + lane and 64q + 32 + lane. The loop runs over the pairs whose 64 outputs
/// all lie below n, with no bounds checks, a pointer that advances by W x 64 and the
/// scales sigma * p_k formed once (passing them with sigma = 1 gives the same products,
/// so the same bits as cpu::generate_normal); the partial last pair (n % 64 outputs) is
/// done by the warp whose turn it is. The table comes by value as a kernel parameter
/// (16 KiB; needs CUDA >= 12.1, sm_70+).
template <form F, class T>
__global__ void __launch_bounds__(generate_block) generate_normal_kernel(T* __restrict__ out, std::uint64_t n,
                                                                          double mean, double stddev,
                                                                          std::uint64_t seed, const table tab) {
  __shared__ alignas(16) std::int32_t smem[table_entries];
  load_table_to_shared(smem, tab.entries);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const entropy_source source(seed, lane);
  const coefficients scaled{{stddev * tab.coeff.p[0], stddev * tab.coeff.p[1], stddev * tab.coeff.p[2],
                             stddev * tab.coeff.p[3]}};
  const std::uint64_t full_pairs = n / 64;
  T* p = out + warp * 64 + lane;
  const std::uint64_t step = warps * 64;
#pragma unroll 4
  for (std::uint64_t q = warp; q < full_pairs; q += warps, p += step) {  // warp-uniform loop
    const std::uint64_t word = source.pair(q);
    p[0] = static_cast<T>(warp_gaussian<F>(static_cast<std::uint32_t>(word), smem, scaled, mean));
    p[32] = static_cast<T>(warp_gaussian<F>(static_cast<std::uint32_t>(word >> 32), smem, scaled, mean));
  }
  const std::uint64_t rest = n - full_pairs * 64;  // 0..63 outputs of pair full_pairs
  if (rest > 0 && full_pairs % warps == warp) {    // warp-uniform
    const std::uint64_t word = source.pair(full_pairs);
    const std::uint64_t i = full_pairs * 64 + lane;
    const double x0 = warp_gaussian<F>(static_cast<std::uint32_t>(word), smem, scaled, mean);
    if (i < n) out[i] = static_cast<T>(x0);  // float: the double rounded to nearest
    if (rest > 32) {
      const double x1 = warp_gaussian<F>(static_cast<std::uint32_t>(word >> 32), smem, scaled, mean);
      if (i + 32 < n) out[i + 32] = static_cast<T>(x1);
    }
  }
}

/// The float-native kernel: rounds of 128 outputs; in round q lane l computes the four
/// transforms of block q of stream l (float_entropy_source(seed, l)) and stores them as the
/// float4 out[128 q + 4 l ..] (Aligned: one 16-byte store; else four 4-byte stores, for an
/// out not 16-byte aligned). The rounds are taken in groups of warps_per_block: block b does
/// groups b, b + gridDim, ..., warp w of a block round w of its group. That loop's control
/// depends only on blockIdx, gridDim and the arguments, so the compiler knows every lane of a
/// warp is converged at the shuffles (a loop over a per-warp index costs a WARPSYNC and an
/// ENDCOLLECTIVE around every shuffle: 10 instructions per output, measured in SASS). The
/// rounds past the last whole group and the partial last round (n % 128 outputs) are done by
/// one block after the loop. The table's magnitudes come by value as a kernel parameter
/// (16 KiB) and are expanded into the signed shared table.
template <bool Aligned>
__global__ void __launch_bounds__(generate_block) generate_normal_float_kernel(float* __restrict__ out,
                                                                                std::uint64_t n, float_scaled k,
                                                                                std::uint64_t seed,
                                                                                const float_table tab) {
  constexpr unsigned warps_per_block = generate_block / 32;
  __shared__ alignas(16) float smem[float_smem_entries];
  load_float_table_to_shared(smem, tab.entries);
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const float_entropy_source source(seed, lane);
  const std::uint32_t lane_off = float_lane::lane_offset(lane);
  const std::uint64_t full_rounds = n / 128;
  const std::uint64_t groups = full_rounds / warps_per_block;
  auto store = [&](float* p, const float4& x) {
    if constexpr (Aligned) {
      *reinterpret_cast<float4*>(p) = x;
    } else {
      p[0] = x.x;
      p[1] = x.y;
      p[2] = x.z;
      p[3] = x.w;
    }
  };
#pragma unroll 2
  for (std::uint64_t gi = blockIdx.x; gi < groups; gi += gridDim.x) {  // block-uniform loop
    const std::uint64_t q = gi * warps_per_block + warp;
    store(out + q * 128 + 4 * lane, warp_gaussian_float4(source(q), lane_off, smem, k));
  }
  if (blockIdx.x != groups % gridDim.x) return;  // the tail: one block, after its loop
  const std::uint64_t q = groups * warps_per_block + warp;
  const std::uint64_t rest = n - full_rounds * 128;  // 0..127 outputs of round full_rounds
  if (q < full_rounds) {                             // warp-uniform
    store(out + q * 128 + 4 * lane, warp_gaussian_float4(source(q), lane_off, smem, k));
  } else if (q == full_rounds && rest > 0) {  // warp-uniform
    const float4 x = warp_gaussian_float4(source(q), lane_off, smem, k);
    const std::uint64_t i = q * 128 + 4 * lane;
    if (i < n) out[i] = x.x;
    if (i + 1 < n) out[i + 1] = x.y;
    if (i + 2 < n) out[i + 2] = x.z;
    if (i + 3 < n) out[i + 3] = x.w;
  }
}

}  // namespace detail

namespace gpu {

/// Fills out[0..num_items) (device memory) with N(mean, stddev^2) floats of the FLOAT-NATIVE
/// warp Gaussian generator (float_lane.hpp; article "Training a random Gaussian generator" in
/// float form), asynchronously on `stream`. Bit-identical to
/// cpu::generate_normal(out_host, num_items, mean, stddev, seed, tab).
/// out: device pointer to num_items floats, caller-owned (16-byte aligned is fastest; any
/// 4-byte aligned pointer works); num_items in [0, 2^62]; mean finite, |mean| <= 3.4e38
/// (rounded to float); stddev finite in [0, 1e30]; seed any; tab: a float_table (entries >= 0,
/// worst_case_register <= 2^24, finite coefficients; default_float_table()).
/// Throws onepass::error naming the argument before launching anything;
/// onepass::runtime_failure when a CUDA call or the launch fails.
inline void generate_normal(float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            const float_table& tab, cudaStream_t stream = nullptr) {
  detail::check_float_generate_args("gaussian::gpu::generate_normal", out, num_items, mean, stddev, tab);
  if (num_items == 0) return;
  // One wave: the resident blocks (occupancy query, cached), at most one per group of
  // warps_per_block rounds (at least 1: the tail block).
  const std::uint64_t groups = static_cast<std::uint64_t>(num_items) / 128 / (detail::generate_block / 32);
  const float_scaled k = float_lane::scale(tab.coeff, mean, stddev);
  if (reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
    constexpr auto kernel = detail::generate_normal_float_kernel<true>;
    const unsigned blocks = device::resident_grid<kernel>(detail::generate_block, groups);
    kernel<<<blocks, detail::generate_block, 0, stream>>>(out, num_items, k, seed, tab);
  } else {
    constexpr auto kernel = detail::generate_normal_float_kernel<false>;
    const unsigned blocks = device::resident_grid<kernel>(detail::generate_block, groups);
    kernel<<<blocks, detail::generate_block, 0, stream>>>(out, num_items, k, seed, tab);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// Floats by `m` (default method::float_native since it passed its GPU statistics, issue 30):
/// float_native = the call above with default_float_table(); rounded_double = the double
/// generator (default_table(), form::four) rounded to nearest, as generate_normal<float>(out,
/// num_items, mean, stddev, seed, default_table(), form::four, stream). Bit-identical to
/// cpu::generate_normal(out_host, num_items, mean, stddev, seed, m). Arguments and errors as
/// the two calls (m must be one of the two methods: onepass::error naming m otherwise).
inline void generate_normal(float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            method m = method::float_native, cudaStream_t stream = nullptr);

/// Fills out[0..num_items) (device memory) with N(mean, stddev^2) samples of the warp
/// Gaussian generator, asynchronously on `stream`. Bit-identical to
/// cpu::generate_normal(out_host, num_items, mean, stddev, seed, tab, f).
/// out: device pointer to num_items doubles, or num_items floats (each the double sample
/// rounded to nearest), caller-owned; num_items in [0, 2^62]; mean finite; stddev finite >= 0;
/// seed any; tab: entries >= 0 without int32 overflow (see solve_coefficients), finite
/// coefficients; f: form::three or form::four.
/// Throws onepass::error naming the argument before launching anything;
/// onepass::runtime_failure when a CUDA call or the launch fails.
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
inline void generate_normal(T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            const table& tab, form f = form::four, cudaStream_t stream = nullptr) {
  detail::check_generate_args("gaussian::gpu::generate_normal", out, num_items, mean, stddev, tab, f);
  if (num_items == 0) return;
  const std::uint64_t rounds = (static_cast<std::uint64_t>(num_items) + 31) / 32;
  const std::uint64_t pairs = (rounds + 1) / 2;
  constexpr unsigned warps_per_block = detail::generate_block / 32;
  // Up to 16 blocks per SM (two waves of the 8 that fit) and the loop unrolled by 4: on the
  // H100, 2^28 doubles, 351-359 G/s against 331-350 with 8 per SM, unrolled by 2
  // (results/recorded/nvidia-h100/variants/generate_normal_variants.txt).
  const unsigned blocks =
      device::stride_grid(pairs, warps_per_block, static_cast<std::uint64_t>(device::multiprocessors()) * 16);
  if (f == form::three) {
    detail::generate_normal_kernel<form::three, T>
        <<<blocks, detail::generate_block, 0, stream>>>(out, num_items, mean, stddev, seed, tab);
  } else {
    detail::generate_normal_kernel<form::four, T>
        <<<blocks, detail::generate_block, 0, stream>>>(out, num_items, mean, stddev, seed, tab);
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// Default generator of the dtype: doubles with the library's default_table() and the
/// 4-coefficient form; floats from the float-native generator (method::float_native, the
/// default since it passed its GPU statistics, issue 30; method::rounded_double gives the double
/// generator rounded). Bit-identical to cpu::generate_normal(out_host, num_items, mean, stddev,
/// seed). Arguments and errors as the calls it makes.
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
inline void generate_normal(T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            cudaStream_t stream = nullptr) {
  if constexpr (std::is_same_v<T, float>) {
    gpu::generate_normal(out, num_items, mean, stddev, seed, default_float_table(), stream);
  } else {
    gpu::generate_normal<T>(out, num_items, mean, stddev, seed, default_table(), form::four, stream);
  }
}

inline void generate_normal(float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            method m, cudaStream_t stream) {
  require(m == method::float_native || m == method::rounded_double, "gaussian::gpu::generate_normal", "m",
          "must be method::float_native or method::rounded_double");
  if (m == method::float_native) {
    gpu::generate_normal(out, num_items, mean, stddev, seed, default_float_table(), stream);
  } else {
    gpu::generate_normal<float>(out, num_items, mean, stddev, seed, default_table(), form::four, stream);
  }
}

/// A null `out` (argument checks: num_items must then be 0) reads as a null double pointer.
inline void generate_normal(std::nullptr_t, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            const table& tab = default_table(), form f = form::four, cudaStream_t stream = nullptr) {
  gpu::generate_normal(static_cast<double*>(nullptr), num_items, mean, stddev, seed, tab, f, stream);
}

}  // namespace gpu

// Deprecated aliases (issue 31 naming convention): the old GPU names, each forwarding to the
// gpu::generate_normal overload of the same parameters. Call gpu::generate_normal (and
// cpu::generate_normal) qualified: an unqualified call with an argument of this namespace
// (table, float_table, form, method) also finds these by argument-dependent lookup.

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::generate_normal(out, num_items, mean, stddev, seed, tab, stream).
[[deprecated("use onepass::gaussian::gpu::generate_normal")]] inline void generate_normal(
    float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed, const float_table& tab,
    cudaStream_t stream = nullptr) {
  gpu::generate_normal(out, num_items, mean, stddev, seed, tab, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::generate_normal(out, num_items, mean, stddev, seed, m, stream).
[[deprecated("use onepass::gaussian::gpu::generate_normal")]] inline void generate_normal(
    float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
    method m = method::float_native, cudaStream_t stream = nullptr) {
  gpu::generate_normal(out, num_items, mean, stddev, seed, m, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::generate_normal(out, num_items, mean, stddev, seed, tab, f, stream).
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
[[deprecated("use onepass::gaussian::gpu::generate_normal")]] inline void generate_normal(
    T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed, const table& tab,
    form f = form::four, cudaStream_t stream = nullptr) {
  gpu::generate_normal<T>(out, num_items, mean, stddev, seed, tab, f, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::generate_normal(out, num_items, mean, stddev, seed, stream).
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
[[deprecated("use onepass::gaussian::gpu::generate_normal")]] inline void generate_normal(
    T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed, cudaStream_t stream = nullptr) {
  gpu::generate_normal<T>(out, num_items, mean, stddev, seed, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::generate_normal(nullptr, num_items, mean, stddev, seed, tab, f, stream).
[[deprecated("use onepass::gaussian::gpu::generate_normal")]] inline void generate_normal(
    std::nullptr_t, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
    const table& tab = default_table(), form f = form::four, cudaStream_t stream = nullptr) {
  gpu::generate_normal(nullptr, num_items, mean, stddev, seed, tab, f, stream);
}

}  // namespace onepass::gaussian
