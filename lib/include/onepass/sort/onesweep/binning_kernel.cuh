// onepass/sort/onesweep/binning_kernel.cuh — Onesweep's chained-scan digit-binning
// kernel: one launch per digit place and portion moves every key (and value) to its
// place by the digit at that place, in a single read and a single write.
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort
// for GPUs", §3.1 (ranking by warp-level multisplit), §3.2 (chained scan with
// decoupled look-back), §3 (the short-circuit for low-entropy keys).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/config.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep/block_primitives.cuh"
#include "onepass/sort/onesweep/digit_lookback.cuh"
#include "onepass/sort/onesweep/policy.cuh"

namespace onepass::sort::gpu::onesweep {

namespace detail {

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

/// The work of one block of the binning kernel on one tile, in the paper's steps (the
/// kernel below calls them in order; block-wide barriers are in the kernel where the
/// steps need them, or inside a step where it says so). A tile is Policy::block threads
/// x Policy::items keys; per-thread state (the tile's keys as ordered words, their
/// ranks, then slots) lives in registers, so every step is __forceinline__.
template <unsigned DigitBits, class Key, class ValueWord, bool Descending, float_order Order, class Policy>
struct binning_agent {
  using bits_type = typename radix_traits<Key>::bits_type;
  using lookback = digit_lookback<1u << DigitBits>;
  static constexpr bool has_values = !std::is_same_v<ValueWord, no_values>;
  static constexpr int block = Policy::block, items = Policy::items, warps = Policy::warps;
  static constexpr std::uint32_t tile_items = Policy::tile_items;
  static constexpr unsigned radix = 1u << DigitBits;
  /// Early counts (Policy::early_counts): the warps' digit histograms come before the
  /// ranking, so the tile's counts are published before it.
  static constexpr bool early = Policy::early_counts != 0;
  /// Values through the keys' shared buffer after the keys (Policy::values_after_keys).
  static constexpr bool values_later = has_values && Policy::values_after_keys;
  static_assert(radix <= static_cast<unsigned>(block), "binning_kernel: one thread per digit");
  static_assert(tile_items < 65536, "binning_kernel: slots are 16-bit");

  /// The block's static shared memory (the dynamic buffer holds the per-warp counters,
  /// then the tile's keys and values).
  struct shared_storage {
    std::uint32_t local[early ? 1 : radix];  // tile-local start of each digit's run (without early counts)
    std::uint64_t base[radix];       // global index of slot 0 of each digit's run (mod 2^64)
    std::uint32_t warp_sums[warps];  // block_exclusive_sum's partials
    std::uint32_t tile;              // the tile id this block took
    std::uint32_t homogeneous;       // the tile's only digit, or radix (step 4)
  };

  // Kernel arguments (see binning_kernel).
  const Key* keys_in;
  Key* keys_out;
  const ValueWord* values_in;
  ValueWord* values_out;
  std::uint64_t portion_begin;
  std::uint32_t portion_items;
  unsigned shift;
  const std::uint64_t* bins_in;
  std::uint64_t* bins_next;
  lookback state;
  std::uint32_t flags;  // the place's flags (dominant_place; crowded_place where computed), block-uniform

  shared_storage& shared;
  unsigned char* s_dynamic;
  std::uint32_t* s_counters;  // [counter_arrays][warps][radix] in s_dynamic
  bits_type* s_keys;          // [tile_items] in s_dynamic (after the counters are done)

  unsigned t, lane, warp, pass_mask, lanes_below;
  // The tile (step 1).
  std::uint32_t tile = 0, tile_begin = 0, valid_items = 0;
  bool full_tile = false;
  std::uint32_t first = 0;  // input index (in the portion) of this thread's key 0
  std::uint64_t bin_start = 0;  // thread d < radix: bins_in[d]
  // This thread's keys and their ranks, then slots (steps 2-7).
  bits_type words[items];
  [[maybe_unused]] ValueWord early_values[has_values && Policy::prefetch_values == 2 ? items : 1];
  slot_pack<items> ranks;
  std::uint32_t* warp_counters;  // this warp's [radix] digit counters
  std::uint32_t* warp_match;     // this warp's [2][radix] match words (atomic_or)
  std::uint32_t* s_copy;         // the second histogram copy (early_counts == 2)
  bool or_ranking;
  bool warp_uniform = false;
  unsigned uniform_digit = 0;
  // Thread d < radix: the tile's count of digit d, its per-warp counts, its run's start.
  std::uint32_t count = 0;
  [[maybe_unused]] std::uint32_t per_warp[early ? warps : 1];
  std::uint32_t local_start = 0;
  unsigned homogeneous_digit = radix;  // block-uniform after step 5

