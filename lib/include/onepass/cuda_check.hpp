// onepass/cuda_check.hpp — checking every CUDA runtime call and kernel launch.
//
// ONEPASS_CUDA_CHECK(call) evaluates a cudaError_t-returning expression once and
// throws onepass::runtime_failure when it is not cudaSuccess; the message names
// the file, line, the call's text and CUDA's name and description of the error:
//   "lib/include/onepass/shuffle/gpu_shuffle.cuh:412: cudaMemsetAsync(...) failed:
//    cudaErrorInvalidValue (invalid argument)".
// ONEPASS_CUDA_CHECK_LAUNCH() checks the launch just made (cudaGetLastError):
// configuration errors show at once, faults inside the kernel only at a later
// synchronising call, which is checked the same way.
//
// Usable from host C++ compiled by a plain C++ compiler (needs cuda_runtime.h on
// the include path) and from nvcc.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "onepass/error.hpp"

namespace onepass::detail {

/// Throws onepass::runtime_failure describing `status` unless it is cudaSuccess.
/// `call`, `file`, `line` locate the failing call in the message.
inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw runtime_failure(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                        cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace onepass::detail

/// Evaluates `call` (a cudaError_t expression) once; throws onepass::runtime_failure
/// with file, line, call text and the CUDA error when it is not cudaSuccess.
#define ONEPASS_CUDA_CHECK(call) ::onepass::detail::cuda_check((call), #call, __FILE__, __LINE__)

/// Checks the most recent kernel launch of this host thread (cudaGetLastError).
#define ONEPASS_CUDA_CHECK_LAUNCH() ::onepass::detail::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
