// onepass/sort/onesweep/policy.cuh — Onesweep's constants and tuning: digit widths,
// portion size, cub::DoubleBuffer's counterpart, the measured tile shapes of the binning
// kernel (binning_shape, binning_policy) per GPU architecture, and the launch policy of
// the atomicOr-ranked shapes that only the tuning program uses (gated_launch).
//
// Policies per architecture (arch_table, arch_binning_policy). The public sorts
// (plan.cuh: sort_copy, sort_buffers) pick a table on the host from the compute
// capability of the current device (cudaDeviceGetAttribute, cached per device;
// __CUDA_ARCH__ does not exist on the host side of a launch), through select_arch_table:
//   - sm_90 (compute capability 9.x, and 10.x: the same 227 KiB of opt-in shared memory
//     per block): binning_policy, every shape measured on an H100 with
//     scripts/bench_onesweep.cu (the numbers are beside each shape below);
//   - sm_80 (compute capability 8.x) -- UNTUNED, nothing in it was measured on an A100:
//     the sm_90 shapes wherever a block's shared memory (dynamic and static) fits in
//     99 KiB, the smallest opt-in limit of the GPUs that fall back to this table
//     (sm_86, sm_89, sm_120: 99 KiB; A100 and sm_87: 163 KiB), and smaller tiles for the
//     one shape that does not (8-byte keys with 8-byte values: 512 x 11 instead of
//     512 x 12). plan.cuh static_asserts both limits for every shape a sort can launch;
//   - every other compute capability (older than 8.0, or newer than 10.x, e.g. sm_120
//     with 99 KiB per block) falls back to the sm_80 table: it is the one that fits
//     every supported GPU's shared memory, and neither table was tuned there.
// Where the tables agree (every shape but 8-byte keys with 8-byte values) the sort
// compiles one set of kernels and asks the device nothing.
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

namespace onepass::sort::gpu::onesweep {

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
/// holds at least half of the keys (read by every binning kernel: warps holding one
/// digit skip the multisplit).
inline constexpr std::uint32_t dominant_place = 1u;
/// Flag of one digit place: 32 keys drawn from the place's histogram are expected to
/// hold fewer distinct digits than crowded_below (then __match_any_sync ranks faster
/// than atomicOr, whose same-address shared atomics serialise). Computed only for plans
/// whose shapes read it (peer_match::atomic_or or dynamic; none of the defaults).
inline constexpr std::uint32_t crowded_place = 2u;

/// Threshold of crowded_place, in expected distinct digits among 32 keys drawn from the
/// place's histogram (uniform 8-bit digits: 30.1; the AND of q uniform words: q = 2:
/// 24.5, q = 3: 15.2, q = 4: 9.4, q = 8: 1.9).
/// Measured on an H100 (scripts/bench_onesweep.cu GROUP 5, one pass of 2^28 u32 keys,
/// 256 x 32 tiles, results/recorded/nvidia-h100/bench_onesweep_ranking_g5.txt):
/// atomicOr / ballots / match_any per pass 1297 / 1522 / 2263 us at q = 1, 1546 / 1519 /
/// 2113 at q = 2, 1642 / 1502 / 1589 at q = 3, 1310 / 1490 / 1279 at q = 4, 969 / 1415 /
/// 931 at q = 8. (A third class, mixed places ranked by ballots through a third gated
/// launch, made whole sorts slower and was removed: results/recorded/nvidia-h100/
/// tuning.txt, "Onesweep ranking alternatives".)
inline constexpr float crowded_below = 16.0f;

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
  /// The same shape with another peer-matching method (the partner launches of a gated pass).
  template <peer_match M>
  using with_match = binning_shape<Block, Items, MinBlocks, M, Window, EarlyCounts, PrefetchValues, ValuesAfterKeys>;
};

/// The sm_90 table (arch_binning_policy): tile shape of the binning kernel for keys of
/// `KeyBytes` bytes and values of `ValueBytes` bytes (0: keys only). Measured on an H100
/// (scripts/bench_onesweep.cu, 2^28 random keys, d = 8): uint32 keys 256 x 32 with atomic_or matching (one pass
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

// ----------------------------------------------------------------------------
// Ranking alternatives (scripts/bench_onesweep.cu injects them; no default uses them).

