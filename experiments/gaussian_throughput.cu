// experiments/gaussian_throughput.cu — throughput of the warp Gaussian generator
// (A. P. Goucher, "Training a random Gaussian generator", 2022, section "Tail tests and
// measuring the speed of the generator": 121 G outputs/s on a V100, faster than loading
// precomputed numbers) beside cuRAND, all in this one process on one stream.
//
// In registers (mode in_register): every thread draws `draws` N(0,1) doubles and adds
// them into two double accumulators, whose sum it writes once at the end (one store per
// thread, so no draw can be optimised away and memory traffic is negligible). Grid =
// the resident blocks (occupancy API x SMs), block 256, one kernel launch per run.
//   ours_register_3 / ours_register_4   warp_gaussian<form::three / four>, table copied
//       once per block into shared memory (16 KiB), entropy from entropy_source::pair:
//       one SplitMix64 word = two draws (exactly the generate_normal kernel's loop).
//   ours_generator_3 / ours_generator_4   the per-thread API as its docstring shows it:
//       warp_normal_generator<form::three / four>::next_pair() (one hash per two draws).
//   ours_generator_next_4   the same API one draw at a time, next() (one hash per draw).
//   ours_register_philox_3 / ours_register_philox_4   as ours_register_*, but the entropy
//       words come from cuRAND's Philox4_32_10 (curand_init per thread, one curand4 per
//       four draws) instead of SplitMix64: the same bit source as cuRAND's rows.
//   curand_normal2_double   cuRAND device API, Philox4_32_10: curand_init(seed, thread,
//       0) once per thread inside the timed kernel, then draws/2 calls of
//       curand_normal2_double (two outputs each). Philox's init is a few integer ops
//       (no skip-ahead matrices); its cost, measured alone with 0 draws, is in meta.json
//       (curand_init_seconds) and is < 0.1 % of a run at the default scale.
// To memory (mode to_memory): n doubles, then n floats, written to device memory.
//   Every GPU entry of the registry's Gaussian family (onepass/harness/registry.hpp,
//   gaussian_generators()) that lists the output type, under its registry name (floats:
//   suffix _f32), called through its gpu_run with seed + k for timed run k; one untimed call
//   first (setup: e.g. cuRAND's generator is created on first use). Entries that follow the
//   library's definition come first, the other entries after the two reference rows below:
//   ours_memory_3 / ours_memory_4   onepass::gaussian::gpu::generate_normal (both forms;
//       harness/src/gpu_gaussian_generators.cu).
//   curand_host_philox   cuRAND host API (baselines/gpu/curand_gaussian.cu):
//       curandGenerateNormalDouble / curandGenerateNormal, generator
//       CURAND_RNG_PSEUDO_PHILOX4_32_10 (default ordering), created once outside the timed
//       region; each call sets stream, seed and offset 0, then generates.
//   store_only   a kernel that only writes the same n doubles (out[i] = i, 16-byte stores,
//       grid = resident blocks): the write-bandwidth reference of the to-memory rows.
//   ours_memory_philox_3   generate_normal's kernel (3 coefficients) with each lane's entropy
//       from cuRAND's Philox4_32_10 (curand4) instead of SplitMix64; checked by its moments.
//   The same with floats: ours_memory_3_f32, ours_memory_4_f32, ours_memory_philox_3_f32, store_only_f32, and
//   curand_host_philox_f32; dtype column f32.
// Float in registers: ours_generator_f32_3 (the API's next_pair_float, 3 coefficients),
// ours_float_native_generator (the float-native generator's float_normal_generator::next4,
// form column "float_native") and cuRAND's curand_normal4 (curand_normal4,
// Philox4_32_10), dtype f32.
// Float to memory also: ours_memory_float_native_f32 (gpu::generate_normal(float*, ...,
// method::float_native), checked bit for bit against cpu::generate_normal float_native),
// and cuRAND's other host-API configurations from the registry: curand_host_philox_dynamic
// (CURAND_ORDERING_PSEUDO_DYNAMIC), curand_host_mrg32k3a (default ordering) and
// curand_host_mrg32k3a_seeded (CURAND_ORDERING_PSEUDO_SEEDED), f64 and f32. The note
// ratio_float_native gives the float-native bars against curand_normal4, cuRAND's fastest
// float to-memory row and store_only_f32.
//
// Checks (untimed, after timing): in registers, the per-thread sums are added on the host
// (long double); z = sum / sqrt(outputs) must be |z| < 6 for every generator (a dead or
// constant generator fails this); to memory, ours equals cpu::generate_normal bit for
// bit on the first 2^16 outputs (every entry with library_definition), the other entries'
// (cuRAND's) first 2^16 outputs have |mean| and |var - 1| within 6 standard errors. A
// failed check gives exit status 1 (the row is kept, with the check text).
//
// Output: <out>/gaussian_throughput.csv with
//   algorithm,label,mode,form,outputs,threads,reps,seconds_median,seconds_min,seconds_max,
//   outputs_per_second,check
// (outputs per run; outputs_per_second = outputs / seconds_median; no field holds a
// comma, the harness does not quote). meta.json adds the
// GPU, the in-register ratios ours / curand_normal2_double (the project's bar: >= 1.3
// for both forms) and the table used.
//
// Options (besides --scale, --out-dir, --seed): --reps, --warmup, --warm-l2 (gpu_harness),
//   --register-log2 L  outputs per in-register run = 2^L (default by scale 24/34/36)
//   --memory-log2 M    outputs per to-memory run = 2^M (default by scale 20/28/28)
//
// Exit status: 0 ok, 1 a check failed or an algorithm failed, 2 bad arguments, 3 no GPU.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/entropy.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/generate.cuh"
#include "onepass/gaussian/table.hpp"
#include "onepass/gaussian/warp_gaussian.cuh"
#include "onepass/gaussian/warp_gaussian_float.cuh"
#include "onepass/harness/registry.hpp"

