// onepass/sort/onesweep/plan.cuh — the host side of Onesweep: the plan (temporary
// storage layout, launch geometry, the kernels of one sort in order), the argument
// checks of the call protocol, and the two drivers behind the public sorts
// (out-of-place with a ping-pong buffer; double buffer).
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", §3 (kernels per sort) and §4 (portions of 2^28 keys).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep/binning_kernel.cuh"
#include "onepass/sort/onesweep/digit_lookback.cuh"
#include "onepass/sort/onesweep/histogram_kernel.cuh"
#include "onepass/sort/onesweep/policy.cuh"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort::gpu::onesweep {

namespace detail {

// ----------------------------------------------------------------------------
// Host side.

// Temporary storage and argument checks: onepass/call_protocol.hpp; resident blocks:
// onepass/launch_geometry.cuh.
using device::resident_blocks;
using device::multiprocessors;
using protocol::temp_alignment;

/// Sets `kernel`'s dynamic shared memory limit to `bytes` (once per device; always,
/// since the kernel's static shared memory counts against the 48 KB default too).
template <auto Kernel>
void allow_dynamic_shared(std::size_t bytes) {
  constexpr int cached_devices = 64;
  static std::atomic<bool> done[cached_devices];
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  if (device < cached_devices && done[device].load(std::memory_order_relaxed)) return;
  ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  if (device < cached_devices) done[device].store(true, std::memory_order_relaxed);
}

/// The kernels of one onesweep sort and its temporary storage, exposed separately
/// for the Table 2 experiment (histogram time, one binning pass's time). Keys of type
/// Key, values of type Value (detail::no_values for keys-only), DigitBits per place.
///
/// Storage (bind()): bins = num_portions x num_places x 2^DigitBits 64-bit words
/// (portion 0's slice: the global histograms, then the digit starts), num_places
/// 32-bit place flags (dominant_place; crowded_place where a shape reads it), then one
/// digit_lookback of tiles_per_portion tiles. No key buffers. Policy: the binning
/// kernel's shape (binning_shape, with its tiny / small tiers when it names them; a
/// gated_launch for atomicOr-ranked shapes; the default is the sm_90 table's,
/// binning_policy: the public sorts choose per device, see with_device_policy). Order:
/// how float / double keys compare (key_traits.hpp; no effect on integer keys).
template <unsigned DigitBits, class Key, class Value = no_values,
          class Policy = binning_policy<sizeof(Key), value_bytes<Value>, DigitBits>,
          float_order Order = float_order::total_order>
class plan {
  static_assert(DigitBits >= min_digit_bits && DigitBits <= max_digit_bits, "onesweep: DigitBits in [5, 9]");

 public:
  using bits_type = typename radix_traits<Key>::bits_type;
  using policy = Policy;
  /// The shape of sorts of fewer than small_shape<Policy>::below keys (Policy when it
  /// names none).
  using small_policy = typename small_shape<Policy>::type;
  /// The shape of sorts of fewer than tiny_shape<Policy>::below keys (before the small one).
  using tiny_policy = typename tiny_shape<Policy>::type;
  using word = value_word<Value>;
  static constexpr unsigned radix = 1u << DigitBits;
  /// Whether the exclusive-sum kernel computes crowded_place: only when some tier's
  /// shape reads it (none of the defaults).
  static constexpr bool crowded_flags =
      reads_crowded_flag<Policy> || reads_crowded_flag<small_policy> || reads_crowded_flag<tiny_policy>;

  /// n keys, bits [begin_bit, end_bit) of the transformed words (checked by the
  /// public functions), `descending` order, portions of portion_items keys (in
  /// [1, 2^28]; the tests use small portions to exercise the chaining).
  plan(std::uint64_t n, unsigned begin_bit, unsigned end_bit, bool descending,
       std::uint64_t portion_items = default_portion_items)
      : n_(n), begin_bit_(begin_bit), end_bit_(end_bit), descending_(descending), portion_items_(portion_items) {
    require(portion_items >= 1 && portion_items <= default_portion_items, "onesweep::detail::plan", "portion_items",
            "must be in [1, 2^28], got " + std::to_string(portion_items));
    places_ = places_for(begin_bit, end_bit, DigitBits);
    portions_ = n == 0 ? 1 : (n + portion_items - 1) / portion_items;
    const std::uint64_t widest = n < portion_items ? n : portion_items;
    if constexpr (!std::is_same_v<tiny_policy, Policy>) tiny_ = n < tiny_shape<Policy>::below;
    if constexpr (!std::is_same_v<small_policy, Policy>) small_ = !tiny_ && n < small_shape<Policy>::below;
    const std::uint64_t tile_items =
        tiny_ ? tiny_policy::tile_items : small_ ? small_policy::tile_items : policy::tile_items;
    tiles_per_portion_ = widest == 0 ? 1 : (widest + tile_items - 1) / tile_items;
  }

