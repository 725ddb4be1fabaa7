// onepass/sort/onesweep.cuh — Onesweep: single-pass-per-digit LSD radix sort on
// the GPU (CUDA).
//
// Source: Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", §3 (algorithm) and §4 (2^31+ keys). Keys are sorted as unsigned
// words after the order-preserving transform of sort/key_traits.hpp (radix_traits;
// descending = complemented words), so the special floating-point values land as
// documented there (-0.0 before +0.0, NaNs by sign bit). The sort is stable.
//
// Kernels, per sort (d = DigitBits, r = 2^d digits, p = ceil((end_bit - begin_bit) / d)
// digit places, the last one possibly narrower):
//   1. upfront histogram (§3, Fig. 5): a grid of about 4 blocks per SM reads the keys
//      once and counts the digits of ALL p places in shared memory (32-bit counters,
//      shared atomics; a warp whose 32 digits agree adds 32 with one atomic), flushing
//      into 64-bit global counts (atomicAdd) after each chunk of at most 2^28 keys,
//      so no 32-bit counter can overflow;
//   2. exclusive sum: one block per place turns the p global histograms into the
//      global start of every digit (64-bit);
//   3. per place, one chained-scan digit-binning kernel (§3.2): each block takes the
//      next tile id from an atomic counter (scan::tile_state::acquire_tile), loads its
//      tile of keys into registers, ranks them with a warp-level multisplit (d ballots
//      per key give the lanes with the same digit; the lowest such lane adds their
//      count to the warp's shared digit counter), scans the per-warp counts into tile-
//      local digit offsets, publishes the tile's per-digit counts through the
//      decoupled look-back (scan/tile_state.cuh, one channel per digit, status and
//      value in one 64-bit word) right away, reorganises the keys (and values) in
//      shared memory into digit order, looks back (thread k of the block for digit k),
//      publishes its inclusive prefixes, and writes the tile's runs of equal digits to
//      their global places, so that writes coalesce.
// The homogeneous-tile short-circuit of the paper is not implemented (every tile
// takes the general path; correctness does not depend on it).
//
// Portions (§4, "strips"): a binning kernel works on at most portion_items = 2^28
// consecutive keys of its input buffer, so the look-back counts (32-bit, modulo 2^32)
// are exact. A pass over n > 2^28 keys is one kernel per portion, in order; the block
// holding the last tile of portion q writes, per digit, "global start of the digit for
// portion q + count of the digit in portion q" into the 64-bit bin array of portion
// q + 1, which the next kernel (stream-ordered) reads as its digit starts. Portion 0's
// starts come from the exclusive-sum kernel. The histogram needs no portions beyond
// its 2^28-key flush chunks. Each binning kernel re-initialises one tile_state (the
// descriptors of one portion: ceil(portion / tile) * r words of 8 bytes).
//
// Tile shape (detail::binning_policy): 512 threads; 15 keys per thread for 4-byte keys
// (7680 keys per tile, the paper's and CUB's onesweep shape), 12 per thread for 8-byte
// keys. Keys stay in registers from load to the shared-memory reorganisation; per-warp
// digit counters live in shared memory (16 warps x r words, reused as the key buffer).
//
// Temporary storage (two-phase, like cub::DeviceRadixSort): bins (ceil(n / 2^28) * p *
// r * 8 bytes), one tile_state for a portion (for 2^28 uint32 keys and d = 8: 34953
// tiles * 256 * 8 bytes = 72 MB), and, for the out-of-place API only, one ping-pong
// buffer of n keys (and n values) when p >= 2. The double-buffer API needs no n-sized
// storage: the result ends in one of the caller's two buffers and the selector says
// which (like cub::DoubleBuffer).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/config.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/scan/tile_state.cuh"
#include "onepass/sort/key_traits.hpp"

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

/// Marker value type of the keys-only sorts.
struct no_values {};

