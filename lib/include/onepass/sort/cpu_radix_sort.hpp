// onepass/sort/cpu_radix_sort.hpp — the CPU counterpart of the GPU sorts: a oneTBB
// parallel LSD radix sort, onepass::sort::cpu:: sort_keys / sort_pairs (the argument order
// and output of the GPU onepass::sort::gpu::sort_keys / sort_pairs, sort.cuh, without temporary
// storage and stream), sort_keys_numpy_order / sort_pairs_numpy_order and argsort (issue 31
// naming: the device as a namespace, the count num_items; the old radix_sort_keys,
// radix_sort_pairs, radix_sort_*_numpy_order and radix_argsort stay one release as deprecated
// forwarders at the end of this file). (The std::stable_sort oracle the tests compare every
// sort with is a baseline: <onepass_baselines/cpu/stable_sort_oracle.hpp>.)
//
// It sorts by the order of key_traits.hpp: the unsigned order of ordered_bits(key,
// descending), restricted to bits [begin_bit, end_bit) (key_field), stable (keys equal on
// those bits keep their input order). Any key type with radix_traits (uint32, int32, float,
// uint64, int64, double); keys-only or key-value (any trivially copyable value type).
// Out of place: the inputs are not written; outputs must not overlap inputs.
// Floating-point keys: IEEE totalOrder by default (-0.0 before +0.0); the overloads whose
// first template argument is a float_order take digit_word<Order, Key>(ordered_bits(...))
// instead, so float_order::signed_zero_equal orders like cub::DeviceRadixSort (-0.0 ==
// +0.0, stable; key_traits.hpp) -- the same option as gpu::onesweep::sort_keys/sort_pairs.
// cpu::sort_keys_numpy_order / sort_pairs_numpy_order sort floats in NumPy's order (NaNs
// last, -0.0 == +0.0, stable) by reading each key's canonical form in place of the key;
// cpu::argsort makes the values 0..num_items-1 in its first pass (both: the Python package's sorts).
//
// Parallel LSD radix sort (cpu::sort_keys / cpu::sort_pairs). Digits of at most 11 bits:
// the sorted width w = end_bit - begin_bit is cut into P = ceil(w / 11) digit places of
// ceil(w / P) bits (uint32: 3 places of 11, 11, 10 bits; uint64: 6; inputs under 64 Ki keys
// use digits of at most 8 bits). The input is cut into B contiguous blocks, one per worker
// (B = the arena's concurrency, fewer for small inputs: at least 16 Ki keys a block), and
// every pass runs one tbb::parallel_for over the blocks with a static partition. One pass
// first counts the digits of every digit place over each block (the multiset of keys, hence
// the totals, never changes -- the Onesweep idea): a digit place where one digit holds all n
// keys leaves the order unchanged and is skipped. Each remaining pass: (1) per-block digit
// histograms (the first pass reuses the upfront counts), (2) offsets: block b's first slot for
// digit d = keys with a smaller digit + keys with digit d in blocks before b, (3) each block
// scatters its keys in input order through software write-combining buffers (one 64-byte
// line of keys per digit, written out a whole destination line at a time). Blocks in order,
// keys in order within a block: stable. Passes ping-pong between the output and one n-sized
// scratch array, arranged so that the last pass writes the output. Memory: n keys (+ n
// values) of scratch, and per block 2^11 lines of keys (+ values) of buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort {

namespace cpu_detail {

inline constexpr unsigned max_digit_bits = 11;        // inputs of at least small_input keys
inline constexpr unsigned small_digit_bits = 8;       // smaller inputs
inline constexpr std::size_t small_input = std::size_t{1} << 16;
inline constexpr std::size_t min_block = std::size_t{1} << 14;
inline constexpr std::size_t max_block = std::size_t{1} << 31;  // block counts fit uint32
inline constexpr std::size_t line_bytes = 64;

/// No values: keys-only sorts.
struct no_value {};
/// Values 0, 1, ..., n-1 (argsort): made in the first pass, never read.
template <class Index>
struct iota_value {
  using type = Index;
};

template <class Value>
struct value_traits {
  static constexpr bool pairs = true, iota = false;
  using type = Value;
};
template <>
struct value_traits<no_value> {
  static constexpr bool pairs = false, iota = false;
  using type = no_value;
};
template <class Index>
struct value_traits<iota_value<Index>> {
  static constexpr bool pairs = true, iota = true;
  using type = Index;
};

/// The word digits are taken from: digit_word<Order, Key>(ordered_bits(key, descending)),
/// computed without branches (flip = all ones when descending, else 0). NanLast: the key's
/// canonical form first (floats: every NaN -> the positive quiet NaN, -0.0 -> +0.0).
template <class Key, float_order Order, bool NanLast>
inline typename radix_traits<Key>::bits_type sort_word(Key key, typename radix_traits<Key>::bits_type flip) {
  using traits = radix_traits<Key>;
  using bits_type = typename traits::bits_type;
  using signed_type = std::make_signed_t<bits_type>;
  constexpr bits_type sign = bits_type{1} << (traits::bits - 1);
  bits_type b;
  std::memcpy(&b, &key, sizeof b);
  bits_type w;
  if constexpr (traits::is_floating) {
    if constexpr (NanLast) {
      constexpr bits_type exponent = static_cast<bits_type>(
          std::is_same_v<bits_type, std::uint32_t> ? std::uint64_t{0x7f800000u} : std::uint64_t{0x7ff0000000000000u});
      constexpr bits_type quiet_nan = static_cast<bits_type>(exponent | (exponent >> 1 & ~exponent));
      b = (b & ~sign) > exponent ? quiet_nan : b;  // every NaN -> +qNaN
      b = b == sign ? bits_type{0} : b;             // -0.0 -> +0.0
    }
    w = b ^ static_cast<bits_type>(static_cast<bits_type>(static_cast<signed_type>(b) >> (traits::bits - 1)) | sign);
  } else if constexpr (std::is_signed_v<Key>) {
    w = b ^ sign;
  } else {
    w = b;
  }
  return digit_word<Order, Key>(static_cast<bits_type>(w ^ flip));
}

/// Digit place p: bits [shift, shift + width) of the sort word.
struct place {
  unsigned shift, width;
  std::uint32_t mask() const { return (std::uint32_t{1} << width) - 1; }
};

/// Raw storage for `count` trivially copyable objects, line aligned; large buffers are
/// advised to use transparent huge pages (Linux).
template <class T>
struct raw_buffer {
  T* data = nullptr;
  std::size_t bytes = 0;
  raw_buffer() = default;
  explicit raw_buffer(std::size_t count) : bytes(std::max<std::size_t>(count * sizeof(T), 1)) {
    constexpr std::size_t huge = std::size_t{2} << 20;
    const bool big = bytes >= 4 * huge;
    const std::size_t align = big ? huge : line_bytes;
    bytes = (bytes + align - 1) / align * align;
    data = static_cast<T*>(::operator new(bytes, std::align_val_t{align}));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (big) (void)madvise(static_cast<void*>(data), bytes, MADV_HUGEPAGE);
#endif
    align_ = align;
  }
  raw_buffer(const raw_buffer&) = delete;
  raw_buffer& operator=(const raw_buffer&) = delete;
  ~raw_buffer() {
    if (data != nullptr) ::operator delete(static_cast<void*>(data), std::align_val_t{align_});
  }

