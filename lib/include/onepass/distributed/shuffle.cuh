// onepass/distributed/shuffle.cuh — the random shuffle of a sequence spread over the ranks of an
// NCCL communicator (issue 29): shuffle() and its inverse unshuffle(), through the compacting
// bijective permutation of Algorithm 1 or the walking permutation, with only the items' bytes
// (and O(P) counts per rank) crossing the network.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs" (§4, Algorithm 1; §6,
// Bijective2): the output is the one-GPU bijective shuffle of the concatenation of the ranks'
// items; this file splits that computation over ranks. The walking permutation is
// shuffle/walking_permutation.hpp.
//
// Positions. Rank r of P holds n_r items, global input positions x in [P_r, P_{r+1}), P_r =
// n_0 + ... + n_{r-1}; N = P_P. After the call rank q holds n_q items, the global output
// positions j in [S_q, S_{q+1}) with S = P (output counts are input counts). The global
// permutation depends only on (N, seed, rounds), never on P or on the split.
//
// One frame for both kinds: a map g over an index domain [0, D) and a flag "g(i) < N". The
// j-th flagged index i_j (increasing i) gives out[j] = in[g(i_j)].
//   bijective: g = f = variable_philox::for_length(N, seed, rounds), D = 2^b (Algorithm 1);
//   walking:   g = sigma = walking_permutation::for_length(N, seed, rounds), D = N, every index
//              flagged (i_j = j).
// Output rank q owns the indices [i_q, i_{q+1}) holding its S_q .. S_{q+1} - 1 flagged ones
// (walking: i_q = S_q; bijective: found by step 1 below).
//
// shuffle (forward), on rank r:
//   1. Boundaries (bijective only; none either when D == N, every index then being flagged:
//      i_q = S_q). The index space is cut into tiles of 2^12 indices (D if
//      smaller), the tiles split evenly over the ranks. Each rank counts the flagged indices of
//      each of its tiles (GPU, one block per tile; the counts come to the host in batches),
//      all-gathers its share's total (1 word), and locates the boundaries S_q that fall in its
//      share: the tile by the prefix of its counts, the index by evaluating f on the host over
//      that one tile. An all-gather of the located boundaries (P words, each found by exactly
//      one rank) gives every rank i_0 = 0 < ... <= i_P = D.
//   2. Own walk: Bijective2's fused kernel (shuffle/gpu_bijective2.cuh) over the rank's own index
//      range [i_r, i_{r+1}) with the flag "g(i) is one of my positions" in place of "g(i) < N":
//      send[m] = in[g(i_m) - P_r], i_m the m-th such index: the rank's items for itself, at the
//      start of the send buffer. The pass also records the source s of each index of the range
//      (the owner of the input position g(i); 2 bytes).
//   3. Receive plan: over its own indices the rank counts, per chunk of indices and per source
//      s, the flagged indices (one warp per chunk, __match_any_sync; from the recorded sources);
//      exclusive scans give each (source, chunk) its place in the receive buffer and each chunk
//      its first output. The chunks are cut into K pieces (runs of whole chunks; K about
//      8 / (P - 1)); one all-gather of the P K counts per (source, piece) gives every rank the
//      size of every piece it sends and receives.
//   4. Walk and exchange, pipelined: for k = 1 .. P - 1, piece by piece, the same walk over
//      rank q = (r + k) % P's index range fills q's group of the send buffer in q's output
//      order, and a grouped ncclSend of that piece to q and ncclRecv of the same piece from
//      rank (r - k) % P run on a high-priority side stream during the walk of the next piece
//      (each step a permutation of the ranks). These walks' persistent grid leaves 48/132 of
//      the device's SMs' share of its blocks unused (48 of an H100's 132 SMs;
//      shuffle_tuning::exchange_sm_share): a grid that fills the device
//      leaves NCCL's kernels too little room, and on 4 H100s the exchange then ran at about half
//      its standalone rate (multi_gpu_shuffle --exchange-sms; results/recorded/nvidia-h100-x4/
//      README.md). Over steps 2 and 4 each rank walks the WHOLE
//      index domain once. Receiver r's buffer holds source 0's group, then source 1's, ..., each
//      in index order; its own group is not copied there but read in place from the send buffer.
//   5. Place: the counting pass of step 3 again, now moving: out[k] = recv[place of (source s,
//      chunk) + rank of i among the chunk's indices from s]; reads run along P streams, writes
//      are consecutive. (A range longer than the owner array — only for uneven splits — is
//      counted and placed by evaluating g again instead of reading recorded sources.)
// unshuffle (out[g(i_j)] = in[j]) runs the same steps reversed: step 3's pass over the rank's
// own indices (evaluating g) scatters item k to its destination's group (the owner of g(i_k)) in index order
// (a stable multisplit), the per-destination totals are the send counts; after the exchange,
// Bijective2's unshuffle kernel over the whole domain with the flag "g(i) is mine" places
// recv[m] at out[g(i_m) - P_r] (the receive buffer is in index order).
//
// Work per rank (forward): g is evaluated D times (steps 2 and 4) and, for the bijective kind with
// D > N, D / P times in step 1: about D (1 + 1 / P) evaluations (the unshuffle, D (1 + 3 / P)),
// so the compute
// of a rank grows with N, not with its own n_r. That is the price of not sending indices with
// the items: a rank can only emit its items in the receivers' order by walking the domain. On
// 4 H100s (results/recorded/nvidia-h100-x4/, 2^30 u64 items per rank) the whole call took 65.6 /
// 89.2 / 77.5 ms at P = 2 / 3 / 4 against 38.3 ms for the one-GPU shuffle of 2^30 items
// (scripts/bench_distributed_shuffle.cu times one rank's phases).
//
// Bytes that cross the network per rank: its items that change rank (at most n_r * sizeof(T)
// sent and n_r * sizeof(T) received), plus 8-byte words: the agreement (6 per rank,
// all-gathered), the boundaries (1 + P per rank, bijective only), the counts (P K per rank):
// every rank receives (6 + P + [bijective] 1 + P K) * P words. No offsets or indices travel with
// the items.
//
// Temporary storage (CUB's two-phase protocol; the size depends only on num_items = n, P, T and
// the kind, never on N, so the query needs no communication): 256-byte aligned arrays of
//   the small words   (P + 1) * max(6, P) words of collective scratch, P + 1 position offsets
//   recv, send        n * sizeof(T) bytes each
//   chunk counts      8 * (P + 1) * C + 8 bytes, C = max(1024, 2 ceil(n / 1024) + 2) chunks (a
//                     longer index range takes longer chunks)
//   tile counts       8 * (B + 1) bytes, B = max(4096, 4 ceil(n / 4096) + 2) tiles per batch
//   look-back state   8 * L + 128 bytes, L = min(2 P ceil(n / 512) + 2, max(1024, n / 8 + 1024))
//                     tiles of 512 indices: the domain pass runs in segments of 512 L indices
//   owners            2 * 1024 C bytes (the recorded sources of the rank's range)
//   CUB scan storage  the largest of the scans'
// (for P = 1 also what gpu::bijective_shuffle needs, which that rank then calls directly). So
// about 2n * sizeof(T) + 4n + (P + 1) n / 64 + min(P n / 32, n) bytes; with an even split the
// domain pass is one segment; a rank holding fewer items than average may take several (each
// waits for the stream to learn where the next starts).
//
// Synchronisation. The calls are host-synchronous up to the exchange: they wait for `stream` at
// the agreement, at each batch of tile counts and each all-gather of the planning (every rank
// must see the same plan before it enqueues the exchange), and return with the exchange and the
// placement enqueued on `stream`, not waited for.
//
// Profiling. With a phase_observer installed on the calling thread (phase_observer.hpp) each
// call marks its phases on `stream`, after the agreement and the copy of the P + 1 offsets:
// forward, P > 1: "boundaries" (step 1; only for the bijective kind with D > N), "own_walk"
// (step 2), "plan" (step 3), "walk_exchange" (step 4: marked as the first walk of another
// rank's range is enqueued), "exchange_tail" (marked on `stream` after the last walk, before
// the side stream of the exchange joins it back: the time `stream` waits for the exchange once
// its walks are done; near zero when the exchange hides behind the walks), "place" (step 5),
// "end"; unshuffle, P > 1: "boundaries" (as above), "split" (the count and multisplit of the
// own range), "exchange" (the all-gather of the counts and the all-to-all), "inverse_walk" (the
// walk over the whole domain), "end"; one rank (the one-GPU call): "local_shuffle" or
// "local_unshuffle", "end". A size query, a call that throws at the agreement and an empty
// global input mark nothing. Without an observer a mark costs one thread-local read.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/distributed/phase_observer.hpp"
#include "onepass/distributed/walk_grid.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/scan/tile_state.cuh"
#include "onepass/shuffle/gpu_bijective2.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/gpu_tile_ranking.cuh"
#include "onepass/shuffle/gpu_walking.cuh"
#include "onepass/shuffle/walking_permutation.hpp"