/// The word a value of type V travels as (4- and 8-byte values).
template <class V>
using value_word = std::conditional_t<std::is_same_v<V, no_values>, no_values,
                                      std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>>;

/// Tile shape of the binning kernel for keys of `KeyBytes` bytes: Block threads x
/// Items keys per thread; MinBlocks resident blocks per SM for __launch_bounds__.
template <int KeyBytes>
struct binning_policy {
  static constexpr int block = 512;
  static constexpr int items = KeyBytes == 4 ? 15 : 12;
  static constexpr int min_blocks = 2;
  static constexpr int warps = block / 32;
  static constexpr std::uint32_t tile_items = static_cast<std::uint32_t>(block) * items;
};

/// Threads per block of the histogram kernel and keys each thread loads per step.
inline constexpr int histogram_block = 256;
inline constexpr int histogram_unroll = 8;
/// Largest chunk a histogram block counts before flushing its 32-bit counters.
inline constexpr std::uint64_t histogram_max_chunk = std::uint64_t{1} << 28;

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

// ----------------------------------------------------------------------------
// Kernel 1: upfront histogram of every digit place.

/// counts[place * 2^DigitBits + digit] += number of keys with that digit at that
/// place (64-bit global counts, zeroed by the caller). Block b counts chunks b,
/// b + gridDim.x, ... of `chunk` keys (chunk <= 2^28, so its 32-bit shared counters
/// cannot overflow) and flushes after each chunk.
template <unsigned DigitBits, class Key, bool Descending>
__global__ void __launch_bounds__(histogram_block)
    histogram_kernel(const Key* __restrict__ keys, std::uint64_t n, std::uint64_t chunk, unsigned begin_bit,
                     unsigned end_bit, unsigned num_places, unsigned long long* __restrict__ counts) {
  using bits_type = typename radix_traits<Key>::bits_type;
  constexpr unsigned radix = 1u << DigitBits;
  constexpr unsigned max_places = (radix_traits<Key>::bits + DigitBits - 1) / DigitBits;
  __shared__ std::uint32_t s_counts[max_places * radix];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned slots = num_places * radix;

  for (unsigned j = threadIdx.x; j < slots; j += histogram_block) s_counts[j] = 0;
  __syncthreads();

  const std::uint64_t num_chunks = (n + chunk - 1) / chunk;
  for (std::uint64_t c = blockIdx.x; c < num_chunks; c += gridDim.x) {
    const std::uint64_t begin = c * chunk;
    const std::uint64_t end = begin + chunk < n ? begin + chunk : n;
    // The loop bounds are uniform over the block, so every warp is converged in it.
    for (std::uint64_t base = begin; base < end; base += std::uint64_t{histogram_block} * histogram_unroll) {
      bits_type words[histogram_unroll];
      bool valid[histogram_unroll];
#pragma unroll
      for (int u = 0; u < histogram_unroll; ++u) {
        const std::uint64_t i = base + static_cast<std::uint64_t>(u) * histogram_block + threadIdx.x;
        valid[u] = i < end;
        words[u] = valid[u] ? to_ordered<Key, Descending>(keys[i]) : bits_type{0};
      }
#pragma unroll
      for (int u = 0; u < histogram_unroll; ++u) {
#pragma unroll
        for (unsigned p = 0; p < max_places; ++p) {
          if (p < num_places) {
            const unsigned shift = begin_bit + p * DigitBits;
            const unsigned width = end_bit - shift < DigitBits ? end_bit - shift : DigitBits;
            const unsigned d = static_cast<unsigned>(words[u] >> shift) & ((1u << width) - 1u);
            const unsigned d0 = __shfl_sync(0xFFFFFFFFu, d, 0);
            if (__all_sync(0xFFFFFFFFu, valid[u] && d == d0)) {
              if (lane == 0) atomicAdd(&s_counts[p * radix + d0], 32u);
            } else if (valid[u]) {
              atomicAdd(&s_counts[p * radix + d], 1u);
            }
          }
        }
      }
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < slots; j += histogram_block) {
      const std::uint32_t v = s_counts[j];
      if (v != 0) atomicAdd(&counts[j], static_cast<unsigned long long>(v));
      s_counts[j] = 0;
    }
    __syncthreads();
  }
}