  unsigned num_places() const { return places_; }
  std::uint64_t num_portions() const { return portions_; }
  std::uint64_t tiles_per_portion() const { return tiles_per_portion_; }

  /// Bytes of temporary storage bind() needs (any alignment of the pointer).
  std::size_t temp_bytes() const { return layout().total(); }

  /// Uses d_temp (at least temp_bytes() bytes of device memory) from now on.
  void bind(void* d_temp) {
    bins_ = protocol::temp_layout::at<std::uint64_t>(d_temp, 0);
    flags_ = protocol::temp_layout::at<std::uint32_t>(d_temp, bins_bytes());
    state_memory_ = protocol::temp_layout::at(d_temp, bins_bytes() + flags_bytes());
  }

  /// Enqueues: zero the global histograms, then the upfront histogram kernel over
  /// d_keys[0, n).
  void histogram(const Key* d_keys, cudaStream_t stream) const {
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(bins_, 0, std::size_t{places_} * radix * sizeof(std::uint64_t), stream));
    if (n_ == 0) return;
    if (descending_) {
      launch_histogram<true>(d_keys, stream);
    } else {
      launch_histogram<false>(d_keys, stream);
    }
  }

  /// Enqueues the exclusive-sum kernel (after histogram()).
  void exclusive_sum(cudaStream_t stream) const {
    exclusive_sum_kernel<DigitBits, crowded_flags>
        <<<places_, radix, 0, stream>>>(reinterpret_cast<unsigned long long*>(bins_), flags_, crowded_below);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }

  /// Enqueues the binning of digit place `place` (< num_places()) over all portions:
  /// keys_in[0, n) -> keys_out[0, n) (and values alike; nullptr for keys-only).
  /// Needs histogram() and exclusive_sum() earlier in stream order (once per sort).
  void binning_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                    cudaStream_t stream) const {
    if (n_ == 0) return;
    if constexpr (!std::is_same_v<tiny_policy, Policy>) {
      if (tiny_) return launch_pass_in_order<tiny_policy>(place, keys_in, keys_out, values_in, values_out, stream);
    }
    if constexpr (!std::is_same_v<small_policy, Policy>) {
      if (small_) return launch_pass_in_order<small_policy>(place, keys_in, keys_out, values_in, values_out, stream);
    }
    launch_pass_in_order<Policy>(place, keys_in, keys_out, values_in, values_out, stream);
  }

 private:
  std::size_t bins_bytes() const {
    return protocol::align_up(static_cast<std::size_t>(portions_) * places_ * radix * sizeof(std::uint64_t));
  }
  std::size_t flags_bytes() const { return protocol::align_up(std::size_t{places_} * sizeof(std::uint32_t)); }
  /// The bins, the place flags, then one portion's look-back descriptors.
  protocol::temp_layout layout() const {
    protocol::temp_layout l;
    l.add(bins_bytes());
    l.add(flags_bytes());
    l.add(state_bytes());
    return l;
  }
  std::size_t state_bytes() const { return digit_lookback<radix>::temp_bytes(tiles_per_portion_); }

  template <bool Descending>
  void launch_histogram(const Key* d_keys, cudaStream_t stream) const {
    constexpr auto kernel = histogram_kernel<DigitBits, Key, Descending, Order>;
    const std::uint64_t slots = resident_blocks<kernel>(histogram_block, 0);
    const std::uint64_t sms = multiprocessors();
    // Chunks: every SM gets the same number of blocks (per_sm of them, fewer when that
    // would make chunks smaller than histogram_min_chunk keys) and every block the same
    // number of equal chunks (rounds, so that no chunk exceeds histogram_max_chunk); a
    // chunk is a multiple of histogram_chunk_align keys. (Chunks rounded up to a whole
    // block step of 4096 u32 keys left 683 blocks for the 792 resident slots of an H100 at
    // 2^24 keys: 5 or 6 per SM, and the SMs with 6 set the kernel's time.)
    const std::uint64_t per_sm_most = slots / sms > 0 ? slots / sms : 1;
    const std::uint64_t per_sm_wanted = (n_ + sms * histogram_min_chunk - 1) / (sms * histogram_min_chunk);
    const std::uint64_t blocks = sms * (per_sm_wanted < per_sm_most ? per_sm_wanted : per_sm_most);
    const std::uint64_t rounds = (n_ + blocks * histogram_max_chunk - 1) / (blocks * histogram_max_chunk);
    std::uint64_t chunk = (n_ + blocks * rounds - 1) / (blocks * rounds);
    chunk = (chunk + histogram_chunk_align - 1) / histogram_chunk_align * histogram_chunk_align;
    if (chunk > histogram_max_chunk) chunk = histogram_max_chunk;
    const std::uint64_t chunks = (n_ + chunk - 1) / chunk;
    const unsigned grid = device::resident_grid(static_cast<unsigned>(slots), chunks);
    kernel<<<grid, histogram_block, 0, stream>>>(d_keys, n_, chunk, begin_bit_, end_bit_, places_,
                                                 reinterpret_cast<unsigned long long*>(bins_));
    ONEPASS_CUDA_CHECK_LAUNCH();
  }

  /// launch_pass with this plan's order (descending_).
  template <class Shape>
  void launch_pass_in_order(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in,
                            Value* values_out, cudaStream_t stream) const {
    if (descending_) {
      launch_pass<true, Shape>(place, keys_in, keys_out, values_in, values_out, stream);
    } else {
      launch_pass<false, Shape>(place, keys_in, keys_out, values_in, values_out, stream);
    }
  }

  /// Keys of portion q (< num_portions()).
  std::uint64_t portion_size(std::uint64_t q) const {
    const std::uint64_t begin = q * portion_items_;
    return n_ - begin < portion_items_ ? n_ - begin : portion_items_;
  }

  /// One launch of `Kernel` (a binning_kernel of Shape) over portion q at `place`:
  /// grid = the portion's tiles, Shape::block threads, binning_shared_bytes of dynamic
  /// shared memory; the portion's look-back descriptors are initialised first when
  /// `initialize` (the first launch of the portion's pass).
  template <auto Kernel, class Shape>
  void launch_portion(std::uint64_t q, unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in,
                      Value* values_out, bool initialize, cudaStream_t stream) const {
    constexpr std::size_t shared = binning_shared_bytes<DigitBits, Key, Value, Shape>();
    const unsigned shift = begin_bit_ + place * DigitBits;
    const unsigned pass_bits = end_bit_ - shift < DigitBits ? end_bit_ - shift : DigitBits;
    const std::uint64_t begin = q * portion_items_;
    const std::uint64_t items = portion_size(q);
    const std::uint64_t tiles = (items + Shape::tile_items - 1) / Shape::tile_items;
    const digit_lookback<radix> state(state_memory_, static_cast<std::uint32_t>(tiles));
    if (initialize) state.initialize(stream);
    const std::uint64_t* bins_in = bins_ + (q * places_ + place) * radix;
    std::uint64_t* bins_next = q + 1 < portions_ ? bins_ + ((q + 1) * places_ + place) * radix : nullptr;
    Kernel<<<static_cast<unsigned>(tiles), Shape::block, shared, stream>>>(
        keys_in, keys_out, reinterpret_cast<const word*>(values_in), reinterpret_cast<word*>(values_out), begin,
        static_cast<std::uint32_t>(items), shift, pass_bits, bins_in, bins_next, flags_ + place, state);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }

  /// One binning pass of Shape over every portion, in order. Every default shape (and
  /// every shape that ranks by ballots, match_any or dynamic): one launch of the binning
  /// kernel per portion. Shapes that rank with atomicOr: their launch_policy
  /// (gated_launch), whose kernels are instantiated only for those shapes.
  template <bool Descending, class Shape>
  void launch_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                   cudaStream_t stream) const {
    if constexpr (Shape::match != peer_match::atomic_or) {
      constexpr auto kernel = binning_kernel<DigitBits, Key, word, Descending, Order, Shape, 0u>;
      allow_dynamic_shared<kernel>(binning_shared_bytes<DigitBits, Key, Value, Shape>());
      for (std::uint64_t q = 0; q < portions_; ++q) {
        launch_portion<kernel, Shape>(q, place, keys_in, keys_out, values_in, values_out, true, stream);
      }
    } else {
      launch_gated_pass<Descending, Shape>(place, keys_in, keys_out, values_in, values_out, stream);
    }
  }

  /// gated_launch's pass (bench_onesweep.cu): portions of at least pair_min_items keys
  /// take the gated atomicOr kernel (Gate 1) and its __match_any_sync twin (Gate 2), the
  /// one that owns the place's crowded_place flag doing the work; smaller portions one
  /// launch, the dynamic kernel (small_dynamic) or the atomicOr kernel alone.
  template <bool Descending, class Shape>
  void launch_gated_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in,
                         Value* values_out, cudaStream_t stream) const {
    using launch = launch_policy<Shape>;
    using crowded_shape = typename Shape::template with_match<peer_match::match_any>;
    using dynamic_shape = typename Shape::template with_match<peer_match::dynamic>;
    using small_shape_t = std::conditional_t<launch::small_dynamic, dynamic_shape, Shape>;
    constexpr auto small_kernel = binning_kernel<DigitBits, Key, word, Descending, Order, small_shape_t, 0u>;
    constexpr auto kernel_gated = binning_kernel<DigitBits, Key, word, Descending, Order, Shape, 1u>;
    constexpr auto kernel_crowded = binning_kernel<DigitBits, Key, word, Descending, Order, crowded_shape, 2u>;
    // Portions are at most default_portion_items keys: a larger pair_min_items never pairs.
    constexpr bool may_pair = launch::pair_min_items <= default_portion_items;
    allow_dynamic_shared<small_kernel>(binning_shared_bytes<DigitBits, Key, Value, small_shape_t>());
    if constexpr (may_pair) {
      allow_dynamic_shared<kernel_gated>(binning_shared_bytes<DigitBits, Key, Value, Shape>());
      allow_dynamic_shared<kernel_crowded>(binning_shared_bytes<DigitBits, Key, Value, crowded_shape>());
    }
    for (std::uint64_t q = 0; q < portions_; ++q) {
      if (!may_pair || portion_size(q) < launch::pair_min_items) {
        launch_portion<small_kernel, small_shape_t>(q, place, keys_in, keys_out, values_in, values_out, true, stream);
      } else if constexpr (may_pair) {
        launch_portion<kernel_gated, Shape>(q, place, keys_in, keys_out, values_in, values_out, true, stream);
        launch_portion<kernel_crowded, crowded_shape>(q, place, keys_in, keys_out, values_in, values_out, false,
                                                      stream);
      }
    }
  }

  std::uint64_t n_;
  unsigned begin_bit_, end_bit_;
  bool descending_;
  std::uint64_t portion_items_;
  unsigned places_ = 0;
  std::uint64_t portions_ = 1;
  std::uint64_t tiles_per_portion_ = 1;
  bool tiny_ = false;   // n < tiny_shape<Policy>::below: the passes take tiny_policy
  bool small_ = false;  // otherwise n < small_shape<Policy>::below: the passes take small_policy
  std::uint64_t* bins_ = nullptr;
  std::uint32_t* flags_ = nullptr;
  void* state_memory_ = nullptr;
};

