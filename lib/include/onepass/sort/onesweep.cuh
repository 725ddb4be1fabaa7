// onepass/sort/onesweep.cuh — Onesweep: single-pass-per-digit LSD radix sort on
// the GPU (CUDA).
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", §3 (algorithm) and §4 (2^31+ keys). Keys are sorted as unsigned
// words after the order-preserving transform of sort/key_traits.hpp (radix_traits;
// descending = complemented words), so the special floating-point values land as
// documented there (-0.0 before +0.0, NaNs by sign bit). The sort is stable.
// float_order::signed_zero_equal (the overloads whose first template argument is a
// float_order) orders float/double keys as cub::DeviceRadixSort does, -0.0 == +0.0:
// every place a digit is taken (histogram kernel; binning steps 3a, 3b, 6, 9b) reads
// digit_word<Order, Key>(word) instead of the word, while registers, shared memory
// and the output keep the key's own word, so output keys keep their bits. The
// default (total_order) instantiations compile to the same code as before.
//
// Kernels, per sort (d = DigitBits, r = 2^d digits, p = ceil((end_bit - begin_bit) / d)
// digit places, the last one possibly narrower):
//   1. upfront histogram (§3, Fig. 5): a grid of one wave of blocks reads the keys
//      once as 16-byte vectors and counts the digits of ALL p places in shared memory
//      (32-bit counters, shared atomics, one copy of the counters per warp), flushing
//      into 64-bit global counts (atomicAdd) after each chunk of at most 2^28 keys,
//      so no 32-bit counter can overflow;
//   2. exclusive sum: one block per place turns the p global histograms into the
//      global start of every digit (64-bit);
//   3. per place, one chained-scan digit-binning kernel (§3.2): each block takes the
//      next tile id from an atomic counter (digit_lookback::acquire_tile), loads its
//      tile of keys into registers, counts the digits of each warp (early counts: one
//      shared atomicAdd per key into the warp's histogram), publishes the tile's
//      per-digit counts through the decoupled look-back (detail::digit_lookback, one
//      channel per digit, status and value in one 32-bit word) right away, turns the
//      warps' counts into each warp's first slot of each digit in the digit-ordered
//      tile, ranks the keys with a warp-level multisplit (the lanes with the same digit
//      come from d ballots per key, one predicate per bit, detail::agreeing_lanes; the
//      lowest such lane adds their count to the warp's slot counter of the digit), so
//      every key gets its slot at once, reorganises the keys (and values) in shared
//      memory into digit order, looks back (thread k of the block for digit k, reading
//      a few predecessors at a time and spinning on a not-ready one), publishes its
//      inclusive prefixes, and writes the tile's runs of equal digits to their global
//      places, so that writes coalesce. binning_shape also builds the kernel without
//      early counts (ranks first, counts from the ranking) and with the atomicOr or
//      __match_any_sync rankings below; the benchmarks compare them.
// Low-entropy keys (§3, the short-circuit; §5, Fig. 9b):
//   - homogeneous tiles: the tile-wide count of some digit equals the tile's key count
//     exactly when every key of the tile has that digit, and thread d sees its count in
//     step 4, so the test costs no pass over the keys. Such a tile skips the shared-
//     memory reorganisation and copies its keys (and values) from the input (read a
//     moment earlier, so mostly from L2) to out[digit start + position in tile]:
//     stable, and the writes coalesce;
//   - uniform warps: the exclusive-sum kernel flags each place whose most frequent
//     digit holds at least half of the keys (dominant_place, from the histogram it
//     already has). On such a place each warp first tests whether all its keys have
//     one digit (one __all_sync, no block barrier); such a warp skips the multisplit
//     (rank = position in the warp), whose atomicOr of 32 lanes into one shared word
//     would serialise. Elsewhere the test is skipped, so uniform keys pay nothing for it.
//   - crowded places (tile shapes with atomicOr ranking only; the default shapes rank
//     by ballots, whose cost does not depend on the digits, and launch one kernel per
//     pass): the exclusive-sum kernel also computes, per place, the expected
//     number of distinct digits among 32 keys drawn from its histogram and flags the
//     place crowded below 16 (crowded_place). There the atomicOr of many lanes into one
//     shared word serialises, while __match_any_sync gets faster the fewer distinct
//     values it sees. The shapes that match with atomicOr are launched as a pair per
//     pass, the same shape with __match_any_sync beside it; each launch reads the flag
//     first and the one that does not own the place exits before taking a tile (a
//     run-time choice inside one kernel cost 5 % on uniform 2^28-key sorts). Portions
//     below pair_min_items = 2^25 keys take one launch instead, the dynamic kernel
//     (both rankings behind a block-uniform branch): there the second launch (about 6
//     us) costs more than the branch. A third class (mixed_place: ranked by ballots
//     through a third gated launch) exists for the benchmarks and is off by default
//     (see default_mixed_below for why).
//   Measured on an H100 (onesweep_fig09_keys32, 2^27.8 uint32 keys, microseconds per
//   sort, before these paths -> with the atomicOr / match_any pair; CUB in the same
//   run): uniform 4904 -> 5058 (CUB 5666); AND of 4 words 6863 -> 5106 (CUB 5556); AND
//   of 16 words: 39.8 -> 64 GKey/s (CUB 50). The small-portion kernel: see
//   default_small_dynamic.
//
// Portions (§4, "strips"): a binning kernel works on at most portion_items = 2^28
// consecutive keys of its input buffer, so the look-back counts (30-bit descriptor
// values) are exact. A pass over n > 2^28 keys is one kernel per portion, in order;
// the block holding the last tile of portion q writes, per digit, "global start of the digit for
// portion q + count of the digit in portion q" into the 64-bit bin array of portion
// q + 1, which the next kernel (stream-ordered) reads as its digit starts. Portion 0's
// starts come from the exclusive-sum kernel. The histogram needs no portions beyond
// its flush chunks. Each binning kernel's look-back descriptors (one portion's:
// ceil(portion / tile) * r words of 4 bytes) are zeroed by one memset before it.
//
// Tile shape (detail::binning_policy, chosen by measurement on an H100 with
// scripts/bench_onesweep.cu): threads x keys per thread per key and value size. Keys
// stay in registers from load to the shared-memory reorganisation; per-warp digit
// counters (and the atomic_or match words) live in shared memory, reused as the key
// buffer.
//
// Temporary storage (two-phase, like cub::DeviceRadixSort): bins (ceil(n / 2^28) * p *
// r * 8 bytes), p place flags (4 bytes each), the look-back descriptors of one portion (for 2^28 uint32 keys, d = 8
// and 8192-key tiles: 32768 tiles * 256 * 4 bytes = 32 MB), and, for the out-of-place
// API only, one ping-pong buffer of n keys (and n values) when p >= 2. The double-buffer API needs no n-sized
// storage: the result ends in one of the caller's two buffers and the selector says
// which (like cub::DoubleBuffer).
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/config.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"
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
/// (At least 2^DigitBits threads: thread d handles digit d.)
template <int KeyBytes, int ValueBytes = 0, unsigned DigitBits = 8>
struct binning_policy : binning_shape<512, KeyBytes == 4 ? 15 : 12, 2> {};
template <unsigned DigitBits>  // keys only, 4 bytes
struct binning_policy<4, 0, DigitBits>
    : std::conditional_t<(DigitBits > 8), binning_shape<512, 15, 2>,
                         binning_shape<256, 36, 3, peer_match::ballots, 4, 1>> {};