 private:
  std::size_t align_ = line_bytes;
};

/// Copies count objects (count <= Line) from a buffer line to dst. A whole line goes out with
/// non-temporal stores for the 64-byte lines of dst it covers entirely (no read for
/// ownership of a line that is written whole), the rest with ordinary stores; the caller
/// fences (_mm_sfence) before the data is read.
template <class T, std::size_t Line>
inline void copy_line(T* dst, const T* src, std::size_t count) {
#if defined(__SSE2__)
  static_assert((Line * sizeof(T)) % 16 == 0, "whole lines of 16-byte vectors");
  constexpr std::size_t bytes = Line * sizeof(T);
  if (count == Line && bytes >= line_bytes && (reinterpret_cast<std::uintptr_t>(dst) & 15) == 0) {
    char* d = reinterpret_cast<char*>(dst);
    const char* s = reinterpret_cast<const char*>(src);
    const std::size_t head = (line_bytes - (reinterpret_cast<std::uintptr_t>(d) & (line_bytes - 1))) & (line_bytes - 1);
    const std::size_t body = (bytes - head) / line_bytes * line_bytes;
    std::size_t b = 0;
    for (; b < head; b += 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + b), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + b)));
    for (; b < head + body; b += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + b), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + b)));
    for (; b < bytes; b += 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + b), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + b)));
    return;
  }
#endif
  std::memcpy(static_cast<void*>(dst), src, count * sizeof(T));
}

/// Counts the digits of NP digit places (shift[p], mask[p]) of keys[begin, end) into
/// h[p * radix + digit]: one pass, every place at once.
template <unsigned NP, class Key, float_order Order, bool NanLast>
void count_places(const Key* keys, std::size_t begin, std::size_t end, const place* places, std::size_t radix,
                  typename radix_traits<Key>::bits_type flip, std::uint32_t* h) {
  unsigned shift[NP];
  std::uint32_t mask[NP];
  for (unsigned p = 0; p < NP; ++p) shift[p] = places[p].shift, mask[p] = places[p].mask();
  for (std::size_t i = begin; i < end; ++i) {
    const auto w = sort_word<Key, Order, NanLast>(keys[i], flip);
    for (unsigned p = 0; p < NP; ++p) ++h[p * radix + (static_cast<std::uint32_t>(w >> shift[p]) & mask[p])];
  }
}

/// One block's stable scatter of src[begin, end) by digit place pl, starting at slot[d] for
/// digit d, through write-combining buffers of Line keys (and values) per digit. Keys (and
/// values) with destination index j are buffered in line (j + phase) / Line; a line goes out
/// when its last slot is filled, the partly filled lines at the end.
template <class Key, class VT, float_order Order, bool NanLast, bool First>
void scatter_block(const Key* src_keys, Key* dst_keys, const typename VT::type* src_values,
                   typename VT::type* dst_values, std::size_t begin, std::size_t end, place pl,
                   typename radix_traits<Key>::bits_type flip, std::size_t* slot, std::size_t* first_slot,
                   Key* key_lines, typename VT::type* value_lines, std::size_t phase) {
  using Value = typename VT::type;
  constexpr std::size_t Line = line_bytes / sizeof(Key);
  const std::uint32_t mask = pl.mask();
  const unsigned shift = pl.shift;
  const std::size_t digits = std::size_t{1} << pl.width;
  for (std::size_t d = 0; d < digits; ++d) first_slot[d] = slot[d];
  auto flush = [&](std::uint32_t d, std::size_t stop) {  // destinations [start, stop) of digit d
    const std::size_t in_line = ((stop - 1 + phase) & (Line - 1)) + 1;  // slots of stop's line up to stop
    const std::size_t start = stop - std::min(in_line, stop - first_slot[d]);
    const std::size_t at = (start + phase) & (Line - 1);
    copy_line<Key, Line>(dst_keys + start, key_lines + d * Line + at, stop - start);
    if constexpr (VT::pairs) copy_line<Value, Line>(dst_values + start, value_lines + d * Line + at, stop - start);
  };
  for (std::size_t i = begin; i < end; ++i) {
    const Key k = src_keys[i];
    const std::uint32_t d = static_cast<std::uint32_t>(sort_word<Key, Order, NanLast>(k, flip) >> shift) & mask;
    const std::size_t j = slot[d]++;
    const std::size_t at = (j + phase) & (Line - 1);
    key_lines[d * Line + at] = k;
    if constexpr (VT::pairs) {
      if constexpr (VT::iota && First) value_lines[d * Line + at] = static_cast<Value>(i);
      else value_lines[d * Line + at] = src_values[i];
    }
    if (at == Line - 1) flush(d, j + 1);
  }
  for (std::uint32_t d = 0; d < digits; ++d) {
    const std::size_t stop = slot[d];
    if (stop == first_slot[d]) continue;
    if (((stop + phase) & (Line - 1)) != 0) flush(d, stop);  // the last line, partly filled
  }
#if defined(__SSE2__)
  _mm_sfence();  // the non-temporal stores are visible before the pass ends
#endif
}

