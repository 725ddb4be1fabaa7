// onepass/distributed/shuffle.cuh — the random shuffle of a sequence spread over the ranks of an
// NCCL communicator (issue 29): shuffle() and its inverse unshuffle(), through the compacting
// bijective permutation of Algorithm 1 or the walking permutation, with only the items' bytes
// (and O(P) counts per rank) crossing the network.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs" (§4, Algorithm 1): the
// output is the one-GPU bijective shuffle of the concatenation of the ranks' items; this file
// splits that computation over ranks. The walking permutation is shuffle/walking_permutation.hpp.
//
// Positions. Rank r of P holds n_r items, global input positions x in [P_r, P_{r+1}), P_r =
// n_0 + ... + n_{r-1}; N = P_P. After the call rank q holds n_q items, the global output
// positions j in [S_q, S_{q+1}) with S = P (output counts are input counts). The global
// permutation depends only on (N, seed, rounds), never on P or on the split.
//
// permutation::bijective (Algorithm 1). f = variable_philox::for_length(N, seed, rounds) on
// [0, D = 2^b); an index i is valid when f(i) < N; out[j] = in[f(i_j)], i_j the j-th valid
// index (increasing i). Output rank q holds the valid indices of [i_q, i_{q+1}), where i_q is
// the smallest i with S_q valid indices below it.
//   1. Boundaries. The index space is cut into tiles of 2^12 indices (D if smaller), the tiles
//      split evenly over the ranks. Each rank counts the valid indices of each of its tiles
//      (GPU, one block per tile; the counts come to the host in batches), all-gathers its share's
//      total (1 word), and locates the boundaries S_q that fall in its share: the tile by the
//      prefix of its counts, the index by evaluating f on the host over that one tile. An
//      all-gather of the located boundaries (P words, each found by exactly one rank) gives
//      every rank i_0 = 0 < ... <= i_P = D.
//   2. Send. Rank r computes i = f^-1(x) for its items x; the destination is the q with
//      i_q <= i < i_{q+1} (binary search over the P + 1 boundaries). A stable multisplit (per
//      chunk of 1024 items one warp counts its items per destination, a device-wide scan of the
//      [destination][chunk] counts, the same warp scatters with __match_any_sync ranks) writes
//      the items grouped by destination, position order kept in each group. An all-gather of
//      the P send counts per rank gives every rank its receive counts.
//   3. Exchange: one grouped ncclSend/ncclRecv (detail::exchange). Receiver q's buffer holds the
//      sources in rank order, each in position order: ordered by increasing x.
//   4. Place. Receiver q compacts f over [i_q, i_{q+1}) (tile counts, scan, ballot ranking,
//      like the two-pass bijective1) into keys[k] = x_{S_q + k}. The receive-buffer slot of x
//      is its rank among the keys: a bitmap over the key universe [0, N) marks the keys, an
//      exclusive scan of the words' popcounts ranks them, and out[k] = recv[rank(keys[k])].
//      The bitmap covers a window of W bits at a time (W from the temporary storage, below):
//      one pass when N <= W, else ceil(N / W) passes over the keys.
// unshuffle (out[f(i_j)] = in[j]) is the same with the roles turned: the holder of output
// positions j compacts f over its [i_q, i_{q+1}) into keys x_j and sends item j to the owner of
// x_j (stable in j order, so each receive buffer is ordered by increasing j, i.e. increasing
// index i); receiver r ranks i = f^-1(x) of its x's over the key universe [0, D).
//
// permutation::walking. sigma = walking_permutation::for_length(N, seed, rounds); out[j] =
// in[sigma(j)]. No boundaries step: input x goes to output j = sigma^-1(x), destination the
// owner of j; receiver q's keys are x = sigma(j) for its j (universe [0, N)), placed by the same
// bitmap ranking (no sort). unshuffle: j goes to x = sigma(j); receiver r's keys sigma^-1(x).
//
// Bytes that cross the network per rank: its items that change rank (at most n_r * sizeof(T)
// sent and n_r * sizeof(T) received), plus 8-byte words: the agreement (6 per rank,
// all-gathered), the boundaries (1 + P per rank, bijective only), the send counts (P per rank):
// every rank receives (6 + P + [bijective] 1 + P) * P words. No tile counts, offsets or indices
// travel with the items.
//
// Temporary storage (CUB's two-phase protocol; the size depends only on num_items = n, P, T and
// the kind, never on N, so the query needs no communication): 256-byte aligned arrays of
//   the small words   (P + 1) * max(6, P) words of collective scratch, P + 1 boundaries, 2 counters
//   recv, send        n * sizeof(T) bytes each
//   keys              8n bytes (the keys of both sides)
//   multisplit        8 * P * ceil(n / 1024) bytes of [destination][chunk] counts
//   tile counts       8 * (B + 1) bytes, B = max(4096, 4 ceil(n / 4096) + 2) tiles per batch
//   bitmap + ranks    W / 4 bytes, W = min(2^31, max(2^23, P * n rounded up to 32)) bits
//   CUB scan storage  the largest of the three scans'
// (for P = 1 also what gpu::bijective_shuffle needs, which that rank then calls directly). So
// about 2n * sizeof(T) + 8n + P n / 4 bytes: with an even split W covers [0, N) and the
// placement is one pass; a rank holding fewer items than average takes more passes (each costs
// O(its own items), plus five launches).
//
// Synchronisation. The calls are host-synchronous up to the exchange: they wait for `stream` at
// the agreement, at each batch of tile counts and each all-gather of the planning (every rank
// must see the same plan before it enqueues the exchange), and return with the exchange and the
// placement enqueued on `stream`, not waited for.
#pragma once

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/error.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/gpu_walking.cuh"
#include "onepass/shuffle/walking_permutation.hpp"