  __device__ __forceinline__ binning_agent(const Key* keys_in_, Key* keys_out_, const ValueWord* values_in_,
                                           ValueWord* values_out_, std::uint64_t portion_begin_,
                                           std::uint32_t portion_items_, unsigned shift_, unsigned pass_bits,
                                           const std::uint64_t* bins_in_, std::uint64_t* bins_next_, lookback state_,
                                           std::uint32_t flags_, shared_storage& shared_, unsigned char* s_dynamic_)
      : keys_in(keys_in_), keys_out(keys_out_), values_in(values_in_), values_out(values_out_),
        portion_begin(portion_begin_), portion_items(portion_items_), shift(shift_), bins_in(bins_in_),
        bins_next(bins_next_), state(state_), flags(flags_), shared(shared_), s_dynamic(s_dynamic_),
        s_counters(reinterpret_cast<std::uint32_t*>(s_dynamic_)), s_keys(reinterpret_cast<bits_type*>(s_dynamic_)) {
    t = threadIdx.x;
    lane = t & 31u;
    warp = t >> 5;
    pass_mask = (1u << pass_bits) - 1u;
    lanes_below = (1u << lane) - 1u;
  }

  /// The digit of an ordered word at this pass's place.
  __device__ __forceinline__ unsigned digit_of(bits_type w) const {
    return static_cast<unsigned>(digit_word<Order, Key>(w) >> shift) & pass_mask;
  }
  /// Whether this thread's key k lies inside the portion (asked on partial tiles only: on a
  /// full tile every key does).
  __device__ __forceinline__ bool in_portion(int k) const {
    return first + static_cast<std::uint32_t>(k) * 32u < portion_items;
  }

  /// Calls f(k) for each key k of this thread that lies inside the portion: without a
  /// test per key on full tiles (every tile but a portion's last).
  template <class F>
  __device__ __forceinline__ void for_each_key(F&& f) const {
    if (full_tile) {
#pragma unroll
      for (int k = 0; k < items; ++k) f(k);
    } else {
#pragma unroll
      for (int k = 0; k < items; ++k) {
        if (in_portion(k)) f(k);
      }
    }
  }

  /// Calls f(j) for each slot j = t + k * block of the digit-ordered tile that holds a
  /// key (j < valid_items), k = 0 .. items - 1, unrolled by 5 (no register arrays there,
  /// and a full unroll hoists every shared load and costs registers); without a test
  /// per slot on full tiles.
  template <class F>
  __device__ __forceinline__ void for_each_slot(F&& f) const {
    if (full_tile) {
#pragma unroll 5
      for (int k = 0; k < items; ++k) f(t + static_cast<std::uint32_t>(k) * block);
    } else {
#pragma unroll 5
      for (int k = 0; k < items; ++k) {
        const std::uint32_t j = t + static_cast<std::uint32_t>(k) * block;
        if (j < valid_items) f(j);
      }
    }
  }

  /// 1. Zero this block's per-warp digit counters (and match words); take the next tile
  /// id from the atomic counter (tiles go to blocks in the order they start, so every
  /// predecessor of a tile is running or done and the look-back cannot deadlock). Ends
  /// with a block barrier.
  __device__ __forceinline__ void acquire_tile() {
    constexpr unsigned counter_words = warps * radix * counter_arrays<Policy>;
    for (unsigned j = t; j < counter_words; j += block) s_counters[j] = 0;
    if (t == 0) {
      shared.tile = state.acquire_tile();
      shared.homogeneous = radix;
    }
    if (t < radix) bin_start = bins_in[t];  // issued early; used after the look-back
    __syncthreads();
    tile = shared.tile;
    tile_begin = tile * tile_items;
    valid_items = portion_items - tile_begin < tile_items ? portion_items - tile_begin : tile_items;
    full_tile = valid_items == tile_items;
  }

