// baselines/gpu/cub_reduce_then_scan.cu — "cub_reduce_then_scan": CUB's older LSD radix
// sort, the "CUB 1.10" design the Onesweep paper compares against (§2 Fig. 3, §4): per
// digit place an upsweep kernel (per-block digit counts), a scan kernel (over the spine of
// block counts) and a downsweep kernel (rank and scatter) — ~3n memory operations per
// pass, versus ~2n per pass (+ n once) for Onesweep.
//
// CUB 3.0 still compiles this path: DispatchRadixSort::Invoke() calls
// InvokeManyTiles<ActivePolicyT>(bool_constant_v<ActivePolicyT::ONESWEEP>), and the
// false_type overload runs InvokePasses(DeviceRadixSortUpsweepKernel,
// RadixSortScanBinsKernel, DeviceRadixSortDownsweepKernel) (cub/device/dispatch/
// dispatch_radix_sort.cuh, "Invoke upsweep-downsweep"). The stock policy_hub sets
// ONESWEEP = true on sm_90 (tuning_radix_sort.cuh, Policy900 / OnesweepSmallKeyTunedPolicy)
// so plain cub::DeviceRadixSort never takes it there. We select it by passing
// DispatchRadixSort our own policy hub, reduce_then_scan_hub below: a one-element policy
// chain (ChainedPolicy<900, P, P>: the same policy for every device) whose ONESWEEP is
// false (static_assert below) and whose upsweep / scan / downsweep / single-tile tunings are
// CUB's own SM80 (Ampere, the paper's A100 generation) tunings, taken from the stock hub's
// Policy800 — identical to the (unused) ones in its Policy900. So "CUB 1.10 style" here
// means the reduce-then-scan algorithm with today's tuning for it, compiled for sm_90: it
// is not the CUB 1.10 release itself (whose digit widths and tile sizes differed).
//
// Same call contract as cub_onesweep_n32 / _n64 (cub_radix_sort.cu): begin_bit/end_bit, descending,
// stable, the input is not written (is_overwrite_okay = false: CUB keeps the alternate
// buffers in the temporary storage and the last pass writes the output).
#include <cub/device/dispatch/dispatch_radix_sort.cuh>

#include <limits>

#include "onepass_baselines/gpu/gpu_sort_common.cuh"

namespace onepass::baselines::gpu {
namespace {

/// Policy hub for cub::DispatchRadixSort that turns Onesweep off.
template <class KeyT, class ValueT, class OffsetT>
struct reduce_then_scan_hub {
  using stock = typename cub::detail::radix::policy_hub<KeyT, ValueT, OffsetT>::Policy800;

  struct Policy900 : cub::ChainedPolicy<900, Policy900, Policy900> {
    static constexpr bool ONESWEEP = false;  // DispatchRadixSort::Invoke -> InvokeManyTiles(false_type) -> InvokePasses
    using HistogramPolicy = typename stock::HistogramPolicy;                // unused on this path
    using ExclusiveSumPolicy = typename stock::ExclusiveSumPolicy;          // unused on this path
    using OnesweepPolicy = typename stock::OnesweepPolicy;                  // unused on this path
    using ScanPolicy = typename stock::ScanPolicy;
    using DownsweepPolicy = typename stock::DownsweepPolicy;
    using AltDownsweepPolicy = typename stock::AltDownsweepPolicy;
    using UpsweepPolicy = typename stock::UpsweepPolicy;
    using AltUpsweepPolicy = typename stock::AltUpsweepPolicy;
    using SingleTilePolicy = typename stock::SingleTilePolicy;
    using SegmentedPolicy = typename stock::SegmentedPolicy;
    using AltSegmentedPolicy = typename stock::AltSegmentedPolicy;
  };
  using MaxPolicy = Policy900;
};

static_assert(!reduce_then_scan_hub<unsigned, cub::NullType, std::uint32_t>::MaxPolicy::ONESWEEP,
              "the reduce-then-scan baseline must not take CUB's onesweep path");
static_assert(!reduce_then_scan_hub<unsigned long long, cub::NullType, std::uint64_t>::MaxPolicy::ONESWEEP,
              "the reduce-then-scan baseline must not take CUB's onesweep path");
static_assert(!reduce_then_scan_hub<unsigned, unsigned, std::uint32_t>::MaxPolicy::ONESWEEP,
              "the reduce-then-scan baseline must not take CUB's onesweep path");

template <class Key, class Value, class Offset>
cudaError_t dispatch(const sort_call<Key, Value>& c, void* temp, std::size_t& bytes, Offset n) {
  using K = cub_type_t<Key>;
  using V = std::conditional_t<has_values<Value>, cub_type_t<Value>, cub::NullType>;
  using hub = reduce_then_scan_hub<K, V, Offset>;
  static_assert(!hub::MaxPolicy::ONESWEEP, "reduce-then-scan path only");
  cub::DoubleBuffer<K> keys(const_cast<K*>(reinterpret_cast<const K*>(c.keys_in)), reinterpret_cast<K*>(c.keys_out));
  cub::DoubleBuffer<V> values;
  if constexpr (has_values<Value>)
    values = cub::DoubleBuffer<V>(const_cast<V*>(reinterpret_cast<const V*>(c.values_in)),
                                  reinterpret_cast<V*>(c.values_out));
  const int begin = static_cast<int>(c.bits.begin), end = static_cast<int>(c.bits.end);
  // is_overwrite_okay = false: the input buffers are never written; the sorted data ends
  // up in the alternate buffers, i.e. keys_out / values_out (as cub::DeviceRadixSort::SortKeys).
  if (c.descending)
    return cub::DispatchRadixSort<cub::SortOrder::Descending, K, V, Offset, cub::detail::identity_decomposer_t,
                                  hub>::Dispatch(temp, bytes, keys, values, n, begin, end, false, c.stream);
  return cub::DispatchRadixSort<cub::SortOrder::Ascending, K, V, Offset, cub::detail::identity_decomposer_t,
                                hub>::Dispatch(temp, bytes, keys, values, n, begin, end, false, c.stream);
}

template <class Key, class Value>
cudaError_t dispatch_any_n(const sort_call<Key, Value>& c, void* temp, std::size_t& bytes) {
  if (c.n <= std::numeric_limits<std::uint32_t>::max()) return dispatch(c, temp, bytes, static_cast<std::uint32_t>(c.n));
  return dispatch(c, temp, bytes, static_cast<std::uint64_t>(c.n));
}

struct reduce_then_scan_impl {
  template <class Key, class Value>
  static void run(const char* fn, sort_call<Key, Value>& c) {
    std::size_t required = 0;
    ONEPASS_CUDA_CHECK(dispatch_any_n(c, nullptr, required));
    if (sort_size_query(fn, c, required)) return;
    if (c.n == 0) return;
    std::size_t bytes = required;
    ONEPASS_CUDA_CHECK(dispatch_any_n(c, c.temp, bytes));
  }
};

const bool cub_reduce_then_scan_registered = [] {
  sort_family f{"cub_reduce_then_scan", "CUB reduce-then-scan (CUB 1.10 style)",
                "CUB's upsweep/scan/downsweep LSD radix sort (DispatchRadixSort with a policy hub setting ONESWEEP = "
                "false, SM80 tunings): the paper's 'CUB 1.10' baseline design"};
  f.in_place = false;
  f.float_zeros_equal = true;
  register_gpu_sort_all_shapes<reduce_then_scan_impl>(f);
  return true;
}();

}  // namespace
}  // namespace onepass::baselines::gpu
