// onepass/sort/hybrid_msd/plan.cuh — the hybrid MSD radix sort's plan (temporary
// storage, launch geometry, the levels' launch sequence) and the argument checks of the
// public entry points of onepass/sort/hybrid_msd.cuh. Include onepass/sort/hybrid_msd.cuh.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/sort/hybrid_msd/common.cuh"
#include "onepass/sort/hybrid_msd/levels.cuh"
#include "onepass/sort/hybrid_msd/local_finish.cuh"

namespace onepass::sort::gpu::hybrid_msd::detail {

/// The kernels and temporary storage of one hybrid MSD sort of n keys of type Key
/// (values of type Value; no_values for keys-only), bits [begin_bit, end_bit).
template <class Key, class Value>
class plan {
 public:
  using word = std::conditional_t<std::is_same_v<Value, no_values>, no_values, value_word<Value>>;
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  static constexpr int tile_items = tile_block * tile_items_per_thread<Key, word>;

  plan(std::uint64_t n, unsigned begin_bit, unsigned end_bit, bool descending)
      : n_(n), begin_bit_(begin_bit), end_bit_(end_bit), descending_(descending) {
    levels_ = (end_bit - begin_bit + digit_bits - 1) / digit_bits;
    max_buckets_ = n / (local_max + 1) + 1;
    max_tiles_ = (n + tile_items - 1) / tile_items + max_buckets_;
    max_windows_ = n / window_items + max_buckets_ + 1;
    max_segments_ = n / (window_items + 1) + 2;
    max_large_segments_ = n / (small_max + 1) + 2;
    matrix_entries_ = max_tiles_ * radix + 1;
    max_chunks_ = (matrix_entries_ + scan_chunk - 1) / scan_chunk;
  }

  /// Global levels (MSD digit places) at most; the number run depends on the keys.
  unsigned max_levels() const { return levels_; }
  /// True when the input goes straight to the local finish (n <= local_max).
  bool local_only() const { return n_ <= local_max; }

  std::size_t temp_bytes() const {
    protocol::temp_layout layout;
    for (std::size_t part : parts()) layout.add(part);
    return layout.total();
  }

  /// Enqueues the sort: keys.in -> keys.out (values alike), scratch buffers of n keys
  /// (values) in keys.scratch (values.scratch); keys.in may equal keys.out.
  void run(void* d_temp, buffers<Key> keys, buffers<word> values, cudaStream_t stream) const {
    if (n_ == 0) return;
    if (descending_) {
      run_order<true>(d_temp, keys, values, stream);
    } else {
      run_order<false>(d_temp, keys, values, stream);
    }
  }

 private:
  std::array<std::size_t, 13> parts() const {
    const bool levels = n_ > local_max;
    return {levels ? matrix_entries_ * sizeof(std::uint32_t) : 0,
            levels ? matrix_entries_ * sizeof(unsigned long long) : 0,
            levels ? max_chunks_ * sizeof(unsigned long long) : 0,
            levels ? max_buckets_ * sizeof(bucket) : 0,
            levels ? max_buckets_ * sizeof(bucket) : 0,
            levels ? max_tiles_ * sizeof(std::uint32_t) : 0,
            levels ? max_tiles_ * sizeof(std::uint32_t) : 0,
            3 * sizeof(level_counts),
            max_segments_ * sizeof(segment),
            max_large_segments_ * sizeof(segment),
            levels ? max_windows_ * sizeof(unsigned long long) : 0,
            levels ? max_windows_ * sizeof(unsigned long long) : 0,
            levels ? max_windows_ * sizeof(std::uint32_t) : 0};
  }