namespace {

namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;
namespace g = onepass::gaussian;
namespace reg = onepass::registry;

const char* const experiment = "gaussian_throughput";
constexpr unsigned block_threads = 256;

// ----------------------------------------------------------------------------- kernels

/// Ours in registers: pairs_per_thread SplitMix64 words per thread, two draws each.
template <g::form F>
__global__ void __launch_bounds__(block_threads)
    ours_register_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed, const g::table tab) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const g::entropy_source source(seed, t);
  double acc0 = 0.0, acc1 = 0.0;
#pragma unroll 2
  for (std::uint64_t q = 0; q < pairs_per_thread; ++q) {  // same count in every lane: converged
    const std::uint64_t word = source.pair(q);
    acc0 += g::warp_gaussian<F>(static_cast<std::uint32_t>(word), smem, tab.coeff);
    acc1 += g::warp_gaussian<F>(static_cast<std::uint32_t>(word >> 32), smem, tab.coeff);
  }
  sink[t] = acc0 + acc1;
}

/// Ours in registers through the per-thread API: PairCalls, next_pair() (the use the
/// API's docstring shows); else two next() calls per pair.
template <g::form F, bool PairCalls>
__global__ void __launch_bounds__(block_threads)
    ours_generator_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed, const g::table tab) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  g::warp_normal_generator<F> gen(smem, tab.coeff, seed, t);
  double acc0 = 0.0, acc1 = 0.0;
#pragma unroll 2
  for (std::uint64_t q = 0; q < pairs_per_thread; ++q) {
    if constexpr (PairCalls) {
      const double2 z = gen.next_pair();
      acc0 += z.x;
      acc1 += z.y;
    } else {
      acc0 += gen.next();
      acc1 += gen.next();
    }
  }
  sink[t] = acc0 + acc1;
}

/// Store-only reference for the to-memory rows: out[i] = base + i for i < n (T double or
/// float), 16-byte stores, grid-stride over the resident blocks — the write bandwidth a
/// generator that writes n values of T can at most reach.
template <class T>
__global__ void __launch_bounds__(block_threads) store_only_kernel(T* out, std::uint64_t n, T base) {
  constexpr unsigned per = 16 / sizeof(T);  // values per 16-byte store
  using vec = std::conditional_t<sizeof(T) == 8, double2, float4>;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  auto* out_v = reinterpret_cast<vec*>(out);
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n / per; i += stride) {
    const T x = base + static_cast<T>(per * i);
    if constexpr (per == 2) {
      out_v[i] = make_double2(x, x + 1);
    } else {
      out_v[i] = make_float4(x, x + 1, x + 2, x + 3);
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < n % per) out[n - n % per + threadIdx.x] = base + static_cast<T>(n - n % per + threadIdx.x);
}

