// baselines/gpu/sort_shuffle.cu — "SortShuffle" column of the paper's Table 1 (§2.2, §6:
// "generate random integer sort keys of machine word length ... and perform a key-value
// sort"), the twin of baselines/cpu/sort_shuffle.cpp.
//
// 1. A cheap element-wise kernel writes the 64-bit key h(i) of element i, h the
//    counter_hash of (domain_seed(seed, sort_shuffle), 0) — one SplitMix64 finaliser per
//    key, 16-byte coalesced stores. (The authors' version called curand_init per thread,
//    which bounded it by generator setup rather than by the sort; ANCHORS.md.)
// 2. cub::DeviceRadixSort::SortPairs sorts (key, element) pairs on all 64 key bits (the
//    elements go straight from d_in to d_out as the values; CUB keeps its alternate key
//    and value buffers in the temporary storage). 32-bit offsets when n < 2^32.
// The LSD radix sort is stable and the keys equal the CPU twin's, so the output equals the
// CPU SortShuffle's for the same seed, element for element (deterministic = true).
//
// Tie bias: the order is exactly uniform when the n keys are distinct; P(any tie) <=
// n(n-1)/2 / 2^64 (about 2^-7 at n = 2^29); tied elements keep their input order, so the
// total-variation distance from uniform is at most that bound.
// Temporary storage: keys (8n) + sorted keys (8n) + CUB's (about 16n + histograms).
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/gpu/gpu_baseline_common.cuh"

namespace onepass::baselines::gpu {
namespace {

/// Key of element i.
struct key_of {
  random::counter_hash hash;
  __device__ std::uint64_t operator()(std::uint64_t i) const { return hash(i); }
};

/// cub::DeviceRadixSort::SortPairs with 32-bit offsets when n fits, else 64-bit.
cudaError_t sort_pairs(void* temp, std::size_t& bytes, const std::uint64_t* keys_in, std::uint64_t* keys_out,
                       const std::uint64_t* values_in, std::uint64_t* values_out, std::size_t n,
                       cudaStream_t stream) {
  using key_t = unsigned long long;  // CUB's radix traits are keyed on the fundamental type
  const auto* ki = reinterpret_cast<const key_t*>(keys_in);
  auto* ko = reinterpret_cast<key_t*>(keys_out);
  const auto* vi = reinterpret_cast<const key_t*>(values_in);
  auto* vo = reinterpret_cast<key_t*>(values_out);
  if (n <= std::numeric_limits<std::uint32_t>::max())
    return cub::DeviceRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, static_cast<std::uint32_t>(n), 0, 64, stream);
  return cub::DeviceRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, static_cast<std::uint64_t>(n), 0, 64, stream);
}

struct sort_layout {
  temp_layout layout;
  std::size_t keys = 0, sorted_keys = 0, cub = 0, cub_bytes = 0;
};

sort_layout layout_for(std::size_t n, cudaStream_t stream) {
  sort_layout s;
  if (n == 0) return s;
  s.keys = s.layout.add(n * sizeof(std::uint64_t));
  s.sorted_keys = s.layout.add(n * sizeof(std::uint64_t));
  ONEPASS_CUDA_CHECK(sort_pairs(nullptr, s.cub_bytes, nullptr, nullptr, nullptr, nullptr, n, stream));
  s.cub = s.layout.add(s.cub_bytes);
  return s;
}

/// SortShuffle of d_in[0, n) into d_out[0, n); two-phase temporary storage.
void sort_shuffle_gpu_run(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                          std::size_t n, const registry::shuffle_params& params, void* stream_handle) {
  const char* fn = "sort_shuffle (gpu)";
  check_length(fn, n);
  const cudaStream_t stream = as_stream(stream_handle);
  const sort_layout s = layout_for(n, stream);
  if (size_query(fn, temp, temp_bytes, s.layout.total(), d_in, d_out, n)) return;
  if (n == 0) return;
  auto* keys = temp_layout::at<std::uint64_t>(temp, s.keys);
  launch_fill(key_of{random::counter_hash(domain_seed(params.seed, algorithm_domain::sort_shuffle), 0)}, keys, n,
              stream);
  std::size_t cub_bytes = s.cub_bytes;
  ONEPASS_CUDA_CHECK(sort_pairs(temp_layout::at<void>(temp, s.cub), cub_bytes, keys,
                                         temp_layout::at<std::uint64_t>(temp, s.sorted_keys), d_in, d_out, n,
                                         stream));
}

const registry::registrar sort_shuffle_gpu_registration{[] {
  registry::shuffle_entry e{"sort_shuffle", registry::device::gpu};
  e.label = "SortShuffle";
  e.description =
      "random 64-bit keys (counter-based, one cheap kernel) + cub::DeviceRadixSort::SortPairs (keys, elements), CUDA";
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  e.gpu_run = sort_shuffle_gpu_run;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines::gpu
