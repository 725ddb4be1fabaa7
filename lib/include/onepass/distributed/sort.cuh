// onepass/distributed/sort.cuh — the stable radix sort over P GPUs, one rank per GPU, on the
// caller's NCCL communicator and stream (issue 29).
//
// Result. Rank r holds n_r keys (any n_r >= 0). Afterwards rank r holds, in order, the keys of
// global ranks [n_0 + ... + n_{r-1}, n_0 + ... + n_r) of the STABLE sort of the concatenation
// of the ranks' keys (rank 0's first): exactly onepass::sort::gpu::sort_keys on one GPU over
// the concatenation, cut into the input counts (exact balance; ties split exactly).
//
// Two methods (sort_method), the same output. The default, sort_method::sort_first, sorts
// locally first (comment after the numbered steps); sort_method::partition_first is:
// Algorithm (radix partitioning with exact splitters, RMG sort's idea: Ilic, Tolovski & Rabl,
// "RMG Sort: Radix-Partitioning-Based Multi-GPU Sorting", BTW 2023 — restated here on NCCL
// and for an exact, stable split; no code of RMG sort):
//   1. agreement: one ncclAllGather of every rank's arguments and n_r (a rank whose
//      arguments were rejected, or ranks that disagree on the key type or bit range, make every
//      rank throw instead of hanging in a later collective);
//   2. splitters (distributed/splitters.hpp): each rank histograms its keys' first 12-bit digit
//      (one read of the keys); an ncclAllGather of the P histograms gives every rank the same
//      bucket totals; the (at most P - 1) buckets a boundary falls inside are refined on the next
//      8-bit digits over only their keys (gathered once into scratch: a second read of the
//      keys, few writes), one small all-gather per level; a boundary inside a run of equal
//      keys is split by (source rank, occurrence), the owning rank finding the occurrence's
//      position with a count per tile;
//   3. partition: each rank's send counts to every rank follow from the histograms alone
//      (splitter_search::send_counts), so every rank knows the whole exchange plan without
//      communicating; one pass (partition_by_destination: a stable multisplit with decoupled
//      look-back over tiles, staged in shared memory) reads the keys (and values) once and
//      writes them grouped by destination: one read and one write;
//   4. exchange: one grouped ncclSend/ncclRecv (distributed/nccl_support.cuh: exchange) of the
//      keys and values; the rank's own part is copied on a side stream meanwhile; what arrives
//      is concatenated in source-rank order, each source's keys in their order;
//   5. local sort: onepass::sort::gpu::sort_keys / sort_pairs (stable) of what arrived.
// sort_method::sort_first (the default; see its comment) sorts locally first, finds the same splitters by
// binary searches in the sorted run, exchanges contiguous ranges and merges the P sorted runs
// that arrive (merge_path.cuh): no histogram, gather or partition pass over the keys, one merge
// pass per doubling of the runs instead.
// Since every destination receives its keys in (source rank, position) order and sorts them
// stably, the result is the one-GPU stable sort. The call is host-synchronous: it waits for the
// stream after each all-gather (the splitters are computed on the host) and returns with the
// exchange and the local sort enqueued.
// Profiling: a phase_observer (phase_observer.hpp) installed on the calling thread is told
// where each phase starts on the stream (none by default).
//
// Memory (per rank): the caller's two buffers of n_r keys (and of n_r values), like
// cub::DoubleBuffer, and temporary storage: the local sort's (onepass::sort: n_r keys and
// values of ping-pong plus its bins) or, for sort_first on P > 1 ranks when larger, its receive
// arrays (n_r + 3 P (16 / sizeof(Key)) keys and as many values: sort_first_receive_bytes), the partition's look-back descriptors (P x
// ceil(n_r / 4096) 64-bit words), the histograms ((P + 1) x max(4096, 256 (P - 1)) words) and
// a few words per rank.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuda/atomic>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/call_protocol.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/distributed/merge_path.cuh"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/distributed/phase_observer.hpp"
#include "onepass/distributed/splitters.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep/policy.cuh"
#include "onepass/sort/sort.cuh"

