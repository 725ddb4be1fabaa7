// examples/baselines/example_segmented.cu — a segmented-shuffle baseline in one file (the
// README's example): copy it into baselines/gpu/ and segmented_shuffle, the GPU tests and
// `onepass list` pick it up by its registry name. tests/gpu/test_gpu_segmented_shuffle.cu
// builds this file and checks it with every other entry (each output segment a permutation
// of its input segment, null pointers refused). This one: the input copied to the output,
// then one thread per segment runs Fisher-Yates over its segment, its draws from the
// library's counter_stream of (seed, segment) (a plain textbook method, only to show the
// shape of an entry). Offsets are trusted, as CUB's segmented sorts trust theirs.
#include <cuda_runtime.h>

#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/random/counter_hash.hpp"

namespace {

__global__ void example_fisher_yates(std::uint64_t* out, const std::int64_t* offsets, std::size_t num_segments,
                                     std::uint64_t seed) {
  for (std::size_t s = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; s < num_segments;
       s += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t* segment = out + offsets[s];
    onepass::random::counter_stream random(seed, s);
    for (std::uint64_t i = static_cast<std::uint64_t>(offsets[s + 1] - offsets[s]); i > 1; --i) {
      const std::uint64_t j = random.uniform_below(i);
      const std::uint64_t t = segment[i - 1];
      segment[i - 1] = segment[j];
      segment[j] = t;
    }
  }
}

void example_segmented(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                       std::size_t num_items, const std::int64_t* d_offsets, std::size_t num_segments,
                       const onepass::registry::segmented_params& p, void* stream) {
  if (temp == nullptr) {  // size query: no temporary storage needed, but the protocol asks for >= 1 byte
    temp_bytes = 1;
    return;
  }
  constexpr const char* fn = "registry entry example_segmented";
  onepass::require(num_items == 0 || (d_in != nullptr && d_out != nullptr), fn, "d_in, d_out",
                   "must not be null when num_items > 0");
  onepass::require(num_segments == 0 || d_offsets != nullptr, fn, "d_offsets", "must not be null when num_segments > 0");
  if (num_items == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, num_items * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, s));
  if (num_segments == 0) return;
  example_fisher_yates<<<onepass::device::stride_grid(num_segments, 256), 256, 0, s>>>(d_out, d_offsets, num_segments,
                                                                                 p.seed);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

const onepass::registry::segmented_registrar example_segmented_registration{[] {
  onepass::registry::segmented_entry e{"example_segmented", onepass::registry::device::gpu};
  e.label = "Example (Fisher-Yates, a thread per segment)";
  e.description = "the README's one-file segmented-shuffle baseline";
  e.library_definition = false;
  e.max_segments = 0;
  e.gpu_run = example_segmented;
  return e;
}()};

}  // namespace
