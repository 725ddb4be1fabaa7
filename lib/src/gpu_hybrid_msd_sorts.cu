// Registers the hybrid MSD radix sort (sort/hybrid_msd.cuh, after Stehle & Jacobsen's
// HRS) as "hybrid_msd" and onepass::sort (sort/sort.cuh: onesweep or the hybrid sort,
// chosen per call) as "onepass_sort", for every registry::sort_shape, through their
// out-of-place APIs (the input is not written; n keys and values of scratch come out of
// the temporary storage).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "onepass/registry.hpp"
#include "onepass/sort/hybrid_msd.cuh"
#include "onepass/sort/sort.cuh"

namespace {
namespace reg = onepass::registry;

// params.end_bit == 0 means the key's full width.
template <class Key>
unsigned end_bit_of(const reg::sort_params& p) {
  return p.end_bit == 0 ? static_cast<unsigned>(sizeof(Key) * 8) : p.end_bit;
}

template <class Key, class Value>
void hybrid(void* temp, std::size_t& temp_bytes, const void* ki, void* ko, const void* vi, void* vo, std::size_t n,
            const reg::sort_params& p, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if constexpr (std::is_void_v<Value>) {
    (void)vi;
    (void)vo;
    onepass::sort::hybrid_msd::sort_keys(temp, temp_bytes, static_cast<const Key*>(ki), static_cast<Key*>(ko), n,
                                         p.begin_bit, end_bit_of<Key>(p), p.descending, s);
  } else {
    onepass::sort::hybrid_msd::sort_pairs(temp, temp_bytes, static_cast<const Key*>(ki), static_cast<Key*>(ko),
                                          static_cast<const Value*>(vi), static_cast<Value*>(vo), n, p.begin_bit,
                                          end_bit_of<Key>(p), p.descending, s);
  }
}

template <class Key, class Value>
void selected(void* temp, std::size_t& temp_bytes, const void* ki, void* ko, const void* vi, void* vo, std::size_t n,
              const reg::sort_params& p, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if constexpr (std::is_void_v<Value>) {
    (void)vi;
    (void)vo;
    onepass::sort::sort_keys(temp, temp_bytes, static_cast<const Key*>(ki), static_cast<Key*>(ko), n, p.begin_bit,
                             end_bit_of<Key>(p), p.descending, s);
  } else {
    onepass::sort::sort_pairs(temp, temp_bytes, static_cast<const Key*>(ki), static_cast<Key*>(ko),
                              static_cast<const Value*>(vi), static_cast<Value*>(vo), n, p.begin_bit,
                              end_bit_of<Key>(p), p.descending, s);
  }
}

template <class Key, class Value>
void add(reg::sort_shape shape) {
  reg::add_sort(reg::sort_entry{"hybrid_msd", reg::device::gpu, shape, "Hybrid MSD (onepass, after HRS)",
                                "Hybrid MSD radix sort after Stehle & Jacobsen (SIGMOD 2017) §4: 8-bit MSD levels "
                                "(bucket histogram, coalesced scatter), buckets of <= 6144 keys finished in shared "
                                "memory, small buckets batched; bookkeeping on the device",
                                /*run=*/{}, /*gpu_run=*/hybrid<Key, Value>});
  reg::add_sort(reg::sort_entry{"onepass_sort", reg::device::gpu, shape, "onepass::sort (selector)",
                                "onepass::sort: onesweep or the hybrid MSD sort per call, chosen from key width, "
                                "value width, n, the bit range and a 2^14-key sample's top-16-bit prefixes "
                                "(sort/sort.cuh)",
                                /*run=*/{}, /*gpu_run=*/selected<Key, Value>});
}

const bool registered = [] {
  using shape = reg::sort_shape;
  add<std::uint32_t, void>(shape::keys_u32);
  add<std::uint32_t, std::uint32_t>(shape::pairs_u32_u32);
  add<std::uint64_t, void>(shape::keys_u64);
  add<std::uint64_t, std::uint64_t>(shape::pairs_u64_u64);
  add<float, void>(shape::keys_f32);
  return true;
}();
}  // namespace
