// scripts/median_event_ms.cuh — the timing of the standalone programs in scripts/ (not part of
// the library). event_ms: one call between two CUDA events on the legacy default stream (the
// sort benches use it through bench_keys.cuh). median_ms (tune_bijective2.cu,
// bench_bijective2_cache_hints.cu): two untimed calls, then `reps` calls each timed by
// event_ms, waited for one by one; returns the median in milliseconds. Both include whatever
// the call leaves enqueued, and the host time between the events while the GPU is idle.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "onepass/cuda_check.hpp"

/// Milliseconds between events a and b recorded around call() on the legacy default stream
/// (b waited for).
template <class F>
float event_ms(cudaEvent_t a, cudaEvent_t b, F&& call) {
  ONEPASS_CUDA_CHECK(cudaEventRecord(a));
  call();
  ONEPASS_CUDA_CHECK(cudaEventRecord(b));
  ONEPASS_CUDA_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  ONEPASS_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

template <class F>
double median_ms(F&& call, int reps = 9) {
  cudaEvent_t a, b;
  ONEPASS_CUDA_CHECK(cudaEventCreate(&a));
  ONEPASS_CUDA_CHECK(cudaEventCreate(&b));
  call();
  call();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) t.push_back(event_ms(a, b, call));
  ONEPASS_CUDA_CHECK(cudaEventDestroy(a));
  ONEPASS_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