namespace onepass::distributed {

/// Which global permutation a distributed shuffle applies (both depend only on N, seed, rounds).
enum class permutation {
  bijective,  ///< Algorithm 1's compacting permutation: gpu::bijective_shuffle of the concatenation
  walking,    ///< the cycle-walking permutation: shuffle::walking_shuffle of the concatenation
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

// ---------------------------------------------------------------------------------------------
// Sizes

/// Indices per tile of the index space (2^12; the whole domain when it is smaller).
inline constexpr unsigned shuffle_tile_bits = 12;
/// Threads per block of the tile kernels.
inline constexpr int shuffle_block = 256;
/// Items per warp chunk of the multisplit.
inline constexpr std::uint64_t split_chunk = 1024;
/// Warps per block of the multisplit (fewer when P counters per warp do not fit).
inline constexpr int split_max_warps = 8;
/// Shared memory the multisplit's counters may take per block.
inline constexpr std::size_t split_shared_bytes = 48 * 1024;
/// Words of the agreement record: status, seed, rounds, kind, sizeof(T), n.
inline constexpr std::size_t shuffle_record_words = 6;

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// Grid of a grid-stride kernel over `count` items of 256-thread blocks (at least 1 block).
inline unsigned stride_grid(std::uint64_t count) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(ceil_div(count, shuffle_block), 1, 1u << 20));
}

/// Warps per block of the multisplit for P ranks.
inline int split_warps(int num_ranks) {
  const std::size_t per_warp = static_cast<std::size_t>(num_ranks) * sizeof(std::uint64_t);
  return static_cast<int>(std::clamp<std::size_t>(split_shared_bytes / per_warp, 1, split_max_warps));
}

/// The knobs of the general path, fixed for the public calls; the tests shrink the bitmap
/// window and the tile batches to run the multi-pass placement and the batched counts on small
/// inputs, and turn the P == 1 shortcut off to run the general path on one rank.
struct shuffle_tuning {
  bool single_rank_shortcut = true;                    ///< P == 1 calls the one-GPU shuffle
  std::uint64_t min_window_bits = std::uint64_t{1} << 23;  ///< W's floor (multiple of 32)
  std::uint64_t max_window_bits = std::uint64_t{1} << 31;  ///< W's ceiling (multiple of 32, <= 2^31)
  std::uint64_t min_tile_batch = 4096;                 ///< floor of the tiles per batch
  std::uint64_t max_tile_batch = std::uint64_t{1} << 28;   ///< ceiling of the tiles per batch
};

