// scripts/bench_local_finish.cu — issue 33: the hybrid MSD sort's local finish
// (sort/hybrid_msd/local_finish.cuh) on a whole input of 4097..6144 keys, one block,
// timed per block shape (threads x keys per thread) against CUB's DeviceRadixSort (32-bit
// count; in/out and DoubleBuffer; its single-tile path below about 4.9k u32 keys) at the
// same sizes. Figs. 9 and 10 at n = 4603 and q = 2..8 put onepass_sort at 0.81-0.89 x CUB
// (best) with the 512 x 12 shape, while the 256 x 16 shape at 4096 keys ran at 1.03-1.10 x.
// Not part of the library.
//
// Keys: the AND of q uniform words (Onesweep paper Fig. 9's bands), u32 keys, u32 + u32
// pairs, u64 keys, u64 + u64 pairs. Every candidate's output is compared with CUB's (keys,
// and the values: both sorts are stable). Timing as sort_headline: an L2 flush before every
// run, CUDA events around one call, candidates interleaved (one run of each per round, so
// clock drift hits all alike), median of 25 rounds; microseconds.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include scripts/bench_local_finish.cu -o /tmp/blf
//   /tmp/blf
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/sort/hybrid_msd.cuh"

namespace hm = onepass::sort::gpu::hybrid_msd::detail;

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

template <class T>
__global__ void fill_and(T* p, std::size_t n, std::uint64_t seed, int q) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t acc = ~std::uint64_t{0};
    for (int r = 0; r < q; ++r) {
      std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed + 0x632BE59BD9B4E019ull * r;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      acc &= z;
    }
    p[i] = static_cast<T>(acc);
  }
}
template <class T>
__global__ void fill_index(T* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<T>(i);
}

struct timer {
  cudaEvent_t a, b;
  void* flush = nullptr;
  static constexpr std::size_t flush_bytes = std::size_t{128} << 20;  // > the H100's 50 MB L2
  timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaMalloc(&flush, flush_bytes));
  }
  float once(const std::function<void()>& f) {
    CK(cudaMemsetAsync(flush, 0, flush_bytes));
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1000.0f;
  }
};

template <class T>
bool equal(const T* a, const T* b, std::size_t n) {
  std::vector<T> x(n), y(n);
  CK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  return x == y;
}

template <class Key, class Value>
struct candidate {
  std::string name;
  std::function<void()> run;
  std::function<void()> reset;  // outside the timed region (DoubleBuffer's input)
  const Key* keys_out;
  const Value* values_out;
};

/// One whole-input launch of the local finish with shape Block x Items (as plan::run_order
/// does for n <= local_max).
template <class Key, class Value, int Block, int Items>
void launch_local(const Key* kin, Key* kout, const Value* vin, Value* vout, std::uint64_t n) {
  constexpr bool has_values = !std::is_same_v<Value, hm::no_values>;
  using word = std::conditional_t<has_values, hm::value_word<Value>, hm::no_values>;
  constexpr auto kernel = hm::local_sort_kernel<Key, word, false, Block, Items, 1>;
  constexpr std::size_t shared = sizeof(hm::local_stage<Key, word, Block, Items>);
  static bool once = [] {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    return true;
  }();
  (void)once;
  hm::buffers<Key> keys{kin, kout, nullptr};
  hm::buffers<word> values{nullptr, nullptr, nullptr};
  if constexpr (has_values) {
    values = {reinterpret_cast<const word*>(vin), reinterpret_cast<word*>(vout), nullptr};
  }
  const hm::segment whole{0, n, hm::in_buffer, 0};
  constexpr unsigned bits = 8 * sizeof(Key);
  kernel<<<1, Block, shared>>>(keys, values, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, bits, bits,
                                whole);
  CK(cudaGetLastError());
}

