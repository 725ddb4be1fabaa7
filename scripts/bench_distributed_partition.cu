// scripts/bench_distributed_partition.cu — the per-rank GPU work of distributed::sort_keys
// (distributed/sort.cuh, issue 29) timed phase by phase on ONE GPU, to find where the
// distributed sort's time beyond (local sort + all-to-all) goes. Not part of the library.
//
// One rank's view: n uniform keys, the exact splitters of P ranks replaced by the uniform
// quantiles (what the splitter search finds for uniform keys, up to a few keys), then every
// kernel the library runs between the agreement and the exchange: the level-0 histogram,
// the gather of the open buckets' fields, the multisplit's count pass, its scan and its
// scatter; beside them candidate kernels (ranking by ballots instead of __match_any_sync,
// counts by ballots instead of shared atomics on P counters) and the floors: a device copy
// of the keys (one read + one write) and the local onepass::sort of n keys. Every candidate
// scatter's output is compared with the library's. CUDA events, median of 7 (two warm-up
// calls), milliseconds and GB/s of key bytes read + written.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include scripts/bench_distributed_partition.cu -lnccl -o /tmp/bdp
//   /tmp/bdp [log2 n = 30]
#include <cub/device/device_scan.cuh>

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

/// Candidate count pass: per warp and chunk of 32 keys, one ballot per destination (P <= 32);
/// lane d keeps destination d's count of the warp, added to the block's counters at the end.
template <class Key>
__global__ void count_ballot(const Key* keys, std::uint64_t n, dd::field_of_key<Key> field, const std::uint64_t* words,
                             const std::uint64_t* thresholds, unsigned P, std::uint64_t num_tiles,
                             unsigned long long* counts) {
  extern __shared__ std::uint64_t sh[];
  const unsigned s = P - 1;
  unsigned* per_rank = reinterpret_cast<unsigned*>(sh + 2 * s);
  dd::load_splitters(sh, words, thresholds, s);
  for (unsigned d = threadIdx.x; d < P; d += blockDim.x) per_rank[d] = 0;
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint64_t first = blockIdx.x * std::uint64_t{dd::split_tile} + warp * std::uint64_t{dd::split_items * 32};
  unsigned mine = 0;
#pragma unroll 4
  for (int c = 0; c < dd::split_items; ++c) {
    const std::uint64_t i = first + c * 32u + lane;
    const unsigned dest = i < n ? dd::destination(field(keys[i]), i, sh, sh + s, s) : dd::none;
    for (unsigned d = 0; d < P; ++d) {
      const unsigned b = __ballot_sync(0xffffffffu, dest == d);
      if (lane == d) mine += __popc(b);
    }
  }
  if (lane < P && mine) atomicAdd(&per_rank[lane], mine);
  __syncthreads();
  for (unsigned d = threadIdx.x; d < P; d += blockDim.x) counts[d * num_tiles + blockIdx.x] = per_rank[d];
}

