// python/src/gaussian_batch.cpp — run-time choice of the Gaussian generators' instruction-set
// copy (gaussian_batch.hpp). ONEPASS_GAUSSIAN_X86_LEVELS is defined by CMake when the
// x86-64-v3/v4 copies are built (GCC or Clang on x86-64).
#include "gaussian_batch.hpp"

#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"

namespace onepass_py {
namespace {

struct choice {
  const gaussian_batch* fns;
  const char* isa;
};

choice pick() {
#if defined(ONEPASS_GAUSSIAN_X86_LEVELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return {&gaussian_batch_x86_64_v4, "x86-64-v4"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return {&gaussian_batch_x86_64_v3, "x86-64-v3"};
#endif
  return {&gaussian_batch_baseline, "baseline"};
}

const choice& chosen() {
  static const choice c = pick();
  return c;
}

}  // namespace

// The checks (and their messages) of the library's entry points, then the chosen copy.
void normal_double_generator(double* out, std::size_t n, double mean, double stddev, std::uint64_t seed,
                             onepass::gaussian::form f) {
  namespace g = onepass::gaussian;
  const g::table& tab = g::default_table();
  g::detail::check_generate_args("generate_normal_cpu", out, n, mean, stddev, tab, f);
  chosen().fns->double_generator(out, n, mean, stddev, seed, tab, f);
}

void normal_double_generator(float* out, std::size_t n, double mean, double stddev, std::uint64_t seed,
                             onepass::gaussian::form f) {
  namespace g = onepass::gaussian;
  const g::table& tab = g::default_table();
  g::detail::check_generate_args("generate_normal_cpu", out, n, mean, stddev, tab, f);
  chosen().fns->double_generator_rounded(out, n, mean, stddev, seed, tab, f);
}

void normal_float_native(float* out, std::size_t n, double mean, double stddev, std::uint64_t seed) {
  namespace g = onepass::gaussian;
  const g::float_table& tab = g::default_float_table();
  g::detail::check_float_generate_args("generate_normal_cpu", out, n, mean, stddev, tab);
  chosen().fns->float_native(out, n, mean, stddev, seed, tab);
}

const char* gaussian_batch_isa() { return chosen().isa; }

}  // namespace onepass_py
