// onepass/shuffle/gpu_bijective2.cuh — Bijective2: the bijective shuffle in a single
// pass over the decoupled look-back scan (and, with Inverse, the unshuffle).
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1) and §6 (Bijective2: evaluation, compaction and gather fused into one
// kernel over the single-pass scan with decoupled look-back of Merrill & Garland). Each
// element is read once and written once, f is evaluated once, in registers; temporary
// storage is the tile descriptors and counter (scan/tile_state.cuh).
//
// Tiles and their steps: gpu_tile_ranking.cuh. The forward shuffle is software-pipelined
// over two tiles (bijective2_pipelined_kernel): a block evaluates its next tile and starts
// copying that tile's elements in[w] into shared memory (cp.async) before it looks back
// for the current tile and stores it, and publishes the next tile's aggregate as soon as
// it has counted it; the unshuffle (and elements too large for two stages) runs one tile
// at a time (bijective2_kernel), its loads issued before the scan and look-back. A forward
// shuffle whose output fits in shared memory runs the staged structure of
// gpu_staged_shuffle.cuh instead of the tiles (one cooperative launch, a grid barrier in
// place of the look-back); the permutation is the same.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/scan/tile_state.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/gpu_shuffle_protocol.cuh"
#include "onepass/shuffle/gpu_staged_shuffle.cuh"
#include "onepass/shuffle/gpu_tile_ranking.cuh"

namespace onepass::shuffle::gpu::detail {

// ----------------------------------------------------------------------------
// One tile at a time (the unshuffle; the forward shuffle where two stages do not fit).
//
// Persistent blocks; each loop iteration takes the next tile id from the counter.
// Barriers per tile: (1) the tile id is visible; (2) the ballots are visible to
// warp 0; (3) offsets and prefix are visible to all. A thread's last shared-memory
// read of a tile precedes its arrival at the next tile's barrier (1), and every
// shared-memory write of the next tile follows barrier (1) (thread 0's write of the
// tile id follows barrier (3), which every thread passes only after reading it).

/// The unshuffle's moves: value[k] = src[prefix + rank] (the tile's consecutive inputs),
/// then dst[w[k]] = value[k] (scattered to the images), for the flagged items k.
template <class Policy, class Element>
__device__ __forceinline__ void unshuffle_ranked(std::uint32_t flags, const tile_shared<Policy>& s,
                                                 std::uint64_t prefix, const std::uint64_t (&w)[Policy::items],
                                                 Element (&value)[Policy::items], const Element* src, Element* dst) {
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) value[k] = src[prefix + rank_in_tile(s, k)];
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) dst[w[k]] = value[k];
}

template <class Policy, class T, class Eval, bool Inverse>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective2_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t num_items,
                      std::uint64_t domain_size, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                      scan::tile_state<std::uint64_t> state) {
  using element = element_bits<T>;
  const element* __restrict__ src = reinterpret_cast<const element*>(in);
  element* __restrict__ dst = reinterpret_cast<element*>(out);
  __shared__ tile_shared<Policy> s;
  const unsigned warp = threadIdx.x >> 5;
  for (;;) {
    if (threadIdx.x == 0) s.tile = state.acquire_tile();
    __syncthreads();  // (1)
    const std::uint64_t tile = s.tile;
    if (tile >= num_tiles) return;  // the same for the whole block
    std::uint64_t w[Policy::items];
    const std::uint32_t flags = evaluate_and_flag<Policy>(f, tile * Policy::tile_items, domain_size, num_items, s, w);
    element value[Policy::items];
    if constexpr (!Inverse) load_flagged<Policy>(flags, src, w, value);
    __syncthreads();  // (2)
    if (warp == 0) scan_and_look_back(s, state, tile, domain_size, num_items);
    __syncthreads();  // (3)
    const std::uint64_t prefix = s.prefix;
    if constexpr (!Inverse) {
      store_ranked(flags, s, prefix, value, dst);
    } else {
      unshuffle_ranked(flags, s, prefix, w, value, src, dst);
    }
  }
}

// ----------------------------------------------------------------------------
// The forward shuffle, software-pipelined over two tiles: while a block looks back
// for tile A's prefix and writes it, the elements of its next tile B are already
// loading. Per iteration (A held from the previous one, B just acquired):
//   (1) B's id is visible;  stage_tile: evaluate B, flag, ballots into s[B's buffer];
//       each thread copies its flagged in[w] into its own slots of stage[B's buffer]
//       (cp.async, so no registers wait on the loads);
//   (2) B's ballots are visible;  warp 0: publish_aggregate scans them and publishes
//       B's aggregate at once (so no later tile's look-back waits for it), then
//       look_back_inclusive finds A's prefix and publishes A's inclusive prefix;
//   (3) A's prefix and offsets are visible;  each thread waits for its own copies of A
//       (cp.async groups: A's, not B's) and store_staged writes A's elements to their
//       outputs.
// Each thread reads back only the stage slots it filled itself, so the stage needs no
// barrier of its own; the tile_shared buffers alternate, and a buffer is rewritten only
// after barrier (1) of the iteration after its last reads. The permutation is that of
// bijective2_kernel (same evaluation, flags and ranks).