  /// 2. Load: warp w holds keys [w * items * 32, (w + 1) * items * 32) of the tile,
  /// key k of lane l at k * 32 + l (so (k, l) order is input order). Slots past the
  /// end of the portion hold all-ones words: their digit is the largest of the pass
  /// and they rank after every real key.
  __device__ __forceinline__ void load_keys() {
    first = tile_begin + warp * (items * 32u) + lane;
    const Key* src = keys_in + portion_begin + first;
    if (full_tile) {  // every tile but a portion's last: no test per key
#pragma unroll
      for (int k = 0; k < items; ++k) words[k] = to_ordered<Key, Descending>(src[k * 32]);
    } else {
#pragma unroll
      for (int k = 0; k < items; ++k) {
        words[k] = in_portion(k) ? to_ordered<Key, Descending>(src[k * 32]) : static_cast<bits_type>(~bits_type{0});
      }
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
    if constexpr (has_values && Policy::prefetch_values == 2) {
      const ValueWord* vsrc = values_in + portion_begin + first;
      for_each_key([&](int k) { early_values[k] = vsrc[k * 32]; });
    }
  }

  /// Warp-level multisplit (paper §3.1): rank k = number of keys of this warp before key
  /// k (in input order) with the same digit, plus the warp's digit counter. The lanes
  /// holding the same digit (peers) come from DigitBits ballots, __match_any_sync, or an
  /// atomicOr of each lane's bit into a per-warp shared word of the digit (two arrays used
  /// alternately, so that a word is cleared by the digit's lowest lane one __syncwarp
  /// before it is reused); the lowest peer adds their count to the warp's shared digit
  /// counter. Ranks (and later slots) are below 2^16 and kept two to a register.
  __device__ __forceinline__ void multisplit() {
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const unsigned d = digit_of(words[k]);
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
  }

  /// 3. Rank inside the warp. Without early counts: the multisplit (step 3b; the warp's
  /// counters end as its digit histogram). With early counts: only the warp's digit
  /// histogram (step 3e); the multisplit runs in step 6e from the warp's first slots.
  /// 3a. On a dominant place, a warp holding one digit only (padding slots included, so a
  /// partly padded warp takes the general path unless its keys have the padding's
  /// digit) skips both: key k of lane l has rank k * 32 + l.
  __device__ __forceinline__ void rank_in_warp() {
    s_copy = s_counters + warps * radix * arrays_before_copy<Policy>;
    warp_counters = s_counters + warp * radix;
    warp_match = s_counters + warps * radix + warp * 2 * radix;
    or_ranking =
        Policy::match == peer_match::atomic_or || (Policy::match == peer_match::dynamic && !(flags & crowded_place));
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
        for (int k = 0; k < items; ++k) atomicAdd(&histogram[digit_of(words[k])], 1u);
      } else {
        // 3b. The multisplit (peer_match::dynamic: atomicOr, or __match_any_sync on
        // crowded places; the branch is block-uniform).
        multisplit();
      }
    }
  }

  /// 4. Thread d (< radix): digit d's counts over the warps (without early counts, turned
  /// into their exclusive scan in place), the tile's count of d, published to the
  /// look-back at once (tile 0: as its inclusive prefix). A digit whose count is the
  /// tile's key count makes the tile homogeneous (the short-circuit, paper §3).
  __device__ __forceinline__ void publish_tile_counts() {
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
      if (count == valid_items) shared.homogeneous = t;  // at most one digit (valid_items >= 1)
    }
  }

  /// 5. Tile-local start of each digit's run: an exclusive sum of the tile's counts
  /// (its barriers also publish shared.homogeneous, read here).
  __device__ __forceinline__ void digit_starts() {
    local_start = block_exclusive_sum<block>(t < radix ? count : 0u, shared.warp_sums);
    homogeneous_digit = shared.homogeneous;
  }