  /// Whether a whole input of (small_max, lean_max] keys takes the lean shape (common.cuh):
  /// 4-byte keys, with or without values. 8-byte keys would double their passes (u64 keys,
  /// q = 1, 4603 keys: 16.3 us in the large shape, 24.6 in the lean one: scripts/
  /// bench_local_finish.cu STUDY=3 at 3374929, H100), so they keep the large shape.
  static constexpr bool lean_keys = sizeof(Key) == 4;
  /// Whether the lean shape runs straight LSD passes (local_sort_kernel's StraightLsd) rather
  /// than the predictor and the top-field order: keys take the straight passes; pairs take the
  /// predictor and prefetch their values (PrefetchValues). Chosen by scripts/
  /// bench_local_finish.cu STUDY=4 on an H100 (results/recorded/nvidia-h100/local-finish-5aa9fdd/):
  /// u32 pairs at 4097, 4603, 4864 and 4992 keys (CUB past its single tile at 4992), q = 1..16,
  /// CUB (the faster of its in/out and DoubleBuffer sorts, 32-bit count) / ours, lowest (geometric mean):
  /// 512 x 12 with the predictor (the large shape, used for pairs until then) 0.822 (1.325);
  /// 384 x 13 straight 0.908 without prefetch, 0.971 (1.547) with it; 384 x 13 with the
  /// predictor and prefetch 0.971 (1.569; q = 1 below 4992: 1.06-1.10, where straight passes gave 0.99-1.00).
  static constexpr bool lean_straight = !has_values;
  /// Whether a whole input of (window_items, small_max] = (2048, 4096] 4-byte keys, with or
  /// without values, takes straight LSD passes in the small shape (pairs prefetching their
  /// values) instead of the predictor. There, keys ANDed from q = 2 uniform words hold runs
  /// longer than local_tie_run that the predictor can miss: scripts/bench_local_finish.cu
  /// STUDY=5 on an H100 (results/recorded/nvidia-h100/sort-1929e32/), 3000 keys, q = 2: the
  /// predictor's top passes, scan and fallback took 21.1 us (u32 keys) and 25.6 us (u32 pairs)
  /// against CUB's best 12.3 and 14.3 (0.58 and 0.56 x), straight passes 12.0 and 13.6 (1.02,
  /// 1.05 x; pairs with prefetch). Straight, CUB (best) / ours over 3000 and 4096 keys, q = 1,
  /// 2, 8 (pairs q = 1, 2): keys 1.02-1.12, pairs 1.05-1.08; the predictor's q = 1 lead at
  /// 3000 (1.19 against 1.06) is given up for that. At 2048 keys both orders ran at 1.04-1.24
  /// (the predictor ahead at q = 1), so the predictor stays up to window_items.
  static constexpr bool small_straight = sizeof(Key) == 4;

  /// Enqueues the lean local finish of the whole input (`whole`) in lean_block x lean_items
  /// (only where lean_keys holds).
  template <bool Descending>
  void launch_lean(buffers<Key> keys, buffers<word> values, segment whole, cudaStream_t stream) const {
    if constexpr (lean_keys) {
      constexpr auto lean =
          local_sort_kernel<Key, word, Descending, lean_block, lean_items, 1, lean_straight, has_values>;
      constexpr std::size_t lean_shared = sizeof(local_stage<Key, word, lean_block, lean_items>);
      onepass::sort::gpu::onesweep::detail::allow_dynamic_shared<lean>(lean_shared);
      lean<<<1, lean_block, lean_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                    begin_bit_, end_bit_, end_bit_, whole);
    }
  }

