// scripts/bench_distributed_partition.cu — the per-rank GPU work of distributed::sort_keys
// (distributed/sort.cuh, issue 29) timed phase by phase on ONE GPU, to find where the
// distributed sort's time beyond (local sort + all-to-all) goes. Not part of the library.
//
// One rank's view: n uniform keys, the exact splitters of P ranks replaced by the uniform
// quantiles (what the splitter search finds for uniform keys, up to a few keys), then every
// kernel the library runs between the agreement and the exchange: the level-0 histogram, the
// gather of the open buckets' fields and the one-pass partition (partition_by_destination,
// with its look-back memset), beside the floors: a device copy of the keys (one read + one
// write) and the local onepass::sort of n keys. Before timing, the partition's output at
// n = 2^24 + 123 is checked against a stable partition on the host (keys, and u32 values =
// positions). CUDA events, median of 7 (two warm-up calls), milliseconds and GB/s of key bytes
// read + written. (Candidate partitions timed beside it at commit 455a9f4 — destination and
// rank in one register, 3 to 5 blocks per SM, ballot ranking — gained at most 9 % and were
// removed: results/recorded/nvidia-h100/bench_distributed_partition-455a9f4.txt.)
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
  report("copy (floor: read + write)", median_ms([&] {
           cudaMemcpyAsync(out2, in, n * sizeof(Key), cudaMemcpyDeviceToDevice);
         }, 7), 2 * key_bytes);
  if (P == 2) {
    std::size_t sort_bytes = 0;
    onepass::sort::gpu::sort_keys<Key>(nullptr, sort_bytes, static_cast<const Key*>(nullptr), nullptr, n, 0, B, false,
                                       0);
    void* sort_temp;
    ONEPASS_CUDA_CHECK(cudaMalloc(&sort_temp, sort_bytes));
    report("local onepass::sort (n keys)", median_ms([&] {
             std::size_t bytes = sort_bytes;
             onepass::sort::gpu::sort_keys<Key>(sort_temp, bytes, out, out2, n, 0, B, false, 0);
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