template <unsigned DigitBits>  // 4-byte keys and values
struct binning_policy<4, 4, DigitBits>
    : std::conditional_t<(DigitBits > 8), binning_shape<512, 15, 2>,
                         binning_shape<256, 56, 2, peer_match::ballots, 4, 1, 0, true>> {
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
                         binning_shape<384, 24, 2, peer_match::ballots, 4, 1>> {};

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

// ----------------------------------------------------------------------------
// Device building blocks.

/// Transformed word of a key for the sort order (key_traits.hpp).
template <class Key, bool Descending>
__device__ __forceinline__ typename radix_traits<Key>::bits_type to_ordered(Key k) {
  const auto b = radix_traits<Key>::to_bits(k);
  return Descending ? static_cast<typename radix_traits<Key>::bits_type>(~b) : b;
}
/// Inverse of to_ordered.
template <class Key, bool Descending>
__device__ __forceinline__ Key from_ordered(typename radix_traits<Key>::bits_type b) {
  using bits_type = typename radix_traits<Key>::bits_type;
  return radix_traits<Key>::from_bits(Descending ? static_cast<bits_type>(~b) : b);
}

/// Block-wide exclusive sum of one value per thread (all Block threads call it).
/// `s_warp` holds Block / 32 words of shared memory; it is read after the call's
/// last barrier, so a caller that reuses it must synchronise first.
template <int Block, class T>
__device__ __forceinline__ T block_exclusive_sum(T value, T* s_warp) {
  static_assert(Block % 32 == 0 && Block / 32 <= 32, "block_exclusive_sum: Block in 32..1024, a multiple of 32");
  constexpr int warps = Block / 32;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  T inclusive = value;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const T up = __shfl_up_sync(0xFFFFFFFFu, inclusive, offset);
    if (lane >= static_cast<unsigned>(offset)) inclusive += up;
  }
  if (lane == 31) s_warp[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const T total = lane < static_cast<unsigned>(warps) ? s_warp[lane] : T{0};
    T scanned = total;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const T up = __shfl_up_sync(0xFFFFFFFFu, scanned, offset);
      if (lane >= static_cast<unsigned>(offset)) scanned += up;
    }
    if (lane < static_cast<unsigned>(warps)) s_warp[lane] = scanned - total;
  }
  __syncthreads();
  return s_warp[warp] + inclusive - value;
}

/// Lanes of the (full) warp whose `value` is zero exactly when this lane's is: the
/// ballot of value != 0, complemented in the lanes where it is false. One predicate
/// feeds both the vote and the complement (written in PTX: the C++ form, a select
/// between the ballot and its complement, compiled to about twice the instructions per
/// bit on sm_90, and the binning kernel's ballot ranking is instruction-bound).
__device__ __forceinline__ unsigned agreeing_lanes(unsigned value) {
  unsigned lanes;
  asm("{\n\t.reg .pred nonzero;\n\t"
      "setp.ne.u32 nonzero, %1, 0;\n\t"
      "vote.sync.ballot.b32 %0, nonzero, 0xffffffff;\n\t"
      "@!nonzero not.b32 %0, %0;\n\t}"
      : "=r"(lanes)
      : "r"(value));
  return lanes;
}

/// Items 16-bit numbers, two to a 32-bit register (indices must be compile-time
/// constants after unrolling, so the array stays in registers).
template <int Items>
struct slot_pack {
  std::uint32_t word[(Items + 1) / 2];
  __device__ __forceinline__ std::uint32_t get(int k) const { return (word[k / 2] >> (16 * (k % 2))) & 0xFFFFu; }
  /// Sets number k (value < 2^16); numbers are set in order 0, 1, 2, ...
  __device__ __forceinline__ void set(int k, std::uint32_t value) {
    if (k % 2 == 0) {
      word[k / 2] = value;
    } else {
      word[k / 2] |= value << 16;
    }
  }
  /// Adds `delta` to number k (the sum stays below 2^16).
  __device__ __forceinline__ void add(int k, std::uint32_t delta) { word[k / 2] += delta << (16 * (k % 2)); }
};

/// Decoupled look-back of the binning kernel (one scan channel per digit), with
/// 32-bit descriptors: bit 31 inclusive prefix, bit 30 aggregate, bits 29..0 the
/// value; 0 = not ready (the memset of initialize()). Counts and prefixes inside one
/// portion (<= 2^28 keys) fit in 30 bits. Storage: [tile counter (padded to 128 B) |
/// num_tiles x Radix words]; the descriptor of (tile, digit) is word tile * Radix +
/// digit. Same memory-ordering argument as scan/tile_state.cuh: the descriptor is the
/// only datum handed from block to block; one relaxed device-scope 32-bit store
/// publishes status and value together, one relaxed load reads them.
template <unsigned Radix>
class digit_lookback {
 public:
  static constexpr std::uint32_t prefix_flag = 1u << 31;
  static constexpr std::uint32_t aggregate_flag = 1u << 30;
  static constexpr std::uint32_t value_mask = aggregate_flag - 1u;
  static constexpr std::size_t header_bytes = 128;

  static constexpr std::size_t temp_bytes(std::uint64_t num_tiles) {
    return header_bytes + static_cast<std::size_t>(num_tiles) * Radix * sizeof(std::uint32_t);
  }

  digit_lookback() = default;
  digit_lookback(void* d_temp, std::uint32_t num_tiles)
      : counter_(static_cast<std::uint32_t*>(d_temp)),
        words_(reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(d_temp) + header_bytes)),
        num_tiles_(num_tiles) {}

  /// Enqueues: every descriptor "not ready", the tile counter 0 (one memset).
  void initialize(cudaStream_t stream) const {
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(counter_, 0, temp_bytes(num_tiles_), stream));
  }

  __device__ std::uint32_t num_tiles() const { return num_tiles_; }

  /// Next tile id (one thread per block).
  __device__ std::uint32_t acquire_tile() const { return atomicAdd(counter_, 1u); }

  /// Publishes (flag, value) for (tile, digit).
  __device__ void publish(std::uint32_t tile, std::uint32_t digit, std::uint32_t flag, std::uint32_t value) const {
    word(tile, digit).store(flag | (value & value_mask), cuda::std::memory_order_relaxed);
  }

  /// One thread: the exclusive prefix of `tile` (> 0) for `digit`. Reads Window
  /// predecessors at a time (nearest first), spinning while the nearest unsummed
  /// one is not ready, sums aggregates until an inclusive prefix (tile 0 always
  /// publishes one; predecessors before tile 0 read as inclusive 0).
  template <int Window>
  __device__ std::uint32_t exclusive_prefix(std::uint32_t tile, std::uint32_t digit) const {
    std::uint32_t sum = 0;
    int next = static_cast<int>(tile) - 1;  // nearest predecessor not summed yet
    for (;;) {
      std::uint32_t w[Window];
#pragma unroll
      for (int i = 0; i < Window; ++i) {
        w[i] = next - i >= 0 ? word(static_cast<std::uint32_t>(next - i), digit).load(cuda::std::memory_order_relaxed)
                             : prefix_flag;
      }
#pragma unroll
      for (int i = 0; i < Window; ++i) {
        if (w[i] == 0) break;  // not ready: read again from predecessor `next`
        sum += w[i] & value_mask;
        if (w[i] & prefix_flag) return sum;
        --next;
      }
    }
  }

 private:
  __device__ cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> word(std::uint32_t tile,
                                                                            std::uint32_t digit) const {
    return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(
        words_[static_cast<std::size_t>(tile) * Radix + digit]);
  }

  std::uint32_t* counter_ = nullptr;
  std::uint32_t* words_ = nullptr;
  std::uint32_t num_tiles_ = 0;
};