/// Checks the bit range for keys of `key_bits` bits (no end_bit == 0 convention).
inline void check_bits(const char* function, unsigned begin_bit, unsigned end_bit, unsigned key_bits) {
  protocol::check_bit_range(function, key_bits, begin_bit, end_bit);
}

/// A device pointer to n > 0 elements of T: not null, aligned to sizeof(T).
template <class T>
void check_pointer(const char* function, const char* argument, const T* p) {
  protocol::check_not_null(function, argument, p, "when num_items > 0");
  protocol::check_aligned(function, argument, p, sizeof(T));
}

/// a[0, n) (`argument`) and b[0, n) (`other`) must not overlap.
template <class T>
void check_disjoint(const char* function, const char* argument, const char* other, const T* a, const T* b,
                    std::uint64_t n) {
  protocol::check_disjoint(function, argument, a, other, b, n, sizeof(T));
}

inline void check_selector(const char* function, const char* argument, int selector) {
  require(selector == 0 || selector == 1, function, argument,
          "selector must be 0 or 1, got " + std::to_string(selector));
}

template <class Key, class Value>
constexpr void check_types() {
  static_assert(sizeof(radix_traits<Key>) >= 1,
                "onesweep: Key must be uint32_t, int32_t, float, uint64_t, int64_t or double");
  if constexpr (!std::is_same_v<Value, no_values>) {
    static_assert(std::is_trivially_copyable_v<Value> && (sizeof(Value) == 4 || sizeof(Value) == 8),
                  "onesweep: Value must be trivially copyable, 4 or 8 bytes");
  }
}

