// Registers the library's own GPU bijective shuffles (uint64 elements):
// VariablePhilox at the three fusion levels of the paper's §6, LCG (bijective2), and the
// gather through the walking permutation (cycle walking over VariablePhilox).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/gpu_walking.cuh"
#include "onepass/shuffle/walking_permutation.hpp"

namespace {
using onepass::bijection::lcg;
using onepass::bijection::variable_philox;
using onepass::registry::registrar;
using onepass::registry::shuffle_entry;
using onepass::registry::shuffle_params;
namespace gpu = onepass::shuffle::gpu;

// The VariablePhilox shuffle for p.seed and p.rounds at one fusion level.
template <gpu::fusion Variant>
void variable_philox_gpu(void* temp, std::size_t& temp_bytes, const std::uint64_t* in, std::uint64_t* out,
                         std::size_t n, const shuffle_params& p, void* stream) {
  gpu::bijective_shuffle(temp, temp_bytes, in, out, n, variable_philox::for_length(n, p.seed, p.rounds), Variant,
                         static_cast<cudaStream_t>(stream));
}

constexpr onepass::registry::device gpu_device = onepass::registry::device::gpu;

/// A GPU entry that permutes and is deterministic; the caller sets uses_rounds and uniform.
shuffle_entry gpu_entry(const char* name, const char* label, const char* description,
                        onepass::registry::gpu_shuffle_fn run) {
  shuffle_entry e{name, gpu_device};
  e.label = label;
  e.description = description;
  e.gpu_run = std::move(run);
  e.permutes = true;
  e.deterministic = true;
  return e;
}

/// A GPU entry over the VariablePhilox bijection (params.rounds used), uniform.
shuffle_entry variable_philox_entry(const char* name, const char* label, const char* description,
                                    onepass::registry::gpu_shuffle_fn run) {
  shuffle_entry e = gpu_entry(name, label, description, std::move(run));
  e.uses_rounds = true;
  e.uniform = true;
  return e;
}

const registrar variable_philox_bijective2{variable_philox_entry(
    "variable_philox", "VarPhilox",
    "bijective shuffle, VariablePhilox (paper §3.2), single pass over the decoupled look-back scan (Bijective2)",
    variable_philox_gpu<gpu::fusion::bijective2>)};

const registrar variable_philox_bijective0{variable_philox_entry(
    "variable_philox_bijective0", "Bijective0",
    "bijective shuffle, VariablePhilox, separate passes: evaluate, cub::DeviceSelect::If, gather (paper §6)",
    variable_philox_gpu<gpu::fusion::bijective0>)};

const registrar variable_philox_bijective1{variable_philox_entry(
    "variable_philox_bijective1", "Bijective1",
    "bijective shuffle, VariablePhilox, fused two-pass reduce-then-scan (paper §6)",
    variable_philox_gpu<gpu::fusion::bijective1>)};

shuffle_entry lcg_entry() {
  shuffle_entry e = gpu_entry(
      "lcg", "LCG",
      "bijective shuffle, LCG bijection (paper §3.1), single pass over the decoupled look-back scan (Bijective2)",
      [](void* temp, std::size_t& temp_bytes, const std::uint64_t* in, std::uint64_t* out, std::size_t n,
         const shuffle_params& p, void* stream) {
        gpu::bijective_shuffle(temp, temp_bytes, in, out, n, lcg::for_length(n, p.seed), gpu::fusion::bijective2,
                               static_cast<cudaStream_t>(stream));
      });
  e.uses_rounds = false;
  e.uniform = false;
  return e;
}
const registrar lcg_bijective2{lcg_entry()};

// d_out[j] = d_in[sigma(j)], sigma = walking_permutation::for_length(n, seed, rounds): one
// pass, no scan, a gather through sigma (default structure: the per-warp queue). The same
// permutation as the CPU entry "walking" for the same seed and rounds.
const registrar walking_gpu{variable_philox_entry(
    "walking", "Walking",
    "walking permutation: cycle walking (Black & Rogaway, CT-RSA 2002) over VariablePhilox, a gather "
    "d_out[j] = d_in[sigma(j)] (no scan; warp-queue walks)",
    [](void* temp, std::size_t& temp_bytes, const std::uint64_t* in, std::uint64_t* out, std::size_t n,
       const shuffle_params& p, void* stream) {
      gpu::walking_shuffle(temp, temp_bytes, in, out, n,
                           onepass::shuffle::walking_permutation::for_length(n, p.seed, p.rounds),
                           static_cast<cudaStream_t>(stream));
    })};
}  // namespace
