// baselines/gpu/thrust_shuffle.cu — "thrust::shuffle_copy": the paper's algorithm as it
// ships in CCCL (thrust/system/detail/generic/shuffle.inl): a 24-round Philox-style Feistel
// bijection on [0, 2^b), b = max(4, ceil(log2 n)), keys from the URBG, then one
// thrust::inclusive_scan over the 2^b indices of a 16-byte {key, flag} tuple whose output
// iterator does the gather. ANCHORS.md: about half of random gather on an H100, because a
// 16-byte scan value takes CUB's non-packed look-back path.
//
// Call: thrust::shuffle_copy(thrust::cuda::par_nosync(allocator).on(stream), in, in + n,
// out, std::mt19937_64(seed)). For a seed its output equals onepass's VariablePhilox
// shuffle with 24 rounds (tests/gpu/test_gpu_baselines.cu; the CPU twin of that check is
// tests/cpu/test_thrust_oracle.cpp). Deterministic; params.rounds is ignored (thrust fixes
// 24 rounds).
//
// Temporary storage. thrust allocates its temporaries itself: here exactly one block, the
// CUB scan's tile state, whose size thrust obtains from CUB's size query. By default that
// is a cudaMalloc + cudaFree per call, and cudaFree synchronises the device. To time the
// algorithm rather than the allocator, and to keep the registry's two-phase contract, we
// pass thrust an allocator that hands out the caller's temporary storage: the size query
// asks CUB the same question thrust asks (cub::DispatchScan with thrust's own iterator,
// operator and offset types, uint32 offsets when 2^b < 2^32, as thrust's dispatch macro
// picks), plus a little slack; should thrust ever ask for more than that, the allocator
// throws onepass::runtime_failure instead of allocating behind the caller's back.
// par_nosync: thrust does not synchronise the stream after the scan.
#include <cuda_runtime.h>

#include <cub/device/dispatch/dispatch_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/shuffle.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "onepass/harness/registry.hpp"
#include "onepass_baselines/gpu/gpu_baseline_common.cuh"

namespace onepass::baselines::gpu {
namespace {

/// Bump allocator over caller-provided device memory, for thrust's temporaries.
/// Never frees (each shuffle_copy call gets a fresh one); throws when exhausted.
class arena_allocator {
 public:
  using value_type = char;

  arena_allocator(void* base, std::size_t bytes) : base_(static_cast<char*>(base)), bytes_(bytes) {}

  char* allocate(std::ptrdiff_t n) {
    const std::size_t request = static_cast<std::size_t>(n);
    const std::size_t aligned_used = protocol::align_up(used_);
    if (n < 0 || aligned_used > bytes_ || request > bytes_ - aligned_used)
      throw runtime_failure("thrust_shuffle (gpu): thrust asked for " + std::to_string(request) +
                            " bytes of temporary storage beyond the " + std::to_string(bytes_) +
                            " bytes the size query reserved (" + std::to_string(aligned_used) + " in use)");
    used_ = aligned_used + request;
    return base_ + aligned_used;
  }
  void deallocate(char*, std::size_t) {}

 private:
  char* base_;
  std::size_t bytes_;
  std::size_t used_ = 0;
};

/// The temporary bytes thrust::shuffle_copy's inclusive_scan will request for n elements:
/// the same cub::DispatchScan size query, with the same types, as
/// thrust::cuda_cub::detail::inclusive_scan_n_impl on the generic shuffle_copy's iterators.
std::size_t thrust_scan_temp_bytes(std::size_t n, cudaStream_t stream) {
  namespace generic = thrust::system::detail::generic;
  using input_it = thrust::transform_iterator<generic::construct_key_flag_op, thrust::counting_iterator<std::uint64_t>,
                                              generic::key_flag_tuple>;
  using write_op = generic::write_output_op<const std::uint64_t*, std::uint64_t*>;
  using output_it = thrust::transform_output_iterator<write_op, thrust::discard_iterator<std::size_t>>;
  using scan_op = generic::key_flag_scan_op;
  using accum_t = generic::key_flag_tuple;
  using dispatch32 = cub::DispatchScan<input_it, output_it, scan_op, cub::NullType, std::uint32_t, accum_t>;
  using dispatch64 = cub::DispatchScan<input_it, output_it, scan_op, cub::NullType, std::uint64_t, accum_t>;

  std::mt19937_64 g(0);  // the keys do not change the size
  const generic::feistel_bijection bijection(n, g);
  const std::uint64_t domain = bijection.nearest_power_of_two();
  const input_it first(thrust::counting_iterator<std::uint64_t>(0), generic::construct_key_flag_op(n, bijection));
  const output_it result(thrust::discard_iterator<std::size_t>(), write_op{n, nullptr, nullptr});
  std::size_t bytes = 0;
  if (domain <= std::numeric_limits<std::uint32_t>::max()) {
    ONEPASS_CUDA_CHECK(dispatch32::Dispatch(nullptr, bytes, first, result, scan_op{}, cub::NullType{},
                                                     static_cast<std::uint32_t>(domain), stream));
  } else {
    ONEPASS_CUDA_CHECK(dispatch64::Dispatch(nullptr, bytes, first, result, scan_op{}, cub::NullType{},
                                                     static_cast<std::uint64_t>(domain), stream));
  }
  return bytes;
}

/// Slack beyond CUB's answer (alignment of thrust's one block).
constexpr std::size_t thrust_slack_bytes = 4 * temp_alignment;

void thrust_shuffle_gpu_run(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                            std::size_t n, const registry::shuffle_params& params, void* stream_handle) {
  const char* fn = "thrust_shuffle (gpu)";
  check_length(fn, n);
  const cudaStream_t stream = as_stream(stream_handle);
  temp_layout layout;
  std::size_t arena = 0, arena_bytes = 0;
  if (n > 0) {
    arena_bytes = thrust_scan_temp_bytes(n, stream) + thrust_slack_bytes;
    arena = layout.add(arena_bytes);
  }
  if (size_query(fn, temp, temp_bytes, layout.total(), d_in, d_out, n)) return;
  if (n == 0) return;
  arena_allocator allocator(temp_layout::at<void>(temp, arena), arena_bytes);
  try {
    thrust::shuffle_copy(thrust::cuda::par_nosync(allocator).on(stream), d_in, d_in + n, d_out,
                         std::mt19937_64(params.seed));
  } catch (const runtime_failure&) {
    throw;
  } catch (const std::exception& e) {  // thrust::system_error from a failed CUDA call inside thrust
    throw runtime_failure(std::string(fn) + ": thrust::shuffle_copy failed: " + e.what());
  }
  ONEPASS_CUDA_CHECK_LAUNCH();
}

const registry::registrar thrust_shuffle_gpu_registration{[] {
  registry::shuffle_entry e{"thrust_shuffle", registry::device::gpu};
  e.label = "thrust::shuffle_copy";
  e.description =
      "thrust::shuffle_copy(par_nosync.on(stream), ..., mt19937_64(seed)): the paper's algorithm as shipped in CCCL "
      "(24-round Feistel + inclusive_scan of a 16-byte tuple), temporaries from the caller's storage";
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  e.gpu_run = thrust_shuffle_gpu_run;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines::gpu