// ----------------------------------------------------------------------------
// Kernel 1: upfront histogram of every digit place.

/// Copies of the histogram kernel's shared counters (warp w counts into copy
/// w % copies): as many as fit in 32 KB, at most one per warp.
template <unsigned DigitBits, class Key>
inline constexpr int histogram_copies =
    static_cast<int>(std::max(1u, std::min(32768u / (((radix_traits<Key>::bits + DigitBits - 1) / DigitBits << DigitBits) * 4u),
                                           static_cast<unsigned>(histogram_block / 32))));

/// counts[place * 2^DigitBits + digit] += number of keys with that digit at that
/// place (64-bit global counts, zeroed by the caller). Block b counts chunks b,
/// b + gridDim.x, ... of `chunk` keys (chunk <= 2^28, so its 32-bit shared counters
/// cannot overflow) and flushes after each chunk. Keys are read as 16-byte vectors
/// (the few keys before the first and after the last 16-byte boundary of a chunk one
/// by one); each warp counts into its own copy of the counters (shared atomics).
template <unsigned DigitBits, class Key, bool Descending, float_order Order>
__global__ void __launch_bounds__(histogram_block)
    histogram_kernel(const Key* __restrict__ keys, std::uint64_t n, std::uint64_t chunk, unsigned begin_bit,
                     unsigned end_bit, unsigned num_places, unsigned long long* __restrict__ counts) {
  using bits_type = typename radix_traits<Key>::bits_type;
  constexpr unsigned radix = 1u << DigitBits;
  constexpr unsigned max_places = (radix_traits<Key>::bits + DigitBits - 1) / DigitBits;
  constexpr unsigned max_slots = max_places * radix;
  constexpr int copies = histogram_copies<DigitBits, Key>;
  constexpr int per_vector = 16 / static_cast<int>(sizeof(Key));
  __shared__ std::uint32_t s_counts[copies * max_slots];
  const unsigned slots = num_places * radix;
  std::uint32_t* my_counts = s_counts + ((threadIdx.x >> 5) % copies) * max_slots;

  unsigned shift[max_places], mask[max_places];
#pragma unroll
  for (unsigned p = 0; p < max_places; ++p) {
    shift[p] = begin_bit + p * DigitBits;
    const unsigned width = p < num_places ? (end_bit - shift[p] < DigitBits ? end_bit - shift[p] : DigitBits) : 0u;
    mask[p] = (1u << width) - 1u;
  }
  auto count = [&](Key key) {
    const bits_type w = digit_word<Order, Key>(to_ordered<Key, Descending>(key));
#pragma unroll
    for (unsigned p = 0; p < max_places; ++p) {
      if (p < num_places) atomicAdd(&my_counts[p * radix + (static_cast<unsigned>(w >> shift[p]) & mask[p])], 1u);
    }
  };

  for (unsigned j = threadIdx.x; j < copies * max_slots; j += histogram_block) s_counts[j] = 0;
  __syncthreads();

  const std::uint64_t num_chunks = (n + chunk - 1) / chunk;
  for (std::uint64_t c = blockIdx.x; c < num_chunks; c += gridDim.x) {
    const std::uint64_t begin = c * chunk;
    const std::uint64_t end = begin + chunk < n ? begin + chunk : n;
    const auto address = reinterpret_cast<std::uintptr_t>(keys + begin);
    std::uint64_t head = ((16u - address % 16u) % 16u) / sizeof(Key);
    if (head > end - begin) head = end - begin;
    const std::uint64_t vbegin = begin + head;
    const std::uint64_t vectors = (end - vbegin) / per_vector;
    const std::uint64_t vend = vbegin + vectors * per_vector;
    if (threadIdx.x < head) count(keys[begin + threadIdx.x]);
    if (threadIdx.x < end - vend) count(keys[vend + threadIdx.x]);
    const uint4* v = reinterpret_cast<const uint4*>(keys + vbegin);
    for (std::uint64_t base = 0; base < vectors; base += std::uint64_t{histogram_block} * histogram_unroll) {
      uint4 x[histogram_unroll];
#pragma unroll
      for (int u = 0; u < histogram_unroll; ++u) {
        const std::uint64_t i = base + static_cast<std::uint64_t>(u) * histogram_block + threadIdx.x;
        if (i < vectors) x[u] = __ldg(v + i);
      }
#pragma unroll
      for (int u = 0; u < histogram_unroll; ++u) {
        const std::uint64_t i = base + static_cast<std::uint64_t>(u) * histogram_block + threadIdx.x;
        if (i < vectors) {
          Key k[per_vector];
          memcpy(k, &x[u], 16);
#pragma unroll
          for (int e = 0; e < per_vector; ++e) count(k[e]);
        }
      }
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < slots; j += histogram_block) {
      std::uint32_t v_sum = 0;
#pragma unroll
      for (int copy = 0; copy < copies; ++copy) {
        v_sum += s_counts[copy * max_slots + j];
        s_counts[copy * max_slots + j] = 0;
      }
      if (v_sum != 0) atomicAdd(&counts[j], static_cast<unsigned long long>(v_sum));
    }
    __syncthreads();
  }
}

// ----------------------------------------------------------------------------
// Kernel 2: exclusive sum of each place's histogram.

/// One block of 2^DigitBits threads per place: bins[place][d] = sum of the counts
/// of digits below d at that place (in place), and flags[place]: dominant_place when
/// one digit holds at least half of the place's keys; crowded_place when fewer than
/// crowded_below distinct digits are expected among 32 keys, else mixed_place when fewer
/// than mixed_below.
template <unsigned DigitBits>
__global__ void __launch_bounds__(1u << DigitBits) exclusive_sum_kernel(unsigned long long* bins, std::uint32_t* flags,
                                                                        float crowded_below, float mixed_below) {
  constexpr int radix = 1 << DigitBits;
  __shared__ unsigned long long s_warp[radix / 32];
  constexpr int warps = radix / 32;
  __shared__ unsigned long long s_total[warps], s_max[warps];
  __shared__ double s_distinct[warps];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  unsigned long long* place = bins + static_cast<std::size_t>(blockIdx.x) * radix;
  const unsigned long long count = place[threadIdx.x];
  // Place total and largest count: warp shuffles, then one partial per warp.
  unsigned long long total = count, largest = count;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    total += __shfl_xor_sync(0xFFFFFFFFu, total, offset);
    const unsigned long long other = __shfl_xor_sync(0xFFFFFFFFu, largest, offset);
    largest = other > largest ? other : largest;
  }
  if (lane == 0) {
    s_total[warp] = total;
    s_max[warp] = largest;
  }
  __syncthreads();
  total = 0;
  largest = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    total += s_total[w];
    largest = s_max[w] > largest ? s_max[w] : largest;
  }
  // E[distinct digits among 32 keys] = sum_d 1 - (1 - p_d)^32.
  double miss = total != 0 ? 1.0 - static_cast<double>(count) / static_cast<double>(total) : 1.0;
