// python/src/x86_level.hpp — the x86-64 instruction-set level of the CPU running the module, for
// the run-time choice among the copies of walking_batch.hpp and gaussian_batch.hpp (each copy
// compiled with -march=x86-64-v3 or -v4). ONEPASS_X86_LEVELS is defined by CMake on the files
// that choose, when those copies are built (GCC or Clang on x86-64); without it the level is
// always baseline.
#pragma once

namespace onepass_py {

/// The instruction-set levels the module has copies for.
enum class x86_level { baseline, v3, v4 };

/// The highest level whose every feature the CPU has: v4 (AVX-512 F, DQ, BW, VL, CD), v3 (AVX2,
/// FMA, BMI2), else baseline.
inline x86_level detect_x86_level() {
#if defined(ONEPASS_X86_LEVELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return x86_level::v4;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return x86_level::v3;
#endif
  return x86_level::baseline;
}

/// "x86-64-v4", "x86-64-v3" or "baseline".
inline const char* to_string(x86_level level) {
  return level == x86_level::v4 ? "x86-64-v4" : level == x86_level::v3 ? "x86-64-v3" : "baseline";
}

}  // namespace onepass_py
