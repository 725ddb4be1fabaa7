// baselines/gpu/dart_throwing.cu — "DartThrowing" column of the paper's Table 1: the
// dart-throwing permutation (paper §2.1: Reif & Miller; Rajasekaran & Reif, SIAM J.
// Comput. 18, 1989) on the GPU, the twin of baselines/cpu/dart_throwing.cpp.
//
// 1. Fill a table of 2n slots with "empty" (all ones) — one cudaMemsetAsync.
// 2. One thread per element i throws darts: throw a uses the word of the counter-based
//    generator for (seed, element i, attempt a) — word i of counter_hash(s, 0) for a = 0,
//    of its substream a for a >= 1, s = domain_seed(seed, dart_throwing), exactly as the CPU
//    twin — maps it exactly uniformly to a slot (Lemire's multiply-high, redrawing the
//    biased low part) and claims the slot with atomicCAS(slot, empty, i); on a collision it
//    throws again with fresh randomness. At most n of the 2n slots are ever full, so a
//    throw succeeds with probability >= 1/2: O(1) expected throws, O(log n) w.h.p.
// 3. Compaction of the occupied slots in slot order with cub::DeviceSelect::If, fused with
//    the gather: the select writes through an output iterator that stores in[index] at
//    the output rank, so no n-sized index array is written and read back.
// Each placement lands on a uniformly random empty slot, so the slot order of the elements
// is a uniformly random permutation (given that which CAS wins does not depend on the
// slots drawn). Which thread wins a contested slot depends on timing: NOT reproducible
// for a seed (registry: deterministic = false).
//
// Slots are 32-bit when n < 2^32 (empty = 2^32 - 1 is never an index), else 64-bit:
// half the fill and scan traffic at every size the experiments use.
// Temporary storage: 2n slots + one int64 count + CUB's select storage.
#include <cuda_runtime.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_output_iterator.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/gpu/gpu_baseline_common.cuh"

namespace onepass::baselines::gpu {
namespace {

constexpr unsigned throw_block_threads = 256;

template <class Slot>
struct cas_word;
template <>
struct cas_word<std::uint32_t> {
  using type = unsigned int;
};
template <>
struct cas_word<std::uint64_t> {
  using type = unsigned long long;
};

/// Throws the darts of elements [0, n) into slots[0, 2n) (grid-stride, one element per
/// thread and step).
template <class Slot>
__global__ void __launch_bounds__(throw_block_threads)
    throw_darts_kernel(Slot* __restrict__ slots, std::uint64_t n, random::counter_hash first) {
  using word_t = typename cas_word<Slot>::type;
  constexpr word_t empty = static_cast<word_t>(~Slot{0});
  const std::uint64_t range = 2 * n;
  const std::uint64_t reject_below = (0 - range) % range;  // 2^64 mod range: biased low parts
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    for (std::uint64_t attempt = 0;; ++attempt) {
      const std::uint64_t word = attempt == 0 ? first(i) : first.substream(attempt)(i);
      if (word * range < reject_below) continue;  // exact uniformity: redraw
      word_t* slot = reinterpret_cast<word_t*>(slots + random::mul_high(word, range));
      if (atomicCAS(slot, empty, static_cast<word_t>(i)) == empty) break;
    }
  }
}

template <class Slot>
struct is_occupied {
  __host__ __device__ bool operator()(Slot s) const { return s != static_cast<Slot>(~Slot{0}); }
};

/// Output functor of the fused compaction: the element whose index sits in the slot.
template <class Slot>
struct gather_element {
  const std::uint64_t* in;
  __host__ __device__ std::uint64_t operator()(Slot index) const { return in[index]; }
};

template <class Slot>
using gather_iterator = thrust::transform_output_iterator<gather_element<Slot>, std::uint64_t*>;

template <class Slot>
std::size_t select_temp_bytes(std::size_t n, cudaStream_t stream) {
  std::size_t bytes = 0;
  ONEPASS_CUDA_CHECK(cub::DeviceSelect::If(
      nullptr, bytes, static_cast<const Slot*>(nullptr), gather_iterator<Slot>(nullptr, gather_element<Slot>{nullptr}),
      static_cast<std::int64_t*>(nullptr), static_cast<std::int64_t>(2 * n), is_occupied<Slot>{}, stream));
  return bytes;
}

struct dart_layout {
  temp_layout layout;
  std::size_t slots = 0, count = 0, cub = 0, cub_bytes = 0;
};

template <class Slot>
dart_layout layout_for(std::size_t n, cudaStream_t stream) {
  dart_layout d;
  if (n == 0) return d;
  d.slots = d.layout.add(2 * n * sizeof(Slot));
  d.count = d.layout.add(sizeof(std::int64_t));
  d.cub_bytes = select_temp_bytes<Slot>(n, stream);
  d.cub = d.layout.add(d.cub_bytes);
  return d;
}

template <class Slot>
void run(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n,
         std::uint64_t seed, cudaStream_t stream) {
  const char* fn = "dart_throwing (gpu)";
  check_length(fn, n);
  const dart_layout d = layout_for<Slot>(n, stream);
  if (size_query(fn, temp, temp_bytes, d.layout.total(), d_in, d_out, n)) return;
  if (n == 0) return;
  Slot* slots = temp_layout::at<Slot>(temp, d.slots);
  ONEPASS_CUDA_CHECK(cudaMemsetAsync(slots, 0xff, 2 * n * sizeof(Slot), stream));
  const random::counter_hash first(domain_seed(seed, algorithm_domain::dart_throwing), 0);
  throw_darts_kernel<Slot><<<grid_blocks(n, throw_block_threads), throw_block_threads, 0, stream>>>(slots, n, first);
  ONEPASS_CUDA_CHECK_LAUNCH();
  std::size_t cub_bytes = d.cub_bytes;
  ONEPASS_CUDA_CHECK(cub::DeviceSelect::If(
      temp_layout::at<void>(temp, d.cub), cub_bytes, static_cast<const Slot*>(slots),
      gather_iterator<Slot>(d_out, gather_element<Slot>{d_in}), temp_layout::at<std::int64_t>(temp, d.count),
      static_cast<std::int64_t>(2 * n), is_occupied<Slot>{}, stream));
}

/// Dart-throwing shuffle of d_in[0, n) into d_out[0, n); two-phase temporary storage.
void dart_throwing_gpu_run(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                           std::size_t n, const registry::shuffle_params& params, void* stream) {
  if (n < std::numeric_limits<std::uint32_t>::max()) {
    run<std::uint32_t>(temp, temp_bytes, d_in, d_out, n, params.seed, as_stream(stream));
  } else {
    run<std::uint64_t>(temp, temp_bytes, d_in, d_out, n, params.seed, as_stream(stream));
  }
}

const registry::registrar dart_throwing_gpu_registration{[] {
  registry::shuffle_entry e{"dart_throwing", registry::device::gpu};
  e.label = "DartThrowing";
  e.description =
      "dart throwing into 2n slots (atomicCAS, counter-based RNG, retry on collision) + cub::DeviceSelect::If "
      "compaction fused with the gather, CUDA";
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = false;
  e.gpu_run = dart_throwing_gpu_run;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines::gpu