namespace onepass::distributed {

/// Which global permutation a distributed shuffle applies (both depend only on N, seed, rounds).
enum class permutation {
  bijective,  ///< Algorithm 1's compacting permutation: gpu::bijective_shuffle of the concatenation
  walking,    ///< the cycle-walking permutation: shuffle::cpu::walking_shuffle of the concatenation
};

/// "bijective" or "walking".
inline const char* to_string(permutation kind) {
  switch (kind) {
    case permutation::bijective: return "bijective";
    case permutation::walking: return "walking";
  }
  return "unknown";
}

/// Most ranks a distributed shuffle accepts (the multisplit keeps P counters per warp in
/// 48 KiB of shared memory).
inline constexpr int shuffle_max_ranks = 6144;

namespace detail {

namespace sg = onepass::shuffle::gpu::detail;

// ---------------------------------------------------------------------------------------------
// Sizes

/// Indices per tile of the boundary counts (2^12; the whole domain when it is smaller).
inline constexpr unsigned shuffle_tile_bits = 12;
/// Threads per block of the tile-count kernel.
inline constexpr int shuffle_block = 256;
/// Indices per warp chunk of the range passes (at least; a long range takes longer chunks).
inline constexpr std::uint64_t split_chunk = 1024;
/// Warps per block of the range passes (fewer when P counters per warp do not fit).
inline constexpr int split_max_warps = 8;
/// Shared memory the range passes' counters may take per block.
inline constexpr std::size_t split_shared_bytes = 48 * 1024;
/// Words of the agreement record: status, seed, rounds, kind, sizeof(T), n.
inline constexpr std::size_t shuffle_record_words = 6;
/// Indices per look-back tile counted in the segment length of the domain pass (the small tile
/// of shuffle/gpu_tile_ranking.cuh; a segment that takes the large tile has half as many).
inline constexpr std::uint64_t segment_tile_items = 512;

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// Warps per block of the range passes for P ranks.
inline int split_warps(int num_ranks) {
  const std::size_t per_warp = static_cast<std::size_t>(num_ranks) * sizeof(std::uint64_t);
  return static_cast<int>(std::clamp<std::size_t>(split_shared_bytes / per_warp, 1, split_max_warps));
}

/// The knobs of the general path, fixed for the public calls; the tests shrink the chunk
/// budget, the domain segments and the tile batches to run long chunks, many segments and
/// batched counts on small inputs, and turn the P == 1 shortcut off to run the general path on
/// one rank.
struct shuffle_tuning {
  bool single_rank_shortcut = true;                       ///< P == 1 calls the one-GPU shuffle
  std::uint64_t min_chunks = 1024;                        ///< floor of the chunk budget C
  std::uint64_t max_chunks = std::uint64_t{1} << 40;      ///< ceiling of C
  std::uint64_t min_segment_tiles = 1024;                 ///< floor of the look-back tiles L
  std::uint64_t max_segment_tiles = std::uint64_t{1} << 40;  ///< ceiling of L
  std::uint64_t min_tile_batch = 4096;                    ///< floor of the tiles per batch
  std::uint64_t max_tile_batch = std::uint64_t{1} << 28;  ///< ceiling of the tiles per batch
  std::uint64_t pieces = 0;  ///< pieces per destination group of the forward exchange (0: pieces_of's default)
  /// The share of the device's SMs (in [0, 1]; rounded to whole SMs) whose resident blocks the
  /// walks beside the exchange (walk_and_exchange) leave unused, so that NCCL's kernels on the
  /// side stream have room (0: the walks fill the device). 48/132: 48 of an H100's 132 SMs, the
  /// fastest of 0, 8, 16, 32, 48, 64, 80 and 96 for 2^30 u64 items per GPU on 2-4 H100s (a share,
  /// not a count, so that a GPU with fewer SMs keeps most of them for its walks). The walking
  /// permutation's steps use 0: walking_tuning.
  double exchange_sm_share = 48.0 / 132.0;
};

/// The knobs of the walking permutation's steps: `tuning` with walks that fill the device
/// (exchange_sm_share 0): its walks are compute-bound, and leaving 48 SMs to the exchange made the
/// weak 2^30-per-GPU shuffle on 3 H100s slower (109 -> 120 ms), where the bijective one gained.
inline shuffle_tuning walking_tuning(shuffle_tuning tuning) {
  tuning.exchange_sm_share = 0;
  return tuning;
}

/// Most pieces per destination group of the forward exchange.
inline constexpr std::uint64_t max_pieces = 16;

/// Pieces per destination group of the forward exchange on P ranks: about 8 sends in all
/// (P - 1 groups), so the walk of one piece hides the transfer of the one before; every rank
/// computes the same number.
inline std::uint64_t pieces_of(int num_ranks, const shuffle_tuning& tuning) {
  if (tuning.pieces != 0) return std::min(tuning.pieces, max_pieces);
  const auto others = static_cast<std::uint64_t>(num_ranks > 1 ? num_ranks - 1 : 1);
  return std::clamp<std::uint64_t>(ceil_div(8, others), 1, max_pieces);
}

/// C, the chunk budget of a range pass of a rank holding n items.
inline std::uint64_t chunk_budget_of(std::uint64_t n, const shuffle_tuning& tuning) {
  return std::clamp<std::uint64_t>(2 * ceil_div(n, split_chunk) + 2, tuning.min_chunks, tuning.max_chunks);
}

/// The temporary storage of one rank's distributed shuffle (file comment, "Temporary storage").
struct shuffle_temp {
  std::size_t scratch = 0, bounds = 0, recv = 0, send = 0, split = 0, totals = 0, tiles = 0, state = 0,
              cub = 0;                  ///< offsets from the aligned start
  std::size_t scratch_words = 0;        ///< 64-bit words of collective scratch
  std::size_t cub_bytes = 0;            ///< CUB's scan storage
  std::uint64_t chunk_budget = 0;       ///< C: chunks of a range pass
  std::uint64_t tile_batch = 0;         ///< tiles per batch of boundary tile counts
  std::uint64_t segment_tiles = 0;      ///< L: look-back tiles of a domain segment
  std::uint64_t owner_capacity = 0;     ///< indices of the owner array: C * split_chunk
  std::size_t owners = 0;               ///< offset of the owner array
  std::size_t general = 0;              ///< bytes of the general (any P) path
  std::size_t total = 0;                ///< the size query's answer
};

template <class Item>
std::size_t cub_scan_bytes(std::uint64_t count) {
  std::size_t bytes = 0;
  ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<Item*>(nullptr),
                                                   static_cast<std::int64_t>(count)));
  return bytes;
}