namespace onepass::distributed {

/// The caller's pair of buffers of n keys (or values): current() holds the input; after the
/// call current() holds the output (the selector says which buffer), as cub::DoubleBuffer.
template <class T>
using double_buffer = sort::gpu::onesweep::double_buffer<T>;

/// Largest number of ranks of the distributed sort (the multisplit keeps a counter per rank
/// and warp in shared memory).
inline constexpr int sort_max_ranks = 1024;

/// How the distributed sort moves the keys (both give the same output, file comment):
///   partition_first: exact splitters from histogram passes over the keys, one partition
///     pass by destination, the exchange, then the local onepass::sort of what arrived;
///   sort_first (the default): the local onepass::sort first, the exact splitters from binary
///     searches in the sorted run (no pass over the keys), the exchange of its contiguous
///     ranges, then a stable merge of the P sorted runs that arrived (ceil(log2 P) two-way
///     merge-path passes, distributed/merge_path.cuh).
/// sort_first is the default since it was faster in every case measured with its present
/// merge: u32, u64 keys, u32 pairs, weak scaling and the q = 4 band at P = 2, 3, 4 on four
/// H200s (4-15 % faster on uniform keys, 20-28 % on the band; results/recorded/nvidia-h200-x4/,
/// 10161d9) and all eight cases at P = 2 on two (nvidia-h200-x2/, c0f2ae4); on four H100s
/// with the earlier merge (1.4-1.5x the present one's time) it won at P = 2 and lost 2-4 % in
/// three cases at P = 4 (nvidia-h100-x4/multi_gpu_sort-dee66a7.csv). Every rank must pass the
/// same method (checked).
enum class sort_method { partition_first, sort_first };

/// The method sort_keys and sort_pairs take when none is passed.
inline constexpr sort_method default_sort_method = sort_method::sort_first;

namespace detail {

inline constexpr unsigned sort_first_digit_bits = 12;  ///< level 0 of the splitter search
inline constexpr unsigned sort_digit_bits = 8;         ///< later levels
inline constexpr int split_threads = 256;
inline constexpr int sort_split_warps = split_threads / 32;
inline constexpr int split_items = 16;                          ///< keys per thread
inline constexpr int split_tile = split_threads * split_items;  ///< keys per tile (4096)
inline constexpr unsigned none = 0xffffffffu;                   ///< "no destination" (past n)
/// sort_first's pieces start on boundaries of this many bytes on both sides of the exchange
/// (plan_aligned_pieces: NCCL moves misaligned pieces 1.2 to 1.4x slower).
inline constexpr std::size_t exchange_alignment = 16;

/// The key field of the sort: bits [begin, end) of the order-preserving word (ascending or
/// descending), as onesweep compares them.
template <class Key>
struct field_of_key {
  using bits = typename sort::radix_traits<Key>::bits_type;
  unsigned begin_bit, end_bit;
  bool descending;
  ONEPASS_HD bits operator()(Key k) const {
    return sort::key_field(sort::ordered_bits(k, descending), begin_bit, end_bit);
  }
};

/// The destination of a key of field w at position i: the number of splitters it is at or
/// after (distributed/splitters.hpp), by binary search over the s splitters (words, thresholds).
__device__ __forceinline__ unsigned destination(std::uint64_t w, std::uint64_t i, const std::uint64_t* words,
                                                const std::uint64_t* thresholds, unsigned s) {
  unsigned lo = 0, hi = s;
  while (lo < hi) {
    const unsigned mid = (lo + hi) / 2;
    if (w > words[mid] || (w == words[mid] && i >= thresholds[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// Loads in flight per thread in the streaming passes (level-0 histogram, gather).
inline constexpr int stream_unroll = 8;

/// Level 0: hist[b] += the keys whose digit (field >> shift) & (2^width - 1) is b. Shared
/// counters per block (2^width 32-bit words of dynamic shared memory), added to hist at the end;
/// grid-stride with stream_unroll independent loads per thread.
template <class Key>
__global__ void histogram_first_digit(const Key* keys, std::uint64_t n, field_of_key<Key> field, unsigned shift,
                                      unsigned width, unsigned long long* hist) {
  extern __shared__ unsigned counts[];
  const unsigned buckets = 1u << width;
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) counts[b] = 0;
  __syncthreads();
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (stream_unroll - 1) * stride < n; i += stream_unroll * stride) {
    Key k[stream_unroll];
#pragma unroll
    for (int u = 0; u < stream_unroll; ++u) k[u] = keys[i + u * stride];
#pragma unroll
    for (int u = 0; u < stream_unroll; ++u)
      atomicAdd(&counts[static_cast<unsigned>(field(k[u]) >> shift) & (buckets - 1)], 1u);
  }
  for (; i < n; i += stride) atomicAdd(&counts[static_cast<unsigned>(field(keys[i]) >> shift) & (buckets - 1)], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x)
    if (counts[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(counts[b]));
}

/// The index of `prefix` in the ascending prefixes[0, s), or s when absent.
__device__ __forceinline__ unsigned find_prefix(std::uint64_t prefix, const std::uint64_t* prefixes, unsigned s) {
  unsigned lo = 0, hi = s;
  while (lo < hi) {
    const unsigned mid = (lo + hi) / 2;
    if (prefixes[mid] < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo < s && prefixes[lo] == prefix ? lo : s;
}

/// Gathers the fields of the keys in the open segments of level 1 ((field >> prefix_shift) in
/// prefixes[0, s), level-0 buckets: below 2^sort_first_digit_bits) into scratch, in any order.
/// The open buckets are a bitmap in shared memory. A block takes 256 x stream_unroll keys per
/// step (each warp stream_unroll chunks of 32, all loads in flight) and appends its open keys
/// with ONE atomicAdd on *count per step: the warps' ballots are summed in shared memory first.
/// (A warp-aggregated append, one atomic per warp and chunk of 32, is serialised on that one
/// address when a boundary falls in a crowded bucket: with Fig. 9's q = 4 band and P = 2 the
/// boundary's 12-bit bucket holds about 3 % of the keys, so most chunks of 32 hold an open key.)
template <class Key>
__global__ void gather_open_fields(const Key* keys, std::uint64_t n, field_of_key<Key> field, unsigned prefix_shift,
                                   const std::uint64_t* prefixes, unsigned s,
                                   typename field_of_key<Key>::bits* scratch, unsigned long long* count) {
  using bits = typename field_of_key<Key>::bits;
  constexpr unsigned map_words = (1u << sort_first_digit_bits) / 32;
  __shared__ unsigned open_map[map_words];
  __shared__ unsigned warp_first[32];  // a warp's open keys this step, then where they start
  __shared__ unsigned long long block_first;
  for (unsigned k = threadIdx.x; k < map_words; k += blockDim.x) open_map[k] = 0;
  __syncthreads();
  for (unsigned q = threadIdx.x; q < s; q += blockDim.x) {
    const unsigned b = static_cast<unsigned>(prefixes[q]);
    atomicOr(&open_map[b / 32], 1u << (b % 32));
  }
  __syncthreads();
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const unsigned lanes_before = (1u << lane) - 1u;
  const std::uint64_t step_items = static_cast<std::uint64_t>(blockDim.x) * stream_unroll;
  // Block-uniform loop: every thread of the block takes the same steps (the barriers below).
  for (std::uint64_t step = static_cast<std::uint64_t>(blockIdx.x) * step_items; step < n;
       step += static_cast<std::uint64_t>(gridDim.x) * step_items) {
    const std::uint64_t base = step + static_cast<std::uint64_t>(warp) * 32 * stream_unroll;
    bits w[stream_unroll];
    unsigned ballot[stream_unroll];
#pragma unroll
    for (int u = 0; u < stream_unroll; ++u) {
      const std::uint64_t i = base + u * 32 + lane;
      w[u] = i < n ? field(keys[i]) : bits{0};
    }
    unsigned total = 0;
#pragma unroll
    for (int u = 0; u < stream_unroll; ++u) {
      const std::uint64_t i = base + u * 32 + lane;
      const unsigned b = static_cast<unsigned>(static_cast<std::uint64_t>(w[u]) >> prefix_shift) & ((1u << sort_first_digit_bits) - 1);
      ballot[u] = __ballot_sync(0xffffffffu, i < n && ((open_map[b / 32] >> (b % 32)) & 1u));
      total += __popc(ballot[u]);
    }
    if (lane == 0) warp_first[warp] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned sum = 0;
      for (unsigned k = 0; k < warps; ++k) {
        const unsigned c = warp_first[k];
        warp_first[k] = sum;
        sum += c;
      }
      block_first = sum ? atomicAdd(count, static_cast<unsigned long long>(sum)) : 0;
    }
    __syncthreads();
    unsigned long long at = block_first + warp_first[warp];
#pragma unroll
    for (int u = 0; u < stream_unroll; ++u) {
      if ((ballot[u] >> lane) & 1u) scratch[at + __popc(ballot[u] & lanes_before)] = w[u];
      at += __popc(ballot[u]);
    }
    __syncthreads();  // warp_first and block_first are rewritten by the next step
  }
}

/// Later levels: hist[seg * 2^width + digit] += the gathered fields of open segment seg
/// ((w >> prefix_shift) == prefixes[seg]). *count fields in scratch. Shared counters when
/// `shared` (s * 2^width 32-bit words of dynamic shared memory), else global atomics.
template <class Bits>
__global__ void histogram_open_fields(const Bits* scratch, const unsigned long long* count, unsigned prefix_shift,
                                      const std::uint64_t* prefixes, unsigned s, unsigned shift, unsigned width,
                                      bool shared, unsigned long long* hist) {
  extern __shared__ unsigned counts[];
  const unsigned buckets = 1u << width;
  const std::uint64_t m = *count;
  if (shared) {
    for (unsigned b = threadIdx.x; b < s * buckets; b += blockDim.x) counts[b] = 0;
    __syncthreads();
  }
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += stride) {
    const std::uint64_t w = scratch[i];
    const unsigned seg = find_prefix(w >> prefix_shift, prefixes, s);
    if (seg == s) continue;
    const unsigned b = seg * buckets + (static_cast<unsigned>(w >> shift) & (buckets - 1));
    if (shared) atomicAdd(&counts[b], 1u);
    else atomicAdd(&hist[b], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (unsigned b = threadIdx.x; b < s * buckets; b += blockDim.x)
      if (counts[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(counts[b]));
  }
}

/// The first index i of the run (sorted ascending by field) with field(run[i]) >= value (n when
/// none).
template <class Key>
__device__ __forceinline__ std::uint64_t lower_bound_field(const Key* run, std::uint64_t n, field_of_key<Key> field,
                                                           std::uint64_t value) {
  std::uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::uint64_t>(field(run[mid])) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// sort_first's histograms (the same counts histogram_first_digit and histogram_open_fields
/// give for the same keys): hist[seg * 2^width + b] = the keys of the SORTED run whose field
/// has prefix prefixes[seg] above digit b ((w >> (shift + width)) == prefixes[seg] and
/// ((w >> shift) & (2^width - 1)) == b), by two binary searches per bucket (no pass over the
/// keys). One thread per (segment, bucket); field_bits: W, the width of the key field.
template <class Key>
__global__ void histogram_sorted_run(const Key* run, std::uint64_t n, field_of_key<Key> field,
                                     const std::uint64_t* prefixes, unsigned s, unsigned shift, unsigned width,
                                     unsigned field_bits, unsigned long long* hist) {
  const std::uint64_t buckets = std::uint64_t{1} << width;
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= s * buckets) return;
  const std::uint64_t seg = t / buckets, b = t % buckets;
  // The bucket's field values [lo, hi), in 128 bits: hi reaches 2^W at the top bucket.
  const unsigned __int128 top = static_cast<unsigned __int128>(1) << field_bits;
  const unsigned __int128 base = static_cast<unsigned __int128>((prefixes[seg] << width) | b) << shift;
  const unsigned __int128 next = base + (static_cast<unsigned __int128>(1) << shift);
  const std::uint64_t first = lower_bound_field(run, n, field, static_cast<std::uint64_t>(base));
  const std::uint64_t last = next >= top ? n : lower_bound_field(run, n, field, static_cast<std::uint64_t>(next));
  hist[t] = last - first;
}

/// tile_counts[t] = the keys of tile t (split_tile keys) whose field equals `value`.
template <class Key>
__global__ void count_equal_per_tile(const Key* keys, std::uint64_t n, field_of_key<Key> field, std::uint64_t value,
                                     unsigned* tile_counts) {
  __shared__ unsigned count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * split_tile;
  unsigned mine = 0;
  for (int k = 0; k < split_items; ++k) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(k) * split_threads + threadIdx.x;
    if (i < n && static_cast<std::uint64_t>(field(keys[i])) == value) ++mine;
  }
  if (mine) atomicAdd(&count, mine);
  __syncthreads();
  if (threadIdx.x == 0) tile_counts[blockIdx.x] = count;
}

/// Loads the s splitters into shared memory (words then thresholds).
__device__ __forceinline__ void load_splitters(std::uint64_t* shared, const std::uint64_t* words,
                                               const std::uint64_t* thresholds, unsigned s) {
  for (unsigned q = threadIdx.x; q < s; q += blockDim.x) {
    shared[q] = words[q];
    shared[s + q] = thresholds[q];
  }
}

/// Marker: no values travel with the keys.
struct no_values {};

/// Decoupled look-back of the partition (Merrill & Garland, "Single-pass Parallel Prefix Scan
/// with Decoupled Look-back", NVR-2016-002; as onesweep/digit_lookback.cuh, with one channel
/// per destination rank and 64-bit descriptors): bit 63 inclusive prefix, bit 62 aggregate,
/// bits 61..0 the value; 0 = not ready. Storage: [tile counter (128 B) | num_tiles x P words],
/// zeroed before the launch. The descriptor is the only datum handed from block to block: one
/// relaxed device-scope 64-bit store publishes flag and value together.
struct partition_lookback {
  static constexpr unsigned long long prefix_flag = 1ull << 63;
  static constexpr unsigned long long aggregate_flag = 1ull << 62;
  static constexpr unsigned long long value_mask = aggregate_flag - 1;
  static constexpr std::size_t header_bytes = 128;
  static std::size_t temp_bytes(std::uint64_t num_tiles, std::size_t num_ranks) {
    return header_bytes + static_cast<std::size_t>(num_tiles) * num_ranks * sizeof(unsigned long long);
  }
  unsigned long long* counter;
  unsigned long long* words;
  unsigned num_ranks;

  __device__ cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(std::uint64_t tile,
                                                                                   unsigned d) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words[tile * num_ranks + d]);
  }
  __device__ void publish(std::uint64_t tile, unsigned d, unsigned long long flag, std::uint64_t value) const {
    word(tile, d).store(flag | (value & value_mask), cuda::std::memory_order_relaxed);
  }
  /// One warp (all lanes, the same tile and d): the exclusive prefix of `tile` (> 0) for
  /// destination d. Lane l reads predecessor next - l, so each round covers 32 predecessors
  /// (nearest first): the aggregates up to the nearest inclusive prefix are summed; when a
  /// not-ready descriptor comes first, the ready ones before it are summed and the warp reads
  /// again from it. Predecessors before tile 0 read as inclusive 0.
  __device__ std::uint64_t exclusive_prefix(std::uint64_t tile, unsigned d) const {
    const unsigned lane = threadIdx.x % 32;
    std::uint64_t sum = 0;
    long long next = static_cast<long long>(tile) - 1;
    for (;;) {
      const long long j = next - static_cast<long long>(lane);
      const unsigned long long w = j >= 0 ? word(static_cast<std::uint64_t>(j), d).load(cuda::std::memory_order_relaxed)
                                          : prefix_flag;
      const unsigned waiting = __ballot_sync(0xffffffffu, w == 0);
      const unsigned inclusive = __ballot_sync(0xffffffffu, (w & prefix_flag) != 0);
      const unsigned first_waiting = waiting ? __ffs(waiting) - 1 : 32;
      const unsigned first_inclusive = inclusive ? __ffs(inclusive) - 1 : 32;
      const bool done = first_inclusive < first_waiting;
      const unsigned take = done ? first_inclusive + 1 : first_waiting;  // lanes [0, take)
      std::uint64_t v = lane < take ? (w & value_mask) : 0;
#pragma unroll
      for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
      sum += v;
      if (done) return sum;
      next -= take;
    }
  }
};

/// Bytes of the partition's shared memory before its staging area, for P ranks (the layout
/// in partition_by_destination), rounded up to 16.
ONEPASS_HD constexpr std::size_t partition_stage_offset(std::size_t P) {
  return ((2 * (P - 1) + P) * 8 + (sort_split_warps * P + P + 1) * 4 + split_tile * 2 + 15) / 16 * 16;
}

/// The partition: one pass that reads every key (and value) once and writes it once, grouped
/// by destination rank, position order kept within each group (a stable multisplit). One
/// block per tile of split_tile keys, tiles taken in launch order from lb's counter:
///   1. warp w ranks keys [w * 512, (w + 1) * 512) of the tile in 16 chunks of 32 with
///      __match_any_sync, keeping a running count per destination in shared memory;
///   2. the tile's count per destination is published to the look-back (a warp per
///      destination, 32 predecessors per read), whose exclusive
///      prefix over the earlier tiles gives where the tile's keys of destination d start in
///      d's group: at bases[d] (this rank's keys for destinations < d, from the splitter
///      search's counts) + that prefix;
///   3. the keys are staged in shared memory in (destination, position) order and written
///      from there in runs (coalesced), then the values the same way.
/// Dynamic shared memory: partition_shared_bytes(P, Key, Value).
template <class Key, class Value>
__global__ void __launch_bounds__(split_threads)
    partition_by_destination(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                             std::uint64_t n, field_of_key<Key> field, const std::uint64_t* words,
                             const std::uint64_t* thresholds, unsigned num_ranks, const std::uint64_t* bases,
                             partition_lookback lb) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using stage_value = std::conditional_t<has_values, Value, Key>;
  extern __shared__ std::uint64_t split_shared[];
  __shared__ std::uint64_t s_tile;
  const unsigned s = num_ranks - 1, P = num_ranks;
  // [splitters: 2s words | start: P words | warp counts: warps x P | tile offsets: P + 1 |
  //  slot destinations: split_tile 16-bit | staging: split_tile items]
  std::uint64_t* start = split_shared + 2 * s;
  unsigned* warp_counts = reinterpret_cast<unsigned*>(start + P);
  unsigned* tile_offset = warp_counts + sort_split_warps * P;
  unsigned short* slot_dest = reinterpret_cast<unsigned short*>(tile_offset + P + 1);
  unsigned char* stage = reinterpret_cast<unsigned char*>(split_shared) + partition_stage_offset(P);
  Key* stage_keys = reinterpret_cast<Key*>(stage);
  stage_value* stage_values = reinterpret_cast<stage_value*>(stage);

  load_splitters(split_shared, words, thresholds, s);
  for (unsigned k = threadIdx.x; k < sort_split_warps * P; k += blockDim.x) warp_counts[k] = 0;
  if (threadIdx.x == 0) s_tile = atomicAdd(lb.counter, 1ull);
  __syncthreads();
  const std::uint64_t tile = s_tile;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned* mine = warp_counts + warp * P;
  const std::uint64_t tile_first = tile * split_tile;
  const std::uint64_t first = tile_first + static_cast<std::uint64_t>(warp) * (split_items * 32);
  const unsigned valid = static_cast<unsigned>(n - tile_first < split_tile ? n - tile_first : split_tile);

  // 1. Rank: every key of the thread loaded first (split_items loads in flight), then ranked.
  Key key[split_items];
  unsigned dest[split_items], rank[split_items];
#pragma unroll
  for (int c = 0; c < split_items; ++c) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(c) * 32 + lane;
    if (i < n) key[c] = keys_in[i];
  }
#pragma unroll
  for (int c = 0; c < split_items; ++c) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(c) * 32 + lane;
    dest[c] = i < n ? destination(field(key[c]), i, split_shared, split_shared + s, s) : none;
  }
#pragma unroll
  for (int c = 0; c < split_items; ++c) {
    const unsigned peers = __match_any_sync(0xffffffffu, dest[c]);
    const unsigned leader = __ffs(peers) - 1;
    unsigned base = 0;
    if (lane == leader && dest[c] != none) base = mine[dest[c]];
    base = __shfl_sync(0xffffffffu, base, leader);
    rank[c] = base + __popc(peers & ((1u << lane) - 1u));
    __syncwarp();
    if (lane == leader && dest[c] != none) mine[dest[c]] = base + __popc(peers);
    __syncwarp();
  }
  __syncthreads();
  // 2. The tile's count per destination (warp counts become exclusive over the warps; the
  // count waits in start[d]), published at once; the tile offsets (exclusive over
  // destinations); the look-back, whose inclusive prefix is published as soon as it is known.
  for (unsigned d = threadIdx.x; d < P; d += blockDim.x) {
    unsigned running = 0;
    for (int w = 0; w < sort_split_warps; ++w) {
      const unsigned c = warp_counts[w * P + d];
      warp_counts[w * P + d] = running;
      running += c;
    }
    start[d] = running;
    lb.publish(tile, d, tile == 0 ? partition_lookback::prefix_flag : partition_lookback::aggregate_flag, running);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned sum = 0;
    for (unsigned d = 0; d < P; ++d) {
      tile_offset[d] = sum;
      sum += static_cast<unsigned>(start[d]);
    }
    tile_offset[P] = sum;
  }
  __syncthreads();
  for (unsigned d = warp; d < P; d += sort_split_warps) {  // a warp per destination
    std::uint64_t before = 0;
    if (tile > 0) {
      before = lb.exclusive_prefix(tile, d);
      if (lane == 0) lb.publish(tile, d, partition_lookback::prefix_flag, before + start[d]);
    }
    __syncwarp();
    if (lane == 0) start[d] = bases[d] + before;
  }
  __syncthreads();
  // 3. Stage the keys in (destination, position) order, then write the runs.
#pragma unroll
  for (int c = 0; c < split_items; ++c) {
    if (dest[c] == none) continue;
    const unsigned slot = tile_offset[dest[c]] + mine[dest[c]] + rank[c];
    stage_keys[slot] = key[c];
    slot_dest[slot] = static_cast<unsigned short>(dest[c]);
  }
  __syncthreads();
  for (unsigned slot = threadIdx.x; slot < valid; slot += blockDim.x) {
    const unsigned d = slot_dest[slot];
    const std::uint64_t at = start[d] + (slot - tile_offset[d]);
    if (at < n) keys_out[at] = stage_keys[slot];
  }
  if constexpr (has_values) {
    __syncthreads();
#pragma unroll
    for (int c = 0; c < split_items; ++c) {
      if (dest[c] == none) continue;
      const std::uint64_t i = first + static_cast<std::uint64_t>(c) * 32 + lane;
      stage_values[tile_offset[dest[c]] + mine[dest[c]] + rank[c]] = values_in[i];
    }
    __syncthreads();
    for (unsigned slot = threadIdx.x; slot < valid; slot += blockDim.x) {
      const unsigned d = slot_dest[slot];
      const std::uint64_t at = start[d] + (slot - tile_offset[d]);
      if (at < n) values_out[at] = stage_values[slot];
    }
  }
}

/// Dynamic shared memory of partition_by_destination for P ranks (its layout).
template <class Key, class Value>
std::size_t partition_shared_bytes(std::size_t P) {
  constexpr std::size_t item = !std::is_same_v<Value, no_values> && sizeof(Value) > sizeof(Key) ? sizeof(Value) : sizeof(Key);
  return partition_stage_offset(P) + split_tile * item;
}

/// Temporary storage of the distributed sort (offsets from the aligned start).
struct sort_storage {
  std::size_t agreement = 0, own_hist = 0, all_hist = 0, prefixes = 0, count = 0, words = 0, thresholds = 0;
  std::size_t bases = 0, lookback = 0, local_sort = 0, local_sort_bytes = 0;
  std::size_t merge_splits = 0;  ///< sort_first: merge_split_words(n) words
  std::size_t total = 0, agreement_bytes = 0;
  std::size_t hist_words = 0;  ///< own histogram words (the gathered ones: P times as many)
  std::uint64_t num_tiles = 0;
};

/// The key type as one agreed word: its size in bytes, plus 256 for a floating-point type and
/// 512 for a signed integer (int64 and double, or uint32 and int32, differ).
template <class Key>
constexpr std::uint64_t key_type_code() {
  return sizeof(Key) + (std::is_floating_point_v<Key> ? 256u : 0u) +
         (std::is_integral_v<Key> && std::is_signed_v<Key> ? 512u : 0u);
}

/// Words of the agreement record: status, 6 agreed arguments, n.
inline constexpr std::size_t sort_record_words = 8;

/// Bytes sort_first receives its pieces into (aligned, padded: plan_aligned_pieces) for n keys
/// of key_bytes (and n values of value_bytes, 0 for none) from num_ranks ranks: the keys' and
/// the values' receive arrays, each starting on a temp_alignment boundary.
inline std::size_t sort_first_receive_bytes(std::uint64_t n, int num_ranks, std::size_t key_bytes,
                                            std::size_t value_bytes) {
  const auto array = [&](std::size_t item_bytes) -> std::size_t {
    if (item_bytes == 0) return 0;
    const std::uint64_t items = aligned_receive_capacity(n, static_cast<std::size_t>(num_ranks),
                                                         items_per_alignment(item_bytes, exchange_alignment));
    const std::size_t bytes = static_cast<std::size_t>(items) * item_bytes;
    return (bytes + protocol::temp_alignment - 1) / protocol::temp_alignment * protocol::temp_alignment;
  };
  return array(key_bytes) + array(value_bytes);
}

/// local_sort_bytes: the local onepass::sort's storage; receive_bytes: sort_first's receive
/// arrays (sort_first_receive_bytes; 0 for partition_first or one rank). Both live in one
/// region (the local sort is done before the pieces arrive).
inline sort_storage plan_sort_storage(std::uint64_t n, int num_ranks, std::size_t local_sort_bytes,
                                      std::size_t receive_bytes = 0) {
  sort_storage st;
  const std::size_t P = static_cast<std::size_t>(num_ranks);
  protocol::temp_layout layout(protocol::temp_layout::empty_arrays::take_a_unit);
  st.agreement = layout.add(agreement_scratch_words(num_ranks, sort_record_words) * sizeof(std::uint64_t));
  st.agreement_bytes = layout.used();
  st.hist_words = std::max<std::size_t>(std::size_t{1} << sort_first_digit_bits, (P > 1 ? P - 1 : 1) << sort_digit_bits);
  st.own_hist = layout.add(st.hist_words * sizeof(std::uint64_t));
  st.all_hist = layout.add(P * st.hist_words * sizeof(std::uint64_t));
  st.prefixes = layout.add(P * sizeof(std::uint64_t));
  st.count = layout.add(sizeof(std::uint64_t));
  st.words = layout.add(P * sizeof(std::uint64_t));
  st.thresholds = layout.add(P * sizeof(std::uint64_t));
  st.bases = layout.add(P * sizeof(std::uint64_t));
  st.merge_splits = layout.add(merge_split_words(n) * sizeof(std::uint64_t));
  st.num_tiles = n == 0 ? 1 : (n + split_tile - 1) / split_tile;
  // the partition's look-back descriptors; before them, the tie search's tile counts
  st.lookback = layout.add(std::max(partition_lookback::temp_bytes(st.num_tiles, P), st.num_tiles * sizeof(unsigned)));
  st.local_sort_bytes = local_sort_bytes;
  st.local_sort = layout.add(std::max(local_sort_bytes, receive_bytes));
  st.total = layout.total();
  return st;
}

/// The agreement scratch: inside the caller's storage when it holds it, else a stream-ordered
/// allocation (only when temp_bytes is too small: the call is then failing on this rank, and
/// the other ranks still need this rank's record).
class agreement_scratch {
 public:
  agreement_scratch(void* d_temp, std::size_t temp_bytes, const sort_storage& st, std::size_t words,
                    cudaStream_t stream)
      : stream_(stream) {
    if (d_temp != nullptr && temp_bytes >= st.agreement_bytes + protocol::temp_alignment) {
      p_ = protocol::temp_layout::at<std::uint64_t>(d_temp, st.agreement);
    } else {
      ONEPASS_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&owned_), words * sizeof(std::uint64_t), stream));
      p_ = owned_;
    }
  }
  ~agreement_scratch() {
    if (owned_) cudaFreeAsync(owned_, stream_);
  }
  agreement_scratch(const agreement_scratch&) = delete;
  agreement_scratch& operator=(const agreement_scratch&) = delete;
  std::uint64_t* get() const { return p_; }

 private:
  std::uint64_t* p_ = nullptr;
  std::uint64_t* owned_ = nullptr;
  cudaStream_t stream_;
};