  /// Enqueues the small shape's straight LSD passes over the whole input (only where
  /// small_straight holds; pairs prefetch their values).
  template <bool Descending>
  void launch_small_straight(buffers<Key> keys, buffers<word> values, segment whole, cudaStream_t stream) const {
    if constexpr (small_straight) {
      constexpr auto straight =
          local_sort_kernel<Key, word, Descending, small_block, small_items, 2, true, has_values>;
      constexpr std::size_t shared = sizeof(local_stage<Key, word, small_block, small_items>);
      onepass::sort::gpu::onesweep::detail::allow_dynamic_shared<straight>(shared);
      straight<<<1, small_block, shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                    begin_bit_, end_bit_, end_bit_, whole);
    }
  }

  template <bool Descending>
  void run_order(void* d_temp, buffers<Key> keys, buffers<word> values, cudaStream_t stream) const {
    const auto sizes = parts();
    protocol::temp_layout layout;
    unsigned char* ptr[13];
    for (int i = 0; i < 13; ++i) ptr[i] = protocol::temp_layout::at(d_temp, layout.add(sizes[i]));
    auto* matrix = reinterpret_cast<std::uint32_t*>(ptr[0]);
    auto* scanned = reinterpret_cast<unsigned long long*>(ptr[1]);
    auto* chunk_sums = reinterpret_cast<unsigned long long*>(ptr[2]);
    bucket* bucket_list[2] = {reinterpret_cast<bucket*>(ptr[3]), reinterpret_cast<bucket*>(ptr[4])};
    std::uint32_t* tile_bucket[2] = {reinterpret_cast<std::uint32_t*>(ptr[5]), reinterpret_cast<std::uint32_t*>(ptr[6])};
    auto* counts = reinterpret_cast<level_counts*>(ptr[7]);  // [0], [1]: levels (alternating); [2]: segments
    auto* segments = reinterpret_cast<segment*>(ptr[8]);
    auto* large_segments = reinterpret_cast<segment*>(ptr[9]);
    auto* window_lo = reinterpret_cast<unsigned long long*>(ptr[10]);
    auto* window_hi = reinterpret_cast<unsigned long long*>(ptr[11]);
    auto* window_sel = reinterpret_cast<std::uint32_t*>(ptr[12]);

    constexpr auto small = local_sort_kernel<Key, word, Descending, small_block, small_items, 2>;
    constexpr auto large = local_sort_kernel<Key, word, Descending, large_block, large_items, 1>;
    constexpr std::size_t small_shared = sizeof(local_stage<Key, word, small_block, small_items>);
    constexpr std::size_t large_shared = sizeof(local_stage<Key, word, large_block, large_items>);
    onepass::sort::gpu::onesweep::detail::allow_dynamic_shared<small>(small_shared);
    onepass::sort::gpu::onesweep::detail::allow_dynamic_shared<large>(large_shared);

    if (n_ <= local_max) {
      // One local sort of the whole input on all its bits: one launch, nothing copied.
      const segment whole{0, n_, in_buffer, 0};
      if (small_straight && n_ > window_items && n_ <= small_max) {
        launch_small_straight<Descending>(keys, values, whole, stream);
      } else if (n_ <= small_max) {
        small<<<1, small_block, small_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                        nullptr, begin_bit_, end_bit_, end_bit_, whole);
      } else if (lean_keys && n_ <= lean_max) {
        launch_lean<Descending>(keys, values, whole, stream);
      } else {
        // (lean_max, local_max] keys, or 8-byte keys above small_max: the large shape.
        large<<<1, large_block, large_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                        nullptr, begin_bit_, end_bit_, end_bit_, whole);
      }
      ONEPASS_CUDA_CHECK_LAUNCH();
      return;
    }

    // Grids of one wave (the kernels loop over the level's work, whose size is on the
    // device): a level with nothing left costs a launch per kernel.
    constexpr auto histogram = tile_histogram_kernel<Key, word, Descending>;
    constexpr auto scatter = scatter_kernel<Key, word, Descending>;
    constexpr auto classify = classify_kernel<Key>;
    constexpr auto copy = copy_kernel<Key, word>;
    constexpr auto reduce = scan_reduce_kernel<Key>;
    constexpr auto apply = scan_apply_kernel<Key>;
    using onepass::device::resident_grid;
    const unsigned histogram_grid = resident_grid<histogram>(tile_block, max_tiles_);
    const unsigned scatter_grid = resident_grid<scatter>(tile_block, max_tiles_);
    const unsigned classify_grid = resident_grid<classify>(radix, max_buckets_);
    const unsigned copy_grid = resident_grid<copy>(tile_block, max_tiles_);
    const unsigned reduce_grid = resident_grid<reduce>(scan_block, max_chunks_);
    const unsigned apply_grid = resident_grid<apply>(scan_block, max_chunks_);
    const unsigned small_grid = resident_grid<small>(small_block, max_windows_ + max_segments_, small_shared);
    const unsigned large_grid = resident_grid<large>(large_block, max_large_segments_, large_shared);

    const std::uint64_t tiles0 = (n_ + tile_items - 1) / tile_items;
    init_level_kernel<Key><<<onepass::device::stride_grid(tiles0, 256, 4096), 256, 0, stream>>>(
        bucket_list[0], tile_bucket[0], counts, n_, tiles0, in_buffer);
    ONEPASS_CUDA_CHECK_LAUNCH();
    for (unsigned level = 0; level < levels_; ++level) {
      const int cur = level % 2, nxt = 1 - cur;
      const unsigned top = end_bit_ - level * digit_bits;
      const unsigned shift = top - begin_bit_ > digit_bits ? top - digit_bits : begin_bit_;
      const std::uint32_t mask = (1u << (top - shift)) - 1u;
      const bool last = shift == begin_bit_;
      level_tables t{bucket_list[cur], tile_bucket[cur], counts + cur, matrix, scanned};
      histogram<<<histogram_grid, tile_block, 0, stream>>>(t, keys, shift, mask);
      ONEPASS_CUDA_CHECK_LAUNCH();
      reduce<<<reduce_grid, scan_block, 0, stream>>>(counts + cur, matrix, chunk_sums);
      ONEPASS_CUDA_CHECK_LAUNCH();
      scan_chunks_kernel<Key><<<1, 1024, 0, stream>>>(counts + cur, chunk_sums);
      ONEPASS_CUDA_CHECK_LAUNCH();
      apply<<<apply_grid, scan_block, 0, stream>>>(counts + cur, matrix, chunk_sums, scanned);
      ONEPASS_CUDA_CHECK_LAUNCH();
      scatter<<<scatter_grid, tile_block, 0, stream>>>(t, keys, values, shift, mask);
      ONEPASS_CUDA_CHECK_LAUNCH();
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(counts + nxt, 0, sizeof(level_counts), stream));
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(counts + 2, 0, sizeof(level_counts), stream));
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(window_lo, 0xFF, max_windows_ * sizeof(unsigned long long), stream));
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(window_hi, 0, max_windows_ * sizeof(unsigned long long), stream));
      classify<<<classify_grid, radix, 0, stream>>>(t, bucket_list[nxt], tile_bucket[nxt], counts + nxt, segments,
                                                    large_segments, counts + 2, window_lo, window_hi, window_sel,
                                                    tile_items);
      ONEPASS_CUDA_CHECK_LAUNCH();
      // The children share the bits at and above `top`: windows hold several children,
      // which differ in this level's digit, so the local sort covers [begin_bit, top).
      small<<<small_grid, small_block, small_shared, stream>>>(keys, values, window_lo, window_hi, window_sel,
                                                               counts + cur, segments, &counts[2].segments,
                                                               begin_bit_, shift, top, segment{});
      ONEPASS_CUDA_CHECK_LAUNCH();
      large<<<large_grid, large_block, large_shared, stream>>>(keys, values, nullptr, nullptr, nullptr, nullptr,
                                                               large_segments, &counts[2].large_segments,
                                                               begin_bit_, shift, top, segment{});
      ONEPASS_CUDA_CHECK_LAUNCH();
      if (last) {
        level_tables rest{bucket_list[nxt], tile_bucket[nxt], counts + nxt, matrix, scanned};
        copy<<<copy_grid, tile_block, 0, stream>>>(rest, keys, values);
        ONEPASS_CUDA_CHECK_LAUNCH();
      }
    }
  }

  std::uint64_t n_;
  unsigned begin_bit_, end_bit_;
  bool descending_;
  unsigned levels_ = 0;
  std::uint64_t max_buckets_ = 0, max_tiles_ = 0, max_windows_ = 0, max_segments_ = 0, matrix_entries_ = 0;
  std::uint64_t max_chunks_ = 0, max_large_segments_ = 0;
};

