// onepass/sort/onesweep/policy.cuh — Onesweep's constants and tuning: digit widths,
// portion size, cub::DoubleBuffer's counterpart, and the measured tile shapes
// (binning_shape, binning_policy) and ranking thresholds of the binning kernel.
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", §3 (tiles, look-back) and §4 (portions of 2^28 keys). The public API is
// onepass/sort/onesweep.cuh; this file holds no kernel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/config.hpp"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort::onesweep {

/// Smallest and largest digit width (bits per digit place) the sort is built for.
inline constexpr unsigned min_digit_bits = 5;
inline constexpr unsigned max_digit_bits = 9;
/// Keys per binning portion (paper §4: strips of 2^28 keys).
inline constexpr std::uint64_t default_portion_items = std::uint64_t{1} << 28;

/// Two device buffers of the same length and which of them holds the current data
/// (selector 0 or 1), as cub::DoubleBuffer. The sorts read current(), may overwrite
/// both, and leave the sorted data in current() (selector updated).
template <class T>
struct double_buffer {
  T* buffers[2] = {nullptr, nullptr};
  int selector = 0;

  double_buffer() = default;
  double_buffer(T* current, T* alternate) : buffers{current, alternate} {}
  T* current() const { return buffers[selector]; }
  T* alternate() const { return buffers[selector ^ 1]; }
};

