// scripts/median_event_ms.cuh — the timing of the standalone tuning programs in scripts/
// (tune_bijective2.cu, bench_bijective2_cache_hints.cu; not part of the library): two
// untimed calls, then `reps` calls each between two CUDA events on the legacy default
// stream, waited for one by one; returns the median in milliseconds. Includes whatever
// the call leaves enqueued, and the host time between the events while the GPU is idle.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "onepass/cuda_check.hpp"

template <class F>
double median_ms(F&& call, int reps = 9) {
  cudaEvent_t a, b;
  ONEPASS_CUDA_CHECK(cudaEventCreate(&a));
  ONEPASS_CUDA_CHECK(cudaEventCreate(&b));
  call();
  call();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    ONEPASS_CUDA_CHECK(cudaEventRecord(a));
    call();
    ONEPASS_CUDA_CHECK(cudaEventRecord(b));
    ONEPASS_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    ONEPASS_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  ONEPASS_CUDA_CHECK(cudaEventDestroy(a));
  ONEPASS_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
