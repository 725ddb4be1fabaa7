// scripts/bench_distributed_partition.cu — the per-rank GPU work of distributed::sort_keys
// (distributed/sort.cuh, issue 29) timed phase by phase on ONE GPU, to find where the
// distributed sort's time beyond (local sort + all-to-all) goes. Not part of the library.
//
// One rank's view: n uniform keys, the exact splitters of P ranks replaced by the uniform
// quantiles (what the splitter search finds for uniform keys, up to a few keys), then every
// kernel the library runs between the agreement and the exchange: the level-0 histogram, the
// gather of the open buckets' fields and the one-pass partition (partition_by_destination,
// with its look-back memset), beside candidate partitions (partition_candidate: destination
// and rank packed in one register, 3 to 5 blocks per SM, ranking by ballots; each compared
// with the library's output) and the floors: a device copy of the keys (one read + one
// write) and the local onepass::sort of n keys. Before timing, the partition's output at
// n = 2^24 + 123 is checked against a stable partition on the host (keys, and u32 values =
// positions). CUDA events, median of 7 (two warm-up calls), milliseconds and GB/s of key bytes
// read + written.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include scripts/bench_distributed_partition.cu -lnccl -o /tmp/bdp
//   /tmp/bdp [log2 n = 30]
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "median_event_ms.cuh"
#include "onepass/distributed/sort.cuh"

namespace dd = onepass::distributed::detail;

template <class T>
__global__ void fill_random(T* p, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    p[i] = static_cast<T>(z ^ (z >> 31));
  }
}

template <class Key>
std::vector<std::uint64_t> quantile_words(unsigned P) {
  constexpr unsigned B = sizeof(Key) * 8;
  std::vector<std::uint64_t> words(P);  // P - 1 used (one spare word for P = 1)
  for (unsigned q = 0; q + 1 < P; ++q) {
    const long double f = static_cast<long double>(q + 1) / P;
    words[q] = static_cast<std::uint64_t>(f * 18446744073709551616.0L) >> (64 - B);
  }
  return words;
}

/// Candidate partitions (keys only): the library's partition_by_destination with each key's
/// destination and rank packed into one register (dest in bits 0..15, rank above), an
/// occupancy bound (MinBlocks blocks of 256 threads per SM), and optionally ranking by one
/// ballot per destination (P <= 32) instead of __match_any_sync. Rank 2 is a timing probe, not
/// a partition: no ranking at all (every key's rank is its position in the warp's run of 512;
/// the output is wrong), to show what the ranking costs.
template <class Key, int Ballot, int MinBlocks>
__global__ void __launch_bounds__(dd::split_threads, MinBlocks)
    partition_candidate(const Key* keys_in, Key* keys_out, std::uint64_t n, dd::field_of_key<Key> field,
                        const std::uint64_t* words, const std::uint64_t* thresholds, unsigned num_ranks,
                        const std::uint64_t* bases, dd::partition_lookback lb) {
  extern __shared__ std::uint64_t split_shared[];
  __shared__ std::uint64_t s_tile;
  const unsigned s = num_ranks - 1, P = num_ranks;
  std::uint64_t* start = split_shared + 2 * s;
  unsigned* warp_counts = reinterpret_cast<unsigned*>(start + P);
  unsigned* tile_offset = warp_counts + dd::sort_split_warps * P;
  unsigned short* slot_dest = reinterpret_cast<unsigned short*>(tile_offset + P + 1);
  Key* stage_keys = reinterpret_cast<Key*>(reinterpret_cast<unsigned char*>(split_shared) +
                                           ((2 * s + P) * 8 + (dd::sort_split_warps * P + P + 1) * 4 +
                                            dd::split_tile * 2 + 15) / 16 * 16);
  dd::load_splitters(split_shared, words, thresholds, s);
  for (unsigned k = threadIdx.x; k < dd::sort_split_warps * P; k += blockDim.x) warp_counts[k] = 0;
  if (threadIdx.x == 0) s_tile = atomicAdd(lb.counter, 1ull);
  __syncthreads();
  const std::uint64_t tile = s_tile;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned* mine = warp_counts + warp * P;
  const std::uint64_t tile_first = tile * dd::split_tile;
  const std::uint64_t first = tile_first + static_cast<std::uint64_t>(warp) * (dd::split_items * 32);
  const unsigned valid = static_cast<unsigned>(n - tile_first < dd::split_tile ? n - tile_first : dd::split_tile);
  constexpr unsigned no_dest = 0xffffu;
  Key key[dd::split_items];
  unsigned packed[dd::split_items];  // dest | rank << 16
#pragma unroll
  for (int c = 0; c < dd::split_items; ++c) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(c) * 32 + lane;
    if (i < n) key[c] = keys_in[i];
  }