/// Grid of a grid-stride kernel over n items with 256 threads: at most 4 blocks per SM.
inline unsigned sort_stride_grid(std::uint64_t n) {
  const std::uint64_t blocks = (n + 255) / 256;
  const std::uint64_t most = static_cast<std::uint64_t>(onepass::device::multiprocessors()) * 4;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(blocks, most)));
}

/// Rank r_q's position of its k-th key (0-based, position order) whose field equals `value`:
/// a count per tile on the device, then the tile and the position within it on the host.
template <class Key>
std::uint64_t position_of_occurrence(const Key* d_keys, std::uint64_t n, field_of_key<Key> field,
                                     std::uint64_t value, std::uint64_t k, unsigned* d_tile_counts,
                                     std::uint64_t num_tiles, cudaStream_t stream, const char* function) {
  count_equal_per_tile<Key><<<static_cast<unsigned>(num_tiles), split_threads, 0, stream>>>(d_keys, n, field, value,
                                                                                           d_tile_counts);
  ONEPASS_CUDA_CHECK_LAUNCH();
  std::vector<unsigned> counts(num_tiles);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(counts.data(), d_tile_counts, num_tiles * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                     stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::uint64_t before = 0, t = 0;
  while (t < num_tiles && before + counts[t] <= k) before += counts[t++];
  if (t == num_tiles)
    throw runtime_failure(std::string(function) + ": this rank holds fewer keys equal to a splitter than its histograms " +
                          "counted (the keys changed during the call)");
  const std::uint64_t first = t * split_tile, m = std::min<std::uint64_t>(split_tile, n - first);
  std::vector<Key> tile(m);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(tile.data(), d_keys + first, m * sizeof(Key), cudaMemcpyDeviceToHost, stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::uint64_t i = 0; i < m; ++i)
    if (static_cast<std::uint64_t>(field(tile[i])) == value && before++ == k) return first + i;
  throw runtime_failure(std::string(function) + ": the occurrence search lost its key (the keys changed during the call)");
}

/// One level of the splitter search: all-gathers this rank's own_words histogram words, reads
/// every rank's on the host (waits for the stream) and moves the search to its next level.
inline void add_gathered_level(splitter_search& search, const unsigned long long* own_hist, std::uint64_t* all_hist,
                               std::size_t own_words, std::size_t num_ranks, ncclComm_t comm, cudaStream_t stream,
                               const char* function) {
  all_gather_words(reinterpret_cast<const std::uint64_t*>(own_hist), all_hist, own_words, comm, stream, function);
  std::vector<std::uint64_t> h(num_ranks * own_words);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(h.data(), all_hist, h.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                                     stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  search.add_level(h);
}

/// The exchange plan of every rank from the finished search: [P][P], [r][q] the keys rank r
/// sends to rank q (splitter_search::send_counts); throws onepass::runtime_failure unless what
/// this rank receives (its column) is its n.
inline std::vector<std::vector<std::uint64_t>> sort_exchange_matrix(const splitter_search& search, rank_view ranks,
                                                                    std::uint64_t n, const char* function) {
  const auto P = static_cast<std::size_t>(ranks.size), me = static_cast<std::size_t>(ranks.rank);
  std::vector<std::vector<std::uint64_t>> counts(P);
  std::uint64_t received = 0;
  for (std::size_t r = 0; r < P; ++r) received += (counts[r] = search.send_counts(r))[me];
  if (received != n)
    throw runtime_failure(std::string(function) + ": rank " + std::to_string(ranks.rank) + " would receive " +
                          std::to_string(received) + " keys for its " + std::to_string(n) +
                          " (the splitters are inconsistent; please report this)");
  return counts;
}

/// This rank's row and column of sort_exchange_matrix: what it sends to each rank and receives
/// from each.
struct sort_exchange_counts {
  std::vector<std::uint64_t> send, receive;
};
inline sort_exchange_counts sort_exchange_counts_of(const splitter_search& search, rank_view ranks, std::uint64_t n,
                                                    const char* function) {
  const auto counts = sort_exchange_matrix(search, ranks, n, function);
  const auto me = static_cast<std::size_t>(ranks.rank);
  sort_exchange_counts c{counts[me], std::vector<std::uint64_t>(counts.size())};
  for (std::size_t r = 0; r < counts.size(); ++r) c.receive[r] = counts[r][me];
  return c;
}

/// The order of the key field, for the merge (merge_path.cuh).
template <class Key>
struct field_less {
  field_of_key<Key> field;
  __device__ bool operator()(Key a, Key b) const { return field(a) < field(b); }
};

/// sort_method::sort_first for P > 1 ranks (after the agreement; `counts`: every rank's n):
///   1. the local stable onepass::sort of this rank's keys, current() -> alternate();
///   2. the exact splitters (splitters.hpp) from histograms of the sorted run
///      (histogram_sorted_run: binary searches, no pass over the keys), one all-gather per
///      level; since the run is in (field, position) order, the keys this rank sends to each
///      destination are a contiguous range of it, its length splitter_search::send_counts;
///   3. the exchange of those ranges, every piece padded to start on an exchange_alignment
///      boundary on both sides (plan_aligned_pieces), into receive arrays in the temporary
///      storage (sources in rank order); a rank that receives from one rank only receives into
///      current() unpadded, and one that keeps all its keys sends and receives nothing;
///   4. the stable merge of the sorted runs that arrived, pairwise in source order
///      (merge_stable), ceil(log2 of the non-empty runs) passes between the two buffers; an
///      unpaired run is copied across. The selector names the buffer that holds the result.
template <class Key, class Value>
void sort_first(const char* function, double_buffer<Key>& keys, double_buffer<Value>* values, std::uint64_t n,
                const std::vector<std::uint64_t>& counts, rank_view ranks, ncclComm_t comm, cudaStream_t stream,
                protocol::bit_range range, field_of_key<Key> field, unsigned begin_bit, unsigned end_bit,
                bool descending, const sort_storage& st, void* temp) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using sort_value = std::conditional_t<has_values, Value, std::uint32_t>;
  using merge_value = std::conditional_t<has_values, Value, merge_no_values>;
  const auto at = [&](std::size_t offset) { return protocol::temp_layout::at<unsigned char>(temp, offset); };
  auto* own_hist = reinterpret_cast<unsigned long long*>(at(st.own_hist));
  auto* all_hist = reinterpret_cast<std::uint64_t*>(at(st.all_hist));
  auto* d_prefixes = reinterpret_cast<std::uint64_t*>(at(st.prefixes));
  auto* d_splits = reinterpret_cast<std::uint64_t*>(at(st.merge_splits));
  void* d_local_sort = at(st.local_sort);
  const std::size_t P = static_cast<std::size_t>(ranks.size);

  // 1. The local sort: current() -> alternate().
  mark_phase("local_sort", stream);
  if (n > 0) {
    std::size_t bytes = st.local_sort_bytes;
    if constexpr (has_values)
      sort::gpu::sort_pairs<Key, sort_value>(d_local_sort, bytes, keys.current(), keys.alternate(),
                                             values->current(), values->alternate(), n, begin_bit, end_bit,
                                             descending, stream);
    else
      sort::gpu::sort_keys<Key>(d_local_sort, bytes, keys.current(), keys.alternate(), n, begin_bit, end_bit,
                                descending, stream);
  }
  const Key* run = keys.alternate();

  // 2. Splitters from the sorted run, level by level.
  mark_phase("splitters", stream);
  const unsigned field_bits = range.end - range.begin;
  splitter_search search(counts, field_bits, sort_first_digit_bits, sort_digit_bits);
  while (!search.done()) {
    const auto prefixes = search.open_prefixes();
    const unsigned S = static_cast<unsigned>(prefixes.size());
    const std::size_t words = S * search.num_buckets();
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_prefixes, prefixes.data(), S * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                                       stream));
    histogram_sorted_run<Key><<<static_cast<unsigned>((words + 255) / 256), 256, 0, stream>>>(
        run, n, field, d_prefixes, S, search.digit_shift(), search.digit_width(), field_bits, own_hist);
    ONEPASS_CUDA_CHECK_LAUNCH();
    add_gathered_level(search, own_hist, all_hist, words, P, comm, stream, function);
  }
  const auto counts_of = sort_exchange_matrix(search, ranks, n, function);

  // 3. The exchange of the run's ranges (alternate(), destinations in order) in pieces that
  // start on exchange_alignment boundaries on both sides (plan_aligned_pieces): received into
  // the receive arrays in temporary storage, the runs at run_first; a rank that receives from
  // one rank only receives unpadded into current() (nothing to merge), or, when that rank is
  // itself, keeps its run where it is.
  mark_phase("exchange", stream);
  const auto me = static_cast<std::size_t>(ranks.rank);
  const auto key_pieces = plan_aligned_pieces(counts_of, me, items_per_alignment(sizeof(Key), exchange_alignment));
  aligned_pieces value_pieces;
  if constexpr (has_values)
    value_pieces = plan_aligned_pieces(counts_of, me, items_per_alignment(sizeof(Value), exchange_alignment));
  const bool keep_own = n > 0 && counts_of[me][me] == n;  // nothing arrives from another rank
  auto* stage_keys = static_cast<Key*>(d_local_sort);
  merge_value* stage_values = nullptr;
  if constexpr (has_values) {
    const std::size_t key_bytes = sort_first_receive_bytes(n, ranks.size, sizeof(Key), 0);
    stage_values = reinterpret_cast<merge_value*>(static_cast<unsigned char*>(d_local_sort) + key_bytes);
  }
  Key* recv_keys = key_pieces.direct ? keys.current() : stage_keys;
  merge_value* recv_values = nullptr;
  if constexpr (has_values) recv_values = key_pieces.direct ? values->current() : stage_values;
  if (!keep_own) {
    if constexpr (has_values)
      exchange({exchange_array{keys.alternate(), recv_keys, sizeof(Key), &key_pieces},
                exchange_array{values->alternate(), recv_values, sizeof(Value), &value_pieces}},
               {}, {}, ranks, comm, stream, function);
    else
      exchange({exchange_array{keys.alternate(), recv_keys, sizeof(Key), &key_pieces}}, {}, {}, ranks, comm, stream,
               function);
  }

  // 4. The stable merge of the non-empty runs, pairwise in source order: the first pass from
  // the receive arrays into current(), then between current() and alternate(); an unpaired run
  // is copied across. Each run: where it is now, and its place in the output.
  mark_phase("merge", stream);
  struct run_range {
    const Key* keys;
    const merge_value* values;
    std::uint64_t first, size;
  };
  std::vector<run_range> runs;
  std::uint64_t output_at = 0;
  for (std::size_t r = 0; r < P; ++r) {
    const std::uint64_t c = counts_of[r][me];
    if (c == 0) continue;
    runs.push_back({recv_keys + key_pieces.run_first[r], recv_values ? recv_values + value_pieces.run_first[r] : nullptr,
                    output_at, c});
    output_at += c;
  }
  bool in_alternate = keep_own;  // where the result is when no merge runs
  int to_current = 1;            // the next pass writes current() (1) or alternate() (0)
  const field_less<Key> less{field};
  while (runs.size() > 1) {
    Key* to_keys = to_current ? keys.current() : keys.alternate();
    merge_value* to_values = nullptr;
    if constexpr (has_values) to_values = to_current ? values->current() : values->alternate();
    std::vector<run_range> next;
    for (std::size_t k = 0; k < runs.size(); k += 2) {
      const run_range a = runs[k];
      if (k + 1 == runs.size()) {  // unpaired: copied across
        ONEPASS_CUDA_CHECK(cudaMemcpyAsync(to_keys + a.first, a.keys, a.size * sizeof(Key), cudaMemcpyDeviceToDevice,
                                           stream));
        if constexpr (has_values)
          ONEPASS_CUDA_CHECK(cudaMemcpyAsync(to_values + a.first, a.values, a.size * sizeof(Value),
                                             cudaMemcpyDeviceToDevice, stream));
        next.push_back({to_keys + a.first, to_values ? to_values + a.first : nullptr, a.first, a.size});
        continue;
      }
      const run_range b = runs[k + 1];  // next in the output: b.first == a.first + a.size
      merge_stable<Key, merge_value, field_less<Key>>(a.keys, a.values, a.size, b.keys, b.values, b.size,
                                                      to_keys + a.first, to_values ? to_values + a.first : nullptr,
                                                      less, d_splits, stream);
      next.push_back({to_keys + a.first, to_values ? to_values + a.first : nullptr, a.first, a.size + b.size});
    }
    runs = std::move(next);
    in_alternate = !to_current;
    to_current ^= 1;
  }
  if (in_alternate) {  // the result is in alternate()
    keys.selector ^= 1;
    if constexpr (has_values) values->selector ^= 1;
  }
  mark_phase("end", stream);
}