template <class Key, class Value>
void bench(const char* shape, std::uint64_t n, int q, timer& t, int rounds) {
  constexpr bool has_values = !std::is_same_v<Value, hm::no_values>;
  using V = std::conditional_t<has_values, Value, std::uint32_t>;  // a dummy buffer for keys-only
  Key *kin, *kdb_in, *kdb_alt, *kref;
  V *vin, *vdb_in, *vdb_alt, *vref;
  const int shapes = 5;
  Key* kout[shapes];
  V* vout[shapes];
  CK(cudaMalloc(&kin, n * sizeof(Key)));
  CK(cudaMalloc(&kdb_in, n * sizeof(Key)));
  CK(cudaMalloc(&kdb_alt, n * sizeof(Key)));
  CK(cudaMalloc(&kref, n * sizeof(Key)));
  CK(cudaMalloc(&vin, n * sizeof(V)));
  CK(cudaMalloc(&vdb_in, n * sizeof(V)));
  CK(cudaMalloc(&vdb_alt, n * sizeof(V)));
  CK(cudaMalloc(&vref, n * sizeof(V)));
  for (int s = 0; s < shapes; ++s) {
    CK(cudaMalloc(&kout[s], n * sizeof(Key)));
    CK(cudaMalloc(&vout[s], n * sizeof(V)));
  }
  fill_and<<<64, 256>>>(kin, n, 777 + n, q);
  fill_index<<<64, 256>>>(vin, n);
  CK(cudaDeviceSynchronize());
  const int num = static_cast<int>(n);
  // CUB: in/out and DoubleBuffer, 32-bit count, temporary storage outside the timed region.
  std::size_t bytes_io = 0, bytes_db = 0;
  cub::DoubleBuffer<Key> kdb(kdb_in, kdb_alt);
  cub::DoubleBuffer<V> vdb(vdb_in, vdb_alt);
  if constexpr (has_values) {
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes_io, kin, kref, vin, vref, num));
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes_db, kdb, vdb, num));
  } else {
    CK(cub::DeviceRadixSort::SortKeys(nullptr, bytes_io, kin, kref, num));
    CK(cub::DeviceRadixSort::SortKeys(nullptr, bytes_db, kdb, num));
  }
  void *tmp_io, *tmp_db;
  CK(cudaMalloc(&tmp_io, bytes_io));
  CK(cudaMalloc(&tmp_db, bytes_db));
  auto reset_db = [&] {
    CK(cudaMemcpyAsync(kdb_in, kin, n * sizeof(Key), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpyAsync(vdb_in, vin, n * sizeof(V), cudaMemcpyDeviceToDevice));
    kdb = cub::DoubleBuffer<Key>(kdb_in, kdb_alt);
    vdb = cub::DoubleBuffer<V>(vdb_in, vdb_alt);
  };
  std::vector<candidate<Key, V>> c;
  c.push_back({"CUB n32", [&] {
                 if constexpr (has_values) {
                   CK(cub::DeviceRadixSort::SortPairs(tmp_io, bytes_io, kin, kref, vin, vref, num));
                 } else {
                   CK(cub::DeviceRadixSort::SortKeys(tmp_io, bytes_io, kin, kref, num));
                 }
               }, [] {}, kref, vref});
  c.push_back({"CUB n32 DoubleBuffer", [&] {
                 if constexpr (has_values) {
                   CK(cub::DeviceRadixSort::SortPairs(tmp_db, bytes_db, kdb, vdb, num));
                 } else {
                   CK(cub::DeviceRadixSort::SortKeys(tmp_db, bytes_db, kdb, num));
                 }
               }, reset_db, nullptr, nullptr});
  auto ours = [&](const char* name, int s, auto launch) {
    c.push_back({name, [=] { launch(kin, kout[s], vin, vout[s], n); }, [] {}, kout[s], vout[s]});
  };
  using Vv = std::conditional_t<has_values, Value, hm::no_values>;
  auto cast_launch = [](auto f) {
    return [f](const Key* a, Key* b, const V* va, V* vb, std::uint64_t m) {
      if constexpr (has_values) {
        f(a, b, va, vb, m);
      } else {
        f(a, b, static_cast<const hm::no_values*>(nullptr), static_cast<hm::no_values*>(nullptr), m);
      }
    };
  };
  ours("512x12 (today)", 0, cast_launch([](const Key* a, Key* b, const Vv* va, Vv* vb, std::uint64_t m) {
         launch_local<Key, Vv, 512, 12>(a, b, va, vb, m);
       }));
  ours("384x16", 1, cast_launch([](const Key* a, Key* b, const Vv* va, Vv* vb, std::uint64_t m) {
         launch_local<Key, Vv, 384, 16>(a, b, va, vb, m);
       }));
  ours("256x24", 2, cast_launch([](const Key* a, Key* b, const Vv* va, Vv* vb, std::uint64_t m) {
         launch_local<Key, Vv, 256, 24>(a, b, va, vb, m);
       }));
  ours("768x8", 3, cast_launch([](const Key* a, Key* b, const Vv* va, Vv* vb, std::uint64_t m) {
         launch_local<Key, Vv, 768, 8>(a, b, va, vb, m);
       }));
  if (n <= 5120) {
    ours("256x20", 4, cast_launch([](const Key* a, Key* b, const Vv* va, Vv* vb, std::uint64_t m) {
           launch_local<Key, Vv, 256, 20>(a, b, va, vb, m);
         }));
  }
  // Warm-up and checks against CUB (in/out).
  for (auto& x : c) {
    x.reset();
    x.run();
  }
  CK(cudaDeviceSynchronize());
  std::vector<std::string> bad;
  for (std::size_t i = 2; i < c.size(); ++i) {
    bool ok = equal(c[i].keys_out, kref, n);
    if (has_values) ok = ok && equal(c[i].values_out, vref, n);
    if (!ok) bad.push_back(c[i].name);
  }
  std::vector<std::vector<float>> us(c.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      c[i].reset();
      us[i].push_back(t.once(c[i].run));
    }
  }
  std::vector<float> med(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    std::sort(us[i].begin(), us[i].end());
    med[i] = us[i][us[i].size() / 2];
  }
  const float cub_best = std::min(med[0], med[1]);
  std::printf("%s q=%d n=%llu (median of %d interleaved rounds, L2 flushed)\n", shape, q,
              static_cast<unsigned long long>(n), rounds);
  for (std::size_t i = 0; i < c.size(); ++i)
    std::printf("  %-22s %8.2f us  min %8.2f  max %8.2f  (%.3f x CUB best)\n", c[i].name.c_str(), med[i],
                us[i].front(), us[i].back(), cub_best / med[i]);
  for (auto& b : bad) std::printf("  MISMATCH: %s differs from CUB\n", b.c_str());
  std::fflush(stdout);
  CK(cudaFree(kin));
  CK(cudaFree(kdb_in));
  CK(cudaFree(kdb_alt));
  CK(cudaFree(kref));
  CK(cudaFree(vin));
  CK(cudaFree(vdb_in));
  CK(cudaFree(vdb_alt));
  CK(cudaFree(vref));
  CK(cudaFree(tmp_io));
  CK(cudaFree(tmp_db));
  for (int s = 0; s < shapes; ++s) {
    CK(cudaFree(kout[s]));
    CK(cudaFree(vout[s]));
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 25;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s\n", prop.name);
  timer t;
  const std::uint64_t sizes[] = {4603, 5120, 5880, 6144};
  const int bands[] = {1, 2, 4, 8};
  for (std::uint64_t n : sizes)
    for (int q : bands) bench<std::uint32_t, hm::no_values>("keys u32", n, q, t, rounds);
  for (std::uint64_t n : sizes)
    for (int q : bands) bench<std::uint32_t, std::uint32_t>("pairs u32+u32", n, q, t, rounds);
  for (std::uint64_t n : sizes)
    for (int q : {1, 2, 8}) bench<std::uint64_t, hm::no_values>("keys u64", n, q, t, rounds);
  for (std::uint64_t n : sizes)
    for (int q : {1, 2}) bench<std::uint64_t, std::uint64_t>("pairs u64+u64", n, q, t, rounds);
  return 0;
}