#pragma unroll
  for (int square = 0; square < 5; ++square) miss *= miss;
  double distinct = 1.0 - miss;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) distinct += __shfl_xor_sync(0xFFFFFFFFu, distinct, offset);
  if (lane == 0) s_distinct[warp] = distinct;
  place[threadIdx.x] = block_exclusive_sum<radix>(count, s_warp);  // its barriers publish s_distinct
  if (threadIdx.x == 0) {
    distinct = 0;
    for (int w = 0; w < warps; ++w) distinct += s_distinct[w];
    std::uint32_t f = 0;
    if (total != 0 && 2 * largest >= total) f |= dominant_place;
    if (total != 0 && distinct < crowded_below) {
      f |= crowded_place;
    } else if (total != 0 && distinct < mixed_below) {
      f |= mixed_place;
    }
    flags[blockIdx.x] = f;
  }
}

// ----------------------------------------------------------------------------
// Kernel 3: chained-scan digit binning of one portion at one digit place.

/// True for the peer-matching methods that keep the two atomicOr match arrays.
template <peer_match M>
inline constexpr bool uses_match_words = M == peer_match::atomic_or || M == peer_match::dynamic;

/// [warps][radix] arrays of 32-bit words before the second histogram copy: the digit
/// counters, then (uses_match_words) the two match arrays.
template <class Policy>
inline constexpr unsigned arrays_before_copy = uses_match_words<Policy::match> ? 3u : 1u;
/// All [warps][radix] arrays of the binning kernel's counter region: those above, then
/// (early_counts == 2) the second histogram copy.
template <class Policy>
inline constexpr unsigned counter_arrays = arrays_before_copy<Policy> + (Policy::early_counts == 2 ? 1u : 0u);

/// Bytes per slot of the shared buffer that holds a tile's keys and then, with
/// ValuesAfterKeys, its values (the digit bytes of the slots follow the buffer).
ONEPASS_HD constexpr std::size_t shared_word_bytes(std::size_t key_bytes, std::size_t value_bytes) {
  return key_bytes > value_bytes ? key_bytes : value_bytes;
}

/// Bytes of dynamic shared memory of the binning kernel: the per-warp digit counters,
/// reused for the tile's keys (as transformed words) followed by its values.
template <unsigned DigitBits, class Key, class Value, class Policy>
constexpr std::size_t binning_shared_bytes() {
  // Counters [warps][radix], then (peer_match::atomic_or) two match arrays [warps][radix].
  // With two histogram copies (early counts), one more [warps][radix] array at the end.
  constexpr std::size_t counters = (std::size_t{Policy::warps} << DigitBits << 2) * counter_arrays<Policy>;
  constexpr std::size_t tile =
      std::size_t{Policy::tile_items} *
      (Policy::values_after_keys && value_bytes<Value> > 0 ? shared_word_bytes(sizeof(Key), value_bytes<Value>) + 1
                                                          : sizeof(Key) + value_bytes<Value>);
  return counters > tile ? counters : tile;
}

