// baselines/gpu/segmented_baselines.cu — what users run today to shuffle many rows at
// once, registered in the segmented-shuffle family (registry::segmented_entry), each
// including its random-key generation in the call:
//   cub_segmented_radix_sort  cub::DeviceSegmentedRadixSort::SortPairs of random 32-bit keys,
//                             the items as values
//   cub_segmented_sort        cub::DeviceSegmentedSort::SortPairs, the same keys and values
//   segment_id_sort           one cub::DeviceRadixSort::SortPairs over 64-bit keys
//                             (segment << 32 | random 32 bits), the items as values: the
//                             trick that wins for few long segments
//   loop_shuffle              one gpu::bijective_shuffle (Bijective2) per segment with
//                             segment_seed(seed, s) (the library's definition); uniform
//                             segments only (the lengths must be known on the host), at
//                             most 4096 segments (a launch each)
// The key buffers come out of the caller's temporary storage (two-phase protocol of
// gpu_baseline_common.cuh), so the experiments allocate everything outside the timed region.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/segment_seed.hpp"
#include "onepass_baselines/gpu/gpu_baseline_common.cuh"

namespace onepass::baselines::gpu {
namespace {

using registry::segmented_entry;
using registry::segmented_params;
using registry::segmented_registrar;

/// Random 32-bit sort keys from a counter hash of (seed, i).
__global__ void random_keys_kernel(std::uint32_t* keys, std::uint64_t n, std::uint64_t seed) {
  const random::counter_hash h(seed, 0x5e9);
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    keys[i] = static_cast<std::uint32_t>(h(i));
}

/// 64-bit keys segment << 32 | random 32 bits, segments from the offsets (a block per segment).
__global__ void segment_keys_kernel(std::uint64_t* keys, const std::int64_t* offsets, std::uint64_t segments,
                                    std::uint64_t seed) {
  const random::counter_hash h(seed, 0x5ea);
  for (std::uint64_t s = blockIdx.x; s < segments; s += gridDim.x)
    for (std::int64_t i = offsets[s] + threadIdx.x; i < offsets[s + 1]; i += blockDim.x)
      keys[i] = (s << 32) | static_cast<std::uint32_t>(h(static_cast<std::uint64_t>(i)));
}

/// A grid for `work` independent items of 256 threads, capped (the kernels stride).
unsigned grid_for(std::uint64_t work) {
  return device::stride_grid(work, 256, 132 * 16);
}

/// The checks every entry makes: sizes (also in a query), then in the run phase the
/// pointers (null, overlap) and the offsets. True: a size query, answered.
bool query_or_check(const char* function, void* temp, std::size_t& temp_bytes, std::size_t required,
                    const std::uint64_t* d_in, const std::uint64_t* d_out, std::size_t num_items,
                    const std::int64_t* d_offsets, std::size_t num_segments) {
  if (size_query(function, temp, temp_bytes, required, d_in, d_out, num_items)) return true;
  if (num_segments > 0) protocol::check_not_null(function, "d_offsets", d_offsets, "when num_segments > 0");
  return false;
}

/// Temporary storage of the CUB segmented sorts: keys in, keys out (32-bit), CUB's own.
struct key_layout {
  std::size_t keys_in = 0, keys_out = 0, cub = 0, cub_bytes = 0, required = 0;
};

template <class Sort>
key_layout layout_for(std::size_t num_items, std::size_t key_bytes, Sort&& cub_query) {
  key_layout l;
  temp_layout t;
  l.keys_in = t.add(num_items * key_bytes);
  l.keys_out = t.add(num_items * key_bytes);
  l.cub_bytes = cub_query();
  l.cub = t.add(l.cub_bytes);
  l.required = t.total();
  return l;
}

/// CUB's segmented sorts take int sizes.
void check_int_sizes(const char* function, std::size_t num_items, std::size_t num_segments) {
  require(num_items <= INT_MAX, function, "num_items", "must be at most 2^31 - 1 (CUB's int), got " +
                                                           std::to_string(num_items));
  require(num_segments <= INT_MAX, function, "num_segments", "must be at most 2^31 - 1, got " +
                                                                 std::to_string(num_segments));
}

template <bool Radix>
void cub_segmented(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                   std::size_t num_items, const std::int64_t* d_offsets, std::size_t num_segments,
                   const segmented_params& p, void* stream) {
  const char* function = Radix ? "cub_segmented_radix_sort" : "cub_segmented_sort";
  check_int_sizes(function, num_items, num_segments);
  const int items = static_cast<int>(num_items), segments = static_cast<int>(num_segments);
  const cudaStream_t s = as_stream(stream);
  const key_layout l = layout_for(num_items, sizeof(std::uint32_t), [&] {
    std::size_t b = 0;
    if constexpr (Radix) {
      ONEPASS_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
          nullptr, b, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), d_in, d_out,
          items, segments, d_offsets, d_offsets + 1, 0, 32, s));
    } else {
      ONEPASS_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
          nullptr, b, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), d_in, d_out,
          items, segments, d_offsets, d_offsets + 1, s));
    }
    return b;
  });
  if (query_or_check(function, temp, temp_bytes, l.required, d_in, d_out, num_items, d_offsets, num_segments)) return;
  if (num_items == 0) return;
  auto* k_in = temp_layout::at<std::uint32_t>(temp, l.keys_in);
  auto* k_out = temp_layout::at<std::uint32_t>(temp, l.keys_out);
  void* cub_temp = temp_layout::at<unsigned char>(temp, l.cub);
  std::size_t cub_bytes = l.cub_bytes;
  random_keys_kernel<<<grid_for(num_items), 256, 0, s>>>(k_in, num_items, p.seed);
  ONEPASS_CUDA_CHECK_LAUNCH();
  if constexpr (Radix) {
    ONEPASS_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(cub_temp, cub_bytes, k_in, k_out, d_in, d_out, items,
                                                                segments, d_offsets, d_offsets + 1, 0, 32, s));
  } else {
    ONEPASS_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(cub_temp, cub_bytes, k_in, k_out, d_in, d_out, items,
                                                           segments, d_offsets, d_offsets + 1, s));
  }
}

