// baselines/gpu/cub_radix_sort.cu — "cub_onesweep": cub::DeviceRadixSort::SortKeys /
// SortPairs (and their *Descending forms) as shipped in the CUDA toolkit's CCCL. On sm_90
// CCCL 3.0's DispatchRadixSort takes the Onesweep path (policy_hub<...>::Policy900 sets
// ONESWEEP = true) for every input above one tile: this is the Onesweep paper's own code
// (Adinets & Merrill), as NVIDIA ships it today. Small inputs (one tile) take CUB's
// single-tile kernel, as they do for every CUB caller.
//
// Honours begin_bit/end_bit and descending (CUB supports both); stable. 32-bit offsets
// (NumItemsT = uint32) when n < 2^32, else 64-bit, as CUB's choose_offset_t picks for the
// caller's type. Temporary storage is CUB's own two-phase query (CUB keeps its alternate
// key/value buffers in it: the input is not written).
#include <cub/device/device_radix_sort.cuh>

#include <limits>

#include "gpu_sort_common.cuh"

namespace onepass::baselines::gpu {
namespace {

template <class Key, class Value, class NumItems>
cudaError_t cub_sort(const sort_call<Key, Value>& c, void* temp, std::size_t& bytes, NumItems n) {
  using K = cub_type_t<Key>;
  const auto* ki = reinterpret_cast<const K*>(c.keys_in);
  auto* ko = reinterpret_cast<K*>(c.keys_out);
  const int begin = static_cast<int>(c.bits.begin), end = static_cast<int>(c.bits.end);
  if constexpr (has_values<Value>) {
    using V = cub_type_t<Value>;
    const auto* vi = reinterpret_cast<const V*>(c.values_in);
    auto* vo = reinterpret_cast<V*>(c.values_out);
    return c.descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, ki, ko, vi, vo, n, begin, end, c.stream)
                        : cub::DeviceRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, n, begin, end, c.stream);
  } else {
    return c.descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, ki, ko, n, begin, end, c.stream)
                        : cub::DeviceRadixSort::SortKeys(temp, bytes, ki, ko, n, begin, end, c.stream);
  }
}

template <class Key, class Value>
cudaError_t cub_sort_any_n(const sort_call<Key, Value>& c, void* temp, std::size_t& bytes) {
  if (c.n <= std::numeric_limits<std::uint32_t>::max()) return cub_sort(c, temp, bytes, static_cast<std::uint32_t>(c.n));
  return cub_sort(c, temp, bytes, static_cast<std::uint64_t>(c.n));
}

struct cub_onesweep_impl {
  template <class Key, class Value>
  static void run(const char* fn, sort_call<Key, Value>& c) {
    std::size_t required = 0;
    ONEPASS_CUDA_CHECK(cub_sort_any_n(c, nullptr, required));
    if (sort_size_query(fn, c, required)) return;
    if (c.n == 0) return;
    std::size_t bytes = required;
    ONEPASS_CUDA_CHECK(cub_sort_any_n(c, c.temp, bytes));
  }
};

const bool cub_onesweep_registered =
    (register_gpu_sort_all_shapes<cub_onesweep_impl>(
         "cub_onesweep", "CUB onesweep (cub::DeviceRadixSort)",
         "cub::DeviceRadixSort::SortKeys/SortPairs from the toolkit's CCCL: Onesweep on sm_90 (the paper's code as "
         "shipped)"),
     true);

}  // namespace
}  // namespace onepass::baselines::gpu