/// Moves keys [portion_begin, portion_begin + portion_items) of keys_in (and of
/// values_in) to their places in keys_out (values_out) by the digit at `shift`
/// (pass_bits wide). bins_in[d]: global index of the portion's first key with digit
/// d; the block of the last tile writes bins_in[d] + (count of d in the portion)
/// into bins_next[d] when bins_next is not null. One block per tile; `state` holds
/// ceil(portion_items / tile) tiles and was initialised. Order: digits are taken from
/// digit_word<Order, Key>(word); the words moved are the keys' own.
template <unsigned DigitBits, class Key, class ValueWord, bool Descending, float_order Order, class Policy,
          unsigned Gate = 0>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    binning_kernel(const Key* __restrict__ keys_in, Key* __restrict__ keys_out, const ValueWord* __restrict__ values_in,
                   ValueWord* __restrict__ values_out, std::uint64_t portion_begin, std::uint32_t portion_items,
                   unsigned shift, unsigned pass_bits, const std::uint64_t* __restrict__ bins_in,
                   std::uint64_t* __restrict__ bins_next, const std::uint32_t* __restrict__ place_flags,
                   digit_lookback<1u << DigitBits> state) {
  using bits_type = typename radix_traits<Key>::bits_type;
  using lookback = digit_lookback<1u << DigitBits>;
  constexpr bool has_values = !std::is_same_v<ValueWord, no_values>;
  constexpr int block = Policy::block, items = Policy::items, warps = Policy::warps;
  constexpr std::uint32_t tile_items = Policy::tile_items;
  constexpr unsigned radix = 1u << DigitBits;
  static_assert(radix <= static_cast<unsigned>(block), "binning_kernel: one thread per digit");
  static_assert(tile_items < 65536, "binning_kernel: slots are 16-bit");

  extern __shared__ __align__(16) unsigned char s_dynamic[];
  std::uint32_t* s_counters = reinterpret_cast<std::uint32_t*>(s_dynamic);  // [warps][radix]
  bits_type* s_keys = reinterpret_cast<bits_type*>(s_dynamic);              // [tile_items], after the counters
  __shared__ std::uint32_t s_local[radix];      // tile-local start of each digit's run
  __shared__ std::uint64_t s_base[radix];       // global index of slot 0 of each digit's run (mod 2^64)
  __shared__ std::uint32_t s_warp_sums[warps];
  __shared__ std::uint32_t s_tile;
  __shared__ std::uint32_t s_homogeneous;       // the tile's only digit, or radix (step 4)

  const std::uint32_t flags = *place_flags;  // block-uniform
  // Gates of the launches of one pass (one of them does the pass; the others exit here,
  // before they take a tile): Gate 1 runs on places neither crowded nor mixed, Gate 2 on
  // crowded places, Gate 3 on mixed places. Gate 0 always runs.
  if constexpr (Gate != 0) {
    const unsigned owner = (flags & crowded_place) ? 2u : (flags & mixed_place) ? 3u : 1u;
    if (owner != Gate) return;
  }
  const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
  const unsigned pass_mask = (1u << pass_bits) - 1u;
  const unsigned lanes_below = (1u << lane) - 1u;

  // 1. Zero this block's per-warp digit counters (and match words); take the next tile id.
  constexpr unsigned counter_words = warps * radix * counter_arrays<Policy>;
  for (unsigned j = t; j < counter_words; j += block) s_counters[j] = 0;
  if (t == 0) {
    s_tile = state.acquire_tile();
    s_homogeneous = radix;
  }
  std::uint64_t bin_start = 0;
  if (t < radix) bin_start = bins_in[t];  // issued early; used after the look-back
  __syncthreads();
  const std::uint32_t tile = s_tile;
  const std::uint32_t tile_begin = tile * tile_items;
  const std::uint32_t valid_items = portion_items - tile_begin < tile_items ? portion_items - tile_begin : tile_items;
  const bool full_tile = valid_items == tile_items;

  // 2. Load: warp w holds keys [w * items * 32, (w + 1) * items * 32) of the tile,
  // key k of lane l at k * 32 + l (so (k, l) order is input order). Slots past the
  // end of the portion hold all-ones words: their digit is the largest of the pass
  // and they rank after every real key.
  const std::uint32_t first = tile_begin + warp * (items * 32u) + lane;  // this thread's key 0
  const Key* src = keys_in + portion_begin + first;
  bits_type words[items];
#pragma unroll
  for (int k = 0; k < items; ++k) {
    words[k] = (full_tile || first + static_cast<std::uint32_t>(k) * 32u < portion_items)
                   ? to_ordered<Key, Descending>(src[k * 32])
                   : static_cast<bits_type>(~bits_type{0});
  }

  // 2b. Ask L2 for this warp's lines of values (key k of the warp's 32 lanes: one line of
  // 32 values of 4 bytes; lane l asks for lines l, l + 32, ... below items).
  if constexpr (has_values && Policy::prefetch_values == 1) {
    const ValueWord* vbase = values_in + portion_begin + tile_begin + warp * (items * 32u);
    for (unsigned k = lane; k < static_cast<unsigned>(items); k += 32u) {
      const std::uint32_t line_first = tile_begin + warp * (items * 32u) + k * 32u;
      if (line_first < portion_items) asm volatile("prefetch.global.L2 [%0];" ::"l"(vbase + k * 32u));
    }
  }

  // 2c. Or load them into registers now (PrefetchValues 2).
  [[maybe_unused]] ValueWord early_values[has_values && Policy::prefetch_values == 2 ? items : 1];
  if constexpr (has_values && Policy::prefetch_values == 2) {
    const ValueWord* vsrc = values_in + portion_begin + first;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      if (full_tile || first + static_cast<std::uint32_t>(k) * 32u < portion_items) early_values[k] = vsrc[k * 32];
    }
  }

  // 3. Warp-level multisplit: rank k = number of keys of this warp before key k
  // (in input order) with the same digit. The lanes holding the same digit (peers)
  // come from DigitBits ballots, __match_any_sync, or an atomicOr of each lane's bit
  // into a per-warp shared word of the digit (two arrays used alternately, so that a
  // word is cleared by the digit's lowest lane one __syncwarp before it is reused);
  // the lowest peer adds their count to the warp's shared digit counter. Ranks (and
  // later slots) are below 2^16 and kept two to a register. With early counts
  // (Policy::early_counts) the warp's counters first hold its digit histogram, then
  // (after step 5) the warp's first slot of each digit in the digit-ordered tile, and
  // the same multisplit (step 6e) yields slots directly.
  constexpr bool early = Policy::early_counts != 0;
  // The second histogram copy (early_counts == 2): after the match words.
  std::uint32_t* s_copy = s_counters + warps * radix * arrays_before_copy<Policy>;
  slot_pack<items> ranks;
  std::uint32_t* warp_counters = s_counters + warp * radix;
  std::uint32_t* warp_match = s_counters + warps * radix + warp * 2 * radix;  // [2][radix] (atomic_or)
  [[maybe_unused]] const bool or_ranking =
      Policy::match == peer_match::atomic_or || (Policy::match == peer_match::dynamic && !(flags & crowded_place));
  auto multisplit = [&]() {
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const unsigned d = static_cast<unsigned>(digit_word<Order, Key>(words[k]) >> shift) & pass_mask;
      unsigned peers;
      if (uses_match_words<Policy::match> && or_ranking) {
        std::uint32_t* match_word = warp_match + (k % 2) * radix + d;
        atomicOr(match_word, 1u << lane);
        __syncwarp();
        peers = *match_word;
        const unsigned below = __popc(peers & lanes_below);
        unsigned before = 0;
        if (below == 0) {  // the warp's counters are its own; one lowest peer per digit
          before = warp_counters[d];
          warp_counters[d] = before + static_cast<unsigned>(__popc(peers));
        }
        __syncwarp();
        if (below == 0) *match_word = 0;
        before = __shfl_sync(0xFFFFFFFFu, before, __ffs(peers) - 1);
        ranks.set(k, before + below);
        continue;
      }
      if constexpr (Policy::match == peer_match::match_any || Policy::match == peer_match::dynamic) {
        peers = __match_any_sync(0xFFFFFFFFu, d);
      } else {
        peers = 0xFFFFFFFFu;
#pragma unroll
        for (unsigned b = 0; b < DigitBits; ++b) peers &= agreeing_lanes(d & (1u << b));
      }
      const unsigned below = __popc(peers & lanes_below);
      unsigned before = 0;
      if (below == 0) before = atomicAdd(&warp_counters[d], static_cast<unsigned>(__popc(peers)));
      before = __shfl_sync(0xFFFFFFFFu, before, __ffs(peers) - 1);
      ranks.set(k, before + below);
    }
  };
  // Step 7 (or 9c): this thread's values (from registers with PrefetchValues 2, else from
  // values_in) into their slots of s_values, in the digit order of the keys.
  [[maybe_unused]] auto stage_values = [&](ValueWord* s_values) {
    const ValueWord* vsrc = values_in + portion_begin + first;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      if (full_tile || first + static_cast<std::uint32_t>(k) * 32u < portion_items) {
        if constexpr (Policy::prefetch_values == 2) {
          s_values[ranks.get(k)] = early_values[k];
        } else {
          s_values[ranks.get(k)] = vsrc[k * 32];
        }
      }
    }
  };
  // 3a. On a dominant place: does this warp hold one digit only (padding slots
  // included, so a partly padded warp takes the general path unless its keys have
  // the padding's digit)? Then key k of lane l has rank k * 32 + l.
  bool warp_uniform = false;
  unsigned uniform_digit = 0;
  if (flags & dominant_place) {
    const bits_type reference = digit_word<Order, Key>(__shfl_sync(0xFFFFFFFFu, words[0], 0));
    bits_type differ = 0;
#pragma unroll
    for (int k = 0; k < items; ++k) differ |= digit_word<Order, Key>(words[k]) ^ reference;
    warp_uniform = __all_sync(0xFFFFFFFFu, (static_cast<unsigned>(differ >> shift) & pass_mask) == 0);
    if (warp_uniform) {
      uniform_digit = static_cast<unsigned>(reference >> shift) & pass_mask;
#pragma unroll
      for (int k = 0; k < items; ++k) ranks.set(k, static_cast<std::uint32_t>(k) * 32u + lane);
      if (lane == 0) warp_counters[uniform_digit] = items * 32u;
    }
  }
  if (!warp_uniform) {
    if constexpr (early) {
      // 3e. The warp's digit histogram (the result is unused: a shared reduction).
      std::uint32_t* histogram = (Policy::early_counts == 2 && (lane & 1u)) ? s_copy + warp * radix : warp_counters;
#pragma unroll
      for (int k = 0; k < items; ++k)
        atomicAdd(&histogram[static_cast<unsigned>(digit_word<Order, Key>(words[k]) >> shift) & pass_mask], 1u);
    } else {
      // 3b. The multisplit (peer_match::dynamic: atomicOr, or __match_any_sync on
      // crowded places; the branch is block-uniform).
      multisplit();
    }
  }
  __syncthreads();

  // 4. Thread d (< radix): digit d's counts over the warps (without early counts, turned
  // into their exclusive scan in place), the tile's count of d, published at once
  // (tile 0: as its inclusive prefix).
  std::uint32_t count = 0;
  [[maybe_unused]] std::uint32_t per_warp[early ? warps : 1];
  if (t < radix) {
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      std::uint32_t c = s_counters[w * radix + t];
      if constexpr (Policy::early_counts == 2) c += s_copy[w * radix + t];
      if constexpr (early) {
        per_warp[w] = c;
      } else {
        s_counters[w * radix + t] = count;
      }
      count += c;
    }
    if (t == pass_mask) count -= tile_items - valid_items;  // the padding slots
    state.publish(tile, t, tile == 0 ? lookback::prefix_flag : lookback::aggregate_flag, count);
    if (count == valid_items) s_homogeneous = t;  // at most one digit (valid_items >= 1)
  }

  // 5. Tile-local start of each digit's run (its barriers also publish s_homogeneous).
  const std::uint32_t local_start = block_exclusive_sum<block>(t < radix ? count : 0u, s_warp_sums);
  const unsigned homogeneous_digit = s_homogeneous;  // block-uniform
  if (homogeneous_digit == radix) {
    if constexpr (early) {
      // 6e. Each warp's first slot of digit d: the digit's tile-local start plus the
      // counts of d in the warps before it; then the multisplit from those offsets.
      if (t < radix) {
        std::uint32_t running = local_start;
#pragma unroll
        for (int w = 0; w < warps; ++w) {
          s_counters[w * radix + t] = running;
          running += per_warp[w];
        }
      }
      __syncthreads();
      if (warp_uniform) {
        const std::uint32_t first_slot = warp_counters[uniform_digit];
#pragma unroll
        for (int k = 0; k < items; ++k) ranks.add(k, first_slot);
      } else {
        multisplit();
      }
      __syncthreads();  // the counters are overwritten by the keys below
    } else {
      if (t < radix) s_local[t] = local_start;
      __syncthreads();

      // 6. Slot of each key in the digit-ordered tile.
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const unsigned d = static_cast<unsigned>(digit_word<Order, Key>(words[k]) >> shift) & pass_mask;
        ranks.add(k, s_local[d] + s_counters[warp * radix + d]);
      }
      __syncthreads();  // the counters are overwritten by the keys below
    }

    // 7. Reorganise keys (and values, unless they come after the keys) in shared memory.
