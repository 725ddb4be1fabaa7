// scripts/bench_merge_path.cu — the stable merge of the sort-first distributed sort
// (onepass/distributed/merge_path.cuh, issue 29) timed on ONE GPU for several tile shapes,
// beside the floor (a device copy of the same bytes: one read + one write). Not part of the
// library: it chose default_merge_shape.
//
// Inputs: two sorted runs (uniform random keys, each half sorted by onepass::sort), the run
// lengths n/2 and n/2; keys only (u32, u64) and u32 keys with u32 values. Before timing, each
// shape's output at n = 2^22 + 123 (runs of n/3 and 2n/3 keys of 12 bits, many ties, values =
// positions) is compared with std::merge on the host (stable: the first run's item first on
// ties). "legacy" is the kernel before 2026-11-27 (a dependent load loop: one global load in
// flight per thread). CUDA events, median of 9, milliseconds and GB/s of bytes read + written.
//   nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I lib/include -I scripts \
//     scripts/bench_merge_path.cu -o /tmp/bmp && /tmp/bmp [log2 n = 30]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "median_event_ms.cuh"
#include "onepass/distributed/merge_path.cuh"
#include "onepass/sort/sort.cuh"

namespace dd = onepass::distributed::detail;

template <class T>
__global__ void fill_random(T* p, std::uint64_t n, std::uint64_t seed, T mask) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    p[i] = static_cast<T>(z ^ (z >> 31)) & mask;
  }
}

__global__ void iota(std::uint32_t* p, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<std::uint32_t>(i);
}

template <class Key>
struct plain_less {
  __device__ bool operator()(Key a, Key b) const { return a < b; }
};

// The kernel as it was (one tile of 256 x 8; loop-carried loads), for the comparison.
template <class Key, class Value, class Less>
__global__ void __launch_bounds__(256)
    legacy_tile_kernel(const Key* a_keys, const Value* a_values, std::uint64_t na, const Key* b_keys,
                       const Value* b_values, std::uint64_t nb, const std::uint64_t* splits, Less less, Key* out_keys,
                       Value* out_values) {
  constexpr bool has_values = !std::is_same_v<Value, dd::merge_no_values>;
  constexpr int tile_size = 2048, items = 8;
  extern __shared__ __align__(16) unsigned char sh[];
  Key* s_keys = reinterpret_cast<Key*>(sh);
  unsigned short* s_from = reinterpret_cast<unsigned short*>(s_keys + tile_size);
  const std::uint64_t n = na + nb, d0 = std::uint64_t{blockIdx.x} * tile_size;
  const std::uint64_t d1 = d0 + tile_size < n ? d0 + tile_size : n;
  const std::uint64_t a0 = splits[blockIdx.x], a1 = splits[blockIdx.x + 1], b0 = d0 - a0, b1 = d1 - a1;
  const unsigned ca = unsigned(a1 - a0), cb = unsigned(b1 - b0), count = ca + cb;
  for (unsigned k = threadIdx.x; k < count; k += blockDim.x) s_keys[k] = k < ca ? a_keys[a0 + k] : b_keys[b0 + (k - ca)];
  __syncthreads();
  const unsigned first = threadIdx.x * items;
  Key merged[items];
  unsigned short from[items];
  if (first < count) {
    unsigned lo = first > cb ? first - cb : 0, hi = first < ca ? first : ca;
    while (lo < hi) {
      const unsigned mid = (lo + hi) / 2;
      if (!less(s_keys[ca + (first - 1 - mid)], s_keys[mid])) lo = mid + 1;
      else hi = mid;
    }
    unsigned ia = lo, ib = first - lo;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const bool take_a = ib >= cb || (ia < ca && !less(s_keys[ca + ib], s_keys[ia]));
      const unsigned slot = take_a ? ia : ca + ib;
      if (ia + ib < count) {
        merged[k] = s_keys[slot];
        from[k] = static_cast<unsigned short>(slot);
      }
      ia += take_a ? 1u : 0u;
      ib += take_a ? 0u : 1u;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < items; ++k)
    if (first + k < count) {
      s_keys[first + k] = merged[k];
      s_from[first + k] = from[k];
    }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < count; k += blockDim.x) out_keys[d0 + k] = s_keys[k];
  if constexpr (has_values)
    for (unsigned k = threadIdx.x; k < count; k += blockDim.x) {
      const unsigned slot = s_from[k];
      out_values[d0 + k] = slot < ca ? a_values[a0 + slot] : b_values[b0 + (slot - ca)];
    }
}

