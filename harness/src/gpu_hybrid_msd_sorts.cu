// Registers the hybrid MSD radix sort (sort/hybrid_msd.cuh, after Stehle & Jacobsen's
// HRS) as "hybrid_msd" and onepass::sort::gpu::sort_keys / sort_pairs (sort/sort.cuh:
// onesweep or the hybrid sort, chosen per call) as "onepass_sort", for every
// registry::sort_shape, through their out-of-place APIs (the input is not written; n keys and values of scratch come out of
// the temporary storage; each API's own protocol checks the call) and
// registry/gpu_sort_adapter.cuh, as every GPU sort baseline. onepass_sort's entry returns the
// algorithm each call ran (registry::gpu_sort_fn).
#include <cuda_runtime.h>

#include "onepass/harness/registry/gpu_sort_adapter.cuh"
#include "onepass/sort/hybrid_msd.cuh"
#include "onepass/sort/sort.cuh"

namespace {
namespace reg = onepass::registry;
namespace gpu = onepass::sort::gpu;

struct hybrid_impl {
  template <class Key, class Value>
  static void run(const char*, reg::sort_call<Key, Value>& c) {
    namespace hm = onepass::sort::gpu::hybrid_msd;
    if constexpr (reg::has_values<Value>)
      hm::sort_pairs(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.values_in, c.values_out, c.n, c.bits.begin,
                     c.bits.end, c.descending, c.stream);
    else
      hm::sort_keys(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.n, c.bits.begin, c.bits.end, c.descending,
                    c.stream);
  }
};

/// Returns the algorithm onepass::sort::gpu::sort_keys / sort_pairs ran (registry::gpu_sort_fn), so that a caller logs
/// it without running the selection a second time.
struct selected_impl {
  template <class Key, class Value>
  static const char* run(const char*, reg::sort_call<Key, Value>& c) {
    if constexpr (reg::has_values<Value>)
      return gpu::to_string(gpu::sort_pairs(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.values_in, c.values_out,
                                            c.n, c.bits.begin, c.bits.end, c.descending, c.stream));
    else
      return gpu::to_string(gpu::sort_keys(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.n, c.bits.begin,
                                           c.bits.end, c.descending, c.stream));
  }
};

const bool registered = [] {
  reg::register_gpu_sort_all_shapes<hybrid_impl>(
      "hybrid_msd", "Hybrid MSD (onepass, after HRS)",
      "Hybrid MSD radix sort after Stehle & Jacobsen (SIGMOD 2017) §4: 8-bit MSD levels (bucket histogram, coalesced "
      "scatter), buckets of <= 6144 keys finished in shared memory, small buckets batched; bookkeeping on the device");
  reg::register_gpu_sort_all_shapes<selected_impl>(
      "onepass_sort", "onepass::sort (selector)",
      "onepass::sort: onesweep or the hybrid MSD sort per call, chosen from key width, value width, n, the bit range "
      "and a 2^14-key sample's top-16-bit prefixes (sort/sort.cuh)");
  return true;
}();
}  // namespace