#pragma unroll
    for (int k = 0; k < items; ++k) s_keys[ranks.get(k)] = words[k];
    if constexpr (has_values && !Policy::values_after_keys) stage_values(reinterpret_cast<ValueWord*>(s_keys + tile_items));
  }

  // 8. Look-back (thread d for digit d), inclusive prefix, global bases.
  if (t < radix) {
    std::uint32_t exclusive = 0;
    if (tile != 0) {
      exclusive = state.template exclusive_prefix<Policy::window>(tile, t);
      state.publish(tile, t, lookback::prefix_flag, exclusive + count);
    }
    const std::uint64_t start = bin_start + exclusive;
    s_base[t] = start - local_start;
    if (bins_next != nullptr && tile == state.num_tiles() - 1) bins_next[t] = start + count;
  }
  __syncthreads();

  // 9a. Homogeneous tile (the short-circuit): key k of lane l of warp w, tile position
  // w * items * 32 + k * 32 + l, is copied from keys_in (values from values_in) to
  // s_base[digit] + position (the digit's tile-local start is 0). Re-reading the key
  // rather than keeping it in a register across the look-back leaves the general
  // path's register allocation alone.
  if (homogeneous_digit != radix) {
    const std::uint64_t dst = s_base[homogeneous_digit] + (first - tile_begin);
#pragma unroll
    for (int k = 0; k < items; ++k) {
      if (full_tile || first + static_cast<std::uint32_t>(k) * 32u < portion_items) {
        keys_out[dst + k * 32] = keys_in[portion_begin + first + k * 32];
        if constexpr (has_values) values_out[dst + k * 32] = values_in[portion_begin + first + k * 32];
      }
    }
    return;
  }
  // 9b. Otherwise write the runs: slot j goes to s_base[digit] + j (consecutive slots
  // of one digit to consecutive addresses). Partly unrolled: no register arrays here,
  // and a full unroll hoists every shared load and costs registers.
  constexpr bool values_later = has_values && Policy::values_after_keys;
  [[maybe_unused]] unsigned char* s_digit =
      s_dynamic + std::size_t{tile_items} * shared_word_bytes(sizeof(bits_type), sizeof(ValueWord));  // values_later