/// The temporary storage of one rank's distributed shuffle (file comment, "Temporary storage").
struct shuffle_temp {
  std::size_t scratch = 0, bounds = 0, counters = 0, recv = 0, send = 0, keys = 0, split = 0, tiles = 0,
              bitmap = 0, ranks = 0, cub = 0;  ///< offsets from the aligned start
  std::size_t scratch_words = 0;               ///< 64-bit words of collective scratch
  std::size_t cub_bytes = 0;                   ///< CUB's scan storage
  std::uint64_t chunks = 0;                    ///< multisplit chunks: ceil(n / split_chunk)
  std::uint64_t tile_batch = 0;                ///< tiles per batch of tile counts
  std::uint64_t window_bits = 0;               ///< W: bits of the placement bitmap
  std::size_t general = 0;                     ///< bytes of the general (any P) path
  std::size_t total = 0;                       ///< the size query's answer
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
  t.scratch_words = (P + 1) * std::max<std::uint64_t>(shuffle_record_words, P);
  t.chunks = ceil_div(n, split_chunk);
  t.tile_batch = std::clamp<std::uint64_t>(4 * ceil_div(n, std::uint64_t{1} << shuffle_tile_bits) + 2,
                                           tuning.min_tile_batch, tuning.max_tile_batch);
  const std::uint64_t spread = n > std::numeric_limits<std::uint64_t>::max() / P ? ~std::uint64_t{0} : n * P;
  t.window_bits = std::clamp<std::uint64_t>(ceil_div(spread, 32) * 32, tuning.min_window_bits, tuning.max_window_bits);
  protocol::temp_layout layout(protocol::temp_layout::empty_arrays::take_a_unit);
  t.scratch = layout.add(t.scratch_words * sizeof(std::uint64_t));
  t.bounds = layout.add((P + 1) * sizeof(std::uint64_t));
  t.counters = layout.add(2 * sizeof(std::uint64_t));
  t.recv = layout.add(n * item_bytes);
  t.send = layout.add(n * item_bytes);
  t.keys = layout.add(n * sizeof(std::uint64_t));
  t.split = layout.add(P * t.chunks * sizeof(std::uint64_t));
  t.tiles = layout.add((t.tile_batch + 1) * sizeof(std::uint64_t));
  t.bitmap = layout.add(t.window_bits / 8);
  t.ranks = layout.add(t.window_bits / 8);
  t.cub_bytes = std::max({cub_scan_bytes<std::uint64_t>(P * t.chunks), cub_scan_bytes<std::uint64_t>(t.tile_batch + 1),
                          cub_scan_bytes<std::uint32_t>(t.window_bits / 32)});
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

/// The maps from a global position to a key.
struct index_of_position {  ///< f^-1(x): the index whose image is x
  bijection::variable_philox f;
  __device__ std::uint64_t operator()(std::uint64_t x) const { return f.inverse(x); }
};
struct walking_forward {  ///< sigma(j)
  shuffle::walking_permutation sigma;
  __device__ std::uint64_t operator()(std::uint64_t j) const { return sigma(j); }
};
struct walking_backward {  ///< sigma^-1(x)
  shuffle::walking_permutation sigma;
  __device__ std::uint64_t operator()(std::uint64_t x) const { return sigma.inverse(x); }
};

/// keys[k] = map(first + k), k < n.
template <class Map>
__global__ void map_positions_kernel(Map map, std::uint64_t first, std::uint64_t n, std::uint64_t* keys) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    keys[k] = map(first + k);
}

