// Registers the library's warp Gaussian generator (gaussian/generate.cuh, gpu::generate_normal)
// in the Gaussian family, once per form: ours_memory_3 and ours_memory_4, N(0, 1) doubles
// or floats (the double rounded) with the default table, bit-identical to
// cpu::generate_normal; and the float-native generator, ours_memory_float_native (floats,
// bit-identical to cpu::generate_normal(..., method::float_native)). Article
// "Training a random Gaussian generator" (the whole generator; the to-memory use is the
// section "Tail tests and measuring the speed of the generator").
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/error.hpp"
#include "onepass/gaussian/generate.cuh"
#include "onepass/gaussian/table.hpp"
#include "onepass/harness/registry.hpp"

namespace {
namespace reg = onepass::registry;
namespace g = onepass::gaussian;

/// gpu::generate_normal(d_out, n, 0, 1, seed, default_table(), f, stream) for the dtype; its
/// own checks name n and the table; a null d_out with n > 0 is refused there too.
void ours_memory(g::form f, void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p,
                 void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == reg::gaussian_dtype::f64) {
    g::gpu::generate_normal(static_cast<double*>(d_out), n, 0.0, 1.0, p.seed, g::default_table(), f, s);
  } else {
    g::gpu::generate_normal(static_cast<float*>(d_out), n, 0.0, 1.0, p.seed, g::default_table(), f, s);
  }
}

reg::gaussian_entry ours_entry(g::form f) {
  const std::string k = f == g::form::three ? "3" : "4";
  reg::gaussian_entry e{"ours_memory_" + k, reg::device::gpu};
  e.label = "ours " + k + " coefficients generate_normal";
  e.description = "warp Gaussian generator, " + k +
                  "-coefficient form, default table, one SplitMix64 word per two draws (gaussian/generate.cuh)";
  e.entropy = "SplitMix64";
  e.dtypes = {reg::gaussian_dtype::f64, reg::gaussian_dtype::f32};
  e.gpu_run = [f](void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p,
                  void* stream) { ours_memory(f, d_out, n, dtype, p, stream); };
  e.coefficients = f == g::form::three ? 3 : 4;
  e.library_definition = true;
  return e;
}

/// The float-native generator (gaussian/float_lane.hpp, warp_gaussian_float.cuh):
/// gpu::generate_normal(d_out, n, 0, 1, seed, method::float_native, stream), floats only.
reg::gaussian_entry float_native_entry() {
  reg::gaussian_entry e{"ours_memory_float_native", reg::device::gpu};
  e.label = "ours float-native generate_normal";
  e.description = "float-native warp Gaussian generator: exact float butterfly over a signed table, 3 float FMAs, "
                  "one Philox4x32-7 block per four outputs, float4 stores (gaussian/warp_gaussian_float.cuh)";
  e.entropy = "Philox4x32-7";
  e.dtypes = {reg::gaussian_dtype::f32};
  e.gpu_run = [](void* d_out, std::size_t n, reg::gaussian_dtype dtype, const reg::gaussian_params& p, void* stream) {
    onepass::require(dtype == reg::gaussian_dtype::f32, "registry entry ours_memory_float_native", "dtype",
                     "must be f32 (the float-native generator writes floats)");
    g::gpu::generate_normal(static_cast<float*>(d_out), n, 0.0, 1.0, p.seed, g::method::float_native,
                       static_cast<cudaStream_t>(stream));
  };
  e.coefficients = 0;
  e.library_definition = false;
  e.float_native = true;
  return e;
}

const reg::gaussian_registrar ours_memory_float_native_entry{float_native_entry()};
const reg::gaussian_registrar ours_memory_3_entry{ours_entry(g::form::three)};
const reg::gaussian_registrar ours_memory_4_entry{ours_entry(g::form::four)};
}  // namespace