/// cuRAND device API, Philox4_32_10, float: one curand_init per thread, then
/// pairs_per_thread / 2 calls of curand_normal4 (four outputs each; one curand_normal2
/// for an odd count), so 2 x pairs_per_thread outputs per thread as the other rows.
__global__ void __launch_bounds__(block_threads)
    curand_register_f32_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, t, 0, &state);
  float acc0 = 0.0f, acc1 = 0.0f;
#pragma unroll 2
  for (std::uint64_t q = 0; q + 1 < pairs_per_thread; q += 2) {
    const float4 v = curand_normal4(&state);
    acc0 += v.x + v.y;
    acc1 += v.z + v.w;
  }
  if (pairs_per_thread & 1u) {
    const float2 v = curand_normal2(&state);
    acc0 += v.x + v.y;
  }
  sink[t] = static_cast<double>(acc0) + static_cast<double>(acc1);
}

/// Ours in registers, float draws through the per-thread API (next_pair_float).
template <g::form F>
__global__ void __launch_bounds__(block_threads)
    ours_generator_f32_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed, const g::table tab) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  g::warp_normal_generator<F> gen(smem, tab.coeff, seed, t);
  float acc0 = 0.0f, acc1 = 0.0f;
#pragma unroll 2
  for (std::uint64_t q = 0; q < pairs_per_thread; ++q) {
    const float2 z = gen.next_pair_float();
    acc0 += z.x;
    acc1 += z.y;
  }
  sink[t] = static_cast<double>(acc0) + static_cast<double>(acc1);
}

/// The float-native generator in registers through its per-thread API
/// (float_normal_generator, warp_gaussian_float.cuh): pairs_per_thread / 2 calls of
/// next4() (four floats each, one Philox4x32-7 block; one next_pair() for an odd count), so
/// 2 x pairs_per_thread outputs per thread as the other rows; signed table (32 KiB) filled
/// once per block.
__global__ void __launch_bounds__(block_threads)
    ours_float_native_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed, const g::float_table tab) {
  __shared__ alignas(16) float smem[g::float_smem_entries];
  g::load_float_table_to_shared(smem, tab.entries);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  g::float_normal_generator gen(smem, tab.coeff, seed, t);
  float acc0 = 0.0f, acc1 = 0.0f;
#pragma unroll 2
  for (std::uint64_t q = 0; q + 1 < pairs_per_thread; q += 2) {  // same count in every lane: converged
    const float4 v = gen.next4();
    acc0 += v.x + v.y;
    acc1 += v.z + v.w;
  }
  if (pairs_per_thread & 1u) {
    const float2 v = gen.next_pair();
    acc0 += v.x + v.y;
  }
  sink[t] = static_cast<double>(acc0) + static_cast<double>(acc1);
}

/// Ours in registers fed by Philox4_32_10 instead of SplitMix64 (like for like with
/// cuRAND's rows): curand_init per thread as cuRAND's kernel does, then one curand4 per four
/// draws (each 32-bit word one draw's entropy).
template <g::form F>
__global__ void __launch_bounds__(block_threads)
    ours_register_philox_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed, const g::table tab) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, t, 0, &state);
  double acc0 = 0.0, acc1 = 0.0;
  for (std::uint64_t q = 0; q < pairs_per_thread; q += 2) {  // same count in every lane: converged
    const uint4 w = curand4(&state);
    acc0 += g::warp_gaussian<F>(w.x, smem, tab.coeff);
    acc1 += g::warp_gaussian<F>(w.y, smem, tab.coeff);
    if (q + 1 < pairs_per_thread) {
      acc0 += g::warp_gaussian<F>(w.z, smem, tab.coeff);
      acc1 += g::warp_gaussian<F>(w.w, smem, tab.coeff);
    }
  }
  sink[t] = acc0 + acc1;
}

/// Ours to memory fed by Philox4_32_10: generate_normal's kernel (same grid of 16 blocks per
/// SM, warps over rounds of 32 outputs, two rounds per pair) with each lane's entropy words from
/// cuRAND's curand4 (curand_init per thread) instead of SplitMix64.
template <g::form F, class T>
__global__ void __launch_bounds__(block_threads)
    ours_memory_philox_kernel(T* out, std::uint64_t n, std::uint64_t seed, const g::table tab) {
  __shared__ alignas(16) std::int32_t smem[g::table_entries];
  g::load_table_to_shared(smem, tab.entries);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t warp = t >> 5, warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, t, 0, &state);
  // The loop of generate_normal_kernel (generate.cuh): full pairs without bounds checks,
  // a strided output pointer; then the partial last pair by the warp whose turn it is.
  uint4 words{};
  bool fresh = false;  // words.z, words.w not used yet
  auto next_entropy = [&](std::uint32_t (&e)[2]) {
    if (!fresh) {
      words = curand4(&state);
      e[0] = words.x;
      e[1] = words.y;
    } else {
      e[0] = words.z;
      e[1] = words.w;
    }
    fresh = !fresh;
  };
  const std::uint64_t full_pairs = n / 64;
  T* p = out + warp * 64 + lane;
  std::uint64_t q = warp;