template <class Key, class V, float_order Order = float_order::total_order, bool NanLast = false>
void radix_sort(const char* fn, const Key* keys_in, Key* keys_out, const typename value_traits<V>::type* values_in,
                typename value_traits<V>::type* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
                bool descending) {
  using VT = value_traits<V>;
  using Value = typename VT::type;
  using bits_type = typename radix_traits<Key>::bits_type;
  static_assert(std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value>,
                "keys and values must be trivially copyable");
  constexpr bool pairs = VT::pairs;
  const bit_range bits = resolve_bit_range(fn, radix_traits<Key>::bits, begin_bit, end_bit);
  if constexpr (VT::iota) {
    check_sort_buffers(fn, keys_in, keys_out, nullptr, nullptr, n, sizeof(Key), 0);
    if (n != 0) {
      protocol::check_not_null(fn, "index_out", values_out, "when n > 0");
      protocol::check_byte_count(fn, "num_items", n, sizeof(Value));
      protocol::check_disjoint_bytes(fn, "index_out", values_out, n * sizeof(Value), "keys_in", keys_in,
                                     n * sizeof(Key));
      protocol::check_disjoint_bytes(fn, "index_out", values_out, n * sizeof(Value), "keys_out", keys_out,
                                     n * sizeof(Key));
      if (n - 1 > static_cast<std::size_t>(std::numeric_limits<Value>::max()))
        throw error(std::string(fn) + ": num_items: must be at most " +
                    std::to_string(static_cast<unsigned long long>(std::numeric_limits<Value>::max()) + 1) +
                    " for this index type, got " + std::to_string(n));
    }
  } else {
    check_sort_buffers(fn, keys_in, keys_out, values_in, values_out, n, sizeof(Key), pairs ? sizeof(Value) : 0);
  }
  if (n == 0) return;

  // Digit places.
  const unsigned width = bits.width();
  const unsigned most = n < small_input ? small_digit_bits : max_digit_bits;
  const unsigned num_places = (width + most - 1) / most;
  const unsigned digit_bits = (width + num_places - 1) / num_places;
  std::vector<place> places(num_places);
  for (unsigned p = 0; p < num_places; ++p) {
    const unsigned shift = bits.begin + p * digit_bits;
    places[p] = place{shift, std::min(digit_bits, bits.end - shift)};
  }
  const std::size_t radix = std::size_t{1} << digit_bits;

  // Blocks: one per worker.
  const std::size_t workers = static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const std::size_t num_blocks =
      std::max((n + max_block - 1) / max_block, std::max<std::size_t>(1, std::min(workers, n / min_block)));
  const std::size_t block_size = (n + num_blocks - 1) / num_blocks;
  auto block_begin = [&](std::size_t b) { return std::min(n, b * block_size); };
  auto for_blocks = [&](auto&& body) {
    if (num_blocks == 1) {
      body(std::size_t{0});
      return;
    }
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, num_blocks, 1),
        [&](const tbb::blocked_range<std::size_t>& r) {
          for (std::size_t b = r.begin(); b != r.end(); ++b) body(b);
        },
        tbb::static_partitioner());
  };
  const bits_type flip = descending ? static_cast<bits_type>(~bits_type{0}) : bits_type{0};

  // Counts of every digit place, per block, in one pass over the input (the totals never change).
  std::vector<std::uint32_t> counts(num_blocks * num_places * radix);  // [block][place][digit]
  auto count_of = [&](std::size_t b, unsigned p) { return counts.data() + (b * num_places + p) * radix; };
  for_blocks([&](std::size_t b) {
    std::uint32_t* h = count_of(b, 0);
    const std::size_t s = block_begin(b), e = block_begin(b + 1);
    switch (num_places) {  // at most 8 places (digits of at least 8 bits, keys of at most 64)
      case 1: count_places<1, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      case 2: count_places<2, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      case 3: count_places<3, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      case 4: count_places<4, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      case 5: count_places<5, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      case 6: count_places<6, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      case 7: count_places<7, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
      default: count_places<8, Key, Order, NanLast>(keys_in, s, e, places.data(), radix, flip, h); break;
    }
  });
  std::vector<unsigned> work;  // digit places that change the order
  for (unsigned p = 0; p < num_places; ++p) {
    bool one_digit = false;
    for (std::size_t d = 0; d < radix && !one_digit; ++d) {
      std::size_t total = 0;
      for (std::size_t b = 0; b < num_blocks; ++b) total += count_of(b, p)[d];
      one_digit = total == n;
      if (total != 0) break;  // the first digit present: all n keys, or not one digit
    }
    if (!one_digit) work.push_back(p);
  }

  if (work.empty()) {  // already in order on these bits: a stable sort is the identity
    for_blocks([&](std::size_t b) {
      const std::size_t s = block_begin(b), e = block_begin(b + 1);
      std::memcpy(static_cast<void*>(keys_out + s), keys_in + s, (e - s) * sizeof(Key));
      if constexpr (VT::iota) {
        for (std::size_t i = s; i < e; ++i) values_out[i] = static_cast<Value>(i);
      } else if constexpr (pairs) {
        std::memcpy(static_cast<void*>(values_out + s), values_in + s, (e - s) * sizeof(Value));
      }
    });
    return;
  }

  raw_buffer<Key> scratch_keys(work.size() > 1 ? n : 0);
  raw_buffer<Value> scratch_values(pairs && work.size() > 1 ? n : 0);
  constexpr std::size_t Line = line_bytes / sizeof(Key);
  static_assert(line_bytes % sizeof(Key) == 0 && (Line & (Line - 1)) == 0, "keys of 4 or 8 bytes");
  raw_buffer<Key> key_lines(num_blocks * radix * Line);
  raw_buffer<Value> value_lines(pairs ? num_blocks * radix * Line : 0);
  std::vector<std::size_t> slots(num_blocks * radix), first_slots(num_blocks * radix);
  const Key* src_keys = keys_in;
  const Value* src_values = values_in;
  for (std::size_t k = 0; k < work.size(); ++k) {
    const place pl = places[work[k]];
    const std::size_t digits = std::size_t{1} << pl.width;
    const bool to_output = (work.size() - 1 - k) % 2 == 0;
    Key* dst_keys = to_output ? keys_out : scratch_keys.data;
    Value* dst_values = to_output ? values_out : scratch_values.data;
    // (1) per-block histograms of this digit place (the first pass: the upfront counts).
    if (k > 0) {
      for_blocks([&](std::size_t b) {
        std::uint32_t* h = count_of(b, work[k]);
        std::fill(h, h + digits, 0u);
        count_places<1, Key, Order, NanLast>(src_keys, block_begin(b), block_begin(b + 1), &pl, radix, flip, h);
      });
    }
    // (2) exclusive scan, digit-major: first slot of (block b, digit d).
    std::size_t running = 0;
    for (std::size_t d = 0; d < digits; ++d)
      for (std::size_t b = 0; b < num_blocks; ++b) {
        slots[b * radix + d] = running;
        running += count_of(b, work[k])[d];
      }
    // (3) stable scatter, block by block.
    const std::size_t phase = (reinterpret_cast<std::uintptr_t>(dst_keys) / sizeof(Key)) & (Line - 1);
    for_blocks([&](std::size_t b) {
      Key* kl = key_lines.data + b * radix * Line;
      Value* vl = pairs ? value_lines.data + b * radix * Line : nullptr;
      if (k == 0)
        scatter_block<Key, VT, Order, NanLast, true>(src_keys, dst_keys, src_values, dst_values, block_begin(b),
                                                     block_begin(b + 1), pl, flip, slots.data() + b * radix,
                                                     first_slots.data() + b * radix, kl, vl, phase);
      else
        scatter_block<Key, VT, Order, NanLast, false>(src_keys, dst_keys, src_values, dst_values, block_begin(b),
                                                      block_begin(b + 1), pl, flip, slots.data() + b * radix,
                                                      first_slots.data() + b * radix, kl, vl, phase);
    });
    src_keys = dst_keys;
    src_values = dst_values;
  }
}

}  // namespace cpu_detail