/// The layout for n items of item_bytes bytes on a communicator of P ranks (P <= max ranks).
/// single_rank_bytes: what the one-GPU call needs (0: none).
inline shuffle_temp plan_temp(std::uint64_t n, int num_ranks, std::size_t item_bytes, std::size_t single_rank_bytes,
                              const shuffle_tuning& tuning) {
  const auto P = static_cast<std::uint64_t>(num_ranks);
  shuffle_temp t;
  t.scratch_words = (P + 1) * std::max<std::uint64_t>(shuffle_record_words, P * pieces_of(num_ranks, tuning));
  t.chunk_budget = chunk_budget_of(n, tuning);
  t.tile_batch = std::clamp<std::uint64_t>(4 * ceil_div(n, std::uint64_t{1} << shuffle_tile_bits) + 2,
                                           tuning.min_tile_batch, tuning.max_tile_batch);
  const std::uint64_t own_tiles = ceil_div(n, segment_tile_items);
  const std::uint64_t spread = own_tiles > (std::uint64_t{1} << 40) / P ? (std::uint64_t{1} << 41) : 2 * P * own_tiles + 2;
  t.segment_tiles = std::clamp<std::uint64_t>(std::min(spread, std::max<std::uint64_t>(1024, n / 8 + 1024)),
                                              tuning.min_segment_tiles, tuning.max_segment_tiles);
  protocol::temp_layout layout(protocol::temp_layout::empty_arrays::take_a_unit);
  t.scratch = layout.add(t.scratch_words * sizeof(std::uint64_t));
  t.bounds = layout.add((P + 1) * sizeof(std::uint64_t));
  t.recv = layout.add(n * item_bytes);
  t.send = layout.add(n * item_bytes);
  t.split = layout.add(P * t.chunk_budget * sizeof(std::uint64_t));
  t.totals = layout.add((t.chunk_budget + 1) * sizeof(std::uint64_t));
  t.tiles = layout.add((t.tile_batch + 1) * sizeof(std::uint64_t));
  t.state = layout.add(scan::tile_state<std::uint64_t>::temp_bytes(t.segment_tiles));
  t.owner_capacity = t.chunk_budget * split_chunk;
  t.owners = layout.add(t.owner_capacity * sizeof(std::uint16_t));
  t.cub_bytes = std::max({cub_scan_bytes<std::uint64_t>(P * t.chunk_budget),
                          cub_scan_bytes<std::uint64_t>(t.chunk_budget + 1),
                          cub_scan_bytes<std::uint64_t>(t.tile_batch + 1)});
  t.cub = layout.add(t.cub_bytes);
  t.general = layout.total();
  t.total = std::max(t.general, single_rank_bytes);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Device functions and kernels

/// The largest q in [0, P) with bounds[q] <= key (bounds[0..P] nondecreasing, bounds[0] <= key
/// < bounds[P]): the rank whose range [bounds[q], bounds[q+1]) holds key (empty ranges skipped).
__device__ inline std::uint32_t owner_of(const std::uint64_t* bounds, std::uint32_t num_ranks, std::uint64_t key) {
  std::uint32_t lo = 0, hi = num_ranks;
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (bounds[mid] <= key) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// The walking permutation's device form over the evaluator E of its bijection
/// (shuffle/gpu_evaluator.cuh): images(j) = sigma(j) for j < N (walk_permutation.hpp's walk:
/// y = tau(f(y)) until y < N), and ~0 for j >= N (never walked).
template <class E>
struct walking_evaluator {
  E f;
  std::uint64_t num_items;  ///< N
  std::uint64_t swap;       ///< sigma.swap01()

  template <int Items>
  __device__ void images(std::uint64_t first, std::uint64_t stride, std::uint64_t (&w)[Items]) const {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      std::uint64_t y = first + static_cast<std::uint64_t>(k) * stride;
      if (y >= num_items) {
        w[k] = ~std::uint64_t{0};
        continue;
      }
      do {
        std::uint64_t image[1];
        f.template images<1>(y, 1, image);
        y = shuffle::swap_zero_one(image[0], swap);
      } while (y >= num_items);
      w[k] = y;
    }
  }
};

/// Where the forward domain pass records, for the indices of the rank's own range, the rank
/// owning each image's input position (no_owner: not flagged), so that the range passes after
/// it read them instead of evaluating g again. owners == nullptr: nothing recorded.
struct owner_record {
  std::uint16_t* owners = nullptr;  ///< owners[i - lo] for i in [lo, hi)
  std::uint64_t lo = 0, hi = 0;
  const std::uint64_t* offsets = nullptr;  ///< the P + 1 position offsets (device)
  std::uint32_t num_ranks = 0;
  std::uint64_t num_items = 0;  ///< N
};
/// The recorded owner of an unflagged index.
inline constexpr std::uint16_t no_owner = 0xFFFF;

/// The map of the domain pass over one segment: index t of the segment is domain index
/// segment_first + t; its image g(i) becomes g(i) - own_first when that is one of this rank's
/// own positions [0, own_count), else ~0 (never flagged). Indices of record's range also have
/// their image's owner written to record.owners (the evaluation is the tile's, made once).
template <class E>
struct own_images {
  E g;
  std::uint64_t segment_first, own_first, own_count;
  owner_record record;

  template <int Items>
  __device__ void images(std::uint64_t first, std::uint64_t stride, std::uint64_t (&w)[Items]) const {
    g.template images<Items>(segment_first + first, stride, w);
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const std::uint64_t i = segment_first + first + static_cast<std::uint64_t>(k) * stride;
      if (record.owners != nullptr && i >= record.lo && i < record.hi)
        record.owners[i - record.lo] =
            w[k] < record.num_items ? static_cast<std::uint16_t>(owner_of(record.offsets, record.num_ranks, w[k]))
                                    : no_owner;
      const std::uint64_t own = w[k] - own_first;  // wraps above own_count below own_first
      w[k] = own < own_count ? own : ~std::uint64_t{0};
    }
  }
};