template <class Key, class Value>
void sort_copy(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
               const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
               bool descending, cudaStream_t stream) {
  namespace os = onepass::sort::gpu::onesweep::detail;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using word = typename plan<Key, Value>::word;
  os::check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  plan<Key, Value> p(n, begin_bit, end_bit, descending);
  const bool scratch = !p.local_only();
  // The plan's storage (from the first 256-byte boundary: its answer less the slack),
  // then the scratch buffers.
  protocol::temp_layout layout;
  layout.add(p.temp_bytes() - protocol::temp_alignment);
  const std::size_t keys_at = layout.add(scratch ? n * sizeof(Key) : 0);
  std::size_t values_at = 0;
  if constexpr (has_values) values_at = layout.add(scratch ? n * sizeof(Value) : 0);
  const std::size_t required = layout.total();
  const bool run = protocol::query_or_check(function, d_temp, temp_bytes, required, n == 0, [&] {
    os::check_pointer(function, "d_keys_in", keys_in);
    os::check_pointer(function, "d_keys_out", keys_out);
    os::check_disjoint(function, "d_keys_out", "d_keys_in", keys_out, keys_in, n);
    if constexpr (has_values) {
      os::check_pointer(function, "d_values_in", values_in);
      os::check_pointer(function, "d_values_out", values_out);
      os::check_disjoint(function, "d_values_out", "d_values_in", values_out, values_in, n);
    }
  });
  if (!run) return;
  buffers<Key> k{keys_in, keys_out, protocol::temp_layout::at<Key>(d_temp, keys_at)};
  buffers<word> v{};
  if constexpr (has_values)
    v = buffers<word>{reinterpret_cast<const word*>(values_in), reinterpret_cast<word*>(values_out),
                      protocol::temp_layout::at<word>(d_temp, values_at)};
  p.run(d_temp, k, v, stream);
}

