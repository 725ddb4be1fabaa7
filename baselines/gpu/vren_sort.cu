// baselines/gpu/vren_sort.cu — "vren": the VREN article's GPU radix sort (4-bit digits,
// count -> exclusive scan -> reorder per pass, 32-thread workgroups with warp votes),
// ported to CUDA in <onepass_baselines/gpu/vren_radix_sort.cuh>. Registered for the
// five shapes of the recorded experiments (vren_impl::supports); honours begin_bit/end_bit and descending;
// stable; n < 2^32.
#include "onepass_baselines/gpu/gpu_sort_common.cuh"
#include "onepass_baselines/gpu/vren_radix_sort.cuh"

namespace onepass::baselines::gpu {
namespace {

struct vren_impl {
  /// The shapes of the recorded experiments (not grown for keys_i64).
  static constexpr bool supports(registry::sort_shape s) {
    using shape = registry::sort_shape;
    return s == shape::keys_u32 || s == shape::pairs_u32_u32 || s == shape::keys_u64 || s == shape::pairs_u64_u64 ||
           s == shape::keys_f32;
  }

  template <class Key, class Value>
  static void run(const char* fn, sort_call<Key, Value>& c) {
    (void)fn;  // vren_sort_* name themselves in their messages
    if constexpr (has_values<Value>) {
      vren_sort_pairs(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.values_in, c.values_out, c.n, c.bits.begin,
                      c.bits.end, c.descending, c.stream);
    } else {
      vren_sort_keys(c.temp, c.temp_bytes, c.keys_in, c.keys_out, c.n, c.bits.begin, c.bits.end, c.descending,
                     c.stream);
    }
  }
};

const bool vren_registered = (register_gpu_sort_all_shapes<vren_impl>(
                                  "vren", "VREN (4-bit LSD, 32-thread workgroups)",
                                  "VREN article's radix sort ported to CUDA: 4-bit digits, per pass count -> "
                                  "exclusive scan -> reorder, 32-thread workgroups with warp ballots, stable"),
                              true);

}  // namespace
}  // namespace onepass::baselines::gpu
