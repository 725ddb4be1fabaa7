// onepass/scan/tile_state.cuh — tile status descriptors and decoupled look-back
// for a single-pass prefix scan (Merrill & Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVIDIA NVR-2016-002).
//
// A device-wide scan over tiles (one thread block works on one tile at a time):
//   1. the block takes the next tile id from a global atomic counter, so tile t is
//      only ever handed to a block that is already running; every predecessor of t
//      is held by a running block;
//   2. it reduces its tile to an aggregate and publishes (aggregate, A) in the tile's
//      descriptor before it waits for anything;
//   3. one warp looks back over the predecessors' descriptors: it sums aggregates
//      until it meets an inclusive prefix (P), which ends the look-back;
//   4. the block publishes (inclusive prefix = exclusive prefix + aggregate, P).
// Waits are only on predecessors, which publish A without waiting themselves, so
// progress never depends on the order in which the hardware schedules blocks.
//
// Descriptor: one 64-bit word, status in bits 63..62 and the value in bits 61..0:
//   status 0 not ready (the word the init kernel writes), 1 aggregate,
//   2 inclusive prefix. Values are kept modulo 2^62 (exact for 32-bit T; for 64-bit
//   T a caller that needs prefixes of 2^62 or more recovers them with unwrap_62).
//
// Memory ordering: the descriptor is the only datum one block hands another here.
// Status and value travel in one naturally aligned 64-bit word, written with one
// st.relaxed.gpu and read with one ld.relaxed.gpu (cuda::atomic_ref, device
// scope); single-copy atomicity means a reader sees a whole old word or a whole new
// word, never the status of one store with the value of another. No other memory
// is read on the strength of a status, so no release/acquire (happens-before for
// other data) is needed. Per-location coherence keeps a word's history in order:
// once a reader saw A or P it never again sees "not ready", and a reader that saw
// P never sees the older A of the same tile. The init kernel's plain stores are
// ordered before the scan kernel by stream order. The atomics (not plain or
// volatile loads) also keep the compiler from caching or hoisting the spin loads.
//
// Temporary storage (CUB's query-then-run pattern): tile_state<T>::temp_bytes(num_tiles)
// bytes, laid out as [counter (8 B, padded to 128 B) | descriptors (num_tiles words)].
//
// Users: the fused shuffles' single-pass compaction (shuffle/gpu_bijective2.cuh,
// gpu_tile_ranking.cuh, gpu_segmented_shuffle.cuh, distributed/shuffle.cuh), one scan of
// 64-bit counts looked back by one warp. Onesweep keeps its own look-back
// (sort/onesweep/digit_lookback.cuh), and the two stay apart on purpose: onesweep scans 2^8
// to 2^9 digits per tile at once, one thread per digit, with 32-bit descriptors (30-bit
// counts: a portion holds at most 2^28 keys), which halves the descriptor traffic that the
// binning kernel's look-back costs; the shuffles need counts beyond 2^32 (62-bit values,
// unwrap_62) and one channel, where a warp reads 32 predecessors per step. A generic
// multi-channel, thread-per-channel mode here served neither and was removed.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/config.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"

