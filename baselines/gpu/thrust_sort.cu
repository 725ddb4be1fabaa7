// baselines/gpu/thrust_sort.cu — "thrust_sort": thrust::sort (keys) and
// thrust::stable_sort_by_key (pairs) with the CUDA backend, as a user of thrust would sort.
//
// thrust sorts in place, so this is an in-place registry entry (registry::sort_entry::
// in_place): keys_out (values_out) holds the input on entry and the sorted data on return;
// the experiments copy the input there outside the timed region, so thrust is timed as
// its users run it. For arithmetic keys with thrust::less / thrust::greater, thrust's CUDA
// sort dispatches to cub::DeviceRadixSort on a DoubleBuffer (thrust/system/cuda/detail/
// sort.h, smart_sort / __radix_sort::radix_sort), both for sort and stable_sort(_by_key);
// the pairs use stable_sort_by_key so that the registry's "stable" holds by thrust's API
// contract, not only by its implementation. thrust has one configuration that matters for
// speed: its count is the iterators' difference type (ptrdiff_t for pointers), so CUB
// always runs with 64-bit NumItemsT (CCCL's 64-bit-offset tuning), and the DoubleBuffer
// form.
//
// Policy: thrust::cuda::par_nosync(allocator).on(stream) — no stream synchronisation after
// the sort; its one temporary allocation (alternate keys and values, each rounded up to 128
// bytes, plus CUB's DoubleBuffer scratch) is served from the caller's temporary storage
// through a bump allocator. The size query asks CUB the question thrust asks
// (cub::DeviceRadixSort::SortKeys/SortPairs on a DoubleBuffer, num_items of thrust's
// difference type) plus slack; should thrust ask for more, the allocator throws
// onepass::runtime_failure rather than allocate behind the caller's back. When the last
// pass leaves the result in thrust's alternate buffer, thrust copies it back (part of the
// timed work, as for any thrust user).
//
// Params: descending via thrust::greater; begin_bit/end_bit are not supported by
// thrust::sort (it always sorts on all key bits): anything but the full key range throws
// onepass::error.
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/sort.h>

#include <cstddef>
#include <string>

#include "onepass_baselines/gpu/gpu_sort_common.cuh"

namespace onepass::baselines::gpu {
namespace {

constexpr std::size_t arena_alignment = 256;

/// Bump allocator over caller-provided device memory, for thrust's temporaries.
class arena_allocator {
 public:
  using value_type = char;
  arena_allocator(void* base, std::size_t bytes, const char* fn)
      : base_(static_cast<char*>(base)), bytes_(bytes), fn_(fn) {}
  char* allocate(std::ptrdiff_t n) {
    const std::size_t request = static_cast<std::size_t>(n);
    const std::size_t start = (used_ + arena_alignment - 1) / arena_alignment * arena_alignment;
    if (n < 0 || start > bytes_ || request > bytes_ - start)
      throw runtime_failure(std::string(fn_) + ": thrust asked for " + std::to_string(request) +
                            " bytes of temporary storage beyond the " + std::to_string(bytes_) +
                            " bytes the size query reserved (" + std::to_string(start) + " in use)");
    used_ = start + request;
    return base_ + start;
  }
  void deallocate(char*, std::size_t) {}

 private:
  char* base_;
  std::size_t bytes_;
  const char* fn_;
  std::size_t used_ = 0;
};

/// The bytes thrust's radix_sort allocates for n items (thrust/system/cuda/detail/sort.h):
/// round_up(n * sizeof(Key), 128) + round_up(n * sizeof(Value), 128) + CUB's DoubleBuffer query.
template <class Key, class Value>
std::size_t thrust_temp_bytes(std::size_t n, cudaStream_t stream) {
  using K = cub_type_t<Key>;
  const auto count = static_cast<std::ptrdiff_t>(n);  // thrust's Size: the iterators' difference type
  std::size_t cub_bytes = 0;
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  const int bits = static_cast<int>(sizeof(Key) * 8);
  if constexpr (has_values<Value>) {
    using V = cub_type_t<Value>;
    cub::DoubleBuffer<V> values(nullptr, nullptr);
    ONEPASS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, keys, values, count, 0, bits, stream));
  } else {
    ONEPASS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, keys, count, 0, bits, stream));
  }
  auto round128 = [](std::size_t b) { return (b + 127) / 128 * 128; };
  return round128(n * sizeof(Key)) + (has_values<Value> ? round128(n * sizeof(Value)) : 0) + cub_bytes;
}

struct thrust_sort_impl {
  /// The shapes of the recorded experiments (not grown for keys_i64).
  static constexpr bool supports(registry::sort_shape s) {
    using shape = registry::sort_shape;
    return s == shape::keys_u32 || s == shape::pairs_u32_u32 || s == shape::keys_u64 || s == shape::pairs_u64_u64 ||
           s == shape::keys_f32;
  }

  template <class Key, class Value>
  static void run(const char* fn, sort_call<Key, Value>& c) {
    require(c.bits.begin == 0 && c.bits.end == sizeof(Key) * 8, fn, "begin_bit/end_bit",
            "are not supported by thrust::sort (it sorts on all " + std::to_string(sizeof(Key) * 8) +
                " key bits): use begin_bit = 0 and end_bit = 0 or " + std::to_string(sizeof(Key) * 8) + ", got [" +
                std::to_string(c.bits.begin) + ", " + std::to_string(c.bits.end) + ")");
    const std::size_t arena_bytes = c.n == 0 ? 0 : thrust_temp_bytes<Key, Value>(c.n, c.stream) + 4 * arena_alignment;
    if (sort_size_query<true>(fn, c, arena_bytes)) return;
    if (c.n == 0) return;
    arena_allocator allocator(c.temp, c.temp_bytes, fn);
    const auto policy = thrust::cuda::par_nosync(allocator).on(c.stream);
    try {
      if constexpr (has_values<Value>) {
        if (c.descending)
          thrust::stable_sort_by_key(policy, c.keys_out, c.keys_out + c.n, c.values_out, thrust::greater<Key>());
        else
          thrust::stable_sort_by_key(policy, c.keys_out, c.keys_out + c.n, c.values_out, thrust::less<Key>());
      } else {
        if (c.descending)
          thrust::sort(policy, c.keys_out, c.keys_out + c.n, thrust::greater<Key>());
        else
          thrust::sort(policy, c.keys_out, c.keys_out + c.n, thrust::less<Key>());
      }
    } catch (const runtime_failure&) {
      throw;
    } catch (const std::exception& e) {  // thrust::system_error from a failed CUDA call inside thrust
      throw runtime_failure(std::string(fn) + ": thrust sort failed: " + e.what());
    }
    ONEPASS_CUDA_CHECK_LAUNCH();
  }
};

const bool thrust_sort_registered = [] {
  sort_family f{"thrust_sort", "thrust::sort",
                "thrust::sort / thrust::stable_sort_by_key in place with par_nosync.on(stream) and the caller's "
                "temporary storage (CUB radix sort inside, 64-bit count, DoubleBuffer); full key width only"};
  f.in_place = true;
  f.float_zeros_equal = true;
  register_gpu_sort_all_shapes<thrust_sort_impl>(f);
  return true;
}();

}  // namespace
}  // namespace onepass::baselines::gpu