namespace cpu {

/// Parallel (oneTBB) stable LSD radix sort of keys_in[0, num_items) into
/// keys_out[0, num_items), ascending by key_traits.hpp's order (descending: its reverse),
/// on bits [begin_bit, end_bit) of the transformed key; stable: keys equal on those bits
/// keep their input order. The name, argument order (keys_in, keys_out, num_items,
/// begin_bit, end_bit, descending) and output of the GPU gpu::sort_keys (sort.cuh; onesweep
/// and hybrid_msd) without its temporary storage and stream: the same key types, key order,
/// stability and descending flag, the same sorted keys. Differences: end_bit defaults to 0,
/// which means the key width (the GPU's default is the width itself, the same sort; an
/// explicit end_bit = 0 is accepted here, rejected by the GPU sort); nothing is returned
/// (the GPU one returns the algorithm it ran); and the float order is chosen by the
/// overload below (the GPU's is gpu::onesweep::sort_keys<Order>).
///
/// Key: uint32_t, int32_t, float, uint64_t, int64_t or double (radix_traits). keys_in,
/// keys_out: num_items keys each, not overlapping (null allowed when num_items == 0).
/// begin_bit < end_bit <= 8 * sizeof(Key) (end_bit = 0: the key width). Memory: num_items
/// keys of scratch. Throws onepass::error on a bad bit range, null pointers with
/// num_items > 0 or overlapping buffers; keys_out is untouched then.
template <class Key>
void sort_keys(const Key* keys_in, Key* keys_out, std::size_t num_items, unsigned begin_bit = 0,
               unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, cpu_detail::no_value>("onepass::sort::cpu::sort_keys", keys_in, keys_out, nullptr,
                                                    nullptr, num_items, begin_bit, end_bit, descending);
}

/// As sort_keys, with values_in[0, num_items) permuted alongside into
/// values_out[0, num_items): values_out[i] is the value that came with keys_out[i]. The
/// GPU sort_pairs's (sort.cuh) argument order (keys_in, keys_out, values_in, values_out,
/// num_items, begin_bit, end_bit, descending) and output, with sort_keys's differences; and
/// Value: any trivially copyable type (the GPU's: 4 or 8 bytes). values_in, values_out:
/// num_items values each, overlapping neither each other nor the keys. Errors as sort_keys,
/// also for null or overlapping value pointers.
template <class Key, class Value>
void sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t num_items,
                unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, Value>("onepass::sort::cpu::sort_pairs", keys_in, keys_out, values_in, values_out,
                                     num_items, begin_bit, end_bit, descending);
}

