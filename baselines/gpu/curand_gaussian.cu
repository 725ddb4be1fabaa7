// cuRAND's host API as a Gaussian-generator baseline (article "Training a random Gaussian
// generator", section "Tail tests and measuring the speed of the generator": the speed
// comparison, here against cuRAND, the GPU generator users call today): curand_host_philox, a generator of
// type CURAND_RNG_PSEUDO_PHILOX4_32_10 (default ordering) filling the buffer with
// curandGenerateNormalDouble (f64) or curandGenerateNormal (f32), mean 0, stddev 1.
//
// The generator is created once per device, on the first call made with that device
// current, and kept for the life of the process (never destroyed: a static destructor
// could run after the CUDA runtime is torn down), so creating it is never part of a timed
// call after the first. Every call sets the stream, the seed and offset 0, so the output
// is a function of (n, dtype, seed) alone, as the family requires.
// Also registered: curand_host_philox_dynamic, curand_host_mrg32k3a and
// curand_host_mrg32k3a_seeded (the same calls with another generator type or ordering).
#include <cuda_runtime.h>
#include <curand.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {
namespace reg = onepass::registry;

void curand_ok(curandStatus_t status, const char* name, const char* call) {
  if (status != CURAND_STATUS_SUCCESS)
    throw onepass::runtime_failure(std::string(name) + ": " + call + " failed with curandStatus_t " +
                                   std::to_string(static_cast<int>(status)));
}

/// The generator of (type, ordering) on the current device, created on first use.
curandGenerator_t host_generator(curandRngType_t type, curandOrdering_t ordering, bool set_ordering,
                                 const char* name) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, int>, curandGenerator_t> generators;  // never destroyed (see above)
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(device, static_cast<int>(type), set_ordering ? static_cast<int>(ordering) : -1);
  auto it = generators.find(key);
  if (it == generators.end()) {
    curandGenerator_t gen = nullptr;
    curand_ok(curandCreateGenerator(&gen, type), name, "curandCreateGenerator");
    if (set_ordering) curand_ok(curandSetGeneratorOrdering(gen, ordering), name, "curandSetGeneratorOrdering");
    it = generators.emplace(key, gen).first;
  }
  return it->second;
}

void curand_host(const char* name, curandRngType_t type, curandOrdering_t ordering, bool set_ordering, void* d_out,
                 std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p, void* stream) {
  const std::string fn = std::string("registry entry ") + name;
  if (n > 0) onepass::protocol::check_not_null(fn.c_str(), "d_out", d_out, "when n > 0");
  onepass::require(n % 2 == 0, fn.c_str(), "n", "must be even (cuRAND draws normals in pairs), got " + std::to_string(n));
  if (n == 0) return;
  const curandGenerator_t gen = host_generator(type, ordering, set_ordering, name);
  curand_ok(curandSetStream(gen, static_cast<cudaStream_t>(stream)), name, "curandSetStream");
  if (!p.continue_stream) {  // restart the stream at the seed (otherwise continue it: see gaussian_params)
    curand_ok(curandSetPseudoRandomGeneratorSeed(gen, p.seed), name, "curandSetPseudoRandomGeneratorSeed");
    curand_ok(curandSetGeneratorOffset(gen, 0), name, "curandSetGeneratorOffset");
  }
  if (dtype == reg::gaussian_dtype::f64) {
    curand_ok(curandGenerateNormalDouble(gen, static_cast<double*>(d_out), n, 0.0, 1.0), name,
              "curandGenerateNormalDouble");
  } else {
    curand_ok(curandGenerateNormal(gen, static_cast<float*>(d_out), n, 0.0f, 1.0f), name, "curandGenerateNormal");
  }
}

void curand_host_philox(void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p,
                        void* stream) {
  curand_host("curand_host_philox", CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_ORDERING_PSEUDO_DEFAULT, false, d_out, n,
              dtype, p, stream);
}