#pragma unroll
  for (int c = 0; c < dd::split_items; ++c) {
    const std::uint64_t i = first + static_cast<std::uint64_t>(c) * 32 + lane;
    packed[c] = i < n ? dd::destination(field(key[c]), i, split_shared, split_shared + s, s) : no_dest;
  }
  if constexpr (Ballot == 2) {
#pragma unroll
    for (int c = 0; c < dd::split_items; ++c) packed[c] |= (static_cast<unsigned>(c) * 32 + lane) << 16;
    if (lane < P) mine[lane] = 0;
  } else if constexpr (Ballot == 1) {
    unsigned running = 0;  // lane d: the warp's keys of destination d so far
#pragma unroll
    for (int c = 0; c < dd::split_items; ++c) {
      const unsigned d_mine = packed[c];
      unsigned r = 0;
      for (unsigned d = 0; d < P; ++d) {
        const unsigned b = __ballot_sync(0xffffffffu, d_mine == d);
        const unsigned base = __shfl_sync(0xffffffffu, running, d);
        if (d_mine == d) r = base + __popc(b & ((1u << lane) - 1u));
        if (lane == d) running += __popc(b);
      }
      packed[c] = d_mine | (r << 16);
    }
    if (lane < P) mine[lane] = running;
  } else {
#pragma unroll
    for (int c = 0; c < dd::split_items; ++c) {
      const unsigned d_mine = packed[c];
      const unsigned peers = __match_any_sync(0xffffffffu, d_mine);
      const unsigned leader = __ffs(peers) - 1;
      unsigned base = 0;
      if (lane == leader && d_mine != no_dest) base = mine[d_mine];
      base = __shfl_sync(0xffffffffu, base, leader);
      packed[c] = d_mine | ((base + __popc(peers & ((1u << lane) - 1u))) << 16);
      __syncwarp();
      if (lane == leader && d_mine != no_dest) mine[d_mine] = base + __popc(peers);
      __syncwarp();
    }
  }
  __syncthreads();
  for (unsigned d = threadIdx.x; d < P; d += blockDim.x) {
    unsigned running = 0;
    for (int w = 0; w < dd::sort_split_warps; ++w) {
      const unsigned c = warp_counts[w * P + d];
      warp_counts[w * P + d] = running;
      running += c;
    }
    start[d] = running;
    lb.publish(tile, d, tile == 0 ? dd::partition_lookback::prefix_flag : dd::partition_lookback::aggregate_flag,
               running);
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
  for (unsigned d = warp; d < P; d += dd::sort_split_warps) {
    std::uint64_t before = 0;
    if (tile > 0) {
      before = lb.exclusive_prefix(tile, d);
      if (lane == 0) lb.publish(tile, d, dd::partition_lookback::prefix_flag, before + start[d]);
    }
    __syncwarp();
    if (lane == 0) start[d] = bases[d] + before;
  }
  __syncthreads();
#pragma unroll
  for (int c = 0; c < dd::split_items; ++c) {
    const unsigned d = packed[c] & 0xffffu;
    if (d == no_dest) continue;
    const unsigned slot = tile_offset[d] + mine[d] + (packed[c] >> 16);
    stage_keys[slot] = key[c];
    slot_dest[slot] = static_cast<unsigned short>(d);
  }
  __syncthreads();
  for (unsigned slot = threadIdx.x; slot < valid; slot += blockDim.x) {
    const unsigned d = slot_dest[slot];
    const std::uint64_t at = start[d] + (slot - tile_offset[d]);
    if (at < n) keys_out[at] = stage_keys[slot];
  }
}

