// Registers the library's Onesweep LSD radix sort (sort/onesweep.cuh, 8-bit digits)
// for every registry::sort_shape (uint32 keys: Fig. 9; uint32 keys + uint32 values: Fig.
// 10; uint64 keys: Fig. 11; uint64 pairs and float keys: sort_headline), in its two
// configurations: "onesweep" (out-of-place API: the input is not written, one n-sized
// ping-pong buffer in the temporary storage) and "onesweep_db" (the double_buffer API:
// an in-place registry entry, registry::sort_entry::in_place; the alternate buffers come
// out of the temporary storage, and when the sorted data ends in them, i.e. after an odd
// number of binning passes, it is copied back inside the call).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/registry.hpp"
#include "onepass/sort/onesweep.cuh"

namespace {
namespace reg = onepass::registry;
namespace onesweep = onepass::sort::onesweep;
namespace protocol = onepass::protocol;

constexpr unsigned digit_bits = 8;

// params.end_bit == 0 means the key's full width.
template <class Key>
unsigned end_bit_of(const reg::sort_params& p) {
  return p.end_bit == 0 ? static_cast<unsigned>(sizeof(Key) * 8) : p.end_bit;
}

template <class Key>
void keys_only(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out, const void*, void*,
               std::size_t n, const reg::sort_params& p, void* stream) {
  onesweep::sort_keys<digit_bits>(temp, temp_bytes, static_cast<const Key*>(keys_in), static_cast<Key*>(keys_out), n,
                                  p.begin_bit, end_bit_of<Key>(p), p.descending, static_cast<cudaStream_t>(stream));
}

template <class Key, class Value>
void pairs(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out, const void* values_in,
           void* values_out, std::size_t n, const reg::sort_params& p, void* stream) {
  onesweep::sort_pairs<digit_bits>(temp, temp_bytes, static_cast<const Key*>(keys_in), static_cast<Key*>(keys_out),
                                   static_cast<const Value*>(values_in), static_cast<Value*>(values_out), n,
                                   p.begin_bit, end_bit_of<Key>(p), p.descending, static_cast<cudaStream_t>(stream));
}

/// "onesweep_db": the double_buffer API in place on keys_out (values_out); Value = void
/// for keys-only. Temporary storage: the sort's, then n alternate keys (and values).
template <class Key, class Value>
void double_buffer_in_place(const char* fn, void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                            const void* values_in, void* values_out, std::size_t n, const reg::sort_params& p,
                            void* stream) {
  constexpr bool has_values = !std::is_void_v<Value>;
  using V = std::conditional_t<has_values, Value, std::uint32_t>;
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned end = end_bit_of<Key>(p);
  std::size_t sort_bytes = 0;
  onesweep::double_buffer<Key> keys;
  onesweep::double_buffer<V> values;
  if constexpr (has_values)
    onesweep::sort_pairs<digit_bits>(nullptr, sort_bytes, keys, values, n, p.begin_bit, end, p.descending, s);
  else
    onesweep::sort_keys<digit_bits>(nullptr, sort_bytes, keys, n, p.begin_bit, end, p.descending, s);
  const protocol::alternate_buffers_layout layout(sort_bytes, n, sizeof(Key), has_values ? sizeof(V) : 0);
  const std::size_t required = layout.total;
  if (protocol::answer_query(temp, temp_bytes, required)) return;
  protocol::check_temp_bytes(fn, temp_bytes, required);
  if (n == 0) return;
  onepass::require(keys_in == keys_out, fn, "keys_in", "must equal keys_out (an in-place sort)");
  if constexpr (has_values)
    onepass::require(values_in == values_out, fn, "values_in", "must equal values_out (an in-place sort)");
  unsigned char* base = protocol::aligned_start(temp);
  keys = onesweep::double_buffer<Key>(static_cast<Key*>(keys_out), reinterpret_cast<Key*>(base + layout.keys));
  std::size_t bytes = sort_bytes;
  if constexpr (has_values) {
    values = onesweep::double_buffer<V>(static_cast<V*>(values_out), reinterpret_cast<V*>(base + layout.values));
    onesweep::sort_pairs<digit_bits>(base, bytes, keys, values, n, p.begin_bit, end, p.descending, s);
  } else {
    onesweep::sort_keys<digit_bits>(base, bytes, keys, n, p.begin_bit, end, p.descending, s);
  }
  if (keys.selector != 0) {
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(keys_out, keys.current(), n * sizeof(Key), cudaMemcpyDeviceToDevice, s));
    if constexpr (has_values)
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(values_out, values.current(), n * sizeof(V), cudaMemcpyDeviceToDevice, s));
  }
}

template <class Key, class Value>
reg::gpu_sort_fn double_buffer_entry(reg::sort_shape shape) {
  const std::string fn = std::string("onesweep_db (gpu, ") + reg::to_string(shape) + ")";
  return [fn](void* temp, std::size_t& temp_bytes, const void* ki, void* ko, const void* vi, void* vo, std::size_t n,
              const reg::sort_params& p, void* stream) {
    double_buffer_in_place<Key, Value>(fn.c_str(), temp, temp_bytes, ki, ko, vi, vo, n, p, stream);
  };
}

constexpr const char* label = "Onesweep (onepass)";
constexpr const char* description =
    "Onesweep LSD radix sort (Adinets & Merrill §3): upfront histogram, 8-bit digits, one chained-scan "
    "digit-binning pass per place with decoupled look-back";
constexpr const char* db_label = "Onesweep (onepass, double buffer)";
constexpr const char* db_description =
    "onepass Onesweep through its double_buffer API, in place with the alternate buffers in the temporary storage";

void add(reg::sort_shape shape, reg::gpu_sort_fn out_of_place, reg::gpu_sort_fn in_place) {
  reg::add_sort(reg::sort_entry{"onesweep", reg::device::gpu, shape, label, description, /*run=*/{},
                                /*gpu_run=*/std::move(out_of_place)});
  reg::add_sort(reg::sort_entry{"onesweep_db", reg::device::gpu, shape, db_label, db_description, /*run=*/{},
                                /*gpu_run=*/std::move(in_place), /*in_place=*/true});
}

const bool registered = [] {
  using shape = reg::sort_shape;
  add(shape::keys_u32, keys_only<std::uint32_t>, double_buffer_entry<std::uint32_t, void>(shape::keys_u32));
  add(shape::pairs_u32_u32, pairs<std::uint32_t, std::uint32_t>,
      double_buffer_entry<std::uint32_t, std::uint32_t>(shape::pairs_u32_u32));
  add(shape::keys_u64, keys_only<std::uint64_t>, double_buffer_entry<std::uint64_t, void>(shape::keys_u64));
  add(shape::pairs_u64_u64, pairs<std::uint64_t, std::uint64_t>,
      double_buffer_entry<std::uint64_t, std::uint64_t>(shape::pairs_u64_u64));
  add(shape::keys_f32, keys_only<float>, double_buffer_entry<float, void>(shape::keys_f32));
  return true;
}();
}  // namespace
