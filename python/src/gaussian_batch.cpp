// python/src/gaussian_batch.cpp — run-time choice of the Gaussian generators' instruction-set
// copy (gaussian_batch.hpp) by the CPU's level (x86_level.hpp).
#include "gaussian_batch.hpp"

#include "x86_level.hpp"

#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"

namespace onepass_py {
namespace {

struct choice {
  const gaussian_batch* fns;
  const char* isa;
};

choice pick() {
  const x86_level level = detect_x86_level();
  switch (level) {
    case x86_level::v4: return {&gaussian_batch_x86_64_v4, to_string(level)};
    case x86_level::v3: return {&gaussian_batch_x86_64_v3, to_string(level)};
    default: return {&gaussian_batch_baseline, to_string(level)};
  }
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
  g::detail::check_generate_args("gaussian::cpu::generate_normal", out, n, mean, stddev, tab, f);
  chosen().fns->double_generator(out, n, mean, stddev, seed, tab, f);
}

void normal_double_generator(float* out, std::size_t n, double mean, double stddev, std::uint64_t seed,
                             onepass::gaussian::form f) {
  namespace g = onepass::gaussian;
  const g::table& tab = g::default_table();
  g::detail::check_generate_args("gaussian::cpu::generate_normal", out, n, mean, stddev, tab, f);
  chosen().fns->double_generator_rounded(out, n, mean, stddev, seed, tab, f);
}

void normal_float_native(float* out, std::size_t n, double mean, double stddev, std::uint64_t seed) {
  namespace g = onepass::gaussian;
  const g::float_table& tab = g::default_float_table();
  g::detail::check_float_generate_args("gaussian::cpu::generate_normal", out, n, mean, stddev, tab);
  chosen().fns->float_native(out, n, mean, stddev, seed, tab);
}

const char* gaussian_batch_isa() { return chosen().isa; }

}  // namespace onepass_py