/// A cuRAND host-API generator as a registry entry: both dtypes (curandGenerateNormalDouble /
/// curandGenerateNormal), not the library's definition, no warp coefficients, even output
/// counts (curandGenerateNormal draws pairs). The fields every host-API configuration shares.
reg::gaussian_entry host_api_entry(const char* name, const char* label, const char* description, const char* entropy,
                                   reg::gpu_gaussian_fn run) {
  reg::gaussian_entry e{name, reg::device::gpu};
  e.label = label;
  e.description = description;
  e.entropy = entropy;
  e.dtypes = {reg::gaussian_dtype::f64, reg::gaussian_dtype::f32};
  e.gpu_run = std::move(run);
  e.coefficients = 0;
  e.library_definition = false;
  e.n_multiple = 2;
  return e;
}

const reg::gaussian_registrar curand_host_philox_entry{host_api_entry(
    "curand_host_philox", "cuRAND host API Philox4_32_10 curandGenerateNormal(Double)",
    "curandGenerateNormalDouble / curandGenerateNormal, CURAND_RNG_PSEUDO_PHILOX4_32_10, generator created once per "
    "device",
    "Philox4_32_10", curand_host_philox)};

// The other configurations a user can choose, so that the float comparison is against
// cuRAND's fastest (issue 30): Philox with CURAND_ORDERING_PSEUDO_DYNAMIC (cuRAND may pick
// the ordering fastest on the GPU), MRG32k3a with the default ordering, and MRG32k3a
// with CURAND_ORDERING_PSEUDO_SEEDED. An ordering a generator does not support makes its
// first call throw onepass::runtime_failure naming curandSetGeneratorOrdering.
void curand_host_philox_dynamic(void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p,
                                void* stream) {
  curand_host("curand_host_philox_dynamic", CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_ORDERING_PSEUDO_DYNAMIC, true,
              d_out, n, dtype, p, stream);
}
void curand_host_mrg32k3a(void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p,
                          void* stream) {
  curand_host("curand_host_mrg32k3a", CURAND_RNG_PSEUDO_MRG32K3A, CURAND_ORDERING_PSEUDO_DEFAULT, false, d_out, n,
              dtype, p, stream);
}
void curand_host_mrg32k3a_seeded(void* d_out, std::size_t n, reg::gaussian_dtype dtype,
                                 const reg::gaussian_params& p, void* stream) {
  curand_host("curand_host_mrg32k3a_seeded", CURAND_RNG_PSEUDO_MRG32K3A, CURAND_ORDERING_PSEUDO_SEEDED, true, d_out,
              n, dtype, p, stream);
}

const reg::gaussian_registrar curand_host_philox_dynamic_entry{host_api_entry(
    "curand_host_philox_dynamic", "cuRAND host API Philox4_32_10 ordering DYNAMIC curandGenerateNormal(Double)",
    "curandGenerateNormal(Double), CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_ORDERING_PSEUDO_DYNAMIC",
    "Philox4_32_10", curand_host_philox_dynamic)};
const reg::gaussian_registrar curand_host_mrg32k3a_entry{host_api_entry(
    "curand_host_mrg32k3a", "cuRAND host API MRG32k3a curandGenerateNormal(Double)",
    "curandGenerateNormal(Double), CURAND_RNG_PSEUDO_MRG32K3A, default ordering",
    "MRG32k3a", curand_host_mrg32k3a)};
const reg::gaussian_registrar curand_host_mrg32k3a_seeded_entry{host_api_entry(
    "curand_host_mrg32k3a_seeded", "cuRAND host API MRG32k3a ordering SEEDED curandGenerateNormal(Double)",
    "curandGenerateNormal(Double), CURAND_RNG_PSEUDO_MRG32K3A, CURAND_ORDERING_PSEUDO_SEEDED",
    "MRG32k3a", curand_host_mrg32k3a_seeded)};
}  // namespace