template <class Key, class Value>
void legacy_merge(const Key* a, const Value* av, std::uint64_t na, const Key* b, const Value* bv, std::uint64_t nb,
                  Key* out, Value* outv, std::uint64_t* splits) {
  const std::uint64_t n = na + nb, tiles = (n + 2047) / 2048;
  dd::merge_partition_kernel<Key, plain_less<Key>><<<unsigned((tiles + 256) / 256), 256>>>(a, na, b, nb, tiles, 2048,
                                                                                         plain_less<Key>{}, splits);
  legacy_tile_kernel<Key, Value, plain_less<Key>><<<unsigned(tiles), 256, 2048 * (sizeof(Key) + 2)>>>(
      a, av, na, b, bv, nb, splits, plain_less<Key>{}, out, outv);
}

template <class Shape, class Key, class Value>
void shaped_merge(const Key* a, const Value* av, std::uint64_t na, const Key* b, const Value* bv, std::uint64_t nb,
                  Key* out, Value* outv, std::uint64_t* splits) {
  dd::merge_stable<Key, Value, plain_less<Key>, Shape>(a, av, na, b, bv, nb, out, outv, plain_less<Key>{}, splits, 0);
}

template <class Key>
void sort_run(Key* keys, Key* scratch, std::uint64_t n) {
  std::size_t bytes = 0;
  onepass::sort::gpu::sort_keys<Key>(nullptr, bytes, static_cast<const Key*>(nullptr), nullptr, n);
  void* temp;
  ONEPASS_CUDA_CHECK(cudaMalloc(&temp, bytes));
  onepass::sort::gpu::sort_keys<Key>(temp, bytes, keys, scratch, n);
  ONEPASS_CUDA_CHECK(cudaMemcpy(keys, scratch, n * sizeof(Key), cudaMemcpyDeviceToDevice));
  ONEPASS_CUDA_CHECK(cudaFree(temp));
}