#pragma unroll 5
  for (int k = 0; k < items; ++k) {
    const std::uint32_t j = t + static_cast<std::uint32_t>(k) * block;
    if (full_tile || j < valid_items) {
      const bits_type w = s_keys[j];
      const unsigned d = static_cast<unsigned>(digit_word<Order, Key>(w) >> shift) & pass_mask;
      const std::uint64_t dst = s_base[d] + j;
      keys_out[dst] = from_ordered<Key, Descending>(w);
      if constexpr (values_later) {
        s_digit[j] = static_cast<unsigned char>(d);
      } else if constexpr (has_values) {
        values_out[dst] = reinterpret_cast<const ValueWord*>(s_keys + tile_items)[j];
      }
    }
  }
  // 9c. Values after the keys (Policy::values_after_keys): into the same buffer at the
  // keys' slots, then out to the same places, each slot's digit from s_digit.
  if constexpr (values_later) {
    __syncthreads();  // every key has been read from shared memory
    ValueWord* s_values = reinterpret_cast<ValueWord*>(s_dynamic);
    stage_values(s_values);
    __syncthreads();
#pragma unroll 5
    for (int k = 0; k < items; ++k) {
      const std::uint32_t j = t + static_cast<std::uint32_t>(k) * block;
      if (full_tile || j < valid_items) values_out[s_base[s_digit[j]] + j] = s_values[j];
    }
  }
}

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
/// 32-bit place flags (dominant_place), then one
/// digit_lookback of tiles_per_portion tiles. No key buffers. Policy: the binning
/// kernel's shape (binning_shape; the default is the measured one). Order: how float /
/// double keys compare (key_traits.hpp; no effect on integer keys).
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
  using word = value_word<Value>;
  static constexpr unsigned radix = 1u << DigitBits;

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
    small_ = n < small_shape<Policy>::below;
    const std::uint64_t tile_items = small_ ? small_policy::tile_items : policy::tile_items;
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
    exclusive_sum_kernel<DigitBits><<<places_, radix, 0, stream>>>(reinterpret_cast<unsigned long long*>(bins_), flags_,
                                                                    crowded_below_, mixed_below_);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }

  /// Ranking thresholds of the place flags (expected distinct digits among 32 keys; see
  /// crowded_place, mixed_place): for the benchmarks that choose the defaults.
  void set_thresholds(float crowded_below, float mixed_below) {
    crowded_below_ = crowded_below;
    mixed_below_ = mixed_below;
  }
  /// Smallest portion that takes the gated launches (benchmarks; default pair_min_items).
  void set_pair_min_items(std::uint64_t items) { pair_min_items_ = items; }
  /// Whether smaller portions take the dynamic kernel (true) or atomicOr alone (benchmarks).
  void set_small_dynamic(bool dynamic) { small_dynamic_ = dynamic; }

  /// Enqueues the binning of digit place `place` (< num_places()) over all portions:
  /// keys_in[0, n) -> keys_out[0, n) (and values alike; nullptr for keys-only).
  /// Needs histogram() and exclusive_sum() earlier in stream order (once per sort).
  void binning_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                    cudaStream_t stream) const {
    if (n_ == 0) return;
    if constexpr (!std::is_same_v<small_policy, Policy>) {
      if (small_) {
        if (descending_) {
          launch_pass<true, small_policy>(place, keys_in, keys_out, values_in, values_out, stream);
        } else {
          launch_pass<false, small_policy>(place, keys_in, keys_out, values_in, values_out, stream);
        }
        return;
      }
    }
    if (descending_) {
      launch_pass<true, Policy>(place, keys_in, keys_out, values_in, values_out, stream);
    } else {
      launch_pass<false, Policy>(place, keys_in, keys_out, values_in, values_out, stream);
    }
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

  template <bool Descending, class Shape>
  void launch_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                   cudaStream_t stream) const {
    // atomic_or shapes, portions of >= pair_min_items keys: gated launches of the same
    // tile shape, one per ranking, each exiting at once unless the place flag is its own:
    // atomicOr (Gate 1), __match_any_sync for crowded places (Gate 2) and, when the mixed
    // threshold is above the crowded one, ballots for mixed places (Gate 3). Smaller
    // portions take one launch (each extra launch costs about 6 us, which small sorts
    // feel): the dynamic kernel (atomicOr, or match_any on crowded places, a block-uniform
    // branch) when small_dynamic_, else the atomicOr kernel alone.
    constexpr bool gated = Shape::match == peer_match::atomic_or;
    using crowded_shape = typename Shape::template with_match<peer_match::match_any>;
    using mixed_shape = typename Shape::template with_match<peer_match::ballots>;
    using dynamic_shape = typename Shape::template with_match<peer_match::dynamic>;
    constexpr auto kernel = binning_kernel<DigitBits, Key, word, Descending, Order, Shape, 0u>;
    constexpr auto kernel_gated = binning_kernel<DigitBits, Key, word, Descending, Order, Shape, 1u>;
    constexpr auto kernel_crowded = binning_kernel<DigitBits, Key, word, Descending, Order, crowded_shape, 2u>;
    constexpr auto kernel_mixed = binning_kernel<DigitBits, Key, word, Descending, Order, mixed_shape, 3u>;
    constexpr auto kernel_dynamic = binning_kernel<DigitBits, Key, word, Descending, Order, dynamic_shape, 0u>;
    constexpr std::size_t shared = binning_shared_bytes<DigitBits, Key, Value, Shape>();
    constexpr std::size_t shared_crowded = binning_shared_bytes<DigitBits, Key, Value, crowded_shape>();
    constexpr std::size_t shared_mixed = binning_shared_bytes<DigitBits, Key, Value, mixed_shape>();
    constexpr std::size_t shared_dynamic = binning_shared_bytes<DigitBits, Key, Value, dynamic_shape>();
    allow_dynamic_shared<kernel>(shared);
    if constexpr (gated) {
      allow_dynamic_shared<kernel_gated>(shared);
      allow_dynamic_shared<kernel_crowded>(shared_crowded);
      allow_dynamic_shared<kernel_mixed>(shared_mixed);
      allow_dynamic_shared<kernel_dynamic>(shared_dynamic);
    }
    const unsigned shift = begin_bit_ + place * DigitBits;
    const unsigned pass_bits = end_bit_ - shift < DigitBits ? end_bit_ - shift : DigitBits;
    const word* vin = reinterpret_cast<const word*>(values_in);
    word* vout = reinterpret_cast<word*>(values_out);
    for (std::uint64_t q = 0; q < portions_; ++q) {
      const std::uint64_t begin = q * portion_items_;
      const std::uint64_t items = n_ - begin < portion_items_ ? n_ - begin : portion_items_;
      const std::uint64_t tiles = (items + Shape::tile_items - 1) / Shape::tile_items;
      const digit_lookback<radix> state(state_memory_, static_cast<std::uint32_t>(tiles));
      state.initialize(stream);
      const std::uint64_t* bins_in = bins_ + (q * places_ + place) * radix;
      std::uint64_t* bins_next = q + 1 < portions_ ? bins_ + ((q + 1) * places_ + place) * radix : nullptr;
      const auto grid = static_cast<unsigned>(tiles);
      const auto count = static_cast<std::uint32_t>(items);
      if (!gated) {
        kernel<<<grid, Shape::block, shared, stream>>>(keys_in, keys_out, vin, vout, begin, count, shift, pass_bits,
                                                        bins_in, bins_next, flags_ + place, state);
        ONEPASS_CUDA_CHECK_LAUNCH();
      } else if (items < pair_min_items_) {
        if (small_dynamic_) {
          kernel_dynamic<<<grid, Shape::block, shared_dynamic, stream>>>(
              keys_in, keys_out, vin, vout, begin, count, shift, pass_bits, bins_in, bins_next, flags_ + place, state);
        } else {
          kernel<<<grid, Shape::block, shared, stream>>>(keys_in, keys_out, vin, vout, begin, count, shift, pass_bits,
                                                          bins_in, bins_next, flags_ + place, state);
        }
        ONEPASS_CUDA_CHECK_LAUNCH();
      } else {
        kernel_gated<<<grid, Shape::block, shared, stream>>>(keys_in, keys_out, vin, vout, begin, count, shift,
                                                              pass_bits, bins_in, bins_next, flags_ + place, state);
        ONEPASS_CUDA_CHECK_LAUNCH();
        kernel_crowded<<<grid, Shape::block, shared_crowded, stream>>>(
            keys_in, keys_out, vin, vout, begin, count, shift, pass_bits, bins_in, bins_next, flags_ + place, state);
        ONEPASS_CUDA_CHECK_LAUNCH();
        if (mixed_below_ > crowded_below_) {
          kernel_mixed<<<grid, Shape::block, shared_mixed, stream>>>(
              keys_in, keys_out, vin, vout, begin, count, shift, pass_bits, bins_in, bins_next, flags_ + place, state);
          ONEPASS_CUDA_CHECK_LAUNCH();
        }
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
  bool small_ = false;  // n < small_shape<Policy>::below: the passes take small_policy
  std::uint64_t* bins_ = nullptr;
  std::uint32_t* flags_ = nullptr;
  void* state_memory_ = nullptr;
  // Ranking choices (see launch_pass); the setters exist for the benchmarks.
  float crowded_below_ = default_crowded_below;
  float mixed_below_ = default_mixed_below;
  std::uint64_t pair_min_items_ = pair_min_items;
  bool small_dynamic_ = default_small_dynamic;
};

/// Checks the bit range for keys of `key_bits` bits (no end_bit == 0 convention).
inline void check_bits(const char* function, unsigned begin_bit, unsigned end_bit, unsigned key_bits) {
  protocol::check_bit_range(function, key_bits, begin_bit, end_bit);
}

/// A device pointer to n > 0 elements of T: not null, aligned to sizeof(T).
template <class T>
void check_pointer(const char* function, const char* argument, const T* p) {
  protocol::check_not_null(function, argument, p, "when n > 0");
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

/// The plan of the public sorts: the default binning policy, floating-point keys ordered
/// by Order (taken from plan's own default, so a change of the default reaches both).
template <unsigned DigitBits, class Key, class Value, float_order Order>
using sort_plan = plan<DigitBits, Key, Value, typename plan<DigitBits, Key, Value>::policy, Order>;

/// Out-of-place sort: keys_in -> keys_out (values alike), ping-pong through temp.
template <unsigned DigitBits, class Key, class Value, float_order Order = float_order::total_order>
void sort_copy(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
               const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
               bool descending, cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  sort_plan<DigitBits, Key, Value, Order> p(n, begin_bit, end_bit, descending);
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

/// Double-buffer sort: ping-pong between the caller's buffers.
template <unsigned DigitBits, class Key, class Value, float_order Order = float_order::total_order>
void sort_buffers(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
                  double_buffer<Value>* values, std::size_t n, unsigned begin_bit, unsigned end_bit, bool descending,
                  cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  sort_plan<DigitBits, Key, Value, Order> p(n, begin_bit, end_bit, descending);
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

}  // namespace detail

/// Sorts n keys (Onesweep, paper §3): d_keys_out[0, n) = d_keys_in[0, n) in ascending
/// (or, with `descending`, descending) order of the bits [begin_bit, end_bit) of their
/// order-preserving transform (sort/key_traits.hpp: for float/double IEEE totalOrder,
/// -0.0 < +0.0 and NaNs placed by their sign bit); stable: keys equal on those bits keep
/// their input order. Out-of-place: d_keys_in is not modified. For CUB's order of
/// float/double keys (-0.0 == +0.0) use sort_keys<float_order::signed_zero_equal>
/// (below).
///
/// Key: uint32_t, int32_t, float, uint64_t, int64_t or double. DigitBits: bits per
/// digit place, 5..9 (8 is fastest; ceil((end_bit - begin_bit) / DigitBits) binning
/// passes). d_keys_in, d_keys_out: device pointers to n keys, not overlapping.
/// begin_bit < end_bit <= 8 * sizeof(Key). n: any size_t; inputs above 2^28 keys are
/// binned in portions of 2^28 (see the file comment).
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set
/// (from n, the bit range and DigitBits; no pointer is looked at, nothing enqueued).
/// Otherwise d_temp must hold at least that many bytes of device memory (any
/// alignment); the work is enqueued on `stream`, not waited for. Storage: n keys for
/// the ping-pong buffer when there are two passes or more, plus the bins and one
/// portion's look-back descriptors (about 4.1 bytes per key up to 2^28 keys at d = 8
/// for 4-byte keys; use the double_buffer overload to avoid the n keys).
///
/// Throws onepass::error (nothing enqueued) for end_bit > 8 * sizeof(Key), begin_bit >=
/// end_bit, and in the run phase for null or misaligned pointers with n > 0,
/// overlapping input and output, or temp_bytes below the query's answer; throws
/// onepass::runtime_failure when a CUDA call or launch fails.
template <unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t n,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_copy<DigitBits, Key, detail::no_values>("onepass::sort::onesweep::sort_keys", d_temp, temp_bytes,
                                                       d_keys_in, d_keys_out, nullptr, nullptr, n, begin_bit,
                                                       end_bit, descending, stream);
}

/// Sorts n (key, value) pairs by key (Onesweep, paper §3), stable: as sort_keys, and
/// d_values_out[i] is the value that came with d_keys_out[i]. Value: any trivially
/// copyable type of 4 or 8 bytes (moved as its bytes); d_values_in, d_values_out:
/// device pointers to n values, aligned to sizeof(Value), not overlapping each other.
/// Temporary storage: sort_keys's plus n values for the ping-pong buffer.
/// Throws as sort_keys, also for null, misaligned or overlapping value pointers.
template <unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                const Value* d_values_in, Value* d_values_out, std::size_t n, unsigned begin_bit = 0,
                unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_copy<DigitBits, Key, Value>("onepass::sort::onesweep::sort_pairs", d_temp, temp_bytes, d_keys_in,
                                           d_keys_out, d_values_in, d_values_out, n, begin_bit, end_bit, descending,
                                           stream);
}

/// Sorts the n keys of keys.current() (double-buffer variant, like cub::DoubleBuffer):
/// both buffers (n keys each, not overlapping) may be overwritten; on return
/// keys.selector names the buffer that holds the sorted keys (it flips once per
/// binning pass, i.e. ceil((end_bit - begin_bit) / DigitBits) times; unchanged for
/// n == 0). Order, stability, bit range and errors as sort_keys (plus a selector
/// other than 0 or 1). Temporary storage: only the bins and one portion's look-back
/// descriptors (no n-sized buffer).
template <unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t n, unsigned begin_bit = 0,
               unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_buffers<DigitBits, Key, detail::no_values>("onepass::sort::onesweep::sort_keys", d_temp, temp_bytes,
                                                          keys, nullptr, n, begin_bit, end_bit, descending, stream);
}

/// Sorts n pairs held in keys.current() / values.current() (double-buffer variant):
/// as the keys-only double-buffer sort_keys; keys.selector and values.selector flip
/// together. Values as in sort_pairs.
template <unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t n, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_buffers<DigitBits, Key, Value>("onepass::sort::onesweep::sort_pairs", d_temp, temp_bytes, keys,
                                              &values, n, begin_bit, end_bit, descending, stream);
}

