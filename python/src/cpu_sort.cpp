// python/src/cpu_sort.cpp — the Python module's CPU sorts (cpu_sort.hpp), compiled with -O3.
#include "cpu_sort.hpp"

#include "onepass/sort/cpu_radix_sort.hpp"

namespace onepass_py {

template <class Key>
void cpu_sort_keys(const Key* keys_in, Key* keys_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
                   bool descending, bool numpy_order) {
  if (numpy_order) onepass::sort::cpu::sort_keys_numpy_order(keys_in, keys_out, n, begin_bit, end_bit, descending);
  else onepass::sort::cpu::sort_keys(keys_in, keys_out, n, begin_bit, end_bit, descending);
}

template <class Key, class Value>
void cpu_sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                    unsigned begin_bit, unsigned end_bit, bool descending, bool numpy_order) {
  if (numpy_order)
    onepass::sort::cpu::sort_pairs_numpy_order(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit,
                                                descending);
  else onepass::sort::cpu::sort_pairs(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit, descending);
}

template <class Key>
void cpu_argsort(const Key* keys_in, Key* keys_out, std::uint64_t* index_out, std::size_t n, unsigned begin_bit,
                 unsigned end_bit, bool descending, bool numpy_order) {
  onepass::sort::cpu::argsort(keys_in, keys_out, index_out, n, begin_bit, end_bit, descending, numpy_order);
}

#define ONEPASS_PY_CPU_SORT(Key)                                                                                   \
  template void cpu_sort_keys<Key>(const Key*, Key*, std::size_t, unsigned, unsigned, bool, bool);                 \
  template void cpu_sort_pairs<Key, std::uint32_t>(const Key*, Key*, const std::uint32_t*, std::uint32_t*,         \
                                                   std::size_t, unsigned, unsigned, bool, bool);                   \
  template void cpu_sort_pairs<Key, std::uint64_t>(const Key*, Key*, const std::uint64_t*, std::uint64_t*,         \
                                                   std::size_t, unsigned, unsigned, bool, bool);                   \
  template void cpu_argsort<Key>(const Key*, Key*, std::uint64_t*, std::size_t, unsigned, unsigned, bool, bool);
ONEPASS_PY_CPU_SORT(std::uint32_t)
ONEPASS_PY_CPU_SORT(std::int32_t)
ONEPASS_PY_CPU_SORT(float)
ONEPASS_PY_CPU_SORT(std::uint64_t)
ONEPASS_PY_CPU_SORT(std::int64_t)
ONEPASS_PY_CPU_SORT(double)
#undef ONEPASS_PY_CPU_SORT

}  // namespace onepass_py