/// sort_keys with floating-point keys ordered by `Order` (key_traits.hpp):
/// cpu::sort_keys<float_order::signed_zero_equal>(...) treats -0.0 and +0.0 as equal
/// (stable among themselves), as cub::DeviceRadixSort and onesweep::sort_keys<Order>;
/// float_order::total_order is the overload above. Integer keys: the same result under
/// both. Arguments and errors as sort_keys.
template <float_order Order, class Key>
void sort_keys(const Key* keys_in, Key* keys_out, std::size_t num_items, unsigned begin_bit = 0,
               unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, cpu_detail::no_value, Order>("onepass::sort::cpu::sort_keys", keys_in, keys_out,
                                                           nullptr, nullptr, num_items, begin_bit, end_bit,
                                                           descending);
}

/// sort_pairs with floating-point keys ordered by `Order` (as sort_keys<Order>).
template <float_order Order, class Key, class Value>
void sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t num_items,
                unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, Value, Order>("onepass::sort::cpu::sort_pairs", keys_in, keys_out, values_in,
                                            values_out, num_items, begin_bit, end_bit, descending);
}

/// sort_keys in NumPy's float order (Python's float_order="numpy"; the order of np.sort,
/// torch.sort and cupy.sort; CPU only): every NaN after every number whatever its sign
/// and payload, NaNs equal to each other, -0.0 equal to +0.0, ties in input order
/// (descending: the reverse order, NaNs first, still stable). Each float key is ordered as
/// its canonical form -- a NaN as the positive quiet NaN (0x7FC00000, 0x7FF8000000000000),
/// -0.0 as +0.0 -- in totalOrder, and [begin_bit, end_bit) are bits of that form's
/// transformed word; the keys written out keep their own bits. Integer keys: as sort_keys.
/// Arguments and errors as sort_keys.
template <class Key>
void sort_keys_numpy_order(const Key* keys_in, Key* keys_out, std::size_t num_items, unsigned begin_bit = 0,
                           unsigned end_bit = 0, bool descending = false) {
  cpu_detail::radix_sort<Key, cpu_detail::no_value, float_order::total_order, true>(
      "onepass::sort::cpu::sort_keys_numpy_order", keys_in, keys_out, nullptr, nullptr, num_items, begin_bit, end_bit,
      descending);
}

