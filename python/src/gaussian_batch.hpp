// python/src/gaussian_batch.hpp — the CPU twins of the warp Gaussian generator
// (onepass/gaussian/cpu_generate.hpp, float_cpu_generate.hpp) for the Python module, built
// for several x86-64 instruction-set levels and picked at run time.
//
// The module is built portable (no -march=native: a wheel runs on any x86-64), but the
// generators' batches of warp rounds (onepass/gaussian/warp_batch.hpp) are vector loops whose
// final combination is fused multiply-adds: x86-64 without FMA calls libm's fma for each one,
// and SSE2 has no 8-lane integer vectors. So gaussian_batch_*.cpp compile the same body for
// x86-64 (baseline), x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512), each instantiating the
// library's templates with its own tag type (no instantiation is shared between them), and
// the functions below call the best one the CPU supports. Every copy gives the same bits
// (the library's generators are exact: integer butterfly, correctly rounded FMAs), equal to
// gpu::generate_normal on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onepass/gaussian/cpu_generate.hpp"

namespace onepass_py {

/// out[0..n): cpu::generate_normal(out, n, mean, stddev, seed, default_table(), f) (the double
/// generator; float out: its doubles rounded to nearest), arguments checked by the library
/// (onepass::error naming the argument), run with the best instruction set this CPU has.
void normal_double_generator(double* out, std::size_t n, double mean, double stddev, std::uint64_t seed,
                             onepass::gaussian::form f);
void normal_double_generator(float* out, std::size_t n, double mean, double stddev, std::uint64_t seed,
                             onepass::gaussian::form f);

/// out[0..n): cpu::generate_normal(out, n, mean, stddev, seed, default_float_table()) (the
/// float-native generator), checked and dispatched as above.
void normal_float_native(float* out, std::size_t n, double mean, double stddev, std::uint64_t seed);

/// The instruction-set level the functions above use here: "x86-64-v4", "x86-64-v3" or "baseline".
const char* gaussian_batch_isa();

/// One copy per level (gaussian_batch_body.inc): the library's generators after their
/// argument checks, instantiated with the copy's tag.
struct gaussian_batch {
  void (*double_generator)(double*, std::size_t, double, double, std::uint64_t, const onepass::gaussian::table&,
                           onepass::gaussian::form);
  void (*double_generator_rounded)(float*, std::size_t, double, double, std::uint64_t,
                                   const onepass::gaussian::table&, onepass::gaussian::form);
  void (*float_native)(float*, std::size_t, double, double, std::uint64_t, const onepass::gaussian::float_table&);
};

/// Only those built exist (see CMakeLists.txt).
extern const gaussian_batch gaussian_batch_baseline;
extern const gaussian_batch gaussian_batch_x86_64_v3;
extern const gaussian_batch gaussian_batch_x86_64_v4;

}  // namespace onepass_py