/// counts[t] = the valid indices (f(i) < N) of tile t = [start + t * tile, min(.. + tile, end)).
template <class Bijection>
__global__ void count_valid_kernel(Bijection f, std::uint64_t num_items, std::uint64_t start, std::uint64_t end,
                                   std::uint64_t tile, std::uint64_t* counts) {
  const std::uint64_t lo = start + blockIdx.x * tile;
  const std::uint64_t hi = lo + tile < end ? lo + tile : end;
  std::uint64_t total = 0;
  for (std::uint64_t base = lo; base < hi; base += blockDim.x) {
    const std::uint64_t i = base + threadIdx.x;
    total += static_cast<std::uint64_t>(__syncthreads_count(i < hi && f(i) < num_items));
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

/// Writes the images x = f(i) < N of the tiles' valid indices, in increasing i, to keys from
/// position *d_base + offsets[t] (offsets: exclusive scan of count_valid_kernel's counts).
template <class Bijection>
__global__ void compact_valid_kernel(Bijection f, std::uint64_t num_items, std::uint64_t start, std::uint64_t end,
                                     std::uint64_t tile, const std::uint64_t* offsets, const std::uint64_t* d_base,
                                     std::uint64_t* keys) {
  __shared__ std::uint32_t warp_counts[shuffle_block / 32];
  const std::uint64_t lo = start + blockIdx.x * tile;
  const std::uint64_t hi = lo + tile < end ? lo + tile : end;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  std::uint64_t out = *d_base + offsets[blockIdx.x];
  for (std::uint64_t base = lo; base < hi; base += blockDim.x) {
    const std::uint64_t i = base + threadIdx.x;
    const std::uint64_t x = i < hi ? f(i) : num_items;
    const bool valid = x < num_items;
    const unsigned ballot = __ballot_sync(0xffffffffu, valid);
    if (lane == 0) warp_counts[warp] = static_cast<std::uint32_t>(__popc(ballot));
    __syncthreads();
    std::uint64_t before = 0, all = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) {
      const std::uint32_t c = warp_counts[w];
      before += w < warp ? c : 0;
      all += c;
    }
    if (valid) keys[out + before + static_cast<unsigned>(__popc(ballot & ((1u << lane) - 1u)))] = x;
    out += all;
    __syncthreads();
  }
}

/// *d_base += *d_add (one thread).
template <class Word>
__global__ void add_count_kernel(std::uint64_t* d_base, const Word* d_add) {
  *d_base += static_cast<std::uint64_t>(*d_add);
}

/// counts[q * chunks + c]: chunk c's items whose key lies in destination q's range.
template <int Unused = 0>
__global__ void split_count_kernel(const std::uint64_t* keys, const std::uint64_t* bounds, std::uint32_t num_ranks,
                                   std::uint64_t n, std::uint64_t chunks, std::uint64_t* counts) {
  extern __shared__ std::uint64_t split_shared[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  auto* counter = reinterpret_cast<std::uint32_t*>(split_shared) + warp * num_ranks;
  const std::uint64_t chunk = static_cast<std::uint64_t>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (chunk >= chunks) return;  // the whole warp
  for (std::uint32_t q = lane; q < num_ranks; q += 32) counter[q] = 0;
  __syncwarp();
  const std::uint64_t first = chunk * split_chunk;
  for (std::uint64_t s = first; s < first + split_chunk && s < n; s += 32) {
    const std::uint64_t k = s + lane;
    const bool valid = k < n;
    const std::uint32_t q = valid ? owner_of(bounds, num_ranks, keys[k]) : num_ranks;
    const unsigned peers = __match_any_sync(0xffffffffu, q);
    const bool leader = valid && lane == static_cast<unsigned>(__ffs(peers) - 1);
    if (leader) counter[q] += static_cast<std::uint32_t>(__popc(peers));
    __syncwarp();
  }
  for (std::uint32_t q = lane; q < num_ranks; q += 32) counts[q * chunks + chunk] = counter[q];
}

/// Stable scatter of the chunk's items into the send buffer: item k of destination q goes to
/// offsets[q * chunks + c] + (its rank among chunk c's items of q).
template <class T>
__global__ void split_scatter_kernel(const std::uint64_t* keys, const std::uint64_t* bounds, std::uint32_t num_ranks,
                                     std::uint64_t n, std::uint64_t chunks, const std::uint64_t* offsets, const T* in,
                                     T* send) {
  extern __shared__ std::uint64_t split_shared[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  std::uint64_t* counter = split_shared + warp * num_ranks;
  const std::uint64_t chunk = static_cast<std::uint64_t>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (chunk >= chunks) return;
  for (std::uint32_t q = lane; q < num_ranks; q += 32) counter[q] = offsets[q * chunks + chunk];
  __syncwarp();
  const std::uint64_t first = chunk * split_chunk;
  for (std::uint64_t s = first; s < first + split_chunk && s < n; s += 32) {
    const std::uint64_t k = s + lane;
    const bool valid = k < n;
    const std::uint32_t q = valid ? owner_of(bounds, num_ranks, keys[k]) : num_ranks;
    const unsigned peers = __match_any_sync(0xffffffffu, q);
    const std::uint64_t at = valid ? counter[q] : 0;
    __syncwarp();
    const bool leader = valid && lane == static_cast<unsigned>(__ffs(peers) - 1);
    if (leader) counter[q] = at + static_cast<unsigned>(__popc(peers));
    __syncwarp();
    if (valid) send[at + static_cast<unsigned>(__popc(peers & ((1u << lane) - 1u)))] = in[k];
  }
}

/// send_counts[q] = offsets[(q + 1) * chunks] - offsets[q * chunks] (n for q + 1 == P).
template <int Unused = 0>
__global__ void split_totals_kernel(const std::uint64_t* offsets, std::uint64_t chunks, std::uint32_t num_ranks,
                                    std::uint64_t n, std::uint64_t* send_counts) {
  for (std::uint32_t q = threadIdx.x; q < num_ranks; q += blockDim.x) {
    const std::uint64_t next = q + 1 < num_ranks ? offsets[(q + 1) * chunks] : n;
    send_counts[q] = next - offsets[q * chunks];
  }
}

/// Sets bit (key - window) of the bitmap for the keys in [window, window + width).
template <int Unused = 0>
__global__ void mark_keys_kernel(const std::uint64_t* keys, std::uint64_t n, std::uint64_t window, std::uint64_t width,
                                 std::uint32_t* bitmap) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    const std::uint64_t d = keys[k] - window;  // wraps above width for keys below the window
    if (d < width) atomicOr(bitmap + (d >> 5), 1u << (d & 31u));
  }
}

/// ranks[w] = popcount(bitmap[w]), w < words (then scanned in place).
template <int Unused = 0>
__global__ void popcount_kernel(const std::uint32_t* bitmap, std::uint64_t words, std::uint32_t* ranks) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride)
    ranks[w] = static_cast<std::uint32_t>(__popc(bitmap[w]));
}