namespace onepass::scan {

/// Status of a tile's descriptor (the two high bits of the word).
enum class tile_status : std::uint32_t { not_ready = 0, aggregate = 1, inclusive_prefix = 2 };

/// Bits of the value field of a descriptor word.
inline constexpr unsigned descriptor_value_bits = 62;
/// Mask of the value field.
inline constexpr std::uint64_t descriptor_value_mask = (std::uint64_t{1} << descriptor_value_bits) - 1;

/// Packs status and value (value taken modulo 2^62) into one descriptor word.
ONEPASS_HD constexpr std::uint64_t pack_descriptor(tile_status status, std::uint64_t value) {
  return (static_cast<std::uint64_t>(status) << descriptor_value_bits) | (value & descriptor_value_mask);
}
/// Status field of a descriptor word.
ONEPASS_HD constexpr tile_status descriptor_status(std::uint64_t word) {
  return static_cast<tile_status>(word >> descriptor_value_bits);
}
/// Value field of a descriptor word (in [0, 2^62)).
ONEPASS_HD constexpr std::uint64_t descriptor_value(std::uint64_t word) { return word & descriptor_value_mask; }

/// The unique x with x = residue (mod 2^62) and lower_bound <= x < lower_bound + 2^62.
/// A 64-bit scan whose true prefix p is known to lie in such a window (for example
/// the compaction count of tile t: p in [t * tile - (n - m), t * tile]) recovers p
/// from the descriptor's 62-bit value with it.
ONEPASS_HD constexpr std::uint64_t unwrap_62(std::uint64_t residue, std::uint64_t lower_bound) {
  return lower_bound + ((residue - lower_bound) & descriptor_value_mask);
}

/// Decoupled look-back state of a single-pass scan over `num_tiles` tiles, one sum per
/// tile of unsigned integer type T (32 or 64 bits).
/// Trivially copyable: pass it by value to kernels. Sums are modulo 2^32 for a
/// 32-bit T and modulo 2^62 for a 64-bit T (see unwrap_62).
template <class T>
class tile_state {
  static_assert(std::is_integral_v<T> && std::is_unsigned_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "tile_state<T>: T must be a 32- or 64-bit unsigned integer");

 public:
  /// Alignment of the counter and of the descriptor array inside the temporary storage.
  static constexpr std::size_t alignment = 128;

  /// Bytes of temporary storage for num_tiles tiles (num_tiles descriptors of 8 bytes
  /// plus the tile counter).
  static constexpr std::size_t temp_bytes(std::uint64_t num_tiles) {
    return alignment + static_cast<std::size_t>(num_tiles) * sizeof(std::uint64_t);
  }

  tile_state() = default;

  /// Views `d_temp` (device memory, at least temp_bytes(num_tiles) bytes, aligned to 128
  /// bytes as cudaMalloc's are; a caller that sub-allocates keeps that alignment) as the
  /// state of num_tiles tiles.
  ONEPASS_HD tile_state(void* d_temp, std::uint64_t num_tiles)
      : counter_(static_cast<std::uint64_t*>(d_temp)),
        words_(reinterpret_cast<std::uint64_t*>(static_cast<unsigned char*>(d_temp) + alignment)),
        num_tiles_(num_tiles) {}

  ONEPASS_HD std::uint64_t num_tiles() const { return num_tiles_; }

  /// Enqueues the init kernel on `stream`: every descriptor "not ready", the tile
  /// counter 0. Must run (in stream order) before each scan that uses the state.
  /// Throws onepass::runtime_failure when the launch fails.
  void initialize(cudaStream_t stream) const;

  /// Device: the next tile id from the global counter (one call per tile, by one
  /// thread of the block; broadcast it through shared memory). Ids count up from 0
  /// in the order blocks ask; ids >= num_tiles() mean "no work left".
  __device__ std::uint64_t acquire_tile() const {
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device> counter(*counter_);
    return counter.fetch_add(1, cuda::std::memory_order_relaxed);
  }

  /// Device: publishes (status, value) for `tile` with one 64-bit atomic store.
  __device__ void publish(std::uint64_t tile, tile_status status, T value) const {
    word(tile).store(pack_descriptor(status, static_cast<std::uint64_t>(value)),
                              cuda::std::memory_order_relaxed);
  }

  /// Device: the descriptor word of `tile`, one 64-bit atomic load.
  __device__ std::uint64_t load(std::uint64_t tile) const {
    return word(tile).load(cuda::std::memory_order_relaxed);
  }

