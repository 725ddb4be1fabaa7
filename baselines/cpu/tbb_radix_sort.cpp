// baselines/cpu/tbb_radix_sort.cpp — "tbb_radix": the library's oneTBB parallel LSD radix
// sort (lib/include/onepass/sort/cpu_radix_sort.hpp), the CPU counterpart of the GPU sorts.
// Every registry shape; honours begin_bit/end_bit and descending; stable.
#include "onepass/error.hpp"
#include "onepass/harness/registry/cpu_sort_adapter.hpp"
#include "onepass/sort/cpu_radix_sort.hpp"

namespace onepass::baselines {
namespace {

struct tbb_radix_impl {
  template <class Key, class Value>
  static void run(const Key* ki, Key* ko, const Value* vi, Value* vo, std::size_t n, const registry::sort_params& p) {
    if (vi == nullptr && vo == nullptr) {
      sort::cpu::sort_keys(ki, ko, n, p.begin_bit, p.end_bit, p.descending);
    } else {
      sort::cpu::sort_pairs(ki, ko, vi, vo, n, p.begin_bit, p.end_bit, p.descending);
    }
  }
};

const bool tbb_radix_registered =
    (registry::register_cpu_sort_all_shapes<tbb_radix_impl>(
         "tbb_radix", "oneTBB LSD radix sort",
         "oneTBB parallel LSD radix sort, 8-bit digits, upfront digit counts of all places (skips trivial places), "
         "stable"),
     true);

}  // namespace
}  // namespace onepass::baselines