// ----------------------------------------------------------------------------
// Kernel 2: exclusive sum of each place's histogram.

/// One block of 2^DigitBits threads per place: bins[place][d] = sum of the counts
/// of digits below d at that place (in place).
template <unsigned DigitBits>
__global__ void __launch_bounds__(1u << DigitBits) exclusive_sum_kernel(unsigned long long* bins) {
  constexpr int radix = 1 << DigitBits;
  __shared__ unsigned long long s_warp[radix / 32];
  unsigned long long* place = bins + static_cast<std::size_t>(blockIdx.x) * radix;
  const unsigned long long count = place[threadIdx.x];
  place[threadIdx.x] = block_exclusive_sum<radix>(count, s_warp);
}

// ----------------------------------------------------------------------------
// Kernel 3: chained-scan digit binning of one portion at one digit place.

/// Bytes of dynamic shared memory of the binning kernel: the per-warp digit counters,
/// reused for the tile's keys (as transformed words) followed by its values.
template <unsigned DigitBits, class Key, class Value>
constexpr std::size_t binning_shared_bytes() {
  using policy = binning_policy<sizeof(Key)>;
  constexpr std::size_t counters = std::size_t{policy::warps} << DigitBits << 2;
  constexpr std::size_t value_bytes = std::is_same_v<Value, no_values> ? 0 : sizeof(Value);
  constexpr std::size_t tile = std::size_t{policy::tile_items} * (sizeof(Key) + value_bytes);
  return counters > tile ? counters : tile;
}