/// The binning-policy table of the current device (select_arch_table of its compute
/// capability), asked once per device.
inline arch_table device_arch_table() {
  constexpr int cached_devices = 64;
  static std::atomic<int> cached[cached_devices];  // 0: not asked yet, else table + 1
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  if (device < cached_devices) {
    const int known = cached[device].load(std::memory_order_relaxed);
    if (known != 0) return static_cast<arch_table>(known - 1);
  }
  int major = 0;
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  const arch_table t = select_arch_table(major);
  if (device < cached_devices) cached[device].store(static_cast<int>(t) + 1, std::memory_order_relaxed);
  return t;
}

/// The plan of the public sorts with binning policy Policy, floating-point keys ordered
/// by Order.
template <unsigned DigitBits, class Key, class Value, class Policy, float_order Order>
using sort_plan = plan<DigitBits, Key, Value, Policy, Order>;

/// Whether every shape a plan of Policy can launch (default, small and tiny tiers) fits
/// table T's shared memory per block (arch_shared_limit).
template <arch_table T, unsigned DigitBits, class Key, class Value, class Policy>
constexpr bool fits_table() {
  using p = plan<DigitBits, Key, Value, Policy>;
  constexpr std::size_t limit = arch_shared_limit(T);
  return binning_block_shared_bytes<DigitBits, Key, Value, typename p::policy>() <= limit &&
         binning_block_shared_bytes<DigitBits, Key, Value, typename p::small_policy>() <= limit &&
         binning_block_shared_bytes<DigitBits, Key, Value, typename p::tiny_policy>() <= limit;
}

/// Calls f(policy_tag<P>{}) with P the binning policy of the current device's table
/// (device_arch_table; see policy.cuh's file comment). Where the sm_90 and sm_80 tables
/// name the same policy, f is called with it without asking the device.
template <class P>
struct policy_tag {
  using type = P;
};
template <unsigned DigitBits, class Key, class Value, class F>
void with_device_policy(F&& f) {
  using sm90 = arch_binning_policy_t<arch_table::sm90, sizeof(Key), value_bytes<Value>, DigitBits>;
  using sm80 = arch_binning_policy_t<arch_table::sm80, sizeof(Key), value_bytes<Value>, DigitBits>;
  static_assert(fits_table<arch_table::sm90, DigitBits, Key, Value, sm90>(),
                "onesweep: a shape of the sm_90 table exceeds 227 KiB of shared memory per block");
  static_assert(fits_table<arch_table::sm80, DigitBits, Key, Value, sm80>(),
                "onesweep: a shape of the sm_80 table exceeds 99 KiB of shared memory per block");
  if constexpr (std::is_same_v<sm90, sm80>) {
    f(policy_tag<sm90>{});
  } else if (device_arch_table() == arch_table::sm90) {
    f(policy_tag<sm90>{});
  } else {
    f(policy_tag<sm80>{});
  }
}

/// sort_copy with binning policy Policy (bits checked).
template <unsigned DigitBits, class Key, class Value, class Policy, float_order Order>
void sort_copy_with(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                    const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
                    bool descending, cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  sort_plan<DigitBits, Key, Value, Policy, Order> p(n, begin_bit, end_bit, descending);
  const bool ping_pong = p.num_places() >= 2;
  // The plan's storage (from the first 256-byte boundary: its answer less the slack),
  // then the ping-pong buffers.
  protocol::temp_layout layout;
  layout.add(p.temp_bytes() - temp_alignment);
  const std::size_t keys_at = layout.add(ping_pong ? n * sizeof(Key) : 0);
  std::size_t values_at = 0;
  if constexpr (has_values) values_at = layout.add(ping_pong ? n * sizeof(Value) : 0);
  const std::size_t required = layout.total();
  const bool run = protocol::query_or_check(function, d_temp, temp_bytes, required, n == 0, [&] {
    check_pointer(function, "d_keys_in", keys_in);
    check_pointer(function, "d_keys_out", keys_out);
    check_disjoint(function, "d_keys_out", "d_keys_in", keys_out, keys_in, n);
    if constexpr (has_values) {
      check_pointer(function, "d_values_in", values_in);
      check_pointer(function, "d_values_out", values_out);
      check_disjoint(function, "d_values_out", "d_values_in", values_out, values_in, n);
    }
  });
  if (!run) return;

  p.bind(d_temp);
  Key* keys_tmp = protocol::temp_layout::at<Key>(d_temp, keys_at);
  Value* values_tmp = nullptr;
  if constexpr (has_values) values_tmp = protocol::temp_layout::at<Value>(d_temp, values_at);

  p.histogram(keys_in, stream);
  p.exclusive_sum(stream);
  const unsigned places = p.num_places();
  const Key* ksrc = keys_in;
  const Value* vsrc = values_in;
  for (unsigned place = 0; place < places; ++place) {
    // The last pass writes keys_out; before it the buffers alternate backwards.
    const bool to_out = (places - 1 - place) % 2 == 0;
    Key* kdst = to_out ? keys_out : keys_tmp;
    Value* vdst = to_out ? values_out : values_tmp;
    p.binning_pass(place, ksrc, kdst, has_values ? vsrc : nullptr, has_values ? vdst : nullptr, stream);
    ksrc = kdst;
    vsrc = vdst;
  }
}