/// Candidate scatter: the library's scatter with each chunk ranked by one ballot per
/// destination (P <= 32) instead of __match_any_sync; lane d keeps the warp's running count
/// of destination d in a register.
template <class Key>
__global__ void __launch_bounds__(dd::split_threads)
    scatter_ballot(const Key* keys_in, Key* keys_out, std::uint64_t n, dd::field_of_key<Key> field,
                   const std::uint64_t* words, const std::uint64_t* thresholds, unsigned P, std::uint64_t num_tiles,
                   const unsigned long long* offsets) {
  extern __shared__ std::uint64_t sh[];
  const unsigned s = P - 1;
  unsigned* warp_counts = reinterpret_cast<unsigned*>(sh + 2 * s);
  dd::load_splitters(sh, words, thresholds, s);
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint64_t first = blockIdx.x * std::uint64_t{dd::split_tile} + warp * std::uint64_t{dd::split_items * 32};
  Key key[dd::split_items];
  unsigned dest[dd::split_items], rank[dd::split_items];
  unsigned running = 0;  // lane d: the warp's keys of destination d so far
#pragma unroll
  for (int c = 0; c < dd::split_items; ++c) {
    const std::uint64_t i = first + c * 32u + lane;
    dest[c] = dd::none;
    if (i < n) {
      key[c] = keys_in[i];
      dest[c] = dd::destination(field(key[c]), i, sh, sh + s, s);
    }
    rank[c] = 0;
    for (unsigned d = 0; d < P; ++d) {
      const unsigned b = __ballot_sync(0xffffffffu, dest[c] == d);
      const unsigned base = __shfl_sync(0xffffffffu, running, d);
      if (dest[c] == d) rank[c] = base + __popc(b & ((1u << lane) - 1u));
      if (lane == d) running += __popc(b);
    }
  }
  if (lane < P) warp_counts[warp * P + lane] = running;
  __syncthreads();
  for (unsigned d = threadIdx.x; d < P; d += blockDim.x) {
    unsigned sum = 0;
    for (int w = 0; w < dd::sort_split_warps; ++w) {
      const unsigned c = warp_counts[w * P + d];
      warp_counts[w * P + d] = sum;
      sum += c;
    }
  }
  __syncthreads();
  const unsigned* mine = warp_counts + warp * P;
#pragma unroll
  for (int c = 0; c < dd::split_items; ++c) {
    if (dest[c] == dd::none) continue;
    keys_out[offsets[dest[c] * num_tiles + blockIdx.x] + mine[dest[c]] + rank[c]] = key[c];
  }
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
  std::vector<std::uint64_t> words(s + 1), thresholds(s + 1, 0), prefixes(s + 1);
  for (unsigned q = 0; q < s; ++q) {
    // the (q + 1)-th P-quantile of B-bit words
    const long double f = static_cast<long double>(q + 1) / P;
    words[q] = static_cast<std::uint64_t>(f * 18446744073709551616.0L) >> (64 - B);
    prefixes[q] = words[q] >> (B - dd::sort_first_digit_bits);
  }
  const std::uint64_t num_tiles = (n + dd::split_tile - 1) / dd::split_tile;
  std::uint64_t *d_words, *d_thr, *d_pre;
  unsigned long long *hist, *count, *tiles, *tiles2, *send;
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_words, 8 * (s + 1)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_thr, 8 * (s + 1)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&d_pre, 8 * (s + 1)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&hist, 8 * 4096));
  ONEPASS_CUDA_CHECK(cudaMalloc(&count, 8));
  ONEPASS_CUDA_CHECK(cudaMalloc(&tiles, 8 * P * num_tiles));
  ONEPASS_CUDA_CHECK(cudaMalloc(&tiles2, 8 * P * num_tiles));
  ONEPASS_CUDA_CHECK(cudaMalloc(&send, 8 * P));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_words, words.data(), 8 * (s + 1), cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_thr, thresholds.data(), 8 * (s + 1), cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_pre, prefixes.data(), 8 * (s + 1), cudaMemcpyHostToDevice));
  std::size_t scan_bytes = 0;
  ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, tiles, tiles, std::int64_t(P * num_tiles)));
  void* scan_temp;
  ONEPASS_CUDA_CHECK(cudaMalloc(&scan_temp, scan_bytes));
  const std::size_t shared_bytes = 2 * s * 8 + dd::sort_split_warps * P * 4;
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
  report("count_destinations (library)", median_ms([&] {
           dd::count_destinations<Key><<<unsigned(num_tiles), dd::split_threads, shared_bytes>>>(
               in, n, field, d_words, d_thr, P, num_tiles, tiles);
         }, 7), key_bytes);
  if (P <= 32)
    report("count_ballot (candidate)", median_ms([&] {
             count_ballot<Key><<<unsigned(num_tiles), dd::split_threads, shared_bytes>>>(in, n, field, d_words, d_thr,
                                                                                        P, num_tiles, tiles2);
           }, 7), key_bytes);
  std::vector<unsigned long long> a(P * num_tiles), b(P * num_tiles);
  ONEPASS_CUDA_CHECK(cudaMemcpy(a.data(), tiles, 8 * a.size(), cudaMemcpyDeviceToHost));
  if (P <= 32) {
    ONEPASS_CUDA_CHECK(cudaMemcpy(b.data(), tiles2, 8 * b.size(), cudaMemcpyDeviceToHost));
    if (a != b) std::printf("MISMATCH: count_ballot differs from count_destinations\n");
  }
  report("scan + totals", median_ms([&] {
           ONEPASS_CUDA_CHECK(cudaMemcpyAsync(tiles2, tiles, 8 * P * num_tiles, cudaMemcpyDeviceToDevice));
           std::size_t bytes = scan_bytes;
           cub::DeviceScan::ExclusiveSum(scan_temp, bytes, tiles2, tiles2, std::int64_t(P * num_tiles));
           dd::destination_totals<<<1, 256>>>(tiles2, P, num_tiles, n, send);
         }, 7), 0);
  report("scatter_by_destination (library)", median_ms([&] {
           dd::scatter_by_destination<Key, dd::no_values><<<unsigned(num_tiles), dd::split_threads, shared_bytes>>>(
               in, out, nullptr, nullptr, n, field, d_words, d_thr, P, num_tiles, tiles2);
         }, 7), 2 * key_bytes);
  if (P <= 32) {
    report("scatter_ballot (candidate)", median_ms([&] {
             scatter_ballot<Key><<<unsigned(num_tiles), dd::split_threads, shared_bytes>>>(
                 in, out2, n, field, d_words, d_thr, P, num_tiles, tiles2);
           }, 7), 2 * key_bytes);
    std::vector<Key> x(n), y(n);
    ONEPASS_CUDA_CHECK(cudaMemcpy(x.data(), out, n * sizeof(Key), cudaMemcpyDeviceToHost));
    ONEPASS_CUDA_CHECK(cudaMemcpy(y.data(), out2, n * sizeof(Key), cudaMemcpyDeviceToHost));
    if (x != y) std::printf("MISMATCH: scatter_ballot differs from scatter_by_destination\n");
  }
  report("copy (floor: read + write)", median_ms([&] {
           cudaMemcpyAsync(out2, in, n * sizeof(Key), cudaMemcpyDeviceToDevice);
         }, 7), 2 * key_bytes);
  std::size_t sort_bytes = 0;
  onepass::sort::sort_keys<Key>(nullptr, sort_bytes, static_cast<const Key*>(nullptr), nullptr, n, 0, B, false, 0);
  void* sort_temp;
  ONEPASS_CUDA_CHECK(cudaMalloc(&sort_temp, sort_bytes));
  report("local onepass::sort (n keys)", median_ms([&] {
           std::size_t bytes = sort_bytes;
           onepass::sort::sort_keys<Key>(sort_temp, bytes, out, out2, n, 0, B, false, 0);
         }, 7), 0);
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(out2), static_cast<void*>(d_words),
                  static_cast<void*>(d_thr), static_cast<void*>(d_pre), static_cast<void*>(hist),
                  static_cast<void*>(count), static_cast<void*>(tiles), static_cast<void*>(tiles2),
                  static_cast<void*>(send), scan_temp, sort_temp})
    ONEPASS_CUDA_CHECK(cudaFree(p));
}

int main(int argc, char** argv) {
  const unsigned log2n = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 30;
  for (unsigned P : {2u, 3u, 4u, 8u}) run<std::uint32_t>(log2n, P);
  for (unsigned P : {2u, 4u}) run<std::uint64_t>(log2n - 1, P);
  return 0;
}