/// The partition of n random keys and their positions (as u32 values) for P uniform-quantile
/// splitters, checked against a stable partition on the host. Returns whether it matched.
template <class Key>
bool check_partition(std::uint64_t n, unsigned P) {
  constexpr unsigned B = sizeof(Key) * 8;
  const dd::field_of_key<Key> field{0, B, false};
  const auto words = quantile_words<Key>(P);
  std::vector<std::uint64_t> thresholds(P, 0);
  std::vector<Key> keys(n);
  std::vector<std::uint32_t> values(n);
  Key* d_keys;
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_keys, n * sizeof(Key)));
  fill_random<Key><<<1024, 256>>>(d_keys, n, 7);
  ONEPASS_CUDA_CHECK(cudaMemcpy(keys.data(), d_keys, n * sizeof(Key), cudaMemcpyDeviceToHost));
  for (std::uint64_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint64_t> send(P, 0);
  std::vector<unsigned> dest(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    unsigned d = 0;
    while (d + 1 < P && static_cast<std::uint64_t>(keys[i]) >= words[d]) ++d;
    dest[i] = d;
    ++send[d];
  }
  std::vector<std::uint64_t> bases(P, 0);
  for (unsigned d = 1; d < P; ++d) bases[d] = bases[d - 1] + send[d - 1];
  std::vector<Key> want_keys(n);
  std::vector<std::uint32_t> want_values(n);
  {
    auto at = bases;
    for (std::uint64_t i = 0; i < n; ++i) {
      want_keys[at[dest[i]]] = keys[i];
      want_values[at[dest[i]]++] = values[i];
    }
  }
  Key* d_out;
  std::uint32_t *d_vin, *d_vout;
  std::uint64_t *d_words, *d_thr, *d_bases;
  const std::uint64_t num_tiles = (n + dd::split_tile - 1) / dd::split_tile;
  unsigned char* d_lb;
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_vin, n * 4));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_vout, n * 4));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_words, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_thr, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_bases, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_lb, dd::partition_lookback::temp_bytes(num_tiles, P)));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_vin, values.data(), n * 4, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_words, words.data(), 8 * P, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_thr, thresholds.data(), 8 * P, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_bases, bases.data(), 8 * P, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemset(d_lb, 0, dd::partition_lookback::temp_bytes(num_tiles, P)));
  const dd::partition_lookback lb{reinterpret_cast<unsigned long long*>(d_lb),
                                  reinterpret_cast<unsigned long long*>(d_lb + dd::partition_lookback::header_bytes), P};
  const std::size_t shared = dd::partition_shared_bytes<Key, std::uint32_t>(P);
  if (shared > 48 * 1024)
    ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(dd::partition_by_destination<Key, std::uint32_t>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  dd::partition_by_destination<Key, std::uint32_t><<<unsigned(num_tiles), dd::split_threads, shared>>>(
      d_keys, d_out, d_vin, d_vout, n, field, d_words, d_thr, P, d_bases, lb);
  ONEPASS_CUDA_CHECK(cudaGetLastError());
  std::vector<Key> got_keys(n);
  std::vector<std::uint32_t> got_values(n);
  ONEPASS_CUDA_CHECK(cudaMemcpy(got_keys.data(), d_out, n * sizeof(Key), cudaMemcpyDeviceToHost));
  ONEPASS_CUDA_CHECK(cudaMemcpy(got_values.data(), d_vout, n * 4, cudaMemcpyDeviceToHost));
  const bool ok = got_keys == want_keys && got_values == want_values;
  std::printf("%-4s P=%u n=%llu partition (keys + u32 values) vs host stable partition: %s\n", B == 32 ? "u32" : "u64", P,
              static_cast<unsigned long long>(n), ok ? "ok" : "MISMATCH");
  for (void* p : {static_cast<void*>(d_keys), static_cast<void*>(d_out), static_cast<void*>(d_vin),
                  static_cast<void*>(d_vout), static_cast<void*>(d_words), static_cast<void*>(d_thr),
                  static_cast<void*>(d_bases), static_cast<void*>(d_lb)})
    ONEPASS_CUDA_CHECK(cudaFree(p));
  return ok;
}