  /// Device, warp-collective (all 32 lanes of one warp, same arguments, converged):
  /// publishes `aggregate` for `tile`, looks back for the tile's exclusive prefix,
  /// publishes the inclusive prefix, and returns the exclusive prefix to every lane.
  /// Tile 0 publishes its inclusive prefix at once and returns 0.
  __device__ T warp_exclusive_prefix(std::uint64_t tile, T aggregate) const {
    const unsigned lane = threadIdx.x & 31u;
    if (tile == 0) {
      if (lane == 0) publish(0, tile_status::inclusive_prefix, aggregate);
      return T{0};
    }
    if (lane == 0) publish(tile, tile_status::aggregate, aggregate);
    const T exclusive = warp_look_back(tile);
    if (lane == 0) publish(tile, tile_status::inclusive_prefix, static_cast<T>(exclusive + aggregate));
    return exclusive;
  }

  /// Device, warp-collective: the exclusive prefix of `tile` (> 0), read from the
  /// predecessors' descriptors; does not publish anything.
  /// Lane k reads predecessor window_end - k, so lane 0 holds the nearest one. The
  /// warp re-reads its window of 32 while any of them is not ready, then takes the
  /// nearest inclusive prefix in the window (lowest set lane of a ballot), sums
  /// the values of lanes up to and including it (aggregates of the tiles between,
  /// plus that prefix), and stops; without one it adds all 32 aggregates and moves
  /// the window 32 tiles back. Tile 0 always publishes an inclusive prefix, so the
  /// walk ends at the latest there; lanes before tile 0 count as inclusive prefix 0.
  __device__ T warp_look_back(std::uint64_t tile) const {
    const unsigned lane = threadIdx.x & 31u;
    std::uint64_t sum = 0;  // modulo 2^64; reduced to T's range at the end
    std::int64_t window_end = static_cast<std::int64_t>(tile) - 1;
    for (;;) {
      const std::int64_t predecessor = window_end - static_cast<std::int64_t>(lane);
      std::uint64_t w = 0;
      unsigned delay = 16;
      for (;;) {
        w = predecessor >= 0 ? load(static_cast<std::uint64_t>(predecessor))
                             : pack_descriptor(tile_status::inclusive_prefix, 0);
        if (!__any_sync(0xFFFFFFFFu, descriptor_status(w) == tile_status::not_ready)) break;
        __nanosleep(delay);
        delay = delay < 256 ? 2 * delay : delay;
      }
      const unsigned prefixes = __ballot_sync(0xFFFFFFFFu, descriptor_status(w) == tile_status::inclusive_prefix);
      // Lanes 0..last contribute: last is the nearest inclusive prefix, or 31.
      const unsigned last = prefixes != 0 ? static_cast<unsigned>(__ffs(prefixes)) - 1 : 31u;
      std::uint64_t v = lane <= last ? descriptor_value(w) : 0;
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
      sum += v;
      if (prefixes != 0) break;
      window_end -= 32;
    }
    return reduce_value(sum);
  }

 private:
  __device__ cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device> word(std::uint64_t tile) const {
    return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile]);
  }
  // A sum of descriptor values in T's range: modulo 2^32 (32-bit T) or 2^62 (64-bit T).
  ONEPASS_HD static T reduce_value(std::uint64_t sum) {
    return static_cast<T>(sizeof(T) == 8 ? (sum & descriptor_value_mask) : sum);
  }

  std::uint64_t* counter_ = nullptr;
  std::uint64_t* words_ = nullptr;
  std::uint64_t num_tiles_ = 0;
};

namespace detail {

/// Init kernel: words[0, count) = 0 (not ready) and *counter = 0; grid-stride loop.
/// (A template so that the header can be included by several translation units.)
template <class Word>
__global__ void initialize_tile_state(Word* counter, Word* words, std::uint64_t count) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    words[i] = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter = 0;
}

}  // namespace detail

template <class T>
void tile_state<T>::initialize(cudaStream_t stream) const {
  constexpr unsigned block = 256;
  const std::uint64_t count = num_tiles_;
  const std::uint64_t wanted = (count + block - 1) / block;
  const unsigned grid = static_cast<unsigned>(wanted == 0 ? 1 : (wanted < 4096 ? wanted : 4096));
  detail::initialize_tile_state<<<grid, block, 0, stream>>>(counter_, words_, count);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

}  // namespace onepass::scan