void segment_id_sort(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                     std::size_t num_items, const std::int64_t* d_offsets, std::size_t num_segments,
                     const segmented_params& p, void* stream) {
  const char* function = "segment_id_sort";
  require(num_segments < (std::uint64_t{1} << 32), function, "num_segments",
          "must be below 2^32 (the segment goes into the key's high word), got " + std::to_string(num_segments));
  const cudaStream_t s = as_stream(stream);
  // Sorted bits: the 32 random bits and enough above them for every segment id.
  int segment_bits = 1;
  while (segment_bits < 32 && (std::uint64_t{1} << segment_bits) <= num_segments) ++segment_bits;
  const int end_bit = 32 + segment_bits;
  const key_layout l = layout_for(num_items, sizeof(std::uint64_t), [&] {
    std::size_t b = 0;
    ONEPASS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b, static_cast<const std::uint64_t*>(nullptr),
                                                       static_cast<std::uint64_t*>(nullptr), d_in, d_out,
                                                       static_cast<std::int64_t>(num_items), 0, end_bit, s));
    return b;
  });
  if (query_or_check(function, temp, temp_bytes, l.required, d_in, d_out, num_items, d_offsets, num_segments)) return;
  if (num_items == 0) return;
  auto* k_in = temp_layout::at<std::uint64_t>(temp, l.keys_in);
  auto* k_out = temp_layout::at<std::uint64_t>(temp, l.keys_out);
  void* cub_temp = temp_layout::at<unsigned char>(temp, l.cub);
  std::size_t cub_bytes = l.cub_bytes;
  segment_keys_kernel<<<grid_for(static_cast<std::uint64_t>(num_segments) * 256), 256, 0, s>>>(k_in, d_offsets,
                                                                                             num_segments, p.seed);
  ONEPASS_CUDA_CHECK_LAUNCH();
  ONEPASS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, k_in, k_out, d_in, d_out,
                                                     static_cast<std::int64_t>(num_items), 0, end_bit, s));
}

constexpr std::size_t loop_max_segments = 4096;

void loop_shuffle(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                  std::size_t num_items, const std::int64_t* d_offsets, std::size_t num_segments,
                  const segmented_params& p, void* stream) {
  const char* function = "loop_shuffle";
  const std::size_t length = p.uniform_length;
  require(length > 0, function, "params.uniform_length",
          "must be > 0: a loop of single shuffles needs the segment lengths on the host");
  require(num_items % length == 0 && num_items / length == num_segments, function, "params.uniform_length",
          "times num_segments must equal num_items (" + std::to_string(num_items) + ")");
  require(num_segments <= loop_max_segments, function, "num_segments",
          "must be at most " + std::to_string(loop_max_segments) + " (a launch each), got " +
              std::to_string(num_segments));
  namespace sg = onepass::shuffle::gpu;
  std::size_t required = 0;
  sg::bijective_shuffle<std::uint64_t>(nullptr, required, d_in, d_out, length,
                                       bijection::variable_philox::for_length(length, 1, p.rounds));
  if (query_or_check(function, temp, temp_bytes, required, d_in, d_out, num_items, d_offsets, num_segments)) return;
  for (std::size_t i = 0; i < num_segments; ++i) {
    std::size_t bytes = temp_bytes;
    sg::bijective_shuffle<std::uint64_t>(
        temp, bytes, d_in + i * length, d_out + i * length, length,
        bijection::variable_philox::for_length(length, shuffle::segment_seed(p.seed, i), p.rounds),
        sg::fusion::bijective2, as_stream(stream));
  }
}

constexpr registry::device gpu_device = registry::device::gpu;

const segmented_registrar cub_segmented_radix_sort_entry{[] {
  segmented_entry e{"cub_segmented_radix_sort", gpu_device};
  e.label = "cub::DeviceSegmentedRadixSort";
  e.description =
      "cub::DeviceSegmentedRadixSort::SortPairs of random 32-bit keys, the items as values (key generation included)";
  e.library_definition = false;
  e.max_segments = 0;
  e.gpu_run = cub_segmented<true>;
  return e;
}()};

const segmented_registrar cub_segmented_sort_entry{[] {
  segmented_entry e{"cub_segmented_sort", gpu_device};
  e.label = "cub::DeviceSegmentedSort";
  e.description =
      "cub::DeviceSegmentedSort::SortPairs of random 32-bit keys, the items as values (key generation included)";
  e.library_definition = false;
  e.max_segments = 0;
  e.gpu_run = cub_segmented<false>;
  return e;
}()};

const segmented_registrar segment_id_sort_entry{[] {
  segmented_entry e{"segment_id_sort", gpu_device};
  e.label = "segment-id sort";
  e.description = "one cub::DeviceRadixSort::SortPairs of segment << 32 | random 32 bits, the items as values";
  e.library_definition = false;
  e.max_segments = 0;
  e.gpu_run = segment_id_sort;
  return e;
}()};

const segmented_registrar loop_shuffle_entry{[] {
  segmented_entry e{"loop_shuffle", gpu_device};
  e.label = "loop of single shuffles";
  e.description =
      "one Bijective2 shuffle launch per segment with segment_seed(seed, s); uniform segments, at most 4096";
  e.library_definition = true;
  e.max_segments = loop_max_segments;
  e.gpu_run = loop_shuffle;
  e.needs_uniform = true;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines::gpu