/// counts[t] = the flagged indices (g(i) < N) of tile t = [start + t * tile, min(.. + tile, end))
/// (g: an evaluator of shuffle/gpu_evaluator.cuh). One block of shuffle_block threads per tile;
/// each thread evaluates count_valid_items indices at a time (interleaved: the evaluator's
/// rounds run over them together), then one block sum.
inline constexpr int count_valid_items = 8;
template <class E>
__global__ void __launch_bounds__(shuffle_block) count_valid_kernel(E g, std::uint64_t num_items, std::uint64_t start,
                                                                    std::uint64_t end, std::uint64_t tile,
                                                                    std::uint64_t* counts) {
  constexpr int items = count_valid_items;
  const std::uint64_t lo = start + blockIdx.x * tile;
  const std::uint64_t hi = lo + tile < end ? lo + tile : end;
  unsigned flagged = 0;
  for (std::uint64_t base = lo; base < hi; base += static_cast<std::uint64_t>(shuffle_block) * items) {
    const std::uint64_t first = base + threadIdx.x;
    std::uint64_t image[items];
    g.template images<items>(first, shuffle_block, image);  // indices past hi: evaluated, not counted
#pragma unroll
    for (int k = 0; k < items; ++k)
      flagged += (first + static_cast<std::uint64_t>(k) * shuffle_block < hi && image[k] < num_items) ? 1u : 0u;
  }
  using block_sum = cub::BlockReduce<unsigned, shuffle_block>;
  __shared__ typename block_sum::TempStorage storage;
  const unsigned total = block_sum(storage).Sum(flagged);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

/// The chunks of a range pass: chunk c of the indices [first, end) is [first + c * length,
/// min(first + (c + 1) * length, end)).
struct range_chunks {
  std::uint64_t first = 0, end = 0, length = split_chunk, count = 0;
};

/// Piece j (of K) of a range pass's chunks starts at chunk floor(j C / K) (C = count chunks): the
/// forward exchange sends each destination's group in K pieces, each a run of whole chunks of the
/// receiver's range pass, so the receiver's count gives the size of every piece.
ONEPASS_HD inline std::uint64_t piece_first_chunk(const range_chunks& c, std::uint64_t piece, std::uint64_t pieces) {
  return c.count * piece / pieces;
}

/// counts[s * K + j] = piece j's flagged indices of the range pass `chunks` whose image lies in
/// rank s's input positions, from range_count's scanned places (split[s * C + c]: the place of
/// (s, c) in the source-grouped order; n_flagged in all).
template <int Unused = 0>
__global__ void piece_counts_kernel(const std::uint64_t* split, range_chunks chunks, std::uint32_t num_ranks,
                                    std::uint64_t pieces, std::uint64_t n_flagged, std::uint64_t* counts) {
  const std::uint64_t places = static_cast<std::uint64_t>(num_ranks) * chunks.count;
  for (std::uint64_t k = threadIdx.x; k < num_ranks * pieces; k += blockDim.x) {
    const std::uint64_t s = k / pieces, j = k % pieces;
    const std::uint64_t lo = s * chunks.count + piece_first_chunk(chunks, j, pieces);
    const std::uint64_t hi = s * chunks.count + piece_first_chunk(chunks, j + 1, pieces);
    counts[k] = (hi < places ? split[hi] : n_flagged) - (lo < places ? split[lo] : n_flagged);
  }
}

/// The owners of a range pass's indices, evaluated: owner(i, hi) = the rank q owning the input
/// position g(i) when i < hi and g(i) < N, else P.
template <class E>
struct evaluated_owner {
  E g;
  std::uint64_t num_items;         ///< N
  const std::uint64_t* offsets;    ///< the P + 1 position offsets (device)
  std::uint32_t num_ranks;         ///< P
  __device__ std::uint32_t operator()(std::uint64_t i, std::uint64_t hi) const {
    std::uint64_t image[1] = {~std::uint64_t{0}};
    if (i < hi) g.template images<1>(i, 1, image);
    return image[0] < num_items ? owner_of(offsets, num_ranks, image[0]) : num_ranks;
  }
};
/// The same owners, read from the domain pass's record (owner_record) of the range [lo, ...).
struct recorded_owner {
  const std::uint16_t* owners;
  std::uint64_t lo;
  std::uint32_t num_ranks;
  __device__ std::uint32_t operator()(std::uint64_t i, std::uint64_t hi) const {
    if (i >= hi) return num_ranks;
    const std::uint16_t q = owners[i - lo];
    return q == no_owner ? num_ranks : q;
  }
};

/// Step 3's count: counts[q * chunks + c] = chunk c's flagged indices whose image lies in rank
/// q's input positions (offsets[q] .. offsets[q + 1]); totals[c] = chunk c's flagged indices.
/// One warp per chunk; `num_ranks` 32-bit counters per warp in dynamic shared memory.
template <class Owner>
__global__ void range_count_kernel(Owner owner, range_chunks chunks, std::uint32_t num_ranks, std::uint64_t* counts,
                                   std::uint64_t* totals) {
  extern __shared__ std::uint64_t split_shared[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  auto* counter = reinterpret_cast<std::uint32_t*>(split_shared) + warp * num_ranks;
  const std::uint64_t chunk = static_cast<std::uint64_t>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (chunk >= chunks.count) return;  // the whole warp
  for (std::uint32_t q = lane; q < num_ranks; q += 32) counter[q] = 0;
  __syncwarp();
  const std::uint64_t lo = chunks.first + chunk * chunks.length;
  const std::uint64_t hi = lo + chunks.length < chunks.end ? lo + chunks.length : chunks.end;
  std::uint64_t flagged = 0;
  for (std::uint64_t s = lo; s < hi; s += 32) {
    const std::uint32_t q = owner(s + lane, hi);
    const bool valid = q < num_ranks;
    const unsigned peers = __match_any_sync(0xffffffffu, q);
    if (valid && lane == static_cast<unsigned>(__ffs(peers) - 1)) counter[q] += static_cast<std::uint32_t>(__popc(peers));
    flagged += static_cast<unsigned>(__popc(__ballot_sync(0xffffffffu, valid)));
    __syncwarp();
  }
  for (std::uint32_t q = lane; q < num_ranks; q += 32) counts[q * chunks.count + chunk] = counter[q];
  if (lane == 0) totals[chunk] = flagged;
}

/// Steps 5 and (unshuffle) 2's move, after the scans of range_count_kernel's arrays: the k-th
/// flagged index of the range (k = totals[c] + its rank in chunk c), owned by rank q, has the
/// place at = counts[q * chunks + c] + its rank among chunk c's indices of q. Gather:
/// dst[k] = src[at] (the placement from the receive buffer; the items of rank own.rank, which
/// never went through the exchange, are read from own.src[at + own.delta], its group in the send
/// buffer); else dst[at] = src[k] (the stable multisplit into the send buffer).
template <class T>
struct own_group {
  std::uint32_t rank = ~0u;  ///< this rank (~0: none; every item from src)
  const T* src = nullptr;    ///< the send buffer
  std::int64_t delta = 0;    ///< its group's offset there minus the group's place in the receive order
};

template <bool Gather, class Owner, class T>
__global__ void range_move_kernel(Owner owner, range_chunks chunks, std::uint32_t num_ranks,
                                  const std::uint64_t* counts, const std::uint64_t* totals, const T* __restrict__ src,
                                  T* __restrict__ dst, own_group<T> own) {
  extern __shared__ std::uint64_t split_shared[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  std::uint64_t* counter = split_shared + warp * num_ranks;
  const std::uint64_t chunk = static_cast<std::uint64_t>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (chunk >= chunks.count) return;
  for (std::uint32_t q = lane; q < num_ranks; q += 32) counter[q] = counts[q * chunks.count + chunk];
  __syncwarp();
  const std::uint64_t lo = chunks.first + chunk * chunks.length;
  const std::uint64_t hi = lo + chunks.length < chunks.end ? lo + chunks.length : chunks.end;
  const unsigned below = (1u << lane) - 1u;
  std::uint64_t k = totals[chunk];
  for (std::uint64_t s = lo; s < hi; s += 32) {
    const std::uint32_t q = owner(s + lane, hi);
    const bool valid = q < num_ranks;
    const unsigned flags = __ballot_sync(0xffffffffu, valid);
    const unsigned peers = __match_any_sync(0xffffffffu, q);
    const std::uint64_t at = valid ? counter[q] + static_cast<unsigned>(__popc(peers & below)) : 0;
    __syncwarp();
    if (valid && lane == static_cast<unsigned>(__ffs(peers) - 1)) counter[q] += static_cast<unsigned>(__popc(peers));
    __syncwarp();
    if (valid) {
      const std::uint64_t kk = k + static_cast<unsigned>(__popc(flags & below));
      if constexpr (Gather) dst[kk] = q == own.rank ? own.src[static_cast<std::int64_t>(at) + own.delta] : src[at];
      else dst[at] = src[kk];
    }
    k += static_cast<unsigned>(__popc(flags));
  }
}

/// totals[q] = offsets[(q + 1) * chunks] - offsets[q * chunks] (n for q + 1 == P).
template <int Unused = 0>
__global__ void split_totals_kernel(const std::uint64_t* offsets, std::uint64_t chunks, std::uint32_t num_ranks,
                                    std::uint64_t n, std::uint64_t* totals) {
  for (std::uint32_t q = threadIdx.x; q < num_ranks; q += blockDim.x) {
    const std::uint64_t next = q + 1 < num_ranks ? offsets[(q + 1) * chunks] : n;
    totals[q] = next - offsets[q * chunks];
  }
}

// ---------------------------------------------------------------------------------------------
// Host steps

/// The arrays of one call inside the caller's temporary storage.
struct shuffle_buffers {
  shuffle_temp layout;
  std::uint64_t* scratch = nullptr;
  std::uint64_t* bounds = nullptr;  ///< the P + 1 position offsets (device)
  unsigned char* recv = nullptr;
  unsigned char* send = nullptr;
  std::uint64_t* split = nullptr;
  std::uint64_t* totals = nullptr;
  std::uint64_t* tiles = nullptr;
  void* state = nullptr;
  std::uint16_t* owners = nullptr;
  void* cub = nullptr;

  shuffle_buffers(void* d_temp, const shuffle_temp& l) : layout(l) {
    using protocol::temp_layout;
    scratch = temp_layout::at<std::uint64_t>(d_temp, l.scratch);
    bounds = temp_layout::at<std::uint64_t>(d_temp, l.bounds);
    recv = temp_layout::at(d_temp, l.recv);
    send = temp_layout::at(d_temp, l.send);
    split = temp_layout::at<std::uint64_t>(d_temp, l.split);
    totals = temp_layout::at<std::uint64_t>(d_temp, l.totals);
    tiles = temp_layout::at<std::uint64_t>(d_temp, l.tiles);
    state = temp_layout::at(d_temp, l.state);
    owners = temp_layout::at<std::uint16_t>(d_temp, l.owners);
    cub = temp_layout::at(d_temp, l.cub);
  }
};

/// In-place exclusive sum of `count` words in the buffers' CUB storage.
template <class Word>
void scan_in_place(shuffle_buffers& b, Word* d_data, std::uint64_t count, cudaStream_t stream) {
  if (count == 0) return;
  std::size_t bytes = b.layout.cub_bytes;
  ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(b.cub, bytes, d_data, static_cast<std::int64_t>(count), stream));
}

/// The tiling of the index space [0, D) for the boundary counts: tiles of 2^min(12, b) indices.
struct index_tiling {
  std::uint64_t domain = 0, tile = 0, tiles = 0;
  explicit index_tiling(unsigned domain_bits)
      : domain(std::uint64_t{1} << domain_bits),
        tile(std::uint64_t{1} << std::min(domain_bits, shuffle_tile_bits)),
        tiles(domain / tile) {}
};

/// Step 1 of the bijective kind: the index boundaries i_0 = 0 <= ... <= i_P = D of the output
/// ranks (host). `offsets`: the P + 1 position offsets S; g: f's device evaluator. When D == N
/// every index is flagged and the boundaries are the offsets (nothing counted). Waits for the
/// stream otherwise.
template <class E>
std::vector<std::uint64_t> index_boundaries(const char* function, const bijection::variable_philox& f, const E& g,
                                            std::uint64_t num_items, const std::vector<std::uint64_t>& offsets,
                                            shuffle_buffers& b, rank_view ranks, ncclComm_t comm,
                                            cudaStream_t stream) {
  const index_tiling tiling(f.domain_bits());
  if (tiling.domain == num_items) return offsets;
  const auto P = static_cast<std::uint64_t>(ranks.size);
  const std::uint64_t share = ceil_div(tiling.tiles, P);
  const std::uint64_t t0 = std::min(tiling.tiles, static_cast<std::uint64_t>(ranks.rank) * share);
  const std::uint64_t t1 = std::min(tiling.tiles, t0 + share);
  std::vector<std::uint64_t> counts(t1 - t0);
  for (std::uint64_t s = t0; s < t1; s += b.layout.tile_batch) {
    const std::uint64_t nt = std::min(b.layout.tile_batch, t1 - s);
    count_valid_kernel<<<static_cast<unsigned>(nt), shuffle_block, 0, stream>>>(
        g, num_items, s * tiling.tile, (s + nt) * tiling.tile, tiling.tile, b.tiles);
    ONEPASS_CUDA_CHECK_LAUNCH();
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(counts.data() + (s - t0), b.tiles, nt * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToHost, stream));
    ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::uint64_t own_total = 0;
  for (const std::uint64_t c : counts) own_total += c;
  const auto totals = all_gather_to_host({own_total}, b.scratch, ranks.size, comm, stream, function);
  const auto share_offsets = offsets_of(totals);

  // The boundaries S_q (q = 1..P-1) whose S_q-th valid index (1-based) lies in this share.
  std::vector<std::uint64_t> found(P, 0);
  const std::uint64_t mine_lo = share_offsets[ranks.rank], mine_hi = share_offsets[ranks.rank + 1];
  for (std::uint64_t q = 1; q < P; ++q) {
    const std::uint64_t target = offsets[q];
    if (target == 0 || target <= mine_lo || target > mine_hi) continue;
    std::uint64_t seen = mine_lo, t = 0;
    while (seen + counts[t] < target) seen += counts[t++];
    std::uint64_t need = target - seen;
    const std::uint64_t lo = (t0 + t) * tiling.tile;
    for (std::uint64_t i = lo; i < lo + tiling.tile; ++i)
      if (f(i) < num_items && --need == 0) {
        found[q] = i + 1;
        break;
      }
  }
  const auto all_found = all_gather_to_host(found, b.scratch, ranks.size, comm, stream, function);
  std::vector<std::uint64_t> bounds(P + 1, 0);
  for (std::uint64_t q = 1; q < P; ++q)
    for (std::uint64_t r = 0; r < P; ++r) bounds[q] += all_found[r * P + q];
  bounds[P] = tiling.domain;
  return bounds;
}

/// The chunks of the range pass over [first, end) within the budget C of the storage: chunks of
/// split_chunk indices, longer (a multiple of 32) when the range needs more than C of them.
inline range_chunks chunks_of(std::uint64_t first, std::uint64_t end, std::uint64_t chunk_budget) {
  range_chunks c;
  c.first = first;
  c.end = end;
  const std::uint64_t length = end - first;
  c.length = std::max(split_chunk, ceil_div(ceil_div(length, chunk_budget), 32) * 32);
  c.count = ceil_div(length, c.length);
  return c;
}
inline range_chunks chunks_of(std::uint64_t first, std::uint64_t end, const shuffle_buffers& b) {
  return chunks_of(first, end, b.layout.chunk_budget);
}

/// The indices of piece j of `c`: [first, end).
inline std::pair<std::uint64_t, std::uint64_t> piece_indices(const range_chunks& c, std::uint64_t piece,
                                                             std::uint64_t pieces) {
  const std::uint64_t lo = c.first + piece_first_chunk(c, piece, pieces) * c.length;
  const std::uint64_t hi = c.first + piece_first_chunk(c, piece + 1, pieces) * c.length;
  return {std::min(lo, c.end), std::min(hi, c.end)};
}

/// Step 3's count over the range `chunks` (owner: evaluated_owner or recorded_owner), then the
/// scans: b.split = the place of each (rank, chunk) in the rank-grouped order, b.totals = each
/// chunk's first flagged index; d_rank_totals[q] = the flagged indices owned by rank q (P words;
/// n_flagged in all).
template <class Owner>
void range_count(const Owner& owner, const range_chunks& chunks, std::uint64_t n_flagged, shuffle_buffers& b,
                 std::uint32_t num_ranks, std::uint64_t* d_rank_totals, cudaStream_t stream) {
  if (chunks.count == 0) {
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_rank_totals, 0, num_ranks * sizeof(std::uint64_t), stream));
    return;
  }
  const int warps = split_warps(static_cast<int>(num_ranks));
  const auto grid = static_cast<unsigned>(ceil_div(chunks.count, static_cast<std::uint64_t>(warps)));
  range_count_kernel<<<grid, 32 * warps, warps * num_ranks * sizeof(std::uint32_t), stream>>>(
      owner, chunks, num_ranks, b.split, b.totals);
  ONEPASS_CUDA_CHECK_LAUNCH();
  scan_in_place(b, b.split, static_cast<std::uint64_t>(num_ranks) * chunks.count, stream);
  scan_in_place(b, b.totals, chunks.count, stream);
  split_totals_kernel<<<1, shuffle_block, 0, stream>>>(b.split, chunks.count, num_ranks, n_flagged, d_rank_totals);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// Step 5 (Gather: dst[k] = src[place], the own group's items from own.src) or the unshuffle's
/// multisplit (dst[place] = src[k]) over the range `chunks`, after range_count over the same
/// range with the same owners.
template <bool Gather, class Owner, class T>
void range_move(const Owner& owner, const range_chunks& chunks, shuffle_buffers& b, std::uint32_t num_ranks,
                const T* src, T* dst, cudaStream_t stream, const own_group<T>& own = {}) {
  if (chunks.count == 0) return;
  const int warps = split_warps(static_cast<int>(num_ranks));
  const auto grid = static_cast<unsigned>(ceil_div(chunks.count, static_cast<std::uint64_t>(warps)));
  range_move_kernel<Gather><<<grid, 32 * warps, warps * num_ranks * sizeof(std::uint64_t), stream>>>(
      owner, chunks, num_ranks, b.split, b.totals, src, dst, own);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// blocks_leaving_share (walk_grid.hpp) on the current device. Throws onepass::runtime_failure
/// when the CUDA query fails.
inline unsigned slots_leaving_share(unsigned slots, double leave_share) {
  if (!(leave_share > 0)) return slots;
  int device = 0, sms = 0;
  ONEPASS_CUDA_CHECK(cudaGetDevice(&device));
  ONEPASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>(blocks_leaving_share(slots, sms, leave_share));
}

/// Launches one of Bijective2's kernels (`Kernel`) over `tiles` tiles with a persistent grid that
/// leaves `leave_share` of the device's SMs without its blocks (slots_leaving_share).
template <auto Kernel, class T, class Eval>
void launch_walk_kernel(int block, const T* d_in, T* d_out, std::uint64_t num_items, std::uint64_t domain_size,
                        std::uint64_t tiles, const Eval& eval, const scan::tile_state<std::uint64_t>& state,
                        cudaStream_t stream, double leave_share) {
  const unsigned grid =
      device::resident_grid(slots_leaving_share(device::resident_blocks<Kernel>(block), leave_share), tiles);
  Kernel<<<grid, block, 0, stream>>>(d_in, d_out, num_items, domain_size, tiles, eval, state);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// One walk: shuffle::gpu::detail::run_bijective2_over (the same kernels, state and tiles) with
/// a persistent grid that leaves `leave_share` of the device's SMs unused, so that NCCL's kernels
/// on the side stream have room beside it (<= 0: run_bijective2_over itself).
template <class Policy, bool Inverse, class T, class Eval>
void run_walk_over(void* d_state, const T* d_in, T* d_out, std::uint64_t num_items, std::uint64_t domain_size,
                   const Eval& eval, cudaStream_t stream, double leave_share) {
  if (!(leave_share > 0)) {
    sg::run_bijective2_over<Policy, Inverse>(d_state, d_in, d_out, num_items, domain_size, eval, stream);
    return;
  }
  const std::uint64_t tiles = domain_size > Policy::tile_items ? ceil_div(domain_size, Policy::tile_items) : 1;
  const scan::tile_state<std::uint64_t> state(d_state, tiles);
  state.initialize(stream);
  if constexpr (!Inverse && sg::pipelined_tiles_fit<Policy, T>)
    launch_walk_kernel<&sg::bijective2_pipelined_kernel<Policy, T, Eval>>(
        Policy::block, d_in, d_out, num_items, domain_size, tiles, eval, state, stream, leave_share);
  else
    launch_walk_kernel<&sg::bijective2_kernel<Policy, T, Eval, Inverse>>(
        Policy::block, d_in, d_out, num_items, domain_size, tiles, eval, state, stream, leave_share);
}

/// Steps 2 and 4 (forward: dst[m] = src[g(i_m) - own_first]) or the unshuffle's placement (Inverse:
/// dst[g(i_m) - own_first] = src[m]) over the indices [start, end) of the domain, i_m the m-th
/// index of them whose image is one of this rank's own positions [own_first, own_first +
/// own_count), through Bijective2's kernels, in segments of at most L look-back tiles. A segment
/// after the first starts where the last one's look-back ended (read back: a wait for the
/// stream). `record`: where to write the owners of the indices [record.lo, record.hi) (forward;
/// nothing by default); `flagged`: the number of such indices in [start, end) when known (the
/// pass then ends when it has placed them), else ~0; `leave_share`: the share of the SMs the walk's
/// persistent grid leaves free (run_walk_over). The pass runs even when the rank holds no items if it has
/// owners to record.
template <bool Inverse, class T, class E>
void domain_range_pass(const E& g, std::uint64_t start, std::uint64_t end, std::uint64_t own_first,
                       std::uint64_t own_count, shuffle_buffers& b, const T* src, T* dst, cudaStream_t stream,
                       const owner_record& record = {}, std::uint64_t flagged = ~std::uint64_t{0},
                       double leave_share = 0) {
  if ((own_count == 0 || flagged == 0) && record.owners == nullptr) return;
  const std::uint64_t segment = b.layout.segment_tiles * segment_tile_items;
  const std::uint64_t expected = std::min(own_count, flagged);
  std::uint64_t done = 0;  // own positions placed by the earlier segments
  for (std::uint64_t first = start; first < end; first += segment) {
    const std::uint64_t length = std::min(segment, end - first);
    const own_images<E> images{g, first, own_first, own_count, record};
    // num_items = 2^64 - 1: own_images maps the positions that are not this rank's to ~0, so
    // the flag "image < num_items" is "own position"; and the look-back's 62-bit prefix is then
    // unwrapped from 0 up (exact_prefix's bound tile * tile_items - (length - num_items) wraps
    // below 0). Any smaller num_items would let exact_prefix assume more flagged indices than
    // there are before a tile, and add 2^62 to its prefix.
    const std::uint64_t bound = ~std::uint64_t{0};
    std::uint64_t tiles = 0;
    sg::with_policy<T>(length >= (std::uint64_t{1} << sg::large_tile_min_bits) ? sg::large_tile_min_bits : 0,
                       [&](auto policy) {
                         using Policy = decltype(policy);
                         tiles = length > Policy::tile_items ? ceil_div(length, Policy::tile_items) : 1;
                         if constexpr (Inverse)
                           run_walk_over<Policy, true>(b.state, src + done, dst, bound, length, images, stream,
                                                       leave_share);
                         else
                           run_walk_over<Policy, false>(b.state, src, dst + done, bound, length, images, stream,
                                                        leave_share);
                       });
    if (first + length < end) {
      // The segment's own positions: the value of its last tile's inclusive prefix.
      std::uint64_t word = 0;
      const auto* words =
          reinterpret_cast<const std::uint64_t*>(static_cast<const unsigned char*>(b.state) +
                                                 scan::tile_state<std::uint64_t>::alignment);
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(&word, words + (tiles - 1), sizeof(word), cudaMemcpyDeviceToHost, stream));
      ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
      done += scan::descriptor_value(word);
      if (done >= expected && (record.owners == nullptr || first + length >= record.hi)) return;
    }
  }
}

/// domain_range_pass over the whole domain [0, domain).
template <bool Inverse, class T, class E>
void domain_pass(const E& g, std::uint64_t domain, std::uint64_t own_first, std::uint64_t own_count,
                 shuffle_buffers& b, const T* src, T* dst, cudaStream_t stream, const owner_record& record = {}) {
  domain_range_pass<Inverse>(g, 0, domain, own_first, own_count, b, src, dst, stream, record);
}

/// The send and receive counts from the all-gather of every rank's P per-rank totals
/// (d_counts[0..P)): `totals_are_receives` — each rank's totals are what it receives from each
/// source (forward), else what it sends to each destination (unshuffle). Checks that the rank
/// receives n items. Waits for the stream.
inline void exchange_counts(const char* function, std::uint64_t* d_counts, bool totals_are_receives, std::uint64_t n,
                            rank_view ranks, ncclComm_t comm, cudaStream_t stream,
                            std::vector<std::uint64_t>& send_counts, std::vector<std::uint64_t>& recv_counts) {
  const auto P = static_cast<std::uint32_t>(ranks.size);
  all_gather_words(d_counts, d_counts + P, P, comm, stream, function);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(P) * P);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(all.data(), d_counts + P, all.size() * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  send_counts.assign(P, 0);
  recv_counts.assign(P, 0);
  const auto r = static_cast<std::size_t>(ranks.rank);
  for (std::uint32_t q = 0; q < P; ++q) {
    // all[a * P + c]: rank a's total for rank c.
    if (totals_are_receives) {
      send_counts[q] = all[static_cast<std::size_t>(q) * P + r];
      recv_counts[q] = all[r * P + q];
    } else {
      send_counts[q] = all[r * P + q];
      recv_counts[q] = all[static_cast<std::size_t>(q) * P + r];
    }
  }
  const std::uint64_t received = offsets_of(recv_counts).back();
  const std::uint64_t sent = offsets_of(send_counts).back();
  if (received != n || sent != n)
    throw runtime_failure(std::string(function) + ": rank " + std::to_string(ranks.rank) + " would send " +
                          std::to_string(sent) + " and receive " + std::to_string(received) + " items for its " +
                          std::to_string(n) + " (internal error: the ranks' plans disagree)");
}

/// The forward exchange's plan on this rank: how many items it sends to and receives from
/// every rank, piece by piece (K pieces per group; piece j of a group is the run of chunks
/// piece_first_chunk(j) .. (j + 1) of the receiver's range pass).
struct piece_plan {
  std::uint64_t pieces = 1;                       ///< K
  std::vector<std::uint64_t> send, recv;          ///< [q * K + j]: piece j to / from rank q
  std::vector<std::uint64_t> send_counts, recv_counts;  ///< per rank: the sums over the pieces
};

/// The forward exchange's plan from the all-gather of every rank's P * K receive counts per
/// source and piece (d_counts[0 .. P K)). Checks that the rank sends and receives n items. Waits
/// for the stream.
inline piece_plan exchange_piece_counts(const char* function, std::uint64_t* d_counts, std::uint64_t pieces,
                                        std::uint64_t n, rank_view ranks, ncclComm_t comm, cudaStream_t stream) {
  const auto P = static_cast<std::size_t>(ranks.size);
  const std::size_t row = P * pieces;
  all_gather_words(d_counts, d_counts + row, row, comm, stream, function);
  std::vector<std::uint64_t> all(P * row);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(all.data(), d_counts + row, all.size() * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  piece_plan plan;
  plan.pieces = pieces;
  plan.send.assign(row, 0);
  plan.recv.assign(row, 0);
  plan.send_counts.assign(P, 0);
  plan.recv_counts.assign(P, 0);
  const auto r = static_cast<std::size_t>(ranks.rank);
  for (std::size_t q = 0; q < P; ++q)
    for (std::size_t j = 0; j < pieces; ++j) {
      // all[a * P K + s * K + j]: what rank a receives from rank s in piece j.
      plan.recv[q * pieces + j] = all[r * row + q * pieces + j];
      plan.send[q * pieces + j] = all[q * row + r * pieces + j];
      plan.recv_counts[q] += plan.recv[q * pieces + j];
      plan.send_counts[q] += plan.send[q * pieces + j];
    }
  const std::uint64_t received = offsets_of(plan.recv_counts).back();
  const std::uint64_t sent = offsets_of(plan.send_counts).back();
  if (received != n || sent != n)
    throw runtime_failure(std::string(function) + ": rank " + std::to_string(ranks.rank) + " would send " +
                          std::to_string(sent) + " and receive " + std::to_string(received) + " items for its " +
                          std::to_string(n) + " (internal error: the ranks' plans disagree)");
  return plan;
}

/// A non-blocking stream of the greatest priority forked from `stream` (its NCCL kernels are
/// then scheduled ahead of the walk's blocks), joined back to `stream` when destroyed, however
/// the scope ends.
class priority_side_stream {
 public:
  explicit priority_side_stream(cudaStream_t stream) : stream_(stream) {
    int least = 0, greatest = 0;
    ONEPASS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ONEPASS_CUDA_CHECK(cudaStreamCreateWithPriority(&side_, cudaStreamNonBlocking, greatest));
    ONEPASS_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    wait_for_main();
  }
  priority_side_stream(const priority_side_stream&) = delete;
  priority_side_stream& operator=(const priority_side_stream&) = delete;
  ~priority_side_stream() {
    cudaEventRecord(event_, side_);
    cudaStreamWaitEvent(stream_, event_, 0);
    cudaEventDestroy(event_);  // released once done (CUDA defers the destruction of busy events and streams)
    cudaStreamDestroy(side_);
  }
  /// The side stream waits for what is enqueued on the main stream so far.
  void wait_for_main() {
    ONEPASS_CUDA_CHECK(cudaEventRecord(event_, stream_));
    ONEPASS_CUDA_CHECK(cudaStreamWaitEvent(side_, event_, 0));
  }
  cudaStream_t get() const { return side_; }

 private:
  cudaStream_t stream_ = nullptr, side_ = nullptr;
  cudaEvent_t event_ = nullptr;
};

/// The forward walk of the other ranks' index ranges, pipelined with the exchange (steps 2 and
/// 4 for q != r): for step k = 1 .. P - 1 and piece j = 0 .. K - 1 the walk of piece j of rank
/// (r + k) % P's range writes its items into the send buffer (own group first, then the groups
/// of ranks r + 1, r + 2, ... in that order), and a grouped ncclSend of them to that rank and
/// ncclRecv of piece j from rank (r - k) % P (into the receive buffer, sources in rank order,
/// pieces in order) are enqueued on a side stream after it, so that each piece's transfer runs
/// during the next piece's walk. `index_bounds`: i_0 .. i_P; `counts`: the ranks' item counts.
template <class T, class E>
void walk_and_exchange(const char* function, const E& g, const std::vector<std::uint64_t>& index_bounds,
                       const std::vector<std::uint64_t>& counts, const piece_plan& plan, const T* d_in,
                       std::uint64_t n, std::uint64_t first, shuffle_buffers& b, const shuffle_tuning& tuning,
                       rank_view ranks, ncclComm_t comm, cudaStream_t stream) {
  const int P = ranks.size, me = ranks.rank;
  const std::uint64_t K = plan.pieces;
  T* send = reinterpret_cast<T*>(b.send);
  T* recv = reinterpret_cast<T*>(b.recv);
  const auto recv_offsets = offsets_of(plan.recv_counts);
  priority_side_stream side(stream);
  if (P > 1) mark_phase("walk_exchange", stream);
  std::uint64_t sent = plan.send_counts[static_cast<std::size_t>(me)];  // the own group comes first
  for (int step = 1; step < P; ++step) {
    const int to = (me + step) % P, from = (me - step + P) % P;
    const range_chunks theirs = chunks_of(index_bounds[to], index_bounds[to + 1],
                                          chunk_budget_of(counts[static_cast<std::size_t>(to)], tuning));
    std::uint64_t received = recv_offsets[static_cast<std::size_t>(from)];
    for (std::uint64_t j = 0; j < K; ++j) {
      const std::uint64_t out = plan.send[static_cast<std::size_t>(to) * K + j];
      const std::uint64_t in = plan.recv[static_cast<std::size_t>(from) * K + j];
      const auto [lo, hi] = piece_indices(theirs, j, K);
      domain_range_pass<false>(g, lo, hi, first, n, b, d_in, send + sent, stream, owner_record{}, out,
                               tuning.exchange_sm_share);
      if (out == 0 && in == 0) continue;
      side.wait_for_main();
      check_nccl(ncclGroupStart(), function, "ncclGroupStart");
      if (out > 0)
        check_nccl(ncclSend(send + sent, out * sizeof(T), ncclUint8, to, comm, side.get()), function, "ncclSend");
      if (in > 0)
        check_nccl(ncclRecv(recv + received, in * sizeof(T), ncclUint8, from, comm, side.get()), function,
                   "ncclRecv");
      check_nccl(ncclGroupEnd(), function, "ncclGroupEnd");
      sent += out;
      received += in;
    }
  }
  // Every walk is enqueued; what the main stream does from here until `side` joins it back is
  // waiting for the exchange (the phase's time: the exchange's tail after the last walk).
  if (P > 1) mark_phase("exchange_tail", stream);
}

/// Steps 1-5 of shuffle (Forward) or unshuffle for the map g over the domain [0, domain), the
/// ranks' index ranges [i_q, i_{q+1}) (`index_bounds`), their item counts and position offsets
/// (already in b.bounds).
///
/// Forward: the walk of the rank's own range [lo, hi) comes first; it puts the rank's items for
/// itself at the start of the send buffer and records the owners of [lo, hi) when they fit the
/// storage's owner array (C * 1024 indices: always for an even split). The count of [lo, hi)
/// per source and piece (from the record, else evaluating g again) and one all-gather of those
/// P K words give every rank the sizes of every piece it sends and receives; then the walk of
/// the other ranks' ranges runs piece by piece with the exchange behind it
/// (walk_and_exchange), and the placement reads the receive buffer and, for its own group, the
/// send buffer. The unshuffle: the evaluated count and multisplit of [lo, hi), the exchange,
/// and the inverse walk over the whole domain.
template <bool Forward, class T, class E>
void shuffle_steps(const char* function, const E& g, std::uint64_t N, std::uint64_t domain,
                   const std::vector<std::uint64_t>& index_bounds, const std::vector<std::uint64_t>& counts,
                   const T* d_in, T* d_out, std::uint64_t first, shuffle_buffers& b, const shuffle_tuning& tuning,
                   rank_view ranks, ncclComm_t comm, cudaStream_t stream) {
  const auto P = static_cast<std::uint32_t>(ranks.size);
  const std::uint64_t lo = index_bounds[ranks.rank], hi = index_bounds[ranks.rank + 1];
  const std::uint64_t n = counts[ranks.rank];
  const range_chunks chunks = chunks_of(lo, hi, b);
  std::uint64_t* d_counts = b.scratch;  // [P] own totals, then [P * P] all of them (forward: P K, P P K)
  T* send = reinterpret_cast<T*>(b.send);
  T* recv = reinterpret_cast<T*>(b.recv);
  const evaluated_owner<E> evaluated{g, N, b.bounds, P};
  if constexpr (Forward) {
    const bool record = hi - lo <= b.layout.owner_capacity;
    mark_phase("own_walk", stream);
    domain_range_pass<false>(g, lo, hi, first, n, b, d_in, send, stream,
                             record ? owner_record{b.owners, lo, hi, b.bounds, P, N} : owner_record{});
    const std::uint64_t K = pieces_of(ranks.size, tuning);
    auto count_exchange_place = [&](const auto& owner) {
      mark_phase("plan", stream);
      range_count(owner, chunks, n, b, P, d_counts, stream);
      if (chunks.count == 0)
        ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_counts, 0, P * K * sizeof(std::uint64_t), stream));
      else
        piece_counts_kernel<<<1, shuffle_block, 0, stream>>>(b.split, chunks, P, K, n, d_counts);
      ONEPASS_CUDA_CHECK_LAUNCH();
      const piece_plan plan = exchange_piece_counts(function, d_counts, K, n, ranks, comm, stream);
      walk_and_exchange(function, g, index_bounds, counts, plan, d_in, n, first, b, tuning, ranks, comm, stream);
      const auto me = static_cast<std::size_t>(ranks.rank);
      const own_group<T> own{static_cast<std::uint32_t>(ranks.rank), send,
                             -static_cast<std::int64_t>(offsets_of(plan.recv_counts)[me])};
      mark_phase("place", stream);
      range_move<true>(owner, chunks, b, P, recv, d_out, stream, own);
    };
    if (record) count_exchange_place(recorded_owner{b.owners, lo, P});
    else count_exchange_place(evaluated);
  } else {
    std::vector<std::uint64_t> send_counts, recv_counts;
    mark_phase("split", stream);
    range_count(evaluated, chunks, n, b, P, d_counts, stream);
    range_move<false>(evaluated, chunks, b, P, d_in, send, stream);
    mark_phase("exchange", stream);
    exchange_counts(function, d_counts, false, n, ranks, comm, stream, send_counts, recv_counts);
    exchange(send, send_counts, recv, recv_counts, sizeof(T), ranks, comm, stream, function);
    mark_phase("inverse_walk", stream);
    domain_pass<true>(g, domain, first, n, b, recv, d_out, stream);
  }
  mark_phase("end", stream);
}

/// The checks of a run-phase call on this rank (empty: passed), as the message of the
/// onepass::error they would throw.
template <class T>
std::string local_errors(const char* function, void* d_temp, std::size_t temp_bytes, const T* d_in, const T* d_out,
                         std::uint64_t num_items, permutation kind, unsigned rounds) {
  try {
    require(kind == permutation::bijective || kind == permutation::walking, function, "kind",
            "must be permutation::bijective or permutation::walking");
    protocol::check_in_range(function, "rounds", rounds, 1, bijection::max_rounds);
    if (num_items > 0) {
      protocol::check_not_null(function, "d_in", d_in, "when num_items > 0");
      protocol::check_not_null(function, "d_out", d_out, "when num_items > 0");
      protocol::check_disjoint(function, "d_out", d_out, "d_in", d_in, num_items, sizeof(T),
                               " (out-of-place operation)");
      protocol::check_disjoint_bytes(function, "d_temp", d_temp, temp_bytes, "d_in", d_in, num_items * sizeof(T));
      protocol::check_disjoint_bytes(function, "d_temp", d_temp, temp_bytes, "d_out", d_out, num_items * sizeof(T));
    }
    return {};
  } catch (const error& e) {
    return e.what();
  }
}

/// The single-rank storage of the one-GPU call (P == 1 with the shortcut).
template <class T>
std::size_t single_rank_bytes(std::uint64_t num_items, permutation kind) {
  if (kind != permutation::bijective) return shuffle::gpu::detail::walking_temp_bytes;
  return shuffle::gpu::detail::bijective2_temp_bytes<T>(bijection::schedule_domain_bits(num_items));
}

/// shuffle (Forward) or unshuffle, with the knobs of `tuning` (the public calls: the defaults).
template <bool Forward, class T>
void shuffle_call(const char* function, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                  std::size_t num_items, std::uint64_t seed, ncclComm_t comm, cudaStream_t stream, permutation kind,
                  unsigned rounds, const shuffle_tuning& tuning) {
  static_assert(std::is_trivially_copyable_v<T>, "onepass::distributed::shuffle: T must be trivially copyable");
  const rank_view ranks = ranks_of(comm, function);
  require(ranks.size <= shuffle_max_ranks, function, "comm",
          "must have at most " + std::to_string(shuffle_max_ranks) + " ranks, got " + std::to_string(ranks.size));
  protocol::check_at_most(function, "num_items", num_items, shuffle::gpu::max_length, "in [0, 2^63]");
  protocol::check_byte_count(function, "num_items", num_items, sizeof(T) > 8 ? sizeof(T) : 8);
  const bool shortcut = tuning.single_rank_shortcut && ranks.size == 1;
  const shuffle_temp layout =
      plan_temp(num_items, ranks.size, sizeof(T), shortcut ? single_rank_bytes<T>(num_items, kind) : 0, tuning);
  if (protocol::answer_query(d_temp, temp_bytes, layout.total)) return;

  // The agreement: every rank's checks and arguments, in the caller's storage when it holds
  // the scratch (else, so that the ranks still agree to throw, in a short-lived allocation).
  std::string local = local_errors(function, d_temp, temp_bytes, d_in, d_out, num_items, kind, rounds);
  if (local.empty()) {
    try {
      protocol::check_temp_bytes(function, temp_bytes, layout.total, "num_items", num_items);
    } catch (const error& e) {
      local = e.what();
    }
  }
  const std::size_t scratch_bytes = layout.scratch_words * sizeof(std::uint64_t);
  const bool scratch_fits = temp_bytes >= layout.scratch + scratch_bytes + protocol::temp_alignment;
  std::uint64_t* d_scratch = scratch_fits ? protocol::temp_layout::at<std::uint64_t>(d_temp, layout.scratch) : nullptr;
  if (!scratch_fits) ONEPASS_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_scratch), scratch_bytes, stream));
  agreement_words words;
  words.agreed = {seed, rounds, static_cast<std::uint64_t>(kind), sizeof(T)};
  words.agreed_names = {"seed", "rounds", "kind", "sizeof(T)"};
  words.own = {num_items};
  std::vector<std::vector<std::uint64_t>> own;
  try {
    own = agree(function, local, words, d_scratch, ranks, comm, stream);
  } catch (...) {
    if (!scratch_fits) cudaFreeAsync(d_scratch, stream);
    throw;
  }
  if (!scratch_fits) ONEPASS_CUDA_CHECK(cudaFreeAsync(d_scratch, stream));

  std::vector<std::uint64_t> counts(ranks.size);
  for (int r = 0; r < ranks.size; ++r) counts[r] = own[r][0];
  std::vector<std::uint64_t> offsets(ranks.size + 1, 0);
  for (int r = 0; r < ranks.size; ++r) {
    require(counts[r] <= shuffle::gpu::max_length - offsets[r], function, "num_items",
            "summed over the ranks must be at most 2^63, got more at rank " + std::to_string(r));
    offsets[r + 1] = offsets[r] + counts[r];
  }
  const std::uint64_t N = offsets.back();
  if (N == 0) return;
  const std::uint64_t n = num_items, first = offsets[ranks.rank];

  if (shortcut) {
    mark_phase(Forward ? "local_shuffle" : "local_unshuffle", stream);
    if (kind == permutation::bijective) {
      const auto f = bijection::variable_philox::for_length(N, seed, rounds);
      if constexpr (Forward)
        shuffle::gpu::bijective_shuffle(d_temp, temp_bytes, d_in, d_out, n, f, shuffle::gpu::fusion::bijective2,
                                        stream);
      else
        shuffle::gpu::bijective_unshuffle(d_temp, temp_bytes, d_in, d_out, n, f, stream);
    } else {
      const auto sigma = shuffle::walking_permutation::for_length(N, seed, rounds);
      if constexpr (Forward) shuffle::gpu::walking_shuffle(d_temp, temp_bytes, d_in, d_out, n, sigma, stream);
      else shuffle::gpu::walking_unshuffle(d_temp, temp_bytes, d_in, d_out, n, sigma, stream);
    }
    mark_phase("end", stream);
    return;
  }

  shuffle_buffers b(d_temp, layout);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(b.bounds, offsets.data(), offsets.size() * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice, stream));
  if (kind == permutation::bijective) {
    const auto f = bijection::variable_philox::for_length(N, seed, rounds);
    const std::uint64_t domain = index_tiling(f.domain_bits()).domain;
    sg::with_evaluator(f, [&](const auto& g) {
      if (domain != N) mark_phase("boundaries", stream);  // index_boundaries counts only then
      const auto index_bounds = index_boundaries(function, f, g, N, offsets, b, ranks, comm, stream);
      shuffle_steps<Forward>(function, g, N, domain, index_bounds, counts, d_in, d_out, first, b, tuning, ranks, comm,
                             stream);
    });
  } else {
    const auto sigma = shuffle::walking_permutation::for_length(N, seed, rounds);
    sg::with_evaluator(sigma.bijection(), [&](const auto& e) {
      const walking_evaluator<std::decay_t<decltype(e)>> g{e, N, sigma.swap01()};
      shuffle_steps<Forward>(function, g, N, N, offsets, counts, d_in, d_out, first, b, walking_tuning(tuning), ranks,
                             comm, stream);
    });
  }
}

}  // namespace detail