/// out[k] = recv[rank of keys[k] among all keys], for the keys in the window: *d_base (the keys
/// below the window) + ranks[word] (the window's keys in earlier words) + the lower bits set.
template <class T>
__global__ void place_keys_kernel(const std::uint64_t* keys, std::uint64_t n, std::uint64_t window, std::uint64_t width,
                                  const std::uint32_t* bitmap, const std::uint32_t* ranks, const std::uint64_t* d_base,
                                  const T* recv, T* out) {
  const std::uint64_t base = *d_base;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    const std::uint64_t d = keys[k] - window;
    if (d >= width) continue;
    const std::uint64_t w = d >> 5;
    const std::uint32_t below = bitmap[w] & ((1u << (d & 31u)) - 1u);
    out[k] = recv[base + ranks[w] + static_cast<unsigned>(__popc(below))];
  }
}

/// *d_base += the keys of the window: ranks[last] + popcount(bitmap[last]) (one thread).
template <int Unused = 0>
__global__ void advance_window_kernel(std::uint64_t* d_base, const std::uint32_t* bitmap, const std::uint32_t* ranks,
                                      std::uint64_t words) {
  *d_base += static_cast<std::uint64_t>(ranks[words - 1]) + static_cast<unsigned>(__popc(bitmap[words - 1]));
}

// ---------------------------------------------------------------------------------------------
// Host steps

/// The arrays of one call inside the caller's temporary storage.
struct shuffle_buffers {
  shuffle_temp layout;
  std::uint64_t* scratch = nullptr;
  std::uint64_t* bounds = nullptr;
  std::uint64_t* counters = nullptr;  ///< [0]: compaction base, [1]: placement base
  unsigned char* recv = nullptr;
  unsigned char* send = nullptr;
  std::uint64_t* keys = nullptr;
  std::uint64_t* split = nullptr;
  std::uint64_t* tiles = nullptr;
  std::uint32_t* bitmap = nullptr;
  std::uint32_t* ranks = nullptr;
  void* cub = nullptr;