/// Moves keys [portion_begin, portion_begin + portion_items) of keys_in (and of
/// values_in) to their places in keys_out (values_out) by the digit at `shift`
/// (pass_bits wide). bins_in[d]: global index of the portion's first key with digit
/// d; the block of the last tile writes bins_in[d] + (count of d in the portion)
/// into bins_next[d] when bins_next is not null. One block per tile; `state` holds
/// ceil(portion_items / tile) tiles x 2^DigitBits channels and was initialised.
template <unsigned DigitBits, class Key, class ValueWord, bool Descending>
__global__ void __launch_bounds__(binning_policy<sizeof(Key)>::block, binning_policy<sizeof(Key)>::min_blocks)
    binning_kernel(const Key* __restrict__ keys_in, Key* __restrict__ keys_out, const ValueWord* __restrict__ values_in,
                   ValueWord* __restrict__ values_out, std::uint64_t portion_begin, std::uint32_t portion_items,
                   unsigned shift, unsigned pass_bits, const std::uint64_t* __restrict__ bins_in,
                   std::uint64_t* __restrict__ bins_next, scan::tile_state<std::uint32_t> state) {
  using policy = binning_policy<sizeof(Key)>;
  using bits_type = typename radix_traits<Key>::bits_type;
  constexpr bool has_values = !std::is_same_v<ValueWord, no_values>;
  constexpr int block = policy::block, items = policy::items, warps = policy::warps;
  constexpr std::uint32_t tile_items = policy::tile_items;
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

  const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
  const unsigned pass_mask = (1u << pass_bits) - 1u;
  const unsigned lanes_below = (1u << lane) - 1u;

  // 1. Zero this block's per-warp digit counters; take the next tile id.
  for (unsigned j = t; j < warps * radix; j += block) s_counters[j] = 0;
  if (t == 0) s_tile = static_cast<std::uint32_t>(state.acquire_tile());
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
  // (One 64-bit base pointer per thread, so the loads use immediate offsets.)
  const std::uint32_t first = tile_begin + warp * (items * 32u) + lane;  // this thread's key 0
  const Key* src = keys_in + portion_begin + first;
  bits_type words[items];
#pragma unroll
  for (int k = 0; k < items; ++k) {
    words[k] = (full_tile || first + static_cast<std::uint32_t>(k) * 32u < portion_items)
                   ? to_ordered<Key, Descending>(src[k * 32])
                   : static_cast<bits_type>(~bits_type{0});
  }

  // 3. Warp-level multisplit: rank k = number of keys of this warp before key k
  // (in input order) with the same digit. Ranks (and later slots) are below 2^16
  // and kept two to a register (fewer registers: 2 blocks of 512 fit on an SM).
  slot_pack<items> ranks;
  std::uint32_t* warp_counters = s_counters + warp * radix;
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const unsigned d = static_cast<unsigned>(words[k] >> shift) & pass_mask;
    unsigned peers = 0xFFFFFFFFu;
#pragma unroll
    for (unsigned b = 0; b < DigitBits; ++b) {
      const bool bit = (d >> b) & 1u;
      const unsigned vote = __ballot_sync(0xFFFFFFFFu, bit);
      peers &= bit ? vote : ~vote;
    }
    const unsigned below = __popc(peers & lanes_below);
    unsigned before = 0;
    if (below == 0) before = atomicAdd(&warp_counters[d], static_cast<unsigned>(__popc(peers)));
    before = __shfl_sync(0xFFFFFFFFu, before, __ffs(peers) - 1);
    ranks.set(k, before + below);
  }
  __syncthreads();

  // 4. Thread d (< radix): exclusive scan of digit d's counters over the warps, the
  // tile's count of d, published at once (tile 0: as its inclusive prefix).
  std::uint32_t count = 0;
  if (t < radix) {
    for (int w = 0; w < warps; ++w) {
      const std::uint32_t c = s_counters[w * radix + t];
      s_counters[w * radix + t] = count;
      count += c;
    }
    if (t == pass_mask) count -= tile_items - valid_items;  // the padding slots
    state.publish(tile, tile == 0 ? scan::tile_status::inclusive_prefix : scan::tile_status::aggregate, count, t);
  }

  // 5. Tile-local start of each digit's run.
  const std::uint32_t local_start = block_exclusive_sum<block>(t < radix ? count : 0u, s_warp_sums);
  if (t < radix) s_local[t] = local_start;
  __syncthreads();

  // 6. Slot of each key in the digit-ordered tile.
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const unsigned d = static_cast<unsigned>(words[k] >> shift) & pass_mask;
    ranks.add(k, s_local[d] + s_counters[warp * radix + d]);
  }
  __syncthreads();  // the counters are overwritten by the keys below

  // 7. Reorganise keys (and values) in shared memory.
#pragma unroll
  for (int k = 0; k < items; ++k) s_keys[ranks.get(k)] = words[k];
  if constexpr (has_values) {
    ValueWord* s_values = reinterpret_cast<ValueWord*>(s_keys + tile_items);
    const ValueWord* vsrc = values_in + portion_begin + first;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      if (full_tile || first + static_cast<std::uint32_t>(k) * 32u < portion_items) s_values[ranks.get(k)] = vsrc[k * 32];
    }
  }

  // 8. Look-back (thread d for digit d), inclusive prefix, global bases.
  if (t < radix) {
    std::uint32_t exclusive = 0;
    if (tile != 0) {
      exclusive = state.thread_look_back(tile, t);
      state.publish(tile, scan::tile_status::inclusive_prefix, exclusive + count, t);
    }
    const std::uint64_t start = bin_start + exclusive;
    s_base[t] = start - local_start;
    if (bins_next != nullptr && tile == state.num_tiles() - 1) bins_next[t] = start + count;
  }
  __syncthreads();

  // 9. Write the runs: slot j goes to s_base[digit] + j (consecutive slots of one
  // digit to consecutive addresses). Partly unrolled: no register arrays here, and
  // a full unroll hoists every shared load and costs registers.