/// The whole call (file comment) for keys and, unless Value is no_values, values.
template <class Key, class Value>
void sort_impl(const char* function, void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys,
               double_buffer<Value>* values, std::size_t num_items, ncclComm_t comm, cudaStream_t stream,
               unsigned begin_bit, unsigned end_bit, bool descending, sort_method method) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using sort_value = std::conditional_t<has_values, Value, std::uint32_t>;
  const rank_view ranks = ranks_of(comm, function);
  const protocol::bit_range range = protocol::check_bit_range(function, sort::radix_traits<Key>::bits, begin_bit, end_bit);
  const std::uint64_t n = num_items;

  // The local sort's storage for n keys (and values): asked for with the same bit range.
  std::size_t local_sort_bytes = 0;
  if constexpr (has_values)
    sort::gpu::sort_pairs<Key, sort_value>(nullptr, local_sort_bytes, static_cast<const Key*>(nullptr), nullptr,
                                           static_cast<const sort_value*>(nullptr), nullptr, n, begin_bit, end_bit,
                                           descending, stream);
  else
    sort::gpu::sort_keys<Key>(nullptr, local_sort_bytes, static_cast<const Key*>(nullptr), nullptr, n, begin_bit,
                              end_bit, descending, stream);
  const std::size_t receive_bytes =
      ranks.size > 1 && method == sort_method::sort_first
          ? sort_first_receive_bytes(n, ranks.size, sizeof(Key), has_values ? sizeof(Value) : 0)
          : 0;
  const sort_storage st = plan_sort_storage(n, ranks.size, local_sort_bytes, receive_bytes);
  if (protocol::answer_query(d_temp, temp_bytes, st.total)) return;

  // 1. Agreement: this rank's checks, then every rank's record.
  std::string local_error;
  try {
    require(ranks.size <= sort_max_ranks, function, "comm",
            "must have at most " + std::to_string(sort_max_ranks) + " ranks, got " + std::to_string(ranks.size));
    require(method == sort_method::partition_first || method == sort_method::sort_first, function, "method",
            "must be sort_method::partition_first or sort_method::sort_first");
    require(keys.selector == 0 || keys.selector == 1, function, "keys.selector",
            "must be 0 or 1, got " + std::to_string(keys.selector));
    if (n > 0) {
      protocol::check_not_null(function, "keys.current()", keys.current(), "when num_items > 0");
      protocol::check_not_null(function, "keys.alternate()", keys.alternate(), "when num_items > 0");
      protocol::check_aligned(function, "keys.current()", keys.current(), alignof(Key));
      protocol::check_aligned(function, "keys.alternate()", keys.alternate(), alignof(Key));
      protocol::check_disjoint(function, "keys.current()", keys.current(), "keys.alternate()", keys.alternate(), n,
                               sizeof(Key));
      if constexpr (has_values) {
        require(values->selector == 0 || values->selector == 1, function, "values.selector",
                "must be 0 or 1, got " + std::to_string(values->selector));
        protocol::check_not_null(function, "values.current()", values->current(), "when num_items > 0");
        protocol::check_not_null(function, "values.alternate()", values->alternate(), "when num_items > 0");
        protocol::check_aligned(function, "values.current()", values->current(), alignof(Value));
        protocol::check_aligned(function, "values.alternate()", values->alternate(), alignof(Value));
        protocol::check_disjoint(function, "values.current()", values->current(), "values.alternate()",
                                 values->alternate(), n, sizeof(Value));
      }
    }
    protocol::check_temp_bytes(function, temp_bytes, st.total, "num_items", n);
  } catch (const error& e) {
    local_error = e.what();
  }
  agreement_words record;
  record.agreed = {key_type_code<Key>(), has_values ? sizeof(Value) : 0, range.begin, range.end, descending ? 1u : 0u,
                   static_cast<std::uint64_t>(method)};
  record.agreed_names = {"the key type (its kind and size)", "the value type's size", "begin_bit", "end_bit",
                         "descending", "method"};
  record.own = {n};
  std::vector<std::uint64_t> counts(ranks.size);
  {
    agreement_scratch scratch(d_temp, temp_bytes, st, agreement_scratch_words(ranks.size, sort_record_words), stream);
    const auto own = agree(function, local_error, record, scratch.get(), ranks, comm, stream);
    for (int r = 0; r < ranks.size; ++r) counts[r] = own[r][0];
  }
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  if (total == 0) return;

  auto* temp = d_temp;
  const auto at = [&](std::size_t offset) { return protocol::temp_layout::at<unsigned char>(temp, offset); };
  auto* own_hist = reinterpret_cast<unsigned long long*>(at(st.own_hist));
  auto* all_hist = reinterpret_cast<std::uint64_t*>(at(st.all_hist));
  auto* d_prefixes = reinterpret_cast<std::uint64_t*>(at(st.prefixes));
  auto* d_count = reinterpret_cast<unsigned long long*>(at(st.count));
  auto* d_words = reinterpret_cast<std::uint64_t*>(at(st.words));
  auto* d_thresholds = reinterpret_cast<std::uint64_t*>(at(st.thresholds));
  auto* d_bases = reinterpret_cast<std::uint64_t*>(at(st.bases));
  unsigned char* d_lookback = at(st.lookback);
  void* d_local_sort = at(st.local_sort);
  const field_of_key<Key> field{range.begin, range.end, descending};
  using bits = typename field_of_key<Key>::bits;
  Key* in = keys.current();
  Key* out = keys.alternate();  // the send buffer; the splitter search's scratch before that
  const std::size_t P = static_cast<std::size_t>(ranks.size);

  if (ranks.size > 1 && method == sort_method::sort_first) {
    sort_first<Key, Value>(function, keys, values, n, counts, ranks, comm, stream, range, field, begin_bit, end_bit,
                           descending, st, temp);
    return;
  }

  if (ranks.size > 1) {
    // 2. Splitters, level by level.
    mark_phase("splitters", stream);
    splitter_search search(counts, range.end - range.begin, sort_first_digit_bits, sort_digit_bits);
    const auto gather_level = [&](std::size_t own_words) {
      add_gathered_level(search, own_hist, all_hist, own_words, P, comm, stream, function);
    };
    if (!search.done()) {
      const std::size_t words = search.num_buckets();
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(own_hist, 0, words * sizeof(std::uint64_t), stream));
      if (n > 0) {
        histogram_first_digit<Key><<<sort_stride_grid(n), 256, words * sizeof(unsigned), stream>>>(
            in, n, field, search.digit_shift(), search.digit_width(), own_hist);
        ONEPASS_CUDA_CHECK_LAUNCH();
      }
      gather_level(words);
    }
    bool gathered = false;
    bits* scratch = reinterpret_cast<bits*>(out);
    while (!search.done()) {
      const auto prefixes = search.open_prefixes();
      const unsigned S = static_cast<unsigned>(prefixes.size());
      const unsigned prefix_shift = search.digit_shift() + search.digit_width();
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_prefixes, prefixes.data(), S * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                                         stream));
      if (!gathered) {
        ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::uint64_t), stream));
        if (n > 0) {
          gather_open_fields<Key><<<sort_stride_grid(n), 256, 0, stream>>>(in, n, field, prefix_shift, d_prefixes, S,
                                                                      scratch, d_count);
          ONEPASS_CUDA_CHECK_LAUNCH();
        }
        gathered = true;
      }
      const std::size_t words = S * search.num_buckets();
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(own_hist, 0, words * sizeof(std::uint64_t), stream));
      const bool shared = words * sizeof(unsigned) <= 32 * 1024;
      if (n > 0) {
        histogram_open_fields<bits><<<sort_stride_grid(n / 64 + 1), 256, shared ? words * sizeof(unsigned) : 0, stream>>>(
            scratch, d_count, prefix_shift, d_prefixes, S, search.digit_shift(), search.digit_width(), shared,
            own_hist);
        ONEPASS_CUDA_CHECK_LAUNCH();
      }
      gather_level(words);
    }

    // The splitters on this rank: words and position thresholds.
    const auto& sp = search.splitters();
    std::vector<std::uint64_t> words(sp.size()), thresholds(sp.size());
    for (std::size_t q = 0; q < sp.size(); ++q) {
      std::uint64_t position = 0;
      if (sp[q].needs_position(static_cast<std::uint32_t>(ranks.rank)))
        position = position_of_occurrence(in, n, field, sp[q].word, sp[q].occurrence,
                                          reinterpret_cast<unsigned*>(d_lookback), st.num_tiles, stream, function);
      words[q] = sp[q].word;
      thresholds[q] = sp[q].threshold(static_cast<std::uint32_t>(ranks.rank), position);
    }
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_words, words.data(), words.size() * sizeof(std::uint64_t),
                                       cudaMemcpyHostToDevice, stream));
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_thresholds, thresholds.data(), thresholds.size() * sizeof(std::uint64_t),
                                       cudaMemcpyHostToDevice, stream));

    // The exchange plan from the histograms: what every rank sends to every rank.
    const auto [send, receive] = sort_exchange_counts_of(search, ranks, n, function);

    // 3. Partition: one pass (partition_by_destination) into the send buffer, grouped by
    // destination at the offsets of the plan.
    mark_phase("partition", stream);
    const std::vector<std::uint64_t> bases = exclusive_prefix(send, function, "send counts");
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_bases, bases.data(), P * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream));
    Value* values_out = nullptr;
    const Value* values_in = nullptr;
    if constexpr (has_values) {
      values_in = values->current();
      values_out = values->alternate();
    }
    if (n > 0) {
      const std::size_t shared_bytes = partition_shared_bytes<Key, Value>(P);
      ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_lookback, 0, partition_lookback::temp_bytes(st.num_tiles, P), stream));
      const partition_lookback lb{reinterpret_cast<unsigned long long*>(d_lookback),
                                  reinterpret_cast<unsigned long long*>(d_lookback + partition_lookback::header_bytes),
                                  static_cast<unsigned>(P)};
      if (shared_bytes > 48 * 1024)
        ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(partition_by_destination<Key, Value>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(shared_bytes)));
      partition_by_destination<Key, Value><<<static_cast<unsigned>(st.num_tiles), split_threads, shared_bytes, stream>>>(
          in, out, values_in, values_out, n, field, d_words, d_thresholds, static_cast<unsigned>(P), d_bases, lb);
      ONEPASS_CUDA_CHECK_LAUNCH();
    }

    // 4. Exchange: the keys (and values).
    mark_phase("exchange", stream);
    if constexpr (has_values)
      exchange({exchange_array{out, in, sizeof(Key)}, exchange_array{values_out, values->current(), sizeof(Value)}}, send,
               receive, ranks, comm, stream, function);
    else
      exchange(out, send, in, receive, sizeof(Key), ranks, comm, stream, function);
  }

  // 5. The local stable sort of what arrived (in current()) into alternate().
  mark_phase("local_sort", stream);
  if (n > 0) {
    std::size_t bytes = st.local_sort_bytes;
    if constexpr (has_values) {
      sort::gpu::sort_pairs<Key, sort_value>(d_local_sort, bytes, keys.current(), keys.alternate(),
                                             values->current(), values->alternate(), n, begin_bit, end_bit,
                                             descending, stream);
      values->selector ^= 1;
    } else {
      sort::gpu::sort_keys<Key>(d_local_sort, bytes, keys.current(), keys.alternate(), n, begin_bit, end_bit,
                                descending, stream);
    }
    keys.selector ^= 1;
  }
  mark_phase("end", stream);
}

}  // namespace detail

