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
#include <cuda_runtime.h>
#include <curand.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/registry.hpp"

namespace {
namespace reg = onepass::registry;

void curand_ok(curandStatus_t status, const char* call) {
  if (status != CURAND_STATUS_SUCCESS)
    throw onepass::runtime_failure(std::string("curand_host_philox: ") + call + " failed with curandStatus_t " +
                                   std::to_string(static_cast<int>(status)));
}

/// The Philox generator of the current device, created on first use.
curandGenerator_t philox_generator() {
  static std::mutex mutex;
  static std::map<int, curandGenerator_t> generators;  // by device ordinal; never destroyed (see above)
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = generators.find(device);
  if (it == generators.end()) {
    curandGenerator_t gen = nullptr;
    curand_ok(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), "curandCreateGenerator");
    it = generators.emplace(device, gen).first;
  }
  return it->second;
}

void curand_host_philox(void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p,
                        void* stream) {
  const char* fn = "registry entry curand_host_philox";
  if (n > 0) onepass::protocol::check_not_null(fn, "d_out", d_out, "when n > 0");
  onepass::require(n % 2 == 0, fn, "n", "must be even (cuRAND draws normals in pairs), got " + std::to_string(n));
  if (n == 0) return;
  const curandGenerator_t gen = philox_generator();
  curand_ok(curandSetStream(gen, static_cast<cudaStream_t>(stream)), "curandSetStream");
  if (!p.continue_stream) {  // restart the stream at the seed (otherwise continue it: see gaussian_params)
    curand_ok(curandSetPseudoRandomGeneratorSeed(gen, p.seed), "curandSetPseudoRandomGeneratorSeed");
    curand_ok(curandSetGeneratorOffset(gen, 0), "curandSetGeneratorOffset");
  }
  if (dtype == reg::gaussian_dtype::f64) {
    curand_ok(curandGenerateNormalDouble(gen, static_cast<double*>(d_out), n, 0.0, 1.0), "curandGenerateNormalDouble");
  } else {
    curand_ok(curandGenerateNormal(gen, static_cast<float*>(d_out), n, 0.0f, 1.0f), "curandGenerateNormal");
  }
}

const reg::gaussian_registrar curand_host_philox_entry{reg::gaussian_entry{
    "curand_host_philox", reg::device::gpu, "cuRAND host API Philox4_32_10 curandGenerateNormal(Double)",
    "curandGenerateNormalDouble / curandGenerateNormal, CURAND_RNG_PSEUDO_PHILOX4_32_10, generator created once per device",
    "Philox4_32_10", {reg::gaussian_dtype::f64, reg::gaussian_dtype::f32}, curand_host_philox,
    /*coefficients=*/0, /*library_definition=*/false, /*n_multiple=*/2}};
}  // namespace