// ----------------------------------------------------------------------------
// The same four sorts with the order of floating-point keys chosen (key_traits.hpp):
//   onesweep::sort_keys<float_order::signed_zero_equal>(d_temp, temp_bytes, d_in, d_out, n);
//   onesweep::sort_pairs<float_order::signed_zero_equal, 8>(d_temp, temp_bytes, keys, values, n,
//                                                           0, 32, true, stream);
// Order first, then DigitBits (default 8), Key and Value deduced. (Order is the first
// template parameter of separate overloads, not a parameter after DigitBits: existing
// calls that name the key type, sort_keys<8, std::uint32_t>(...), keep compiling.)
//   float_order::total_order: exactly the overloads above (IEEE totalOrder).
//   float_order::signed_zero_equal: float/double keys in cub::DeviceRadixSort's order:
//     -0.0 and +0.0 are equal keys and keep their input order among themselves (stable);
//     NaNs, infinities, denormals and all other keys as total_order. Output keys keep
//     their exact bits (a -0.0 comes out as -0.0). Bit for bit the output of
//     cub::DeviceRadixSort::SortKeys / SortPairs (and the Descending forms, in/out and
//     DoubleBuffer) for the same keys, values and bit range, with one exception that
//     is CUB's own: for inputs of at most one CUB single-block tile (on sm_90, CCCL
//     3.0: 4864 keys, 2304 when the key or the value has 8 bytes) CUB takes another
//     code path, which in DESCENDING sorts restricted to a bit range narrower than the
//     key gives the zeros +0.0's key field rather than -0.0's (key_traits.hpp); with
//     the full key width, or ascending, both agree. Integer keys: accepted,
//     no effect (CUB's -0.0 handling is floating-point only, and generic code can pass
//     one Order for every key type).
// Shapes, accepted ranges, storage, errors and paper section as the overloads above;
// the temporary storage does not depend on Order.

/// sort_keys (out-of-place) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t n,
               unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
               cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_copy<DigitBits, Key, detail::no_values, Order>("onepass::sort::onesweep::sort_keys", d_temp,
                                                              temp_bytes, d_keys_in, d_keys_out, nullptr, nullptr, n,
                                                              begin_bit, end_bit, descending, stream);
}

/// sort_pairs (out-of-place) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                const Value* d_values_in, Value* d_values_out, std::size_t n, unsigned begin_bit = 0,
                unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_copy<DigitBits, Key, Value, Order>("onepass::sort::onesweep::sort_pairs", d_temp, temp_bytes,
                                                  d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit,
                                                  end_bit, descending, stream);
}

/// sort_keys (double-buffer) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t n, unsigned begin_bit = 0,
               unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, detail::no_values>();
  detail::sort_buffers<DigitBits, Key, detail::no_values, Order>("onepass::sort::onesweep::sort_keys", d_temp,
                                                                 temp_bytes, keys, nullptr, n, begin_bit, end_bit,
                                                                 descending, stream);
}

/// sort_pairs (double-buffer) with floating-point keys ordered by `Order`.
template <float_order Order, unsigned DigitBits = 8, class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t n, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                bool descending = false, cudaStream_t stream = 0) {
  detail::check_types<Key, Value>();
  detail::sort_buffers<DigitBits, Key, Value, Order>("onepass::sort::onesweep::sort_pairs", d_temp, temp_bytes, keys,
                                                     &values, n, begin_bit, end_bit, descending, stream);
}

}  // namespace onepass::sort::onesweep
