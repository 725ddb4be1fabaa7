// onepass/scan/warp_scan.cuh — the one warp-wide inclusive prefix sum of the library's
// kernels (the fused shuffle's tile ranking and staged counts, the segmented shuffle's
// row offsets, onesweep's block exclusive sum).
//
// A Kogge-Stone scan of log2(32) = 5 steps of __shfl_up_sync, as in Merrill & Garland's
// warp-synchronous scans (NVR-2016-002, §4) and cub::WarpScan's shuffle variant. Ours rather
// than cub::WarpScan: every kernel that calls it was tuned and timed with exactly these five
// steps (and the lane passed in, which the callers already hold), and CUB's version was not
// timed against it here; switching is one edit in this file.
#pragma once

#include <cuda_runtime.h>

namespace onepass::scan {

/// Inclusive prefix sum over the 32 lanes of a warp: lane l gets value(0) + ... + value(l).
/// Every lane of the warp must call it (full mask 0xFFFFFFFF), with the same T; lane =
/// threadIdx.x % 32 (the caller's lane id, in [0, 32)). T: an arithmetic type that
/// __shfl_up_sync moves (32- or 64-bit integers, float, double); sums wrap as T does. The
/// warp's total is lane 31's result (__shfl_sync(0xFFFFFFFF, result, 31)). Source:
/// Merrill & Garland, NVR-2016-002, §4 (warp-synchronous Kogge-Stone scan).
template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T value, unsigned lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T up = __shfl_up_sync(0xFFFFFFFFu, value, d);
    if (lane >= static_cast<unsigned>(d)) value += up;
  }
  return value;
}

}  // namespace onepass::scan