/// Out-of-place sort: keys_in -> keys_out (values alike), ping-pong through temp.
template <unsigned DigitBits, class Key, class Value, float_order Order = float_order::total_order>
void sort_copy(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
               const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
               bool descending, cudaStream_t stream) {
  check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  check_item_bytes(function, n, sizeof(Key), value_bytes<Value>);  // before with_device_policy may ask the device
  with_device_policy<DigitBits, Key, Value>([&](auto tag) {
    using policy = typename decltype(tag)::type;
    sort_copy_with<DigitBits, Key, Value, policy, Order>(function, d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                         values_out, n, begin_bit, end_bit, descending, stream);
  });
}

/// sort_buffers with binning policy Policy (bits checked).
template <unsigned DigitBits, class Key, class Value, class Policy, float_order Order>
void sort_buffers_with(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
                       double_buffer<Value>* values, std::size_t n, unsigned begin_bit, unsigned end_bit,
                       bool descending, cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  sort_plan<DigitBits, Key, Value, Policy, Order> p(n, begin_bit, end_bit, descending);
  const std::size_t required = p.temp_bytes();
  if (protocol::answer_query(d_temp, temp_bytes, required)) return;
  check_selector(function, "keys", keys.selector);
  if constexpr (has_values) check_selector(function, "values", values->selector);
  if (n == 0) return;
  check_pointer(function, "keys.buffers[0]", keys.buffers[0]);
  check_pointer(function, "keys.buffers[1]", keys.buffers[1]);
  check_disjoint(function, "keys.buffers[1]", "keys.buffers[0]", keys.buffers[1], keys.buffers[0], n);
  if constexpr (has_values) {
    check_pointer(function, "values.buffers[0]", values->buffers[0]);
    check_pointer(function, "values.buffers[1]", values->buffers[1]);
    check_disjoint(function, "values.buffers[1]", "values.buffers[0]", values->buffers[1], values->buffers[0], n);
  }
  protocol::check_temp_bytes(function, temp_bytes, required);

  p.bind(d_temp);
  p.histogram(keys.current(), stream);
  p.exclusive_sum(stream);
  for (unsigned place = 0; place < p.num_places(); ++place) {
    if constexpr (has_values) {
      p.binning_pass(place, keys.current(), keys.alternate(), values->current(), values->alternate(), stream);
      values->selector ^= 1;
    } else {
      p.binning_pass(place, keys.current(), keys.alternate(), nullptr, nullptr, stream);
    }
    keys.selector ^= 1;
  }
}

/// Double-buffer sort: ping-pong between the caller's buffers.
template <unsigned DigitBits, class Key, class Value, float_order Order = float_order::total_order>
void sort_buffers(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
                  double_buffer<Value>* values, std::size_t n, unsigned begin_bit, unsigned end_bit, bool descending,
                  cudaStream_t stream) {
  check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  check_item_bytes(function, n, sizeof(Key), value_bytes<Value>);  // before with_device_policy may ask the device
  with_device_policy<DigitBits, Key, Value>([&](auto tag) {
    using policy = typename decltype(tag)::type;
    sort_buffers_with<DigitBits, Key, Value, policy, Order>(function, d_temp, temp_bytes, keys, values, n, begin_bit,
                                                            end_bit, descending, stream);
  });
}

}  // namespace detail

}  // namespace onepass::sort::gpu::onesweep
