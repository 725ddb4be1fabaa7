// Registers the library's Onesweep LSD radix sort (sort/onesweep.cuh, 8-bit digits)
// for every registry::sort_shape (uint32 keys: Fig. 9; uint32 keys + uint32 values: Fig.
// 10; uint64 keys: Fig. 11; uint64 pairs and float keys: sort_headline; int64 keys), in its two
// configurations: "onesweep" (out-of-place API: the input is not written, one n-sized
// ping-pong buffer in the temporary storage) and "onesweep_db" (the double_buffer API:
// an in-place registry entry, registry::sort_entry::in_place; the alternate buffers come
// out of the temporary storage, and when the sorted data ends in them, i.e. after an odd
// number of binning passes, it is copied back inside the call). Both through
// registry/gpu_sort_adapter.cuh, as every GPU sort baseline.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/harness/registry/gpu_sort_adapter.cuh"
#include "onepass/sort/onesweep.cuh"

namespace {
namespace reg = onepass::registry;
namespace onesweep = onepass::sort::gpu::onesweep;
namespace protocol = onepass::protocol;

constexpr unsigned digit_bits = 8;

/// "onesweep": the out-of-place API, whose own protocol checks the call.
struct out_of_place_impl {
  template <class Key, class Value>
  static void run(const char*, reg::sort_call<Key, Value>& c) {
    if constexpr (reg::has_values<Value>)
      onesweep::sort_pairs<digit_bits>(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.values_in, c.values_out, c.n,
                                       c.bits.begin, c.bits.end, c.descending, c.stream);
    else
      onesweep::sort_keys<digit_bits>(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.n, c.bits.begin, c.bits.end,
                                      c.descending, c.stream);
  }
};

/// "onesweep_db": the double_buffer API in place on keys_out (values_out). Temporary
/// storage: the sort's, then n alternate keys (and values).
struct double_buffer_impl {
  template <class Key, class Value>
  static void run(const char* fn, reg::sort_call<Key, Value>& c) {
    constexpr bool has_values = reg::has_values<Value>;
    using V = std::conditional_t<has_values, Value, std::uint32_t>;
    std::size_t sort_bytes = 0;
    onesweep::double_buffer<Key> keys;
    onesweep::double_buffer<V> values;
    if constexpr (has_values)
      onesweep::sort_pairs<digit_bits>(nullptr, sort_bytes, keys, values, c.n, c.bits.begin, c.bits.end,
                                       c.descending, c.stream);
    else
      onesweep::sort_keys<digit_bits>(nullptr, sort_bytes, keys, c.n, c.bits.begin, c.bits.end, c.descending,
                                      c.stream);
    const protocol::alternate_buffers_layout layout(sort_bytes, c.n, sizeof(Key), has_values ? sizeof(V) : 0);
    if (reg::sort_size_query</*InPlace=*/true>(fn, c, layout.total)) return;
    if (c.n == 0) return;
    unsigned char* base = protocol::aligned_start(c.temp);
    keys = onesweep::double_buffer<Key>(c.keys_out, reinterpret_cast<Key*>(base + layout.keys));
    std::size_t bytes = sort_bytes;
    if constexpr (has_values) {
      values = onesweep::double_buffer<V>(c.values_out, reinterpret_cast<V*>(base + layout.values));
      onesweep::sort_pairs<digit_bits>(base, bytes, keys, values, c.n, c.bits.begin, c.bits.end, c.descending,
                                       c.stream);
    } else {
      onesweep::sort_keys<digit_bits>(base, bytes, keys, c.n, c.bits.begin, c.bits.end, c.descending, c.stream);
    }
    if (keys.selector != 0) {
      ONEPASS_CUDA_CHECK(
          cudaMemcpyAsync(c.keys_out, keys.current(), c.n * sizeof(Key), cudaMemcpyDeviceToDevice, c.stream));
      if constexpr (has_values)
        ONEPASS_CUDA_CHECK(
            cudaMemcpyAsync(c.values_out, values.current(), c.n * sizeof(V), cudaMemcpyDeviceToDevice, c.stream));
    }
  }
};

const bool registered = [] {
  reg::register_gpu_sort_all_shapes<out_of_place_impl>(
      "onesweep", "Onesweep (onepass)",
      "Onesweep LSD radix sort (Adinets & Merrill §3): upfront histogram, 8-bit digits, one chained-scan "
      "digit-binning pass per place with decoupled look-back");
  reg::sort_family double_buffer{
      "onesweep_db", "Onesweep (onepass, double buffer)",
      "onepass Onesweep through its double_buffer API, in place with the alternate buffers in the temporary storage"};
  double_buffer.in_place = true;
  reg::register_gpu_sort_all_shapes<double_buffer_impl>(double_buffer);
  return true;
}();
}  // namespace