template <class Key, class Value>
void sort_buffers(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
                  double_buffer<Value>* values, std::size_t n, unsigned begin_bit, unsigned end_bit, bool descending,
                  cudaStream_t stream) {
  namespace os = onepass::sort::gpu::onesweep::detail;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using word = typename plan<Key, Value>::word;
  os::check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  plan<Key, Value> p(n, begin_bit, end_bit, descending);
  const std::size_t required = p.temp_bytes();
  if (protocol::answer_query(d_temp, temp_bytes, required)) return;
  os::check_selector(function, "keys", keys.selector);
  if constexpr (has_values) os::check_selector(function, "values", values->selector);
  if (n == 0) return;
  os::check_pointer(function, "keys.buffers[0]", keys.buffers[0]);
  os::check_pointer(function, "keys.buffers[1]", keys.buffers[1]);
  os::check_disjoint(function, "keys.buffers[1]", "keys.buffers[0]", keys.buffers[1], keys.buffers[0], n);
  if constexpr (has_values) {
    os::check_pointer(function, "values.buffers[0]", values->buffers[0]);
    os::check_pointer(function, "values.buffers[1]", values->buffers[1]);
    os::check_disjoint(function, "values.buffers[1]", "values.buffers[0]", values->buffers[1], values->buffers[0], n);
  }
  protocol::check_temp_bytes(function, temp_bytes, required);
  // The sorted data ends in keys.current(): the input is read from it at level 0 (or by
  // the local sort, in place), then it is the output; the alternate is the scratch.
  buffers<Key> k{keys.current(), keys.current(), keys.alternate()};
  buffers<word> v{};
  if constexpr (has_values)
    v = buffers<word>{reinterpret_cast<const word*>(values->current()), reinterpret_cast<word*>(values->current()),
                      reinterpret_cast<word*>(values->alternate())};
  p.run(d_temp, k, v, stream);
}

}  // namespace onepass::sort::gpu::hybrid_msd::detail