template <class Key>
void run(unsigned log2n, unsigned P) {
  using bits = typename dd::field_of_key<Key>::bits;
  constexpr unsigned B = sizeof(Key) * 8;
  const std::uint64_t n = std::uint64_t{1} << log2n;
  const dd::field_of_key<Key> field{0, B, false};
  Key *in, *out, *out2;
  ONEPASS_CUDA_CHECK(cudaMalloc(&in, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&out, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&out2, n * sizeof(Key)));
  fill_random<Key><<<1024, 256>>>(in, n, 42);
  const unsigned s = P - 1;
  const auto words = quantile_words<Key>(P);
  std::vector<std::uint64_t> thresholds(P, 0), prefixes(P), bases(P);
  for (unsigned q = 0; q < s; ++q) prefixes[q] = words[q] >> (B - dd::sort_first_digit_bits);
  for (unsigned d = 0; d < P; ++d) bases[d] = n / P * d;  // uniform: close enough for timing
  const std::uint64_t num_tiles = (n + dd::split_tile - 1) / dd::split_tile;
  std::uint64_t *d_words, *d_thr, *d_pre, *d_bases;
  unsigned long long *hist, *count;
  unsigned char* d_lb;
  const std::size_t lb_bytes = dd::partition_lookback::temp_bytes(num_tiles, P);
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_words, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_thr, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_pre, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_bases, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMalloc(&hist, 8 * 4096));
  ONEPASS_CUDA_CHECK(cudaMalloc(&count, 8));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_lb, lb_bytes));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_words, words.data(), 8 * P, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_thr, thresholds.data(), 8 * P, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_pre, prefixes.data(), 8 * P, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_bases, bases.data(), 8 * P, cudaMemcpyHostToDevice));
  const double key_bytes = static_cast<double>(n) * sizeof(Key);
  const auto report = [&](const char* what, double ms, double bytes) {
    std::printf("%-4s P=%u n=2^%u %-34s %8.3f ms %7.0f GB/s\n", B == 32 ? "u32" : "u64", P, log2n, what, ms,
                bytes / ms / 1e6);
  };
  const unsigned grid = dd::sort_stride_grid(n);
  report("histogram_first_digit (12 bits)", median_ms([&] {
           cudaMemsetAsync(hist, 0, 8 * 4096);
           dd::histogram_first_digit<Key><<<grid, 256, 4096 * 4>>>(in, n, field, B - 12, 12, hist);
         }, 7), key_bytes);
  report("gather_open_fields (P-1 buckets)", median_ms([&] {
           cudaMemsetAsync(count, 0, 8);
           dd::gather_open_fields<Key><<<grid, 256>>>(in, n, field, B - 12, d_pre, s, reinterpret_cast<bits*>(out),
                                                      count);
         }, 7), key_bytes);
  const std::size_t shared = dd::partition_shared_bytes<Key, dd::no_values>(P);
  if (shared > 48 * 1024)
    ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(dd::partition_by_destination<Key, dd::no_values>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const dd::partition_lookback lb{reinterpret_cast<unsigned long long*>(d_lb),
                                  reinterpret_cast<unsigned long long*>(d_lb + dd::partition_lookback::header_bytes), P};
  report("partition_by_destination (+memset)", median_ms([&] {
           cudaMemsetAsync(d_lb, 0, lb_bytes);
           dd::partition_by_destination<Key, dd::no_values><<<unsigned(num_tiles), dd::split_threads, shared>>>(
               in, out, nullptr, nullptr, n, field, d_words, d_thr, P, d_bases, lb);
         }, 7), 2 * key_bytes);
  std::vector<Key> want(n), got(n);
  ONEPASS_CUDA_CHECK(cudaMemcpy(want.data(), out, n * sizeof(Key), cudaMemcpyDeviceToHost));
  const auto candidate = [&](const char* what, auto kernel, bool compare = true) {
    if (shared > 48 * 1024)
      ONEPASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    report(what, median_ms([&] {
             cudaMemsetAsync(d_lb, 0, lb_bytes);
             kernel<<<unsigned(num_tiles), dd::split_threads, shared>>>(in, out2, n, field, d_words, d_thr, P, d_bases, lb);
           }, 7), 2 * key_bytes);
    ONEPASS_CUDA_CHECK(cudaMemcpy(got.data(), out2, n * sizeof(Key), cudaMemcpyDeviceToHost));
    if (compare && got != want) std::printf("MISMATCH: %s differs from partition_by_destination\n", what);
  };
  candidate("candidate: packed, 3 blocks/SM", partition_candidate<Key, 0, 3>);
  candidate("candidate: packed, 4 blocks/SM", partition_candidate<Key, 0, 4>);
#ifndef ONLY_PROBE
  candidate("candidate: packed, 5 blocks/SM", partition_candidate<Key, 0, 5>);
  if (P <= 32) {
    candidate("candidate: ballots, 4 blocks/SM", partition_candidate<Key, 1, 4>);
    candidate("candidate: ballots, 5 blocks/SM", partition_candidate<Key, 1, 5>);
  }
#endif
  candidate("probe: no ranking (wrong output)", partition_candidate<Key, 2, 4>, false);
  report("copy (floor: read + write)", median_ms([&] {
           cudaMemcpyAsync(out2, in, n * sizeof(Key), cudaMemcpyDeviceToDevice);
         }, 7), 2 * key_bytes);
  if (P == 2) {
    std::size_t sort_bytes = 0;
    onepass::sort::sort_keys<Key>(nullptr, sort_bytes, static_cast<const Key*>(nullptr), nullptr, n, 0, B, false, 0);
    void* sort_temp;
    ONEPASS_CUDA_CHECK(cudaMalloc(&sort_temp, sort_bytes));
    report("local onepass::sort (n keys)", median_ms([&] {
             std::size_t bytes = sort_bytes;
             onepass::sort::sort_keys<Key>(sort_temp, bytes, out, out2, n, 0, B, false, 0);
           }, 7), 0);
    ONEPASS_CUDA_CHECK(cudaFree(sort_temp));
  }
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(out2), static_cast<void*>(d_words),
                  static_cast<void*>(d_thr), static_cast<void*>(d_pre), static_cast<void*>(d_bases),
                  static_cast<void*>(hist), static_cast<void*>(count), static_cast<void*>(d_lb)})
    ONEPASS_CUDA_CHECK(cudaFree(p));
}

int main(int argc, char** argv) {
  const unsigned log2n = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 30;
  bool ok = true;
  for (unsigned P : {1u, 2u, 3u, 4u, 8u, 300u}) {
    ok = check_partition<std::uint32_t>((1u << 24) + 123, P) && ok;
    ok = check_partition<std::uint64_t>((1u << 23) + 77, P) && ok;
  }
  for (unsigned P : {2u, 4u, 8u}) run<std::uint32_t>(log2n, P);
  for (unsigned P : {2u, 4u}) run<std::uint64_t>(log2n - 1, P);
  return ok ? 0 : 1;
}