/// Evaluates tile `tile` into `s`: ballots, and the flagged elements copied into this
/// thread's slots of `stage`; one cp.async group per call (empty when nothing flagged).
/// Returns the thread's flags.
template <class Policy, class Eval, class Element>
__device__ __forceinline__ std::uint32_t stage_tile(const Eval& f, std::uint64_t tile, std::uint64_t domain_size,
                                                    std::uint64_t num_items, tile_shared<Policy>& s,
                                                    Element (&stage)[Policy::tile_items], const Element* src) {
  std::uint64_t w[Policy::items];
  const std::uint32_t flags = evaluate_and_flag<Policy>(f, tile * Policy::tile_items, domain_size, num_items, s, w);
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) stage_element(&stage[k * Policy::block + threadIdx.x], src + w[k]);
  cp_async_commit();
  return flags;
}

/// Warp 0 (`lane`: this thread's lane): the scanned count of the tile in `s`, kept in
/// `aggregate` and published as the tile's aggregate (tile 0: its inclusive prefix, with
/// s.prefix = 0).
template <class Policy>
__device__ __forceinline__ void publish_aggregate(const scan::tile_state<std::uint64_t>& state, std::uint64_t tile,
                                                  tile_shared<Policy>& s, std::uint32_t& aggregate, unsigned lane) {
  const std::uint32_t count = scan_ballots(s);
  if (lane == 0) {
    aggregate = count;
    if (tile == 0) {
      state.publish(0, scan::tile_status::inclusive_prefix, count);
      s.prefix = 0;
    } else {
      state.publish(tile, scan::tile_status::aggregate, count);
    }
  }
}

/// Warp 0, tile > 0 in buffer `buffer` (its aggregate published, and kept in
/// aggregate[buffer] by publish_aggregate): looks back for the flags before the tile,
/// publishes its inclusive prefix and writes the exact prefix to s[buffer].prefix (lane 0,
/// which alone reads the shared arrays).
template <class Policy>
__device__ __forceinline__ void look_back_inclusive(const scan::tile_state<std::uint64_t>& state, std::uint64_t tile,
                                                    unsigned buffer, const std::uint32_t (&aggregate)[2],
                                                    tile_shared<Policy> (&s)[2], std::uint64_t domain_size,
                                                    std::uint64_t num_items, unsigned lane) {
  const std::uint64_t residue = state.warp_look_back(tile);
  if (lane == 0) {
    state.publish(tile, scan::tile_status::inclusive_prefix, residue + aggregate[buffer]);
    s[buffer].prefix = exact_prefix<Policy>(residue, tile, domain_size, num_items);
  }
}

/// dst[prefix + rank] = the thread's own stage slot, for its flagged items of the tile
/// in `s` (its copies landed).
template <class Policy, class Element>
__device__ __forceinline__ void store_staged(std::uint32_t flags, const tile_shared<Policy>& s,
                                             const Element (&stage)[Policy::tile_items], Element* dst) {
  const std::uint64_t prefix = s.prefix;
#pragma unroll
  for (int k = 0; k < Policy::items; ++k)
    if (flags >> k & 1u) dst[prefix + rank_in_tile(s, k)] = stage[k * Policy::block + threadIdx.x];
}