namespace detail {

/// Marker value type of the keys-only sorts (sort/sort_args.hpp).
using no_values = onepass::sort::no_values;

/// The word a value of type V travels as (4- and 8-byte values).
template <class V>
using value_word = std::conditional_t<std::is_same_v<V, no_values>, no_values,
                                      std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>>;

/// Bytes of a value (0 for keys-only).
template <class V>
inline constexpr int value_bytes = std::is_same_v<V, no_values> ? 0 : static_cast<int>(sizeof(V));

/// How the binning kernel finds the lanes of a warp whose keys have the same digit.
enum class peer_match {
  ballots,    ///< DigitBits __ballot_sync per key
  match_any,  ///< __match_any_sync
  atomic_or,  ///< each lane ORs its bit into a per-warp shared word per digit
  dynamic     ///< atomic_or, or match_any where the place is crowded (a block-uniform branch)
};

/// Flag of one digit place, from its histogram (exclusive_sum_kernel): some digit
/// holds at least half of the keys.
inline constexpr std::uint32_t dominant_place = 1u;
/// Flag of one digit place: 32 keys drawn from the place's histogram are expected to
/// hold fewer distinct digits than the plan's crowded threshold (then __match_any_sync
/// ranks faster than atomicOr, whose same-address shared atomics serialise).
inline constexpr std::uint32_t crowded_place = 2u;
/// Flag of one digit place: not crowded, but fewer expected distinct digits among 32
/// keys than the plan's mixed threshold (then ballots rank faster than atomicOr).
inline constexpr std::uint32_t mixed_place = 4u;

/// Default thresholds of the place flags, in expected distinct digits among 32 keys
/// drawn from the place's histogram (uniform 8-bit digits: 30.1; the AND of q uniform
/// words: q = 2: 24.5, q = 3: 15.2, q = 4: 9.4, q = 8: 1.9).
/// Measured on an H100 (scripts/bench_onesweep.cu GROUP 5, one pass of 2^28 u32 keys,
/// 256 x 32 tiles, results/recorded/nvidia-h100/bench_onesweep_ranking_g5.txt):
/// atomicOr / ballots / match_any per pass 1297 / 1522 / 2263 us at q = 1, 1546 / 1519 /
/// 2113 at q = 2, 1642 / 1502 / 1589 at q = 3, 1310 / 1490 / 1279 at q = 4, 969 / 1415 /
/// 931 at q = 8. Ballots win on mixed places (q = 2, 3) by 2-9 % of a pass, but a third
/// gated launch (crowded below 12.5, mixed below 27) made whole sorts slower than the pair
/// (sort_headline at 2^28 u32 keys, ours / CUB (best): q = 1 0.966 -> 0.949, q = 2 0.834
/// -> 0.830, q = 3 0.798 -> 0.821, q = 4 0.941 -> 0.927; the empty launches of 32768
/// blocks cost 13-15 us each in the bench, 22 us under ncu), so mixed places are off by
/// default (mixed_below 0).
inline constexpr float default_crowded_below = 16.0f;
inline constexpr float default_mixed_below = 0.0f;

/// Shape of the binning kernel: Block threads x Items keys per thread, MinBlocks
/// resident blocks per SM for __launch_bounds__; Match: see peer_match; Window:
/// predecessors one look-back thread reads at once; EarlyCounts (0: off, 1 or 2 copies
/// of the histogram per warp): the tile's digit counts come from a per-warp histogram
/// (one shared atomicAdd per key; with 2 copies the even and odd lanes count apart,
/// which halves same-address conflicts on skewed digits) before the ranking, so they
/// are published to the look-back before it, and the ranking starts from each warp's
/// offset inside the tile, giving every key its slot in the digit-ordered tile at once
/// (no second pass over the keys to add the offsets).
/// PrefetchValues (pairs): 0: the values are read after the ranking, straight into
/// their shared-memory slots; 1: right after loading its keys, the block asks L2 for the
/// lines of its tile's values (one prefetch per 128-byte line); 2: the values are loaded
/// into registers with the keys (their latency hides behind the ranking; Items more
/// registers). 1 is off in every default: on an H100 (bench_onesweep.cu GROUP 13, 2^28
/// u32 pairs, q = 1) it made one pass slower (256 x 48: 2107 -> 2223 us; 384 x 32: 2148
/// -> 2318 us).
/// ValuesAfterKeys (pairs): the tile's values pass through shared memory after its keys
/// have been written out, in the same buffer (a byte per slot keeps each slot's digit for
/// them), instead of beside the keys: shared memory per block falls from 8 to 5 bytes
/// per slot for 4-byte keys and values, at the cost of one more barrier and a second
/// scatter loop.
template <int Block, int Items, int MinBlocks, peer_match Match = peer_match::ballots, int Window = 4,
          int EarlyCounts = 0, int PrefetchValues = 0, bool ValuesAfterKeys = false>
struct binning_shape {
  static constexpr bool values_after_keys = ValuesAfterKeys;
  static_assert(PrefetchValues >= 0 && PrefetchValues <= 2, "binning_shape: PrefetchValues in {0, 1, 2}");
  static constexpr int prefetch_values = PrefetchValues;
  static constexpr int block = Block;
  static constexpr int items = Items;
  static constexpr int min_blocks = MinBlocks;
  static constexpr peer_match match = Match;
  static constexpr int window = Window;
  static_assert(EarlyCounts >= 0 && EarlyCounts <= 2, "binning_shape: EarlyCounts in {0, 1, 2}");
  static constexpr int early_counts = EarlyCounts;
  static constexpr int warps = block / 32;
  static constexpr std::uint32_t tile_items = static_cast<std::uint32_t>(block) * items;
  /// The same shape with another peer-matching method (the partner launches of a pass).
  template <peer_match M>
  using with_match = binning_shape<Block, Items, MinBlocks, M, Window, EarlyCounts, PrefetchValues, ValuesAfterKeys>;
};

/// Tile shape of the binning kernel for keys of `KeyBytes` bytes and values of
/// `ValueBytes` bytes (0: keys only). Measured on an H100 (scripts/bench_onesweep.cu,
/// 2^28 random keys, d = 8): uint32 keys 256 x 32 with atomic_or matching (one pass
/// 1270 us; 256 x 32 with ballots 1440, 512 x 15 with ballots 1690); uint64 keys
/// 384 x 20 atomic_or; uint32 pairs 384 x 24 with ballots (atomic_or was slower there).
/// Early counts (GROUPs 7-9, results/recorded/nvidia-h100/bench_onesweep_early_counts_*)
/// then took one pass of uint32 keys from 1313 to 1185-1199 us (whole sort / CUB with
/// 64-bit NumItemsT: q = 1 0.972 -> 1.068, q = 2 0.833 -> 0.917, q = 3 0.802 -> 0.908,
/// q = 4 0.945 -> 1.10, q = 8 1.19 -> 1.24) and uint64 keys from 1937 to 1858-1887 us
/// (1.029 -> 1.06); pairs: 384 x 24 ballots within noise at q = 1 (0.92-0.98 over two
/// runs), 1.02 -> 1.06 at q = 3 (pairs against CUB's 64-bit count, which is not CUB's
/// fastest configuration for pairs: see GROUPs 13-16 for its 32-bit count). A second histogram copy per warp did not help
/// (GROUP 9), nor did 384 x 19 / 20 tiles at 56 registers. Ballots through one predicate
/// per bit (agreeing_lanes, GROUP 11) then beat atomic_or on every band up to q = 4
/// (u32 keys, 256 x 32, whole sort / CUB: q = 1 1.122, 2 1.135, 3 1.141, 4 1.136, 8 1.121
/// against 1.241 for the atomic_or / match_any pair at q = 8), so ballots alone rank every
/// place, with no gated partner launch; GROUP 12 chose the tiles (q = 1: u32 keys 256 x 36
/// 1.150; pairs 256 x 48 1.023, 1.063 at q = 3, but only 0.979 against CUB's faster 32-bit
/// count (GROUP 14); u64 keys 384 x 24 1.104). For u32 pairs,
/// the values through the keys' buffer after the keys (ValuesAfterKeys, GROUP 16, whole
/// sorts against CUB with a 32-bit count, its faster configuration for pairs) took
/// 256 x 56 to 1.072 / 1.008 at 2^24 / 2^28 keys (q = 1) and 1.030 / 1.046 at q = 3, against
/// 1.038 / 0.980 and 0.991 / 0.956 for 256 x 48 without it (outputs checked against CUB's
/// there), so u32 pairs take 256 x 56 with ValuesAfterKeys (shared memory 5 bytes per
/// slot: 256 x 56 x 5 = 71.7 KB, two blocks per SM).
/// Sorts of fewer than tiny_below keys (every shape with digits of at most 8 bits) take
/// tiny_tiles, 256 x 8 keys with early counts (values through the keys' buffer after the
/// keys where the shape's own tiles do so): below a million keys a pass takes about as
/// long as one block takes over its tile, so smaller tiles (more blocks at once) finish it
/// sooner. Measured on an H100 (scripts/bench_onesweep.cu GROUP 18, q = 1, L2 flushed,
/// interleaved rounds; whole sorts through the plan against CUB's best configuration,
/// 32-bit count in/out or DoubleBuffer; results/recorded/nvidia-h100/
/// bench_onesweep_small_g18.txt): 256 x 8 / the measured default at 2^14, 2^16, 2^18 keys:
/// u32 keys 1.18 / 0.82, 1.22 / 0.89, 1.20 / 0.94; u32 pairs 1.31 / 0.86, 1.33 / 0.86,
/// 1.29 / 0.90; u64 keys 1.16 / 0.84, 1.25 / 0.88, 1.20 / 0.93; u64 pairs 1.15 / 0.88,
/// 1.23 / 0.93, 1.18 / 0.98; at 2^20 the default tiles are as fast or faster (u32 keys
/// 1.03 / 1.04, u32 pairs 0.94 / 0.98, u64 keys 1.11 / 1.12, u64 pairs 0.99 / 1.00). With
/// the tier below 2^19, sort_headline (02adfe8; sort_headline_small-02adfe8.csv) had the
/// default tiles at 2^19 at 0.90-0.98x CUB's best against 1.17-1.26x for the tiny ones at
/// 2^18, so the tier ends at 2^20.
/// (Wider digits need more than 256 threads: no tiny tier for them.)
template <unsigned DigitBits, bool ValuesAfterKeys, bool = (DigitBits <= 8)>
struct tiny_tier {};
template <unsigned DigitBits, bool ValuesAfterKeys>
struct tiny_tier<DigitBits, ValuesAfterKeys, true> {
  using tiny_tiles = binning_shape<256, 8, 4, peer_match::ballots, 4, 1, 0, ValuesAfterKeys>;
  static constexpr std::uint64_t tiny_below = std::uint64_t{1} << 20;
};

/// (At least 2^DigitBits threads: thread d handles digit d.)
template <int KeyBytes, int ValueBytes = 0, unsigned DigitBits = 8>
struct binning_policy : binning_shape<512, KeyBytes == 4 ? 15 : 12, 2>,
                        tiny_tier<DigitBits, false> {};
template <unsigned DigitBits>  // keys only, 4 bytes
struct binning_policy<4, 0, DigitBits>
    : std::conditional_t<(DigitBits > 8), binning_shape<512, 15, 2>,
                         binning_shape<256, 36, 3, peer_match::ballots, 4, 1>>,
      tiny_tier<DigitBits, false> {};
template <unsigned DigitBits>  // 4-byte keys and values
struct binning_policy<4, 4, DigitBits>
    : std::conditional_t<(DigitBits > 8), binning_shape<512, 15, 2>,
                         binning_shape<256, 56, 2, peer_match::ballots, 4, 1, 0, true>>,
      tiny_tier<DigitBits, true> {
  /// Sorts of fewer than small_below keys take small_tiles (384 x 32, values after keys):
  /// more, smaller tiles fill the GPU better there. Measured on an H100 (bench GROUP 17,
  /// u32 pairs q = 1, L2 flushed, interleaved rounds; against CUB with a 32-bit count):
  /// 384 x 32 / 256 x 56 = 0.947 / 0.849 at 2^20, 1.035 / 0.859 at 2^22, 1.004 / 0.983 at
  /// 2^24, but 0.969 / 0.993 at 2^26 and 0.973 / 1.001 at 2^28.
  using small_tiles = std::conditional_t<(DigitBits > 8), binning_shape<512, 15, 2>,
                                         binning_shape<384, 32, 2, peer_match::ballots, 4, 1, 0, true>>;
  static constexpr std::uint64_t small_below = std::uint64_t{1} << 25;
};

/// The shape a sort of n keys takes under Policy: Policy::small_tiles below
/// Policy::small_below keys when the policy names one, else Policy itself.
template <class Policy, class = void>
struct small_shape {
  using type = Policy;
  static constexpr std::uint64_t below = 0;
};
template <class Policy>
struct small_shape<Policy, std::void_t<typename Policy::small_tiles>> {
  using type = typename Policy::small_tiles;
  static constexpr std::uint64_t below = Policy::small_below;
};
template <unsigned DigitBits>  // keys only, 8 bytes
struct binning_policy<8, 0, DigitBits>
    : std::conditional_t<(DigitBits > 8), binning_shape<512, 12, 2>,
                         binning_shape<384, 24, 2, peer_match::ballots, 4, 1>>,
      tiny_tier<DigitBits, false> {};

/// The shape a sort of fewer than tiny_shape<Policy>::below keys takes: Policy::tiny_tiles
/// when the policy names one, else none (below = 0).
template <class Policy, class = void>
struct tiny_shape {
  using type = Policy;
  static constexpr std::uint64_t below = 0;
};
template <class Policy>
struct tiny_shape<Policy, std::void_t<typename Policy::tiny_tiles>> {
  using type = typename Policy::tiny_tiles;
  static constexpr std::uint64_t below = Policy::tiny_below;
};

/// Smallest portion (keys) whose binning pass launches the gated atomicOr / match_any
/// (/ ballots) kernels (see plan::launch_pass); smaller portions take one launch.
inline constexpr std::uint64_t pair_min_items = std::uint64_t{1} << 25;
/// Whether portions below pair_min_items take the dynamic kernel (atomicOr, or
/// match_any on crowded places) rather than the atomicOr kernel alone. Measured on an
/// H100 (bench_onesweep.cu GROUP 6, u32 keys, 2^22 / 2^23 / 2^24 keys, ours / CUB with
/// 64-bit NumItemsT; results/recorded/nvidia-h100/bench_onesweep_small_g6.txt): q = 4
/// 0.84 / 0.76 / 0.75 -> 1.08 / 1.01 / 1.01, q = 8 0.81 / 0.77 / 0.75 -> 1.25 / 1.19 /
/// 1.16, q = 3 0.89 / 0.81 / 0.78 -> 0.92 / 0.85 / 0.84, q = 1 and 2 unchanged within 1 %.
inline constexpr bool default_small_dynamic = true;

/// Threads per block of the histogram kernel and 16-byte vectors each thread loads per step.
inline constexpr int histogram_block = 256;
inline constexpr int histogram_unroll = 4;
/// Largest chunk a histogram block counts before flushing its 32-bit counters.
inline constexpr std::uint64_t histogram_max_chunk = std::uint64_t{1} << 28;
/// Smallest chunk worth a block of its own (each block flushes 2^DigitBits counters
/// per place with global atomics), and the multiple every chunk is rounded up to
/// (512 bytes of u32 keys: chunks start on 16-byte boundaries for every key size).
inline constexpr std::uint64_t histogram_min_chunk = 4096;
inline constexpr std::uint64_t histogram_chunk_align = 128;

/// Digit places of width `digit_bits` covering [begin_bit, end_bit).
constexpr unsigned places_for(unsigned begin_bit, unsigned end_bit, unsigned digit_bits) {
  return (end_bit - begin_bit + digit_bits - 1) / digit_bits;
}

}  // namespace detail

}  // namespace onepass::sort::onesweep