#pragma unroll 5
  for (int k = 0; k < items; ++k) {
    const std::uint32_t j = t + static_cast<std::uint32_t>(k) * block;
    if (full_tile || j < valid_items) {
      const bits_type w = s_keys[j];
      const unsigned d = static_cast<unsigned>(w >> shift) & pass_mask;
      const std::uint64_t dst = s_base[d] + j;
      keys_out[dst] = from_ordered<Key, Descending>(w);
      if constexpr (has_values) values_out[dst] = reinterpret_cast<const ValueWord*>(s_keys + tile_items)[j];
    }
  }
}

// ----------------------------------------------------------------------------
// Host side.

/// Alignment of every array carved out of the caller's temporary storage.
inline constexpr std::size_t temp_alignment = 256;
inline constexpr std::size_t align_up(std::size_t bytes) {
  return (bytes + temp_alignment - 1) / temp_alignment * temp_alignment;
}
inline unsigned char* aligned_start(void* d_temp) {
  const auto address = reinterpret_cast<std::uintptr_t>(d_temp);
  return reinterpret_cast<unsigned char*>((address + temp_alignment - 1) / temp_alignment * temp_alignment);
}

/// Resident blocks of `kernel` on the current device (SMs x blocks per SM), cached
/// per kernel and device.
template <auto Kernel>
unsigned resident_blocks(int block, std::size_t dynamic_shared) {
  constexpr int cached_devices = 64;
  static std::atomic<unsigned> cache[cached_devices];
  int device = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  unsigned slots = device < cached_devices ? cache[device].load(std::memory_order_relaxed) : 0;
  if (slots == 0) {
    int sms = 0, per_sm = 0;
    ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    ONEPASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, block, dynamic_shared));
    slots = static_cast<unsigned>((sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1));
    if (device < cached_devices) cache[device].store(slots, std::memory_order_relaxed);
  }
  return slots;
}

