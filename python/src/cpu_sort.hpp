// python/src/cpu_sort.hpp — the CPU sorts of the Python module (onepass/sort/cpu_radix_sort.hpp),
// instantiated in cpu_sort.cpp. That file is compiled with -O3: nanobind builds the module's
// other sources with -Os, which makes the radix sort's passes up to ~2x slower.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onepass_py {

/// keys_out = keys_in sorted (onepass::sort::cpu::sort_keys; numpy_order: cpu::sort_keys_numpy_order).
/// Key: uint32, int32, float, uint64, int64 or double. Throws onepass::error as the library.
template <class Key>
void cpu_sort_keys(const Key* keys_in, Key* keys_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
                   bool descending, bool numpy_order);

/// cpu::sort_pairs (numpy_order: cpu::sort_pairs_numpy_order); Value: uint32 or uint64.
template <class Key, class Value>
void cpu_sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                    unsigned begin_bit, unsigned end_bit, bool descending, bool numpy_order);

/// cpu::argsort with uint64 indices (keys_out: the sorted keys).
template <class Key>
void cpu_argsort(const Key* keys_in, Key* keys_out, std::uint64_t* index_out, std::size_t n, unsigned begin_bit,
                 unsigned end_bit, bool descending, bool numpy_order);

}  // namespace onepass_py
