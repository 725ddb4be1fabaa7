// baselines/gpu/cub_radix_sort.cu — cub::DeviceRadixSort as shipped in the CUDA toolkit's
// CCCL, in every configuration a user can choose that changes its speed, each its own
// registry entry (the experiments compare ours with the fastest of them, "CUB (best)"):
//
//   cub_onesweep_n32     SortKeys/SortPairs(d_keys_in, d_keys_out, ...), NumItemsT = uint32_t
//   cub_onesweep_n64     the same with NumItemsT = int64_t
//   cub_onesweep_db_n32  SortKeys/SortPairs(cub::DoubleBuffer, ...), NumItemsT = uint32_t
//   cub_onesweep_db_n64  the same with NumItemsT = int64_t
//
// Why they differ. CUB's dispatch picks its tuning by the offset type it is given: CCCL
// 3.0's sm_90 policy (OnesweepPolicyKey32 in cub/device/dispatch/tuning/
// tuning_radix_sort.cuh) runs u32 keys-only onesweep as 384 threads x 20 keys per thread
// with 32-bit offsets but x 19 with 64-bit ones (u32 pairs 23 vs 17; float keys one key
// fewer), so the offset type alone moves the speed by up to ~15 %. The DoubleBuffer
// overload (is_overwrite_okay = true) ping-pongs between the caller's two buffers and
// needs no n-sized temporary, while the in/out overload keeps the alternate buffers in
// its temporary storage and never writes the input. Descending and begin_bit/end_bit
// are the *Descending functions and CUB's own arguments; all forms are stable. On sm_90
// every input above one tile takes CUB's Onesweep path (the paper's own code, as NVIDIA
// ships it); one-tile inputs take its single-tile kernel.
//
// The DoubleBuffer entries are in-place registry entries (registry::sort_entry::in_place):
// keys_out holds the input on entry; the alternate buffers (n keys, n values) come out
// of the temporary storage, as a DoubleBuffer user allocates them once outside the loop.
// When CUB leaves the result in the alternate buffer (an odd number of passes, or the
// single-tile path) the entry copies it back to keys_out, inside the timed work. The _n32
// entries need n < 2^32 (NumItemsT = uint32_t) and throw onepass::error above.
#include <cub/device/device_radix_sort.cuh>

#include <limits>

#include "onepass/call_protocol.hpp"
#include "onepass_baselines/gpu/gpu_sort_common.cuh"

namespace onepass::baselines::gpu {
namespace {

template <class NumItems, class Key, class Value>
NumItems checked_count(const char* fn, const sort_call<Key, Value>& c) {
  require(c.n <= static_cast<std::size_t>(std::numeric_limits<NumItems>::max()), fn, "n",
          "must be at most " + std::to_string(std::numeric_limits<NumItems>::max()) +
              " for this configuration (NumItemsT of " + std::to_string(sizeof(NumItems) * 8) + " bits), got " +
              std::to_string(c.n));
  return static_cast<NumItems>(c.n);
}

/// The in/out overload (the input is not written).
template <class NumItems>
struct cub_in_out_impl {
  template <class Key, class Value>
  static cudaError_t sort(const sort_call<Key, Value>& c, void* temp, std::size_t& bytes, NumItems n) {
    using K = cub_type_t<Key>;
    const auto* ki = reinterpret_cast<const K*>(c.keys_in);
    auto* ko = reinterpret_cast<K*>(c.keys_out);
    const int begin = static_cast<int>(c.bits.begin), end = static_cast<int>(c.bits.end);
    if constexpr (has_values<Value>) {
      using V = cub_type_t<Value>;
      const auto* vi = reinterpret_cast<const V*>(c.values_in);
      auto* vo = reinterpret_cast<V*>(c.values_out);
      return c.descending
                 ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, ki, ko, vi, vo, n, begin, end, c.stream)
                 : cub::DeviceRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, n, begin, end, c.stream);
    } else {
      return c.descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, ki, ko, n, begin, end, c.stream)
                          : cub::DeviceRadixSort::SortKeys(temp, bytes, ki, ko, n, begin, end, c.stream);
    }
  }

  template <class Key, class Value>
  static void run(const char* fn, sort_call<Key, Value>& c) {
    const NumItems n = checked_count<NumItems>(fn, c);
    std::size_t required = 0;
    ONEPASS_CUDA_CHECK(sort(c, nullptr, required, n));
    if (sort_size_query(fn, c, required)) return;
    if (c.n == 0) return;
    std::size_t bytes = required;
    ONEPASS_CUDA_CHECK(sort(c, c.temp, bytes, n));
  }
};

