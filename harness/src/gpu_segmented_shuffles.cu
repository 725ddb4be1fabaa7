// Registers the library's GPU segmented shuffle (uint64 items) in the segmented family:
// segment s is the single bijective shuffle of segment s with segment_seed(seed, s)
// (shuffle/gpu_segmented_shuffle.cuh). Uniform rows take the uniform-length overload,
// which needs no look at the offsets (no stream synchronisation).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/gpu_segmented_shuffle.cuh"

namespace {
using onepass::registry::segmented_entry;
using onepass::registry::segmented_params;
using onepass::registry::segmented_registrar;
namespace gpu = onepass::shuffle::gpu;

void segmented_shuffle_gpu(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                           std::size_t num_items, const std::int64_t* d_offsets, std::size_t num_segments,
                           const segmented_params& p, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (p.uniform_length > 0) {
    onepass::require(num_items / p.uniform_length == num_segments && num_items % p.uniform_length == 0,
                     "registry entry segmented_shuffle", "params.uniform_length",
                     "times num_segments must equal num_items (" + std::to_string(num_items) + "), got " +
                         std::to_string(p.uniform_length) + " x " + std::to_string(num_segments));
    gpu::segmented_shuffle<std::uint64_t>(temp, temp_bytes, d_in, d_out, num_segments, p.uniform_length, p.seed,
                                          p.rounds, s);
  } else {
    gpu::segmented_shuffle<std::uint64_t, std::int64_t>(temp, temp_bytes, d_in, d_out, num_items, d_offsets,
                                                        num_segments, p.seed, p.rounds, s);
  }
}

segmented_entry segmented_shuffle_entry() {
  segmented_entry e{"segmented_shuffle", onepass::registry::device::gpu};
  e.label = "ours (segmented shuffle)";
  e.description =
      "each segment the bijective shuffle (paper §4) with segment_seed(seed, s): warp, shared-memory and tiled paths";
  e.library_definition = true;
  e.max_segments = 0;
  e.gpu_run = segmented_shuffle_gpu;
  return e;
}

const segmented_registrar segmented_shuffle_registration{segmented_shuffle_entry()};
}  // namespace