  /// 6. Slot of each key in the digit-ordered tile (not for a homogeneous tile). With
  /// early counts (6e): each warp's first slot of digit d is the digit's tile-local start
  /// plus the counts of d in the warps before it; the multisplit then ranks from those
  /// offsets. Without: rank + tile-local start + the warp's exclusive count. Ends with a
  /// block barrier (the counters are overwritten by the keys in step 7).
  __device__ __forceinline__ void slots_in_tile() {
    if constexpr (early) {
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
      __syncthreads();
    } else {
      if (t < radix) shared.local[t] = local_start;
      __syncthreads();
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const unsigned d = digit_of(words[k]);
        ranks.add(k, shared.local[d] + s_counters[warp * radix + d]);
      }
      __syncthreads();
    }
  }

  /// This thread's values (from registers with PrefetchValues 2, else from values_in)
  /// into their slots of s_values, in the digit order of the keys (step 7 or 9c).
  __device__ __forceinline__ void stage_values(ValueWord* s_values) {
    const ValueWord* vsrc = values_in + portion_begin + first;
    for_each_key([&](int k) {
      if constexpr (Policy::prefetch_values == 2) {
        s_values[ranks.get(k)] = early_values[k];
      } else {
        s_values[ranks.get(k)] = vsrc[k * 32];
      }
    });
  }

  /// 7. Reorganise the keys (and values, unless they come after the keys) in shared
  /// memory into digit order, so that step 9 writes runs of equal digits.
  __device__ __forceinline__ void reorganise() {
#pragma unroll
    for (int k = 0; k < items; ++k) s_keys[ranks.get(k)] = words[k];
    if constexpr (has_values && !Policy::values_after_keys) {
      stage_values(reinterpret_cast<ValueWord*>(s_keys + tile_items));
    }
  }

  /// 8. Look back (paper §3.2; thread d for digit d): the exclusive prefix of digit d over
  /// the tiles before this one, published with this tile's count as the inclusive
  /// prefix; the global index of slot 0 of each digit's run. The block of the portion's
  /// last tile hands each digit's end to the next portion (bins_next).
  __device__ __forceinline__ void look_back() {
    if (t < radix) {
      std::uint32_t exclusive = 0;
      if (tile != 0) {
        exclusive = state.template exclusive_prefix<Policy::window>(tile, t);
        state.publish(tile, t, lookback::prefix_flag, exclusive + count);
      }
      const std::uint64_t start = bin_start + exclusive;
      shared.base[t] = start - local_start;
      if (bins_next != nullptr && tile == state.num_tiles() - 1) bins_next[t] = start + count;
    }
  }

  /// 9a. Scatter a homogeneous tile (the short-circuit): key k of lane l of warp w, tile
  /// position w * items * 32 + k * 32 + l, is copied from keys_in (values from
  /// values_in) to base[digit] + position (the digit's tile-local start is 0). Re-reading
  /// the key rather than keeping it in a register across the look-back leaves the
  /// general path's register allocation alone.
  __device__ __forceinline__ void scatter_homogeneous() {
    const std::uint64_t dst = shared.base[homogeneous_digit] + (first - tile_begin);
    for_each_key([&](int k) {
      keys_out[dst + k * 32] = keys_in[portion_begin + first + k * 32];
      if constexpr (has_values) values_out[dst + k * 32] = values_in[portion_begin + first + k * 32];
    });
  }

  /// 9b. Scatter the runs: slot j goes to base[digit] + j (consecutive slots of one digit
  /// to consecutive addresses). 9c. Values after the keys (Policy::values_after_keys):
  /// into the same buffer at the keys' slots, then out to the same places, each slot's
  /// digit from s_digit (block barriers inside).
  __device__ __forceinline__ void scatter_runs() {
    [[maybe_unused]] unsigned char* s_digit =
        s_dynamic + std::size_t{tile_items} * shared_word_bytes(sizeof(bits_type), sizeof(ValueWord));  // values_later
    for_each_slot([&](std::uint32_t j) {
      const bits_type w = s_keys[j];
      const unsigned d = digit_of(w);
      const std::uint64_t dst = shared.base[d] + j;
      keys_out[dst] = from_ordered<Key, Descending>(w);
      if constexpr (values_later) {
        s_digit[j] = static_cast<unsigned char>(d);
      } else if constexpr (has_values) {
        values_out[dst] = reinterpret_cast<const ValueWord*>(s_keys + tile_items)[j];
      }
    });
    if constexpr (values_later) {
      __syncthreads();  // every key has been read from shared memory
      ValueWord* s_values = reinterpret_cast<ValueWord*>(s_dynamic);
      stage_values(s_values);
      __syncthreads();
      for_each_slot([&](std::uint32_t j) { values_out[shared.base[s_digit[j]] + j] = s_values[j]; });
    }
  }
};