/// Raises `kernel`'s dynamic shared memory limit to `bytes` (once per device).
template <auto Kernel>
void allow_dynamic_shared(std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
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
/// (portion 0's slice: the global histograms, then the digit starts), then one
/// tile_state of tiles_per_portion x 2^DigitBits channels. No key buffers.
template <unsigned DigitBits, class Key, class Value = no_values>
class plan {
  static_assert(DigitBits >= min_digit_bits && DigitBits <= max_digit_bits, "onesweep: DigitBits in [5, 9]");

 public:
  using bits_type = typename radix_traits<Key>::bits_type;
  using policy = binning_policy<sizeof(Key)>;
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
    tiles_per_portion_ = widest == 0 ? 1 : (widest + policy::tile_items - 1) / policy::tile_items;
  }

  unsigned num_places() const { return places_; }
  std::uint64_t num_portions() const { return portions_; }
  std::uint64_t tiles_per_portion() const { return tiles_per_portion_; }

  /// Bytes of temporary storage bind() needs (any alignment of the pointer).
  std::size_t temp_bytes() const { return temp_alignment + bins_bytes() + align_up(state_bytes()); }

  /// Uses d_temp (at least temp_bytes() bytes of device memory) from now on.
  void bind(void* d_temp) {
    unsigned char* start = aligned_start(d_temp);
    bins_ = reinterpret_cast<std::uint64_t*>(start);
    state_memory_ = start + bins_bytes();
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
    exclusive_sum_kernel<DigitBits><<<places_, radix, 0, stream>>>(reinterpret_cast<unsigned long long*>(bins_));
    ONEPASS_CUDA_CHECK_LAUNCH();
  }

  /// Enqueues the binning of digit place `place` (< num_places()) over all portions:
  /// keys_in[0, n) -> keys_out[0, n) (and values alike; nullptr for keys-only).
  /// Needs histogram() and exclusive_sum() earlier in stream order (once per sort).
  void binning_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                    cudaStream_t stream) const {
    if (n_ == 0) return;
    if (descending_) {
      launch_pass<true>(place, keys_in, keys_out, values_in, values_out, stream);
    } else {
      launch_pass<false>(place, keys_in, keys_out, values_in, values_out, stream);
    }
  }

 private:
  std::size_t bins_bytes() const {
    return align_up(static_cast<std::size_t>(portions_) * places_ * radix * sizeof(std::uint64_t));
  }
  std::size_t state_bytes() const { return scan::tile_state<std::uint32_t>::temp_bytes(tiles_per_portion_, radix); }

  template <bool Descending>
  void launch_histogram(const Key* d_keys, cudaStream_t stream) const {
    constexpr auto kernel = histogram_kernel<DigitBits, Key, Descending>;
    const std::uint64_t slots = resident_blocks<kernel>(histogram_block, 0);
    // Chunks: about one per resident block, a multiple of one block step, at most 2^28.
    constexpr std::uint64_t step = std::uint64_t{histogram_block} * histogram_unroll;
    std::uint64_t chunk = (n_ + slots - 1) / slots;
    chunk = (chunk + step - 1) / step * step;
    if (chunk > histogram_max_chunk) chunk = histogram_max_chunk;
    const std::uint64_t chunks = (n_ + chunk - 1) / chunk;
    const unsigned grid = static_cast<unsigned>(chunks < slots ? chunks : slots);
    kernel<<<grid, histogram_block, 0, stream>>>(d_keys, n_, chunk, begin_bit_, end_bit_, places_,
                                                 reinterpret_cast<unsigned long long*>(bins_));
    ONEPASS_CUDA_CHECK_LAUNCH();
  }

  template <bool Descending>
  void launch_pass(unsigned place, const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                   cudaStream_t stream) const {
    constexpr auto kernel = binning_kernel<DigitBits, Key, word, Descending>;
    constexpr std::size_t shared = binning_shared_bytes<DigitBits, Key, Value>();
    allow_dynamic_shared<kernel>(shared);
    const unsigned shift = begin_bit_ + place * DigitBits;
    const unsigned pass_bits = end_bit_ - shift < DigitBits ? end_bit_ - shift : DigitBits;
    const word* vin = reinterpret_cast<const word*>(values_in);
    word* vout = reinterpret_cast<word*>(values_out);
    for (std::uint64_t q = 0; q < portions_; ++q) {
      const std::uint64_t begin = q * portion_items_;
      const std::uint64_t items = n_ - begin < portion_items_ ? n_ - begin : portion_items_;
      const std::uint64_t tiles = (items + policy::tile_items - 1) / policy::tile_items;
      const scan::tile_state<std::uint32_t> state(state_memory_, tiles, radix);
      state.initialize(stream);
      const std::uint64_t* bins_in = bins_ + (q * places_ + place) * radix;
      std::uint64_t* bins_next = q + 1 < portions_ ? bins_ + ((q + 1) * places_ + place) * radix : nullptr;
      kernel<<<static_cast<unsigned>(tiles), policy::block, shared, stream>>>(
          keys_in, keys_out, vin, vout, begin, static_cast<std::uint32_t>(items), shift, pass_bits, bins_in,
          bins_next, state);
      ONEPASS_CUDA_CHECK_LAUNCH();
    }
  }

  std::uint64_t n_;
  unsigned begin_bit_, end_bit_;
  bool descending_;
  std::uint64_t portion_items_;
  unsigned places_ = 0;
  std::uint64_t portions_ = 1;
  std::uint64_t tiles_per_portion_ = 1;
  std::uint64_t* bins_ = nullptr;
  void* state_memory_ = nullptr;
};

/// Checks the bit range for keys of `key_bits` bits.
inline void check_bits(const char* function, unsigned begin_bit, unsigned end_bit, unsigned key_bits) {
  require(end_bit <= key_bits, function, "end_bit",
          "must be in [1, " + std::to_string(key_bits) + "] (the key's width), got " + std::to_string(end_bit));
  require(begin_bit < end_bit, function, "begin_bit",
          "must be below end_bit (" + std::to_string(end_bit) + "), got " + std::to_string(begin_bit));
}