#pragma unroll 4
  for (; q < full_pairs; q += warps, p += warps * 64) {  // warp-uniform loop
    std::uint32_t e[2];
    next_entropy(e);
    p[0] = static_cast<T>(g::warp_gaussian<F>(e[0], smem, tab.coeff));
    p[32] = static_cast<T>(g::warp_gaussian<F>(e[1], smem, tab.coeff));
  }
  if (q == full_pairs && n % 64 != 0) {  // warp-uniform
    std::uint32_t e[2];
    next_entropy(e);
    const std::uint64_t i = full_pairs * 64 + lane;
    const double x0 = g::warp_gaussian<F>(e[0], smem, tab.coeff);
    if (i < n) out[i] = static_cast<T>(x0);
    if (n % 64 > 32) {
      const double x1 = g::warp_gaussian<F>(e[1], smem, tab.coeff);
      if (i + 32 < n) out[i + 32] = static_cast<T>(x1);
    }
  }
}

/// cuRAND device API, Philox4_32_10: one curand_init per thread, then pairs_per_thread
/// calls of curand_normal2_double.
__global__ void __launch_bounds__(block_threads)
    curand_register_kernel(double* sink, std::uint64_t pairs_per_thread, std::uint64_t seed) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, t, 0, &state);
  double acc0 = 0.0, acc1 = 0.0;
#pragma unroll 2
  for (std::uint64_t q = 0; q < pairs_per_thread; ++q) {
    const double2 v = curand_normal2_double(&state);
    acc0 += v.x;
    acc1 += v.y;
  }
  sink[t] = acc0 + acc1;
}

// ----------------------------------------------------------------------------- helpers

template <class Kernel>
unsigned resident_blocks(Kernel kernel) {
  int device = 0, sms = 0, per_sm = 0;
  ONEPASS_EXPERIMENT_CUDA(cudaGetDevice(&device));
  ONEPASS_EXPERIMENT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ONEPASS_EXPERIMENT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  return static_cast<unsigned>(std::max(1, per_sm) * sms);
}

std::string z_text(long double sum, double outputs, bool& ok) {
  const double z = static_cast<double>(sum / std::sqrt(static_cast<long double>(outputs)));
  ok = std::isfinite(z) && std::fabs(z) < 6.0;
  std::ostringstream s;
  s.precision(3);
  s << "sum z=" << z << (ok ? " ok" : " FAILED");
  return s.str();
}

struct row_data {
  std::string algorithm, label, mode, form;
  double outputs = 0;
  std::uint64_t threads = 0;
  gpu::timing time;
  std::string check;
  std::string dtype = "f64";  // the outputs' type: f64 (double) or f32 (float)
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Warp Gaussian generator vs cuRAND: N(0,1) doubles per second, in registers and to memory"};
  ex::run r(experiment, app);
  int register_log2 = 0, memory_log2 = 0;
  app.add_option("--register-log2", register_log2, "outputs per in-register run = 2^L, L in [16, 40] (default 24/34/36)")
      ->check(CLI::Range(16, 40));
  app.add_option("--memory-log2", memory_log2, "outputs per to-memory run = 2^M, M in [10, 31] (default 20/28/28)")
      ->check(CLI::Range(10, 31));
  const auto started = gpu::parse_and_start_timed_run(r, app, argc, argv, experiment, {5, 7, 11});
  if (!started) return 3;
  const gpu::timing_options options = *started;
  const unsigned reg_log2 = register_log2 ? static_cast<unsigned>(register_log2) : r.pick(24u, 34u, 36u);
  const unsigned mem_log2 = memory_log2 ? static_cast<unsigned>(memory_log2) : r.pick(20u, 28u, 28u);

  const g::table& tab = g::default_table();
  gpu::stream stream;
  gpu::timer timer(stream.get(), options);
  std::vector<row_data> rows;
  std::vector<std::string> failed;