/// Bytes of shared memory of one block of the binning kernel: the dynamic buffer
/// (binning_shared_bytes) and the static binning_agent::shared_storage (plan.cuh checks
/// it against the architecture tables' limits, arch_shared_limit).
template <unsigned DigitBits, class Key, class Value, class Policy>
constexpr std::size_t binning_block_shared_bytes() {
  using agent = binning_agent<DigitBits, Key, value_word<Value>, false, float_order::total_order, Policy>;
  return binning_shared_bytes<DigitBits, Key, Value, Policy>() + sizeof(typename agent::shared_storage);
}

/// Moves keys [portion_begin, portion_begin + portion_items) of keys_in (and of
/// values_in) to their places in keys_out (values_out) by the digit at `shift`
/// (pass_bits wide). bins_in[d]: global index of the portion's first key with digit
/// d; the block of the last tile writes bins_in[d] + (count of d in the portion)
/// into bins_next[d] when bins_next is not null. One block per tile; `state` holds
/// ceil(portion_items / tile) tiles and was initialised. Order: digits are taken from
/// digit_word<Order, Key>(word); the words moved are the keys' own. The steps are
/// binning_agent's (paper §3: rank, publish, look back, reorganise, scatter).
template <unsigned DigitBits, class Key, class ValueWord, bool Descending, float_order Order, class Policy,
          unsigned Gate = 0>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    binning_kernel(const Key* __restrict__ keys_in, Key* __restrict__ keys_out, const ValueWord* __restrict__ values_in,
                   ValueWord* __restrict__ values_out, std::uint64_t portion_begin, std::uint32_t portion_items,
                   unsigned shift, unsigned pass_bits, const std::uint64_t* __restrict__ bins_in,
                   std::uint64_t* __restrict__ bins_next, const std::uint32_t* __restrict__ place_flags,
                   digit_lookback<1u << DigitBits> state) {
  using agent = binning_agent<DigitBits, Key, ValueWord, Descending, Order, Policy>;
  extern __shared__ __align__(16) unsigned char s_dynamic[];
  __shared__ typename agent::shared_storage shared;

  const std::uint32_t flags = *place_flags;  // block-uniform
  // Gates of the gated pair of one pass (gated_launch; one of the two does the pass, the
  // other exits here, before it takes a tile): Gate 1 runs on places not crowded, Gate 2
  // on crowded places. Gate 0 (every default launch) always runs.
  static_assert(Gate <= 2, "binning_kernel: Gate in {0, 1, 2}");
  if constexpr (Gate != 0) {
    const unsigned owner = (flags & crowded_place) ? 2u : 1u;
    if (owner != Gate) return;
  }
  agent a(keys_in, keys_out, values_in, values_out, portion_begin, portion_items, shift, pass_bits, bins_in, bins_next,
          state, flags, shared, s_dynamic);
  a.acquire_tile();  // 1 (ends with a barrier)
  a.load_keys();     // 2
  a.rank_in_warp();  // 3
  __syncthreads();
  a.publish_tile_counts();  // 4
  a.digit_starts();         // 5 (barriers inside)
  if (a.homogeneous_digit == agent::radix) {
    a.slots_in_tile();  // 6 (ends with a barrier)
    a.reorganise();     // 7
  }
  a.look_back();  // 8
  __syncthreads();
  if (a.homogeneous_digit != agent::radix) {
    a.scatter_homogeneous();  // 9a
    return;
  }
  a.scatter_runs();  // 9b, 9c
}

}  // namespace detail

}  // namespace onepass::sort::gpu::onesweep