template <class Policy, class T, class Eval>
__global__ void __launch_bounds__(Policy::block, Policy::min_blocks)
    bijective2_pipelined_kernel(const T* __restrict__ in, T* __restrict__ out, std::uint64_t num_items,
                                std::uint64_t domain_size, std::uint64_t num_tiles, const __grid_constant__ Eval f,
                                scan::tile_state<std::uint64_t> state) {
  using element = element_bits<T>;
  const element* __restrict__ src = reinterpret_cast<const element*>(in);
  element* __restrict__ dst = reinterpret_cast<element*>(out);
  __shared__ tile_shared<Policy> s[2];
  __shared__ element stage[2][Policy::tile_items];
  __shared__ std::uint32_t aggregate[2];
  const unsigned warp = threadIdx.x >> 5;
  const unsigned lane = threadIdx.x & 31u;

  if (threadIdx.x == 0) s[0].tile = state.acquire_tile();
  __syncthreads();
  std::uint64_t tile_a = s[0].tile;
  if (tile_a >= num_tiles) return;  // the same for the whole block
  unsigned a = 0;
  std::uint32_t flags_a = stage_tile(f, tile_a, domain_size, num_items, s[a], stage[a], src);
  __syncthreads();
  if (warp == 0) publish_aggregate(state, tile_a, s[a], aggregate[a], lane);
  for (;;) {
    const unsigned b = a ^ 1u;
    if (threadIdx.x == 0) s[b].tile = state.acquire_tile();
    __syncthreads();  // (1)
    const std::uint64_t tile_b = s[b].tile;
    const bool more = tile_b < num_tiles;  // the same for the whole block
    std::uint32_t flags_b = 0;
    if (more) flags_b = stage_tile(f, tile_b, domain_size, num_items, s[b], stage[b], src);
    else cp_async_commit();  // keeps "all but the newest group" meaning A's copies
    __syncthreads();  // (2)
    if (warp == 0) {
      if (more) publish_aggregate(state, tile_b, s[b], aggregate[b], lane);
      if (tile_a != 0) look_back_inclusive(state, tile_a, a, aggregate, s, domain_size, num_items, lane);
    }
    cp_async_wait_prior<1>();  // this thread's copies of A have landed (B's may not have)
    __syncthreads();  // (3)
    store_staged(flags_a, s[a], stage[a], dst);
    if (!more) return;
    tile_a = tile_b;
    flags_a = flags_b;
    a = b;
  }
}

// ----------------------------------------------------------------------------
// Host side. The *_with<Policy> forms take the tile shape explicitly (tuning
// experiments); the library picks it with with_policy.

/// Temporary storage of bijective2 with tile shape Policy for a domain of 2^domain_bits.
template <class Policy>
std::size_t bijective2_temp_bytes_with(unsigned domain_bits) {
  protocol::temp_layout layout = shuffle_layout();
  layout.add(scan::tile_state<std::uint64_t>::temp_bytes(tiles_for<Policy>(std::uint64_t{1} << domain_bits)));
  return layout.total();
}

/// Temporary storage of bijective2 (and the unshuffle) for a domain of 2^domain_bits:
/// enough for the tiled structure and for the staged one (gpu_staged_shuffle.cuh),
/// whichever the device takes.
template <class T>
std::size_t bijective2_temp_bytes(unsigned domain_bits) {
  std::size_t bytes = 0;
  with_policy<T>(domain_bits, [&](auto policy) { bytes = bijective2_temp_bytes_with<decltype(policy)>(domain_bits); });
  const std::size_t staged = staged_temp_bytes(domain_bits);
  return bytes > staged ? bytes : staged;
}

/// Whether a software-pipelined tile kernel (here and in gpu_segmented_shuffle.cuh) runs
/// for T elements and tiles of TileItems indices: its two stages of TileItems elements
/// must fit in 32 KiB of static shared memory, and T must move as 4-, 8- or 16-byte words
/// (cp.async; narrower elements would be copied through registers, synchronously, which
/// loses what the pipeline gains).
template <std::uint64_t TileItems, class T>
inline constexpr bool two_stage_tiles_fit =
    2 * TileItems * sizeof(T) <= 32 * 1024 && sizeof(typename element_bits<T>::unit) >= 4;

/// Whether the forward bijective2 of T elements with tile shape Policy runs the
/// software-pipelined kernel.
template <class Policy, class T>
inline constexpr bool pipelined_tiles_fit = two_stage_tiles_fit<Policy::tile_items, T>;

