// baselines/cpu/std_stable_sort.cpp — "std_stable_sort": the oracle every sort is tested
// against (stable_sort_oracle, <onepass_baselines/cpu/stable_sort_oracle.hpp>: std::stable_sort
// of indices by the transformed key field, then a gather). Sequential; every registry shape;
// begin_bit/end_bit, descending.
#include "onepass/harness/registry/cpu_sort_adapter.hpp"
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"

namespace onepass::baselines {
namespace {

struct std_stable_sort_impl {
  template <class Key, class Value>
  static void run(const Key* ki, Key* ko, const Value* vi, Value* vo, std::size_t n, const registry::sort_params& p) {
    stable_sort_oracle<Key, Value>(ki, ko, vi, vo, n, p.begin_bit, p.end_bit, p.descending);
  }
};

const bool std_stable_sort_registered =
    (registry::register_cpu_sort_all_shapes<std_stable_sort_impl>(
         "std_stable_sort", "std::stable_sort (oracle)",
         "std::stable_sort of indices by the order-preserving key field, then a gather (the tests' oracle)"),
     true);

}  // namespace
}  // namespace onepass::baselines