/// sort_pairs in NumPy's float order (as sort_keys_numpy_order; CPU only).
template <class Key, class Value>
void sort_pairs_numpy_order(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                            std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = 0,
                            bool descending = false) {
  cpu_detail::radix_sort<Key, Value, float_order::total_order, true>("onepass::sort::cpu::sort_pairs_numpy_order",
                                                                     keys_in, keys_out, values_in, values_out,
                                                                     num_items, begin_bit, end_bit, descending);
}

/// Stable argsort (CPU only): keys_out = keys_in sorted as sort_keys (numpy_order: as
/// sort_keys_numpy_order) and index_out[i] = the position in keys_in of keys_out[i], i.e.
/// sort_pairs with the values 0, 1, ..., num_items - 1, which are made during the first
/// pass instead of read. Index: an unsigned integer type that holds num_items - 1;
/// index_out: num_items indices. Throws onepass::error as sort_keys, and for a null
/// index_out with num_items > 0, an index_out overlapping keys_in or keys_out, or
/// num_items - 1 above the Index type's maximum.
template <class Key, class Index>
void argsort(const Key* keys_in, Key* keys_out, Index* index_out, std::size_t num_items, unsigned begin_bit = 0,
             unsigned end_bit = 0, bool descending = false, bool numpy_order = false) {
  static_assert(std::is_integral_v<Index> && std::is_unsigned_v<Index>, "Index: an unsigned integer type");
  using iota = cpu_detail::iota_value<Index>;
  if (numpy_order)
    cpu_detail::radix_sort<Key, iota, float_order::total_order, true>("onepass::sort::cpu::argsort", keys_in,
                                                                      keys_out, nullptr, index_out, num_items,
                                                                      begin_bit, end_bit, descending);
  else
    cpu_detail::radix_sort<Key, iota, float_order::total_order, false>("onepass::sort::cpu::argsort", keys_in,
                                                                       keys_out, nullptr, index_out, num_items,
                                                                       begin_bit, end_bit, descending);
}

}  // namespace cpu