/// Sorts the keys of all ranks of `comm` (file comment): afterwards rank r holds, in order,
/// the keys of global ranks [n_0 + ... + n_{r-1}, ... + n_r) of the stable sort of the
/// concatenation of the ranks' keys (rank 0's first) — onepass::sort::gpu::sort_keys of the
/// concatenation on one GPU, cut into the input counts. Every rank of comm must call it (a
/// collective, in the same order as the rank's other NCCL calls on comm).
///
/// Key: uint32_t, int32_t, float, uint64_t, int64_t or double (the order of onepass::sort:
/// floats in IEEE totalOrder). keys: this rank's two device buffers of num_items keys each,
/// not overlapping; keys.current() holds the input; on return keys.selector names the buffer
/// with the output (both buffers are overwritten). num_items: n_r, any size (0 allowed; the
/// total over the ranks below 2^64). comm: the caller's NCCL communicator, at most
/// sort_max_ranks ranks, one GPU per rank, the current device this rank's. stream: where
/// the work is enqueued. begin_bit < end_bit <= 8 * sizeof(Key): the bits compared (as
/// onepass::sort); descending: the order. method: how the keys move (sort_method, default
/// sort_first; the output is the same). These and the key type must agree over the ranks.
///
/// Temporary storage: CUB's two-phase protocol (d_temp == nullptr: temp_bytes is set from
/// num_items, the number of ranks and the bit range; nothing is communicated or enqueued).
/// Host-synchronous (file comment): returns with the exchange and the local sort enqueued.
///
/// Throws onepass::error on EVERY rank when any rank's arguments are rejected (null or
/// misaligned buffers with num_items > 0, overlapping buffers, a selector other than 0 or 1,
/// temp_bytes below the size query's answer, more than sort_max_ranks ranks: that rank's
/// message names the argument, the others name the rank) or when the ranks disagree on the
/// key type, bit range, order or method; the bit range is checked before anything is communicated;
/// throws onepass::runtime_failure when a CUDA or NCCL call fails (NCCL's message).
template <class Key>
void sort_keys(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, std::size_t num_items,
               ncclComm_t comm, cudaStream_t stream, unsigned begin_bit = 0,
               unsigned end_bit = sort::radix_traits<Key>::bits, bool descending = false,
               sort_method method = default_sort_method) {
  detail::sort_impl<Key, detail::no_values>("onepass::distributed::sort_keys", d_temp, temp_bytes, keys, nullptr,
                                            num_items, comm, stream, begin_bit, end_bit, descending, method);
}

/// Sorts (key, value) pairs of all ranks of `comm` by key, stable: as sort_keys, and each
/// value travels with its key. Value: any trivially copyable type of 4 or 8 bytes (as
/// onepass::sort::gpu::sort_pairs). values: this rank's two buffers of num_items values,
/// values.current() the input; on return values.selector names the output. Its size must
/// agree over the ranks. Errors as sort_keys, also for the value buffers.
template <class Key, class Value>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, double_buffer<Key>& keys, double_buffer<Value>& values,
                std::size_t num_items, ncclComm_t comm, cudaStream_t stream, unsigned begin_bit = 0,
                unsigned end_bit = sort::radix_traits<Key>::bits, bool descending = false,
                sort_method method = default_sort_method) {
  static_assert(std::is_trivially_copyable_v<Value> && (sizeof(Value) == 4 || sizeof(Value) == 8),
                "onepass::distributed::sort_pairs: Value must be trivially copyable, of 4 or 8 bytes");
  detail::sort_impl<Key, Value>("onepass::distributed::sort_pairs", d_temp, temp_bytes, keys, &values, num_items, comm,
                                stream, begin_bit, end_bit, descending, method);
}

}  // namespace onepass::distributed