  // dtype: the type of the outputs (f64: double, f32: float).
  r.open_csv({"algorithm", "label", "mode", "form", "outputs", "threads", "reps", "seconds_median", "seconds_min",
              "seconds_max", "outputs_per_second", "check", "dtype"});
  auto emit = [&](row_data d) {
    const double rate = d.outputs / d.time.median;
    r.row(d.algorithm, d.label, d.mode, d.form, static_cast<std::uint64_t>(d.outputs), d.threads, d.time.reps(),
          d.time.median, d.time.min, d.time.max, rate, d.check, d.dtype);
    std::ostringstream line;
    line.precision(4);
    line << d.algorithm << " (" << d.mode << "): " << rate / 1e9 << " G outputs/s (median " << d.time.median * 1e3
         << " ms over " << d.time.reps() << " runs; " << d.check << ")";
    ex::progress(experiment, line.str());
    rows.push_back(std::move(d));
  };

  // ------------------------------------------------------------------- in registers
  const double reg_outputs_wanted = std::ldexp(1.0, static_cast<int>(reg_log2));
  auto in_register = [&](const std::string& name, const std::string& label, const std::string& form_text,
                         auto kernel, auto launch, const char* dtype = "f64") {
    try {
      const unsigned blocks = resident_blocks(kernel);
      const std::uint64_t threads = static_cast<std::uint64_t>(blocks) * block_threads;
      const std::uint64_t pairs = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(reg_outputs_wanted / (2.0 * static_cast<double>(threads))));
      const double outputs = 2.0 * static_cast<double>(pairs) * static_cast<double>(threads);
      gpu::device_buffer sink(threads * sizeof(double));
      row_data d{name, label, "in_register", form_text, outputs, threads, {}, {}, dtype};
      d.time = timer.measure([&](int k) {
        launch(blocks, sink.as<double>(), pairs, r.seed() + static_cast<std::uint64_t>(k));
        ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      });
      // Check (untimed): the run with seed + warmup + reps - 1 is in the sink.
      std::vector<double> host(threads);
      ONEPASS_EXPERIMENT_CUDA(cudaMemcpy(host.data(), sink.get(), threads * sizeof(double), cudaMemcpyDeviceToHost));
      long double sum = 0;
      for (double v : host) sum += v;
      bool ok = false;
      d.check = z_text(sum, outputs, ok) + " blocks=" + std::to_string(blocks);
      if (!ok) failed.push_back(name + ": " + d.check);
      emit(std::move(d));
      return true;
    } catch (const std::exception& e) {
      failed.push_back(name + ": " + e.what());
      ex::progress(experiment, "FAILED " + failed.back());
      cudaGetLastError();
      return false;
    }
  };
  cudaStream_t s = stream.get();
  in_register("ours_register_3", "ours 3 coefficients (in registers)", "3", ours_register_kernel<g::form::three>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_register_kernel<g::form::three><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("ours_register_4", "ours 4 coefficients (in registers)", "4", ours_register_kernel<g::form::four>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_register_kernel<g::form::four><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("ours_generator_3", "ours 3 coefficients warp_normal_generator API, next_pair (in registers)", "3",
              ours_generator_kernel<g::form::three, true>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_generator_kernel<g::form::three, true><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("ours_generator_4", "ours 4 coefficients warp_normal_generator API, next_pair (in registers)", "4",
              ours_generator_kernel<g::form::four, true>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_generator_kernel<g::form::four, true><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("ours_generator_next_4", "ours 4 coefficients warp_normal_generator API, next (in registers)", "4",
              ours_generator_kernel<g::form::four, false>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_generator_kernel<g::form::four, false><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("ours_register_philox_3", "ours 3 coefficients fed by Philox4_32_10, curand4 (in registers)", "3",
              ours_register_philox_kernel<g::form::three>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_register_philox_kernel<g::form::three><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("ours_register_philox_4", "ours 4 coefficients fed by Philox4_32_10, curand4 (in registers)", "4",
              ours_register_philox_kernel<g::form::four>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_register_philox_kernel<g::form::four><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              });
  in_register("curand_normal2_double", "cuRAND device API Philox4_32_10 curand_normal2_double (in registers)", "",
              curand_register_kernel, [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                curand_register_kernel<<<b, block_threads, 0, s>>>(sink, p, seed);
              });
  in_register("ours_generator_f32_3", "ours 3 coefficients warp_normal_generator API, next_pair_float (in registers)",
              "3", ours_generator_f32_kernel<g::form::three>,
              [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_generator_f32_kernel<g::form::three><<<b, block_threads, 0, s>>>(sink, p, seed, tab);
              }, "f32");
  const g::float_table& ftab = g::default_float_table();
  in_register("ours_float_native_generator",
              "ours float-native float_normal_generator API, next4 (in registers)", "float_native",
              ours_float_native_kernel, [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                ours_float_native_kernel<<<b, block_threads, 0, s>>>(sink, p, seed, ftab);
              }, "f32");
  in_register("curand_normal4", "cuRAND device API Philox4_32_10 curand_normal4, float (in registers)", "",
              curand_register_f32_kernel, [&](unsigned b, double* sink, std::uint64_t p, std::uint64_t seed) {
                curand_register_f32_kernel<<<b, block_threads, 0, s>>>(sink, p, seed);
              }, "f32");
  // The cost of curand_init alone (0 draws), for the record.
  try {
    const unsigned blocks = resident_blocks(curand_register_kernel);
    gpu::device_buffer sink(static_cast<std::size_t>(blocks) * block_threads * sizeof(double));
    const gpu::timing init = timer.measure([&](int k) {
      curand_register_kernel<<<blocks, block_threads, 0, s>>>(sink.as<double>(), 0, r.seed() + k);
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
    });
    std::ostringstream t;
    t.precision(4);
    t << init.median << " s per launch of " << blocks << " x " << block_threads
      << " threads, curand_init only (median); included in curand_normal2_double's in-register time";
    r.note("curand_init_seconds", t.str());
  } catch (const std::exception& e) {
    r.note("curand_init_seconds", std::string("not measured: ") + e.what());
    cudaGetLastError();
  }

  // ------------------------------------------------------------------- to memory
  const std::uint64_t n = std::uint64_t{1} << mem_log2;
  constexpr std::uint64_t check_n = 1u << 16;
  // The rows of one output type T (double: names as before; float: suffix _f32, dtype f32).
  auto to_memory = [&](auto type_tag) {
    using T = decltype(type_tag);
    constexpr bool is_f32 = std::is_same_v<T, float>;
    const std::string suffix = is_f32 ? "_f32" : "";
    const std::string type_word = is_f32 ? "floats" : "doubles";
    const char* dtype = is_f32 ? "f32" : "f64";
    gpu::device_buffer out(n * sizeof(T));
    const reg::gaussian_dtype rdtype = is_f32 ? reg::gaussian_dtype::f32 : reg::gaussian_dtype::f64;
    // The moments of the first m outputs, within 6 standard errors of N(0, 1)'s.
    auto moments = [&](const std::vector<T>& got, bool& ok) {
      const std::uint64_t m = got.size();
      long double s1 = 0, s2 = 0;
      for (T v : got) {
        s1 += v;
        s2 += static_cast<long double>(v) * v;
      }
      const double mean = static_cast<double>(s1 / m), var = static_cast<double>(s2 / m) - mean * mean;
      ok = std::fabs(mean) < 6.0 / std::sqrt(double(m)) && std::fabs(var - 1.0) < 6.0 * std::sqrt(2.0 / m);
      std::ostringstream c;
      c.precision(4);
      c << "first " << m << ": mean=" << mean << " var=" << var << (ok ? " ok" : " FAILED");
      return c.str();
    };
    // One registry entry: timed with seed + k, then run untimed with the seed and checked
    // (library_definition: bit for bit against cpu::generate_normal; otherwise the moments).
    auto registry_row = [&](const reg::gaussian_entry& e) {
      const std::string name = e.name + suffix;
      try {
        onepass::require(n % e.n_multiple == 0, experiment, "--memory-log2",
                         "gives n = " + std::to_string(n) + ", not a multiple of " + std::to_string(e.n_multiple) +
                             " as " + e.name + " needs");
        row_data d{name, e.label + ", " + type_word + " (to memory)", "to_memory",
                   e.coefficients ? std::to_string(e.coefficients) : std::string(), static_cast<double>(n), 0, {}, {},
                   dtype};
        auto run_entry = [&](std::uint64_t seed, bool continue_stream) {
          e.gpu_run(out.get(), n, rdtype, reg::gaussian_params{seed, continue_stream}, s);
        };
        // Setup, untimed (cuRAND's generator is created and seeded on first use); the timed
        // runs then take each entry's fastest use: ours a fresh seed per run (stateless),
        // cuRAND's host API its stream continued, not re-seeded (gaussian_params).
        run_entry(r.seed(), false);
        stream.synchronize();
        d.time = timer.measure([&](int k) { run_entry(r.seed() + static_cast<std::uint64_t>(k), true); });
        run_entry(r.seed(), false);
        stream.synchronize();
        const std::uint64_t m = std::min(n, check_n);
        std::vector<T> got(m);
        ONEPASS_EXPERIMENT_CUDA(cudaMemcpy(got.data(), out.get(), m * sizeof(T), cudaMemcpyDeviceToHost));
        bool ok = false;
        if constexpr (is_f32) {
          if (e.float_native) {
            std::vector<float> want(m);
            g::cpu::generate_normal(want.data(), m, 0.0, 1.0, r.seed(), g::method::float_native);
            ok = std::memcmp(got.data(), want.data(), m * sizeof(float)) == 0;
            d.check = (ok ? "bit-exact vs cpu::generate_normal float_native on " : "DIFFERS from cpu::generate_normal "
                                                                                  "float_native on ") +
                      std::to_string(m) + " outputs";
          }
        }
        if (e.float_native) {
          // checked above (floats only)
        } else if (e.library_definition) {
          std::vector<T> want(m);
          g::cpu::generate_normal(want.data(), m, 0.0, 1.0, r.seed(), tab,
                                 e.coefficients == 3 ? g::form::three : g::form::four);
          ok = std::memcmp(got.data(), want.data(), m * sizeof(T)) == 0;
          d.check = (ok ? "bit-exact vs cpu::generate_normal on " : "DIFFERS from cpu::generate_normal on ") +
                    std::to_string(m) + " outputs";
        } else {
          d.check = moments(got, ok);
        }
        if (!ok) failed.push_back(name + ": " + d.check);
        emit(std::move(d));
      } catch (const std::exception& err) {
        cudaGetLastError();
        // A cuRAND ordering this cuRAND does not accept for the generator type is a
        // configuration a user cannot choose: recorded as skipped, not as a failure.
        if (std::string(err.what()).find("curandSetGeneratorOrdering") != std::string::npos) {
          r.note("skipped_" + name, err.what());
          ex::progress(experiment, "SKIPPED " + name + ": " + err.what());
          return;
        }
        failed.push_back(name + ": " + err.what());
        ex::progress(experiment, "FAILED " + failed.back());
      }
    };
    std::vector<reg::gaussian_entry> entries;  // the GPU entries that write T
    for (const auto& e : reg::gaussian_generators())
      if (e.where == reg::device::gpu && reg::supports(e, rdtype)) entries.push_back(e);
    for (const auto& e : entries)
      if (e.library_definition || e.float_native) registry_row(e);
    try {
      const unsigned blocks = resident_blocks(store_only_kernel<T>);
      row_data d{"store_only" + suffix, "store-only kernel writing the same " + type_word + " (to memory)",
                 "to_memory", "", static_cast<double>(n), 0, {}, {}, dtype};
      d.time = timer.measure([&](int k) {
        store_only_kernel<T><<<blocks, block_threads, 0, s>>>(out.as<T>(), n, static_cast<T>(k));
      });
      store_only_kernel<T><<<blocks, block_threads, 0, s>>>(out.as<T>(), n, T(0));
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      stream.synchronize();
      const std::uint64_t m = std::min(n, check_n);
      std::vector<T> got(m);
      ONEPASS_EXPERIMENT_CUDA(cudaMemcpy(got.data(), out.get(), m * sizeof(T), cudaMemcpyDeviceToHost));
      bool ok = true;
      for (std::uint64_t i = 0; i < m; ++i) ok = ok && got[i] == static_cast<T>(i);
      d.check = (ok ? "out[i] = i on the first " : "WRONG values in the first ") + std::to_string(m);
      if (!ok) failed.push_back(d.algorithm + ": " + d.check);
      emit(std::move(d));
    } catch (const std::exception& e) {
      failed.push_back("store_only" + suffix + ": " + e.what());
      ex::progress(experiment, "FAILED " + failed.back());
      cudaGetLastError();
    }
    try {  // ours fed by Philox4_32_10, 3 coefficients
      const std::uint64_t rounds = (n + 31) / 32, pairs = (rounds + 1) / 2;
      const std::uint64_t wanted = (pairs + block_threads / 32 - 1) / (block_threads / 32);
      const unsigned blocks =
          static_cast<unsigned>(std::min<std::uint64_t>(wanted, static_cast<std::uint64_t>(onepass::device::multiprocessors()) * 16));
      row_data d{"ours_memory_philox_3" + suffix,
                 "ours 3 coefficients fed by Philox4_32_10, curand4, generate_normal's kernel, " + type_word +
                     " (to memory)",
                 "to_memory", "3", static_cast<double>(n), 0, {}, {}, dtype};
      d.time = timer.measure([&](int k) {
        ours_memory_philox_kernel<g::form::three, T>
            <<<blocks, block_threads, 0, s>>>(out.as<T>(), n, r.seed() + static_cast<std::uint64_t>(k), tab);
      });
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      stream.synchronize();
      std::vector<T> got(std::min(n, check_n));
      ONEPASS_EXPERIMENT_CUDA(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
      bool ok = false;
      d.check = moments(got, ok);
      if (!ok) failed.push_back(d.algorithm + ": " + d.check);
      emit(std::move(d));
    } catch (const std::exception& e) {
      failed.push_back("ours_memory_philox_3" + suffix + ": " + e.what());
      ex::progress(experiment, "FAILED " + failed.back());
      cudaGetLastError();
    }
    for (const auto& e : entries)
      if (!e.library_definition && !e.float_native) registry_row(e);
  };
  for (int pass = 0; pass < 2; ++pass) {
    try {
      if (pass == 0) {
        to_memory(double{});
      } else {
        to_memory(float{});
      }
    } catch (const gpu::out_of_memory& e) {
      ex::progress(experiment, std::string("SKIPPED to-memory runs: cannot allocate the output: ") + e.what());
      r.note("skipped", std::string("to-memory runs: ") + e.what());
    }
  }

  // ------------------------------------------------------------------- the bar
  auto rate_of = [&](const std::string& name) {
    for (const auto& d : rows)
      if (d.algorithm == name) return d.outputs / d.time.median;
    return 0.0;
  };
  const double peer = rate_of("curand_normal2_double");
  std::ostringstream bar;
  bar.precision(4);
  for (const char* ours : {"ours_register_3", "ours_register_4", "ours_register_philox_3", "ours_register_philox_4",
                           "ours_generator_3", "ours_generator_4", "ours_generator_next_4"}) {
    const double mine = rate_of(ours);
    if (peer > 0 && mine > 0)
      bar << ours << " / curand_normal2_double = " << mine / peer << (mine / peer >= 1.3 ? " (meets" : " (misses")
          << " the 1.3 bar); ";
  }
  r.note("ratio_vs_curand_normal2_double", bar.str());
  ex::progress(experiment, bar.str());
  // The float-native generator's bars (issue 30): in registers >= 1.2 x curand_normal4; to
  // memory >= 1.3 x cuRAND's fastest host-API float row and >= 0.9 x float store-only.
  {
    std::ostringstream fbar;
    fbar.precision(4);
    const double mine = rate_of("ours_float_native_generator"), n4 = rate_of("curand_normal4");
    if (mine > 0 && n4 > 0)
      fbar << "ours_float_native_generator / curand_normal4 = " << mine / n4
           << (mine / n4 >= 1.2 ? " (meets" : " (misses") << " the 1.2 bar); ";
    const double mem = rate_of("ours_memory_float_native_f32"), store = rate_of("store_only_f32");
    double best = 0;
    std::string best_name;
    for (const auto& d : rows)
      if (d.dtype == "f32" && d.mode == "to_memory" && d.algorithm.rfind("curand_host", 0) == 0 &&
          d.outputs / d.time.median > best) {
        best = d.outputs / d.time.median;
        best_name = d.algorithm;
      }
    if (mem > 0 && best > 0)
      fbar << "ours_memory_float_native_f32 / " << best_name << " (cuRAND's fastest float row) = " << mem / best
           << (mem / best >= 1.3 ? " (meets" : " (misses") << " the 1.3 bar); ";
    if (mem > 0 && store > 0)
      fbar << "ours_memory_float_native_f32 / store_only_f32 = " << mem / store
           << (mem / store >= 0.9 ? " (meets" : " (misses") << " the 0.9 bar); ";
    r.note("ratio_float_native", fbar.str());
    ex::progress(experiment, fbar.str());
  }
  r.note("table", "onepass::gaussian::default_table()");
  r.note("register_outputs_log2", std::to_string(reg_log2));
  r.note("memory_outputs_log2", std::to_string(mem_log2));
  r.note("block_threads", std::to_string(block_threads));
  r.note("consumption", "in registers: two double accumulators per thread, their sum stored once per thread");
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