  shuffle_buffers(void* d_temp, const shuffle_temp& l) : layout(l) {
    using protocol::temp_layout;
    scratch = temp_layout::at<std::uint64_t>(d_temp, l.scratch);
    bounds = temp_layout::at<std::uint64_t>(d_temp, l.bounds);
    counters = temp_layout::at<std::uint64_t>(d_temp, l.counters);
    recv = temp_layout::at(d_temp, l.recv);
    send = temp_layout::at(d_temp, l.send);
    keys = temp_layout::at<std::uint64_t>(d_temp, l.keys);
    split = temp_layout::at<std::uint64_t>(d_temp, l.split);
    tiles = temp_layout::at<std::uint64_t>(d_temp, l.tiles);
    bitmap = temp_layout::at<std::uint32_t>(d_temp, l.bitmap);
    ranks = temp_layout::at<std::uint32_t>(d_temp, l.ranks);
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

/// The tiling of the index space [0, D): tiles of 2^min(12, b) indices.
struct index_tiling {
  std::uint64_t domain = 0, tile = 0, tiles = 0;
  explicit index_tiling(unsigned domain_bits)
      : domain(std::uint64_t{1} << domain_bits),
        tile(std::uint64_t{1} << std::min(domain_bits, shuffle_tile_bits)),
        tiles(domain / tile) {}
};

/// Step 1 of the bijective kinds: the index boundaries i_0 = 0 <= ... <= i_P = D of the output
/// ranks, in b.bounds (device) and returned (host). `offsets`: the P + 1 position offsets S.
inline std::vector<std::uint64_t> index_boundaries(const char* function, const bijection::variable_philox& f,
                                                   std::uint64_t num_items, const std::vector<std::uint64_t>& offsets,
                                                   shuffle_buffers& b, rank_view ranks, ncclComm_t comm,
                                                   cudaStream_t stream) {
  const index_tiling tiling(f.domain_bits());
  const auto P = static_cast<std::uint64_t>(ranks.size);
  const std::uint64_t share = ceil_div(tiling.tiles, P);
  const std::uint64_t t0 = std::min(tiling.tiles, static_cast<std::uint64_t>(ranks.rank) * share);
  const std::uint64_t t1 = std::min(tiling.tiles, t0 + share);
  std::vector<std::uint64_t> counts(t1 - t0);
  for (std::uint64_t s = t0; s < t1; s += b.layout.tile_batch) {
    const std::uint64_t nt = std::min(b.layout.tile_batch, t1 - s);
    count_valid_kernel<<<static_cast<unsigned>(nt), shuffle_block, 0, stream>>>(
        f, num_items, s * tiling.tile, (s + nt) * tiling.tile, tiling.tile, b.tiles);
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
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(b.bounds, bounds.data(), bounds.size() * sizeof(std::uint64_t),
                                     cudaMemcpyHostToDevice, stream));
  return bounds;
}

/// keys[k] = f(i) for the valid indices i of [lo, hi) in increasing order (the compaction of
/// Algorithm 1 over one output rank's index range; exactly the rank's item count of them).
inline void compact_range(const bijection::variable_philox& f, std::uint64_t num_items, std::uint64_t lo,
                          std::uint64_t hi, shuffle_buffers& b, cudaStream_t stream) {
  const index_tiling tiling(f.domain_bits());
  ONEPASS_CUDA_CHECK(cudaMemsetAsync(b.counters, 0, sizeof(std::uint64_t), stream));
  const std::uint64_t batch = b.layout.tile_batch * tiling.tile;
  for (std::uint64_t start = lo; start < hi; start += std::min(batch, hi - start)) {
    const std::uint64_t end = start + std::min(batch, hi - start);
    const std::uint64_t nt = ceil_div(end - start, tiling.tile);
    count_valid_kernel<<<static_cast<unsigned>(nt), shuffle_block, 0, stream>>>(f, num_items, start, end, tiling.tile,
                                                                                b.tiles);
    ONEPASS_CUDA_CHECK_LAUNCH();
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(b.tiles + nt, 0, sizeof(std::uint64_t), stream));
    scan_in_place(b, b.tiles, nt + 1, stream);
    compact_valid_kernel<<<static_cast<unsigned>(nt), shuffle_block, 0, stream>>>(f, num_items, start, end, tiling.tile,
                                                                                  b.tiles, b.counters, b.keys);
    ONEPASS_CUDA_CHECK_LAUNCH();
    add_count_kernel<<<1, 1, 0, stream>>>(b.counters, b.tiles + nt);
    ONEPASS_CUDA_CHECK_LAUNCH();
  }
}

/// keys[k] = map(first + k), k < n.
template <class Map>
void map_positions(const Map& map, std::uint64_t first, std::uint64_t n, shuffle_buffers& b, cudaStream_t stream) {
  if (n == 0) return;
  map_positions_kernel<<<stride_grid(n), shuffle_block, 0, stream>>>(map, first, n, b.keys);
  ONEPASS_CUDA_CHECK_LAUNCH();
}

/// Steps 2-3: the stable multisplit of the n items d_in by the owner (under b.bounds) of
/// their keys b.keys, the all-gather of the send counts and the exchange into b.recv. Returns
/// nothing; waits for the stream at the all-gather.
template <class T>
void split_and_exchange(const char* function, const T* d_in, std::uint64_t n, shuffle_buffers& b, rank_view ranks,
                        ncclComm_t comm, cudaStream_t stream) {
  const auto P = static_cast<std::uint32_t>(ranks.size);
  const std::uint64_t chunks = b.layout.chunks;
  std::uint64_t* d_counts = b.scratch;  // [P] own send counts, then [P * P] all of them
  if (n > 0) {
    const int warps = split_warps(ranks.size);
    const auto grid = static_cast<unsigned>(ceil_div(chunks, static_cast<std::uint64_t>(warps)));
    split_count_kernel<<<grid, 32 * warps, warps * P * sizeof(std::uint32_t), stream>>>(b.keys, b.bounds, P, n, chunks,
                                                                                        b.split);
    ONEPASS_CUDA_CHECK_LAUNCH();
    scan_in_place(b, b.split, static_cast<std::uint64_t>(P) * chunks, stream);
    split_scatter_kernel<T><<<grid, 32 * warps, warps * P * sizeof(std::uint64_t), stream>>>(
        b.keys, b.bounds, P, n, chunks, b.split, d_in, reinterpret_cast<T*>(b.send));
    ONEPASS_CUDA_CHECK_LAUNCH();
    split_totals_kernel<<<1, shuffle_block, 0, stream>>>(b.split, chunks, P, n, d_counts);
    ONEPASS_CUDA_CHECK_LAUNCH();
  } else {
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_counts, 0, P * sizeof(std::uint64_t), stream));
  }
  all_gather_words(d_counts, d_counts + P, P, comm, stream, function);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(P) * P);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(all.data(), d_counts + P, all.size() * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::uint64_t> send_counts(P), recv_counts(P);
  for (std::uint32_t q = 0; q < P; ++q) {
    send_counts[q] = all[static_cast<std::size_t>(ranks.rank) * P + q];
    recv_counts[q] = all[static_cast<std::size_t>(q) * P + ranks.rank];
  }
  const std::uint64_t received = offsets_of(recv_counts).back();
  if (received != n)
    throw runtime_failure(std::string(function) + ": rank " + std::to_string(ranks.rank) + " would receive " +
                          std::to_string(received) + " items for its " + std::to_string(n) +
                          " output positions (internal error: the ranks' plans disagree)");
  exchange(b.send, send_counts, b.recv, recv_counts, sizeof(T), ranks, comm, stream, function);
}