/// Launches of one binning pass of a shape that ranks with atomicOr
/// (peer_match::atomic_or): portions of at least PairMinItems keys take a gated pair of
/// launches of the same tile shape, the atomicOr kernel and its __match_any_sync twin;
/// each reads the place's crowded_place flag first and the one that does not own the
/// place exits before taking a tile. Smaller portions take one launch (an extra launch
/// costs about 6 us, which small sorts feel): with SmallDynamic the dynamic kernel
/// (atomicOr, or match_any on crowded places, a block-uniform branch), else the atomicOr
/// kernel alone. Inherits Shape (and its tiers, when Shape is a binning_policy).
/// A shape that ranks with atomicOr and is not wrapped launches as
/// gated_launch<Shape> (pairs from 2^25 keys, dynamic below).
/// Measured on an H100: the pair from 2^25 keys (07a1957); the dynamic kernel below it
/// (bench_onesweep.cu GROUP 6, 256 x 32 atomicOr tiles, u32 keys, 2^22 / 2^23 / 2^24
/// keys, ours / CUB with 64-bit NumItemsT; results/recorded/nvidia-h100/
/// bench_onesweep_small_g6.txt): q = 4 0.84 / 0.76 / 0.75 -> 1.08 / 1.01 / 1.01, q = 8
/// 0.81 / 0.77 / 0.75 -> 1.25 / 1.19 / 1.16, q = 3 0.89 / 0.81 / 0.78 -> 0.92 / 0.85 /
/// 0.84, q = 1 and 2 unchanged within 1 %. Ballots with one predicate per bit then beat
/// the pair on every band up to q = 4 (GROUP 11, 6b71199), so no default ranks with
/// atomicOr; tuning.txt ("Onesweep ranking alternatives") keeps the story.
template <class Shape, std::uint64_t PairMinItems = std::uint64_t{1} << 25, bool SmallDynamic = true>
struct gated_launch : Shape {
  static_assert(Shape::match == peer_match::atomic_or, "gated_launch: a shape that ranks with atomic_or");
  static constexpr std::uint64_t pair_min_items = PairMinItems;
  static constexpr bool small_dynamic = SmallDynamic;
};
/// PairMinItems of a gated_launch that never pairs (every portion takes one launch).
inline constexpr std::uint64_t never_paired = ~std::uint64_t{0};

/// The launch policy of Shape's passes: Shape's own when it names one (gated_launch),
/// else gated_launch's defaults for an atomicOr shape (one launch for the others).
template <class Shape, class = void>
struct launch_policy {
  static constexpr std::uint64_t pair_min_items = std::uint64_t{1} << 25;
  static constexpr bool small_dynamic = true;
};
template <class Shape>
struct launch_policy<Shape, std::void_t<decltype(Shape::pair_min_items)>> {
  static constexpr std::uint64_t pair_min_items = Shape::pair_min_items;
  static constexpr bool small_dynamic = Shape::small_dynamic;
};

/// Whether a pass of Shape reads the crowded_place flag: the gated pair and the dynamic
/// kernel do (atomic_or and dynamic shapes); ballots and match_any shapes do not.
template <class Shape>
inline constexpr bool reads_crowded_flag = Shape::match == peer_match::atomic_or || Shape::match == peer_match::dynamic;

// ----------------------------------------------------------------------------
// Tables per architecture (see the file comment).

/// The tables of binning policies: sm_90 (measured on an H100), sm_80 (untuned).
enum class arch_table { sm90, sm80 };

/// The table for a device of compute capability `major`.x: sm90 for 9.x and 10.x,
/// sm80 for everything else (8.x and the fallback; see the file comment).
constexpr arch_table select_arch_table(int major) {
  return major == 9 || major == 10 ? arch_table::sm90 : arch_table::sm80;
}

/// Largest shared memory (dynamic and static, bytes) one block of a table's shapes may
/// use: 227 KiB (H100 opt-in) for sm90; 99 KiB (sm_86 / sm_89 / sm_120 opt-in, below the
/// A100's 163 KiB) for sm80.
constexpr std::size_t arch_shared_limit(arch_table t) {
  return t == arch_table::sm90 ? std::size_t{227} * 1024 : std::size_t{99} * 1024;
}

/// sm80 table, 8-byte keys with 8-byte values (UNTUNED): 512 x 11 tiles, so that a block
/// (90112 bytes of keys and values, 96328 bytes in all at 9-bit digits) fits in 99 KiB;
/// the sm90 shape's 512 x 12 needs 101448 bytes at 8-bit digits.
template <unsigned DigitBits>
struct binning_policy_sm80_u64_pairs : binning_shape<512, 11, 2>, tiny_tier<DigitBits, false> {};

/// The binning policy of table T for keys of KeyBytes bytes and values of ValueBytes
/// bytes (0: keys only) at DigitBits bits per digit: binning_policy for sm90; for sm80
/// the same type where it fits (so the same kernels), else its own shape.
template <arch_table T, int KeyBytes, int ValueBytes, unsigned DigitBits>
struct arch_binning_policy {
  using type = binning_policy<KeyBytes, ValueBytes, DigitBits>;
};
template <unsigned DigitBits>
struct arch_binning_policy<arch_table::sm80, 8, 8, DigitBits> {
  using type = binning_policy_sm80_u64_pairs<DigitBits>;
};
template <arch_table T, int KeyBytes, int ValueBytes, unsigned DigitBits>
using arch_binning_policy_t = typename arch_binning_policy<T, KeyBytes, ValueBytes, DigitBits>::type;

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

}  // namespace onepass::sort::gpu::onesweep
