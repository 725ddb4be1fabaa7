// python/src/walking_batch.cpp — run-time choice of the walking batch's instruction-set copy
// (walking_batch.hpp). ONEPASS_WALKING_X86_LEVELS is defined by CMake when the x86-64-v3/v4
// copies are built (GCC or Clang on x86-64).
#include "walking_batch.hpp"

#include "onepass/shuffle/cpu_walking.hpp"

namespace onepass_py {
namespace {

using batch_fn = void (*)(const onepass::shuffle::walking_permutation&, std::uint64_t, std::uint64_t, std::uint64_t,
                          std::uint64_t*);

struct choice {
  batch_fn fn;
  const char* isa;
};

choice pick() {
#if defined(ONEPASS_WALKING_X86_LEVELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return {walking_batch_x86_64_v4, "x86-64-v4"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return {walking_batch_x86_64_v3, "x86-64-v3"};
#endif
  return {walking_batch_baseline, "baseline"};
}

const choice& chosen() {
  static const choice c = pick();
  return c;
}

}  // namespace

void walking_batch(const onepass::shuffle::walking_permutation& sigma, std::uint64_t first, std::uint64_t stride,
                   std::uint64_t count, std::uint64_t* out) {
  // The checks (and their messages) of the library's entry point, then the chosen copy.
  onepass::shuffle::detail::check_strided("walking_indices", sigma, first, stride, count, out);
  chosen().fn(sigma, first, stride, count, out);
}

const char* walking_batch_isa() { return chosen().isa; }

}  // namespace onepass_py
