// examples/baselines/example_sort.cpp — a sort baseline in one file (the README's example):
// copy it into baselines/cpu/ and every CPU sort shape (u32/u64/f32 keys, pairs) is
// registered under one name for the experiments and tests.
// tests/cpu/test_example_baselines.cpp builds this file and checks it against the oracle.
// This one: std::stable_sort of (key, value) pairs by the library's order-preserving
// transform of the key (onepass/sort/key_traits.hpp), honouring begin_bit/end_bit and
// descending, so it sorts exactly as every other registered sort.
#include <algorithm>
#include <numeric>
#include <vector>

#include "onepass/harness/registry/cpu_sort_adapter.hpp"  // register_cpu_sort_all_shapes
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"        // stable_sort_oracle

namespace {

struct example_sort_impl {
  template <class Key, class Value>
  static void run(const Key* ki, Key* ko, const Value* vi, Value* vo, std::size_t n,
                  const onepass::registry::sort_params& p) {
    // The tests' oracle (a baseline too) already is a std::stable_sort of indices by the key
    // field; a real baseline would call its own algorithm here.
    onepass::baselines::stable_sort_oracle<Key, Value>(ki, ko, vi, vo, n, p.begin_bit, p.end_bit, p.descending);
  }
};

const bool example_sort_registered =
    (onepass::registry::register_cpu_sort_all_shapes<example_sort_impl>(
         "example_sort", "Example (std::stable_sort)", "the README's one-file sort baseline"),
     true);

}  // namespace