// Deprecated aliases (issue 31 naming convention: the device as a namespace, one name one
// contract on both devices, the count num_items), removed after one release. Each forwards
// to its cpu:: name with the same arguments (same output, same errors, which name the new
// function). Call the new names qualified (cpu::...). The GPU sort's old names
// (onepass::sort::sort_keys / sort_pairs, now gpu::) are forwarded at the end of sort.cuh.

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::sort_keys(keys_in, keys_out, num_items, begin_bit, end_bit, descending).
template <class Key>
[[deprecated("use onepass::sort::cpu::sort_keys")]] void radix_sort_keys(const Key* keys_in, Key* keys_out,
                                                                        std::size_t num_items, unsigned begin_bit = 0,
                                                                        unsigned end_bit = 0,
                                                                        bool descending = false) {
  cpu::sort_keys(keys_in, keys_out, num_items, begin_bit, end_bit, descending);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::sort_pairs(keys_in, keys_out, values_in, values_out, num_items, begin_bit, end_bit,
/// descending).
template <class Key, class Value>
[[deprecated("use onepass::sort::cpu::sort_pairs")]] void radix_sort_pairs(const Key* keys_in, Key* keys_out,
                                                                          const Value* values_in, Value* values_out,
                                                                          std::size_t num_items,
                                                                          unsigned begin_bit = 0,
                                                                          unsigned end_bit = 0,
                                                                          bool descending = false) {
  cpu::sort_pairs(keys_in, keys_out, values_in, values_out, num_items, begin_bit, end_bit, descending);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::sort_keys<Order>(keys_in, keys_out, num_items, begin_bit, end_bit, descending).
template <float_order Order, class Key>
[[deprecated("use onepass::sort::cpu::sort_keys<Order>")]] void radix_sort_keys(
    const Key* keys_in, Key* keys_out, std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = 0,
    bool descending = false) {
  cpu::sort_keys<Order>(keys_in, keys_out, num_items, begin_bit, end_bit, descending);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::sort_pairs<Order>(keys_in, keys_out, values_in, values_out, num_items, begin_bit,
/// end_bit, descending).
template <float_order Order, class Key, class Value>
[[deprecated("use onepass::sort::cpu::sort_pairs<Order>")]] void radix_sort_pairs(
    const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t num_items,
    unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  cpu::sort_pairs<Order>(keys_in, keys_out, values_in, values_out, num_items, begin_bit, end_bit, descending);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::sort_keys_numpy_order(keys_in, keys_out, num_items, begin_bit, end_bit, descending).
template <class Key>
[[deprecated("use onepass::sort::cpu::sort_keys_numpy_order")]] void radix_sort_keys_numpy_order(
    const Key* keys_in, Key* keys_out, std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = 0,
    bool descending = false) {
  cpu::sort_keys_numpy_order(keys_in, keys_out, num_items, begin_bit, end_bit, descending);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::sort_pairs_numpy_order(keys_in, keys_out, values_in, values_out, num_items,
/// begin_bit, end_bit, descending).
template <class Key, class Value>
[[deprecated("use onepass::sort::cpu::sort_pairs_numpy_order")]] void radix_sort_pairs_numpy_order(
    const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t num_items,
    unsigned begin_bit = 0, unsigned end_bit = 0, bool descending = false) {
  cpu::sort_pairs_numpy_order(keys_in, keys_out, values_in, values_out, num_items, begin_bit, end_bit, descending);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::argsort(keys_in, keys_out, index_out, num_items, begin_bit, end_bit, descending,
/// numpy_order).
template <class Key, class Index>
[[deprecated("use onepass::sort::cpu::argsort")]] void radix_argsort(const Key* keys_in, Key* keys_out,
                                                                    Index* index_out, std::size_t num_items,
                                                                    unsigned begin_bit = 0, unsigned end_bit = 0,
                                                                    bool descending = false,
                                                                    bool numpy_order = false) {
  cpu::argsort(keys_in, keys_out, index_out, num_items, begin_bit, end_bit, descending, numpy_order);
}

}  // namespace onepass::sort