/// Enqueues bijective2 (Inverse: the unshuffle) with tile shape Policy over the indices
/// [0, domain_size) of an evaluator `eval` (gpu_evaluator.cuh's images<Items>(first, stride,
/// w) interface): index i is flagged when eval's image w < num_items; the forward call writes
/// d_out[rank] = d_in[w], the unshuffle d_out[w] = d_in[rank], rank the flagged indices before
/// i. domain_size >= 1, any value (the last tile may be partial). The look-back recovers a
/// tile's prefix from 62 bits assuming at most domain_size - num_items unflagged indices before
/// it: a caller whose flag count is not num_items (an evaluator mapping the unflagged images to
/// ~0) passes num_items = 2^64 - 1, which makes the bound wrap to 0 (exact for counts below
/// 2^62). `d_state`: tile_state storage for
/// ceil(domain_size / Policy::tile_items) tiles, aligned to 128 bytes. `pipelined` (forward
/// only, where pipelined_tiles_fit): the software-pipelined kernel (false: the
/// one-tile-at-a-time kernel; for comparisons). Used by run_bijective2_with and by the
/// distributed shuffle (distributed/shuffle.cuh), whose evaluators shift indices and images.
template <class Policy, bool Inverse, class T, class Eval>
void run_bijective2_over(void* d_state, const T* d_in, T* d_out, std::uint64_t num_items, std::uint64_t domain_size,
                         const Eval& eval, cudaStream_t stream, bool pipelined = true) {
  const std::uint64_t tiles =
      domain_size > Policy::tile_items ? (domain_size + Policy::tile_items - 1) / Policy::tile_items : 1;
  const scan::tile_state<std::uint64_t> state(d_state, tiles);
  state.initialize(stream);
  if constexpr (!Inverse && pipelined_tiles_fit<Policy, T>) {
    if (pipelined) {
      constexpr auto kernel = &bijective2_pipelined_kernel<Policy, T, Eval>;
      const unsigned grid = device::resident_grid<kernel>(Policy::block, tiles);
      kernel<<<grid, Policy::block, 0, stream>>>(d_in, d_out, num_items, domain_size, tiles, eval, state);
      ONEPASS_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  constexpr auto kernel = &bijective2_kernel<Policy, T, Eval, Inverse>;
  const unsigned grid = device::resident_grid<kernel>(Policy::block, tiles);
  kernel<<<grid, Policy::block, 0, stream>>>(d_in, d_out, num_items, domain_size, tiles, eval, state);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// Enqueues bijective2 (Inverse: the unshuffle) with tile shape Policy; arguments
/// already checked, d_temp at least bijective2_temp_bytes_with<Policy>(b) bytes.
/// `pipelined` (forward only, where pipelined_tiles_fit): the software-pipelined kernel
/// (false: the one-tile-at-a-time kernel; for comparisons).
template <class Policy, bool Inverse, class T, class Bijection>
void run_bijective2_with(void* d_temp, const T* d_in, T* d_out, std::uint64_t num_items, const Bijection& f,
                         cudaStream_t stream, bool pipelined = true) {
  const std::uint64_t domain_size = std::uint64_t{1} << f.domain_bits();
  with_evaluator(f, [&](const auto& eval) {
    run_bijective2_over<Policy, Inverse>(protocol::aligned_start(d_temp), d_in, d_out, num_items, domain_size, eval,
                                         stream, pipelined);
  });
}

/// True when the forward bijective2 of f with elements T takes the staged structure
/// on the current device.
template <class T, class Bijection>
bool takes_staged_structure(const Bijection& f) {
  bool fits = false;
  with_evaluator(f, [&](const auto& eval) {
    fits = plan_staged_for<T, std::decay_t<decltype(eval)>>(f.domain_bits()).fits;
  });
  return fits;
}

/// `path` forces one structure (tests compare both with the CPU); `staged` throws
/// onepass::error when the plan does not fit or for the unshuffle.
enum class bijective2_path { automatic, tiled, staged };

/// Enqueues bijective2: the forward shuffle of a domain whose output fits in shared
/// memory takes the staged structure (one cooperative launch, gpu_staged_shuffle.cuh),
/// everything else the tiled look-back kernel; both give the same permutation.
template <bool Inverse, class T, class Bijection>
void run_bijective2(void* d_temp, const T* d_in, T* d_out, std::uint64_t num_items, const Bijection& f,
                    cudaStream_t stream, bijective2_path path = bijective2_path::automatic) {
  if (path == bijective2_path::staged) {
    require(!Inverse, "onepass::shuffle::gpu::detail::run_bijective2", "path",
            "the staged structure runs the forward shuffle only");
  }
  if constexpr (!Inverse) {
    bool staged = false;
    if (path != bijective2_path::tiled) {
      with_evaluator(f, [&](const auto& eval) {
        using E = std::decay_t<decltype(eval)>;
        const staged_plan plan = plan_staged_for<T, E>(f.domain_bits());
        if (path == bijective2_path::staged) {
          require(plan.fits, "onepass::shuffle::gpu::detail::run_bijective2", "path",
                  "the staged structure does not fit this domain and element size on this device");
        }
        if (plan.fits) {
          run_staged_with(d_temp, d_in, d_out, num_items, std::uint64_t{1} << f.domain_bits(), eval, plan, stream);
          staged = true;
        }
      });
    }
    if (staged) return;
  }
  with_policy<T>(f.domain_bits(), [&](auto policy) {
    run_bijective2_with<decltype(policy), Inverse>(d_temp, d_in, d_out, num_items, f, stream);
  });
}

}  // namespace onepass::shuffle::gpu::detail