template <class T>
void check_pointer(const char* function, const char* argument, const T* p) {
  require(p != nullptr, function, argument, "must not be null when n > 0");
  require(reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0, function, argument,
          "must be aligned to " + std::to_string(sizeof(T)) + " bytes");
}

template <class T>
void check_disjoint(const char* function, const char* argument, const char* other, const T* a, const T* b,
                    std::uint64_t n) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  const std::uintptr_t bytes = static_cast<std::uintptr_t>(n) * sizeof(T);
  require(x + bytes <= y || y + bytes <= x, function, argument, std::string("must not overlap ") + other);
}

inline void check_temp(const char* function, std::size_t temp_bytes, std::size_t required) {
  require(temp_bytes >= required, function, "temp_bytes",
          "must be at least " + std::to_string(required) + " (the query's answer), got " + std::to_string(temp_bytes));
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

/// Out-of-place sort: keys_in -> keys_out (values alike), ping-pong through temp.
template <unsigned DigitBits, class Key, class Value>
void sort_copy(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
               const Value* values_in, Value* values_out, std::size_t n, unsigned begin_bit, unsigned end_bit,
               bool descending, cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  plan<DigitBits, Key, Value> p(n, begin_bit, end_bit, descending);
  const bool ping_pong = p.num_places() >= 2;
  const std::size_t plan_bytes = p.temp_bytes();  // a multiple of 256, alignment slack included
  const std::size_t key_bytes = ping_pong ? align_up(n * sizeof(Key)) : 0;
  std::size_t value_bytes = 0;
  if constexpr (has_values) value_bytes = ping_pong ? align_up(n * sizeof(Value)) : 0;
  const std::size_t required = plan_bytes + key_bytes + value_bytes;
  if (d_temp == nullptr) {
    temp_bytes = required;
    return;
  }
  if (n == 0) return;
  check_pointer(function, "d_keys_in", keys_in);
  check_pointer(function, "d_keys_out", keys_out);
  check_disjoint(function, "d_keys_out", "d_keys_in", keys_out, keys_in, n);
  if constexpr (has_values) {
    check_pointer(function, "d_values_in", values_in);
    check_pointer(function, "d_values_out", values_out);
    check_disjoint(function, "d_values_out", "d_values_in", values_out, values_in, n);
  }
  check_temp(function, temp_bytes, required);

  unsigned char* base = static_cast<unsigned char*>(d_temp);
  p.bind(base);
  // The ping-pong buffers follow the plan's storage (which starts at the first
  // 256-byte boundary and uses plan_bytes - 256 bytes from there).
  unsigned char* extra = aligned_start(base) + (plan_bytes - temp_alignment);
  Key* keys_tmp = reinterpret_cast<Key*>(extra);
  Value* values_tmp = nullptr;
  if constexpr (has_values) values_tmp = reinterpret_cast<Value*>(extra + key_bytes);

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
template <unsigned DigitBits, class Key, class Value>
void sort_buffers(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
                  double_buffer<Value>* values, std::size_t n, unsigned begin_bit, unsigned end_bit, bool descending,
                  cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  check_bits(function, begin_bit, end_bit, radix_traits<Key>::bits);
  plan<DigitBits, Key, Value> p(n, begin_bit, end_bit, descending);
  const std::size_t required = p.temp_bytes();
  if (d_temp == nullptr) {
    temp_bytes = required;
    return;
  }
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
  check_temp(function, temp_bytes, required);

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
/// order-preserving transform (sort/key_traits.hpp: for float/double -0.0 < +0.0 and
/// NaNs placed by their sign bit); stable: keys equal on those bits keep their input
/// order. Out-of-place: d_keys_in is not modified.
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
/// portion's look-back descriptors (about 9.4 bytes per key up to 2^28 keys at d = 8
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

}  // namespace onepass::sort::onesweep