/// The DoubleBuffer overload, in place on keys_out (values_out).
template <class NumItems>
struct cub_double_buffer_impl {
  template <class Key, class Value>
  static cudaError_t sort(const sort_call<Key, Value>& c, void* temp, std::size_t& bytes,
                          cub::DoubleBuffer<cub_type_t<Key>>& keys,
                          cub::DoubleBuffer<std::conditional_t<has_values<Value>, cub_type_t<Value>, int>>& values,
                          NumItems n) {
    const int begin = static_cast<int>(c.bits.begin), end = static_cast<int>(c.bits.end);
    if constexpr (has_values<Value>) {
      return c.descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys, values, n, begin, end, c.stream)
                          : cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, begin, end, c.stream);
    } else {
      (void)values;
      return c.descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, keys, n, begin, end, c.stream)
                          : cub::DeviceRadixSort::SortKeys(temp, bytes, keys, n, begin, end, c.stream);
    }
  }

  template <class Key, class Value>
  static void run(const char* fn, sort_call<Key, Value>& c) {
    using K = cub_type_t<Key>;
    using V = std::conditional_t<has_values<Value>, cub_type_t<Value>, int>;
    const NumItems n = checked_count<NumItems>(fn, c);
    std::size_t cub_bytes = 0;
    {
      cub::DoubleBuffer<K> keys(nullptr, nullptr);
      cub::DoubleBuffer<V> values(nullptr, nullptr);
      ONEPASS_CUDA_CHECK(sort(c, nullptr, cub_bytes, keys, values, n));
    }
    const protocol::alternate_buffers_layout layout(cub_bytes, c.n, sizeof(Key), has_values<Value> ? sizeof(Value) : 0);
    if (sort_size_query<true>(fn, c, layout.total)) return;
    if (c.n == 0) return;
    unsigned char* base = protocol::aligned_start(c.temp);
    K* out = reinterpret_cast<K*>(c.keys_out);
    cub::DoubleBuffer<K> keys(out, reinterpret_cast<K*>(base + layout.keys));
    cub::DoubleBuffer<V> values(nullptr, nullptr);
    if constexpr (has_values<Value>)
      values = cub::DoubleBuffer<V>(reinterpret_cast<V*>(c.values_out), reinterpret_cast<V*>(base + layout.values));
    std::size_t bytes = cub_bytes;
    ONEPASS_CUDA_CHECK(sort(c, base, bytes, keys, values, n));
    if (keys.Current() != out)
      ONEPASS_CUDA_CHECK(
          cudaMemcpyAsync(out, keys.Current(), c.n * sizeof(Key), cudaMemcpyDeviceToDevice, c.stream));
    if constexpr (has_values<Value>) {
      if (values.Current() != reinterpret_cast<V*>(c.values_out))
        ONEPASS_CUDA_CHECK(cudaMemcpyAsync(c.values_out, values.Current(), c.n * sizeof(Value),
                                           cudaMemcpyDeviceToDevice, c.stream));
    }
  }
};

/// A CUB sort through the (in, out) API: out of place, float keys with -0.0 == +0.0.
sort_family cub_in_out(const char* name, const char* label, const char* description) {
  sort_family f{name, label, description};
  f.in_place = false;
  f.float_zeros_equal = true;
  return f;
}

/// A CUB sort through cub::DoubleBuffer: in place, float keys with -0.0 == +0.0.
sort_family cub_double_buffer(const char* name, const char* label, const char* description) {
  sort_family f{name, label, description};
  f.in_place = true;
  f.float_zeros_equal = true;
  return f;
}

const bool cub_onesweep_registered =
    (register_gpu_sort_all_shapes<cub_in_out_impl<std::uint32_t>>(cub_in_out(
         "cub_onesweep_n32", "CUB DeviceRadixSort (in/out, 32-bit n)",
         "cub::DeviceRadixSort::SortKeys/SortPairs(in, out) with NumItemsT = uint32_t (Onesweep on sm_90; CCCL's "
         "32-bit-offset tuning); n < 2^32")),
     register_gpu_sort_all_shapes<cub_in_out_impl<std::int64_t>>(cub_in_out(
         "cub_onesweep_n64", "CUB DeviceRadixSort (in/out, 64-bit n)",
         "cub::DeviceRadixSort::SortKeys/SortPairs(in, out) with NumItemsT = int64_t (Onesweep on sm_90; CCCL's "
         "64-bit-offset tuning)")),
     register_gpu_sort_all_shapes<cub_double_buffer_impl<std::uint32_t>>(cub_double_buffer(
         "cub_onesweep_db_n32", "CUB DeviceRadixSort (DoubleBuffer, 32-bit n)",
         "cub::DeviceRadixSort::SortKeys/SortPairs(cub::DoubleBuffer) with NumItemsT = uint32_t, in place with the "
         "alternate buffers in the temporary storage; n < 2^32")),
     register_gpu_sort_all_shapes<cub_double_buffer_impl<std::int64_t>>(cub_double_buffer(
         "cub_onesweep_db_n64", "CUB DeviceRadixSort (DoubleBuffer, 64-bit n)",
         "cub::DeviceRadixSort::SortKeys/SortPairs(cub::DoubleBuffer) with NumItemsT = int64_t, in place with the "
         "alternate buffers in the temporary storage")),
     true);

}  // namespace
}  // namespace onepass::baselines::gpu