/// Every merge (`merges`: callables with the signature of shaped_merge) of two sorted runs of
/// n keys (na = split) with u32 values checked against std::merge.
template <class Key, class F>
bool check(const char* name, F merge) {
  const std::uint64_t n = (std::uint64_t{1} << 22) + 123, na = n / 3, nb = n - na;
  Key *keys, *scratch, *out;
  std::uint32_t *vals, *outv;
  std::uint64_t* splits;
  ONEPASS_CUDA_CHECK(cudaMalloc(&keys, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&scratch, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&out, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&vals, n * 4));
  ONEPASS_CUDA_CHECK(cudaMalloc(&outv, n * 4));
  ONEPASS_CUDA_CHECK(cudaMalloc(&splits, dd::merge_split_words(n) * 8));
  fill_random<Key><<<1024, 256>>>(keys, n, 5, Key(0xFFF));
  sort_run(keys, scratch, na);
  sort_run(keys + na, scratch, nb);
  iota<<<1024, 256>>>(vals, n);
  std::vector<Key> hk(n);
  ONEPASS_CUDA_CHECK(cudaMemcpy(hk.data(), keys, n * sizeof(Key), cudaMemcpyDeviceToHost));
  std::vector<std::pair<Key, std::uint32_t>> in(n), want(n);
  for (std::uint64_t i = 0; i < n; ++i) in[i] = {hk[i], std::uint32_t(i)};
  const auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::merge(in.begin(), in.begin() + na, in.begin() + na, in.end(), want.begin(), by_key);
  merge(keys, vals, na, keys + na, vals + na, nb, out, outv, splits);
  ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> gk(n);
  std::vector<std::uint32_t> gv(n);
  ONEPASS_CUDA_CHECK(cudaMemcpy(gk.data(), out, n * sizeof(Key), cudaMemcpyDeviceToHost));
  ONEPASS_CUDA_CHECK(cudaMemcpy(gv.data(), outv, n * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (std::uint64_t i = 0; i < n && ok; ++i) ok = gk[i] == want[i].first && gv[i] == want[i].second;
  std::printf("%-4s %-10s merge of %llu + %llu keys (12-bit, u32 values) vs std::merge: %s\n",
              sizeof(Key) == 4 ? "u32" : "u64", name, (unsigned long long)na, (unsigned long long)nb,
              ok ? "ok" : "MISMATCH");
  for (void* p : {(void*)keys, (void*)scratch, (void*)out, (void*)vals, (void*)outv, (void*)splits})
    ONEPASS_CUDA_CHECK(cudaFree(p));
  return ok;
}

template <class Key, class Value>
void time_all(unsigned log2n) {
  using V = Value;
  constexpr bool has_values = !std::is_same_v<Value, dd::merge_no_values>;
  const std::uint64_t n = std::uint64_t{1} << log2n, na = n / 2, nb = n - na;
  Key *keys, *out;
  V *vals = nullptr, *outv = nullptr;
  std::uint64_t* splits;
  ONEPASS_CUDA_CHECK(cudaMalloc(&keys, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&out, n * sizeof(Key)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&splits, dd::merge_split_words(n) * 8));
  if constexpr (has_values) {
    ONEPASS_CUDA_CHECK(cudaMalloc(&vals, n * sizeof(V)));
    ONEPASS_CUDA_CHECK(cudaMalloc(&outv, n * sizeof(V)));
    iota<<<1024, 256>>>(reinterpret_cast<std::uint32_t*>(vals), n);
  }
  fill_random<Key><<<1024, 256>>>(keys, n, 9, ~Key(0));
  sort_run(keys, out, na);
  sort_run(keys + na, out, nb);
  const double bytes = 2.0 * n * (sizeof(Key) + (has_values ? sizeof(V) : 0));
  const char* shape = has_values ? "u32+u32" : sizeof(Key) == 4 ? "u32" : "u64";
  const auto report = [&](const char* what, double ms) {
    std::printf("%-8s n=2^%u %-24s %8.3f ms %7.0f GB/s\n", shape, log2n, what, ms, bytes / ms / 1e6);
  };
  report("copy (floor)", median_ms([&] {
           cudaMemcpyAsync(out, keys, n * sizeof(Key), cudaMemcpyDeviceToDevice);
           if constexpr (has_values) cudaMemcpyAsync(outv, vals, n * sizeof(V), cudaMemcpyDeviceToDevice);
         }));
  report("legacy 256x8", median_ms([&] { legacy_merge<Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv, splits); }));
  report("256x8", median_ms([&] {
           shaped_merge<dd::merge_shape<256, 8>, Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv, splits);
         }));
  report("128x16", median_ms([&] {
           shaped_merge<dd::merge_shape<128, 16>, Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv, splits);
         }));
  report("256x12", median_ms([&] {
           shaped_merge<dd::merge_shape<256, 12>, Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv, splits);
         }));
  report("256x16", median_ms([&] {
           shaped_merge<dd::merge_shape<256, 16>, Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv, splits);
         }));
  report("512x8", median_ms([&] {
           shaped_merge<dd::merge_shape<512, 8>, Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv, splits);
         }));
  if constexpr (sizeof(Key) == 4 && !has_values)
    report("256x24 (6144)", median_ms([&] {
             shaped_merge<dd::merge_shape<256, 24>, Key, V>(keys, vals, na, keys + na, vals + na, nb, out, outv,
                                                           splits);
           }));
  report("default", median_ms([&] {
           dd::merge_stable<Key, V, plain_less<Key>>(keys, vals, na, keys + na, vals + na, nb, out, outv,
                                                     plain_less<Key>{}, splits, 0);
         }));
  for (void* p : {(void*)keys, (void*)out, (void*)splits, (void*)vals, (void*)outv})
    if (p) ONEPASS_CUDA_CHECK(cudaFree(p));
}

int main(int argc, char** argv) {
  const unsigned log2n = argc > 1 ? unsigned(std::atoi(argv[1])) : 30;
  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  bool ok = true;
  ok &= check<u32>("legacy", [](auto... a) { legacy_merge(a...); });
  ok &= check<u32>("256x8", [](auto... a) { shaped_merge<dd::merge_shape<256, 8>>(a...); });
  ok &= check<u32>("256x16", [](auto... a) { shaped_merge<dd::merge_shape<256, 16>>(a...); });
  ok &= check<u32>("512x8", [](auto... a) { shaped_merge<dd::merge_shape<512, 8>>(a...); });
  ok &= check<u64>("256x8", [](auto... a) { shaped_merge<dd::merge_shape<256, 8>>(a...); });
  ok &= check<u32>("256x24", [](auto... a) { shaped_merge<dd::merge_shape<256, 24>>(a...); });
  ok &= check<u64>("256x12", [](auto... a) { shaped_merge<dd::merge_shape<256, 12>>(a...); });
  ok &= check<u64>("256x16", [](auto... a) { shaped_merge<dd::merge_shape<256, 16>>(a...); });
  time_all<u32, dd::merge_no_values>(log2n);
  time_all<u64, dd::merge_no_values>(log2n - 1);
  time_all<u32, u32>(log2n);
  return ok ? 0 : 1;
}
