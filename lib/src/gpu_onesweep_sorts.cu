// Registers the library's Onesweep LSD radix sort (sort/onesweep.cuh, 8-bit digits)
// for the three shapes of the Onesweep paper's experiments: uint32 keys (Fig. 9),
// uint32 keys with uint32 values (Fig. 10) and uint64 keys (Fig. 11).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "onepass/registry.hpp"
#include "onepass/sort/onesweep.cuh"

namespace {
namespace reg = onepass::registry;
namespace onesweep = onepass::sort::onesweep;

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

constexpr const char* label = "Onesweep (onepass)";
constexpr const char* description =
    "Onesweep LSD radix sort (Adinets & Merrill §3): upfront histogram, 8-bit digits, one chained-scan "
    "digit-binning pass per place with decoupled look-back";

const reg::sort_registrar keys_u32{reg::sort_entry{"onesweep", reg::device::gpu, reg::sort_shape::keys_u32, label,
                                                   description, {}, keys_only<std::uint32_t>}};
const reg::sort_registrar pairs_u32_u32{reg::sort_entry{"onesweep", reg::device::gpu, reg::sort_shape::pairs_u32_u32,
                                                        label, description, {}, pairs<std::uint32_t, std::uint32_t>}};
const reg::sort_registrar keys_u64{reg::sort_entry{"onesweep", reg::device::gpu, reg::sort_shape::keys_u64, label,
                                                   description, {}, keys_only<std::uint64_t>}};
}  // namespace