/// Shuffles a sequence spread over the ranks of `comm` (file comment; Mitchell et al.,
/// "Bandwidth-Optimal Random Shuffling for GPUs", §4, Algorithm 1). Collective: every rank of
/// comm calls it with its own items, the same seed, rounds, kind and T.
///
/// Rank r holds num_items = n_r items (any n_r >= 0), global positions [P_r, P_r + n_r) of the
/// concatenation of the ranks' items in rank order (N = sum of n_r items in all). Afterwards
/// d_out holds n_r items: the global output positions [P_r, P_r + n_r) of ONE permutation of
/// the concatenation that depends only on (N, seed, rounds), never on the number of ranks or
/// the split:
///   - permutation::bijective: gpu::bijective_shuffle of the concatenation with f =
///     variable_philox::for_length(N, seed, rounds): out[j] = in[f(i_j)], i_j the j-th index
///     of [0, 2^b) (increasing) with f(i) < N;
///   - permutation::walking: shuffle::cpu::walking_shuffle of the concatenation with sigma =
///     walking_permutation::for_length(N, seed, rounds): out[j] = in[sigma(j)].
/// Only the items' bytes and O(P) words per rank cross the network.
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set (it depends
/// on num_items, T, kind and P = ncclCommCount(comm); see the file comment: about
/// 2 n_r sizeof(T) + 4 n_r + (P + 1) n_r / 64 + min(P n_r / 32, n_r) bytes) — no communication, nothing
/// enqueued, the other pointers not looked at. Otherwise d_temp must hold temp_bytes >= that answer of device
/// memory (any alignment), not overlapping d_in or d_out.
///
/// T: any trivially copyable type. d_in, d_out: device pointers to num_items items (on this
/// rank's device), not overlapping; may be null when num_items == 0. num_items in [0, 2^63],
/// the sum over the ranks at most 2^63. seed: any 64-bit value. rounds: Feistel rounds in
/// [1, 64] (default 24, the paper's §5). comm: an initialised NCCL communicator, one rank per
/// GPU, at most shuffle_max_ranks ranks; stream: a stream of this rank's device.
///
/// Host-synchronous: waits for `stream` at the agreement and at each planning step (tile
/// counts, boundaries, send counts), then returns with the exchange and the placement enqueued
/// on `stream`, not waited for. P == 1 calls gpu::bijective_shuffle / gpu::walking_shuffle.
///
/// Errors. The run phase begins with the agreement step: a rank whose arguments fail its
/// checks (null d_in or d_out with num_items > 0, overlapping buffers, temp_bytes below the
/// query's answer, rounds outside [1, 64]) throws onepass::error naming the argument, and every
/// other rank throws onepass::error naming that rank — nobody is left waiting in a collective;
/// seed, rounds, kind or sizeof(T) that differ between ranks make every rank throw
/// onepass::error naming the argument. Null comm, more than shuffle_max_ranks ranks or
/// num_items above 2^63 throw onepass::error in both phases (comm and the size are local);
/// a sum over the ranks above 2^63 throws on every rank after the agreement. NCCL or CUDA
/// failures throw onepass::runtime_failure.
template <class T>
void shuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t num_items,
             std::uint64_t seed, ncclComm_t comm, cudaStream_t stream, permutation kind = permutation::bijective,
             unsigned rounds = bijection::default_rounds) {
  detail::shuffle_call<true>("onepass::distributed::shuffle", d_temp, temp_bytes, d_in, d_out, num_items, seed, comm,
                             stream, kind, rounds, detail::shuffle_tuning{});
}

/// Inverse of shuffle for the same (seed, kind, rounds) and the same item counts per rank:
/// unshuffle(shuffle(x)) == x on every rank. Rank q holds the global positions [S_q, S_q + n_q)
/// of the shuffled sequence; afterwards it holds the same positions of the unshuffled one:
/// bijective: out[f(i_j)] = in[j] (gpu::bijective_unshuffle of the concatenation); walking:
/// out[sigma(j)] = in[j] (walking_unshuffle). Same bytes on the network, storage, protocol,
/// synchronisation, arguments and errors as shuffle.
template <class T>
void unshuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t num_items,
               std::uint64_t seed, ncclComm_t comm, cudaStream_t stream, permutation kind = permutation::bijective,
               unsigned rounds = bijection::default_rounds) {
  detail::shuffle_call<false>("onepass::distributed::unshuffle", d_temp, temp_bytes, d_in, d_out, num_items, seed, comm,
                              stream, kind, rounds, detail::shuffle_tuning{});
}

}  // namespace onepass::distributed
