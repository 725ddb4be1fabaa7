// experiments/common/index_array_gather.cuh — "gather_index_array": the random gather
// through a precomputed index array (the second form of the random-gather upper bound of
// Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", Table 1), for the
// experiments that time it beside the registry's GPU shuffles. The registry's signature
// cannot carry it (its index array is filled before timing, not by the timed call), so the
// gather baseline registers its two functions apart (registry::gpu_index_gather) and this
// header builds the experiments' algorithm from them; an experiment that uses it links
// onepass_baselines (which registers them).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu_harness.cuh"
#include "onepass/harness/registry.hpp"

namespace onepass::experiments::gpu {

/// The algorithm column of the index-array gather in the experiments' CSV files.
inline constexpr const char* index_array_gather_name = "gather_index_array";

/// Fills d_idx[0, n) (device memory) with the indices the registry's GPU "gather" computes
/// for `seed`, so that the gather through them returns exactly the computed gather's output.
/// Enqueued on `stream`, not waited for (callers fill before timing and synchronise).
inline void fill_gather_indices(std::uint64_t* d_idx, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  registry::find_gpu_index_gather().fill_indices(d_idx, n, seed, stream);
}

/// The gather through d_idx (n indices < n, from fill_gather_indices; it must outlive the
/// returned algorithm's runs) as a gpu_algorithm: out[i] = in[d_idx[i]], no temporary
/// storage, not a permutation (only "every output is an input element" is checked). The
/// seed of a run does not change its output: the indices are fixed when d_idx is filled.
inline gpu_algorithm index_array_gather(const std::uint64_t* d_idx) {
  gpu_algorithm a;
  a.name = index_array_gather_name;
  a.label = "Gather (index array)";
  a.permutes = false;
  const registry::gpu_index_gather& g = registry::find_gpu_index_gather();
  a.run = [d_idx, gather = g.gather](void* temp, std::size_t& temp_bytes, const std::uint64_t* in, std::uint64_t* out, std::size_t n,
                  const registry::shuffle_params&, void* stream) {
    if (temp == nullptr) {
      temp_bytes = 0;
      return;
    }
    gather(d_idx, in, out, n, stream);
  };
  return a;
}

}  // namespace onepass::experiments::gpu