/// Step 4: d_out[k] = recv[rank of b.keys[k] among the n keys] (keys distinct, below
/// `universe`; recv ordered by key), in windows of the bitmap.
template <class T>
void place_by_rank(std::uint64_t n, std::uint64_t universe, shuffle_buffers& b, T* d_out, cudaStream_t stream) {
  if (n == 0) return;
  std::uint64_t* d_base = b.counters + 1;
  ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_base, 0, sizeof(std::uint64_t), stream));
  const std::uint64_t W = b.layout.window_bits;
  for (std::uint64_t window = 0; window < universe; window += std::min(W, universe - window)) {
    const std::uint64_t width = std::min(W, universe - window);
    const std::uint64_t words = ceil_div(width, 32);
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(b.bitmap, 0, words * sizeof(std::uint32_t), stream));
    mark_keys_kernel<<<stride_grid(n), shuffle_block, 0, stream>>>(b.keys, n, window, width, b.bitmap);
    ONEPASS_CUDA_CHECK_LAUNCH();
    popcount_kernel<<<stride_grid(words), shuffle_block, 0, stream>>>(b.bitmap, words, b.ranks);
    ONEPASS_CUDA_CHECK_LAUNCH();
    scan_in_place(b, b.ranks, words, stream);
    place_keys_kernel<T><<<stride_grid(n), shuffle_block, 0, stream>>>(
        b.keys, n, window, width, b.bitmap, b.ranks, d_base, reinterpret_cast<const T*>(b.recv), d_out);
    ONEPASS_CUDA_CHECK_LAUNCH();
    if (window + width < universe) {
      advance_window_kernel<<<1, 1, 0, stream>>>(d_base, b.bitmap, b.ranks, words);
      ONEPASS_CUDA_CHECK_LAUNCH();
    }
  }
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
    return;
  }

  shuffle_buffers b(d_temp, layout);
  if (kind == permutation::bijective) {
    const auto f = bijection::variable_philox::for_length(N, seed, rounds);
    const auto index_bounds = index_boundaries(function, f, N, offsets, b, ranks, comm, stream);
    const std::uint64_t lo = index_bounds[ranks.rank], hi = index_bounds[ranks.rank + 1];
    if constexpr (Forward) {
      // Items x go to the owner of index f^-1(x); receiver keys: x_j over its index range.
      map_positions(index_of_position{f}, first, n, b, stream);
      split_and_exchange(function, d_in, n, b, ranks, comm, stream);
      compact_range(f, N, lo, hi, b, stream);
      place_by_rank(n, N, b, d_out, stream);
    } else {
      // Items j go to the owner of x_j; receiver keys: f^-1(x) over the index space [0, D).
      compact_range(f, N, lo, hi, b, stream);
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(b.bounds, offsets.data(), offsets.size() * sizeof(std::uint64_t),
                                         cudaMemcpyHostToDevice, stream));
      split_and_exchange(function, d_in, n, b, ranks, comm, stream);
      map_positions(index_of_position{f}, first, n, b, stream);
      place_by_rank(n, index_tiling(f.domain_bits()).domain, b, d_out, stream);
    }
  } else {
    const auto sigma = shuffle::walking_permutation::for_length(N, seed, rounds);
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(b.bounds, offsets.data(), offsets.size() * sizeof(std::uint64_t),
                                       cudaMemcpyHostToDevice, stream));
    if constexpr (Forward) {
      // Items x go to the owner of j = sigma^-1(x); receiver keys: x = sigma(j) of its j.
      map_positions(walking_backward{sigma}, first, n, b, stream);
      split_and_exchange(function, d_in, n, b, ranks, comm, stream);
      map_positions(walking_forward{sigma}, first, n, b, stream);
    } else {
      // Items j go to the owner of x = sigma(j); receiver keys: j = sigma^-1(x) of its x.
      map_positions(walking_forward{sigma}, first, n, b, stream);
      split_and_exchange(function, d_in, n, b, ranks, comm, stream);
      map_positions(walking_backward{sigma}, first, n, b, stream);
    }
    place_by_rank(n, N, b, d_out, stream);
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
///   - permutation::walking: shuffle::walking_shuffle of the concatenation with sigma =
///     walking_permutation::for_length(N, seed, rounds): out[j] = in[sigma(j)].
/// Only the items' bytes and O(P) words per rank cross the network.
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set (it depends
/// on num_items, T, kind and P = ncclCommCount(comm); see the file comment: about 2 n_r
/// sizeof(T) + 8 n_r + P n_r / 4 bytes) — no communication, nothing enqueued, the other
/// pointers not looked at. Otherwise d_temp must hold temp_bytes >= that answer of device
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
