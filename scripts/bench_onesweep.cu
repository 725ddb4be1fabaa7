// Side-by-side timing of onepass's Onesweep (sort/onesweep.cuh) and
// cub::DeviceRadixSort at 2^28 keys (u32 keys, u32+u32 pairs, u64 keys), CUDA events,
// median of 7, plus a sweep of binning-kernel shapes (detail::binning_shape) and the
// phases (histogram, one pass). Every timed onepass result is compared with CUB's.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include -DGROUP=g scripts/bench_onesweep.cu
// GROUP 0: public API vs CUB + phases; 1..3: shape sweeps (u32 keys, pairs, u64 keys)
// (the shapes of the last sweep; edit them to try others); 4: key entropy (AND of q
// uniform words, q = 1, 2, 4, 8, 16; the homogeneous-tile short-circuit), u32 keys,
// u32 pairs and u64 keys through the public API, plus one binning pass of u32 keys;
// 5: one pass per ranking method (ballots, match_any, atomic_or, dynamic) per band q;
// 6: small sizes (2^20..2^25, one launch per pass): dynamic vs atomic_or alone vs CUB
// (the ranking alternatives are injected as plan policies: detail::gated_launch);
// 7: early counts (binning_shape's EarlyCounts) per band, u32 keys; 8: the same for
// u32 pairs and u64 keys; 9: early counts with two histogram copies, more shapes;
// 10: one launch of each kernel to compare under Nsight Compute (no timing); 11: ballots
// with one predicate per bit against atomic_or; 12: tile shapes of the ballots kernel;
// 13: u32 pairs with the values prefetched into L2; 14: u32 pairs at 2^24 and 2^28, tile
// shapes and look-back windows, against CUB with a 32-bit count; 15: u32 pairs with the
// values loaded into registers with the keys; 16: u32 pairs with the values through the
// keys' shared buffer after the keys; 17: u32 pairs at 2^20..2^28, tile shapes with the
// values after the keys against CUB with a 32-bit count, timed as sort_headline times
// (L2 flushed before every run) and interleaved (one run of each candidate per round,
// so clock drift hits all alike); 18: small sorts (2^12..2^20, issue 33), every shape, tile
// shapes against CUB's configurations (32-bit count, in/out and DoubleBuffer), interleaved
// with an L2 flush before every run, as GROUP 17.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onepass/sort/onesweep.cuh"

#include "bench_keys.cuh"

#ifndef GROUP
#define GROUP 0
#endif

namespace os = onepass::sort::gpu::onesweep;
template <class T>
__global__ void count_diff(const T* a, const T* b, std::size_t n, unsigned long long* out) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    c += a[i] != b[i];
  if (c) atomicAdd(out, c);
}

template <class T>
unsigned long long diff(const T* a, const T* b, std::size_t n) {
  unsigned long long* d;
  CK(cudaMalloc(&d, 8));
  CK(cudaMemset(d, 0, 8));
  count_diff<<<1024, 256>>>(a, b, n, d);
  unsigned long long h = 0;
  CK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  return h;
}

double median_ms(const std::function<void()>& f, int reps = 7) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();  // warm-up
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) t.push_back(event_ms(a, b, f));
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

constexpr std::size_t n = std::size_t{1} << 28;
/// Whether data's constructor sorts with CUB (the reference and its time); GROUP 10 wants
/// only the launches it names.
constexpr bool time_cub = GROUP != 10;

template <class Key, class Value>
struct data {
  Key *kin, *kout, *ktmp, *kref;
  Value *vin = nullptr, *vout = nullptr, *vtmp = nullptr, *vref = nullptr;
  double cub_ms = 0;
  explicit data(int q = 1) {
    CK(cudaMalloc(&kin, n * sizeof(Key)));
    CK(cudaMalloc(&kout, n * sizeof(Key)));
    CK(cudaMalloc(&ktmp, n * sizeof(Key)));
    CK(cudaMalloc(&kref, n * sizeof(Key)));
    if (q == 1) {
      fill_random<<<4096, 256>>>(kin, n, 12345);
    } else {
      fill_and<<<4096, 256>>>(kin, n, 12345, q);
    }
    if constexpr (!std::is_same_v<Value, os::detail::no_values>) {
      CK(cudaMalloc(&vin, n * sizeof(Value)));
      CK(cudaMalloc(&vout, n * sizeof(Value)));
      CK(cudaMalloc(&vtmp, n * sizeof(Value)));
      CK(cudaMalloc(&vref, n * sizeof(Value)));
      fill_index<<<4096, 256>>>(vin, n);
    }
    // CUB reference and time.
    std::size_t bytes = 0;
    void* temp = nullptr;
    auto run = [&](void* tp) {
      if constexpr (std::is_same_v<Value, os::detail::no_values>) {
        CK(cub::DeviceRadixSort::SortKeys(tp, bytes, kin, kref, n));
      } else {
        CK(cub::DeviceRadixSort::SortPairs(tp, bytes, kin, kref, vin, vref, n));
      }
    };
    if (!time_cub) return;
    run(nullptr);
    CK(cudaMalloc(&temp, bytes));
    cub_ms = median_ms([&] { run(temp); });
    CK(cudaFree(temp));
  }
  ~data() {
    cudaFree(kin); cudaFree(kout); cudaFree(ktmp); cudaFree(kref);
    if (vin) { cudaFree(vin); cudaFree(vout); cudaFree(vtmp); cudaFree(vref); }
  }
  bool check(const char* what) {
    unsigned long long d = diff(kout, kref, n);
    if constexpr (!std::is_same_v<Value, os::detail::no_values>) d += diff(vout, vref, n);
    if (d) std::printf("  MISMATCH %s: %llu\n", what, d);
    return d == 0;
  }
};

const char* name_of(int key_bytes, bool pairs) { return pairs ? "pairs u32+u32" : (key_bytes == 4 ? "keys u32" : "keys u64"); }

/// Enqueues a whole sort of d through plan p (histogram, exclusive sum, every binning
/// pass; the last pass writes d.kout / d.vout).
template <class Plan, class Key, class Value>
void sort_through(const Plan& p, data<Key, Value>& d) {
  const unsigned places = p.num_places();
  p.histogram(d.kin, 0);
  p.exclusive_sum(0);
  const Key* ks = d.kin;
  const Value* vs = d.vin;
  for (unsigned q = 0; q < places; ++q) {
    const bool to_out = (places - 1 - q) % 2 == 0;
    Key* kd = to_out ? d.kout : d.ktmp;
    Value* vd = to_out ? d.vout : d.vtmp;
    p.binning_pass(q, ks, kd, vs, vd, 0);
    ks = kd;
    vs = vd;
  }
}

/// Whole sort through the plan with a given shape; prints ms and GKey/s vs CUB.
template <class Policy, class Key, class Value>
void sweep(data<Key, Value>& d, const char* label) {
  os::detail::plan<8, Key, Value, Policy> p(n, 0, sizeof(Key) * 8, false);
  void* temp;
  CK(cudaMalloc(&temp, p.temp_bytes()));
  p.bind(temp);
  auto sort = [&] { sort_through(p, d); };
  const double ms = median_ms(sort);
  CK(cudaDeviceSynchronize());
  const bool ok = d.check(label);
  const double pass_ms = median_ms([&] { p.binning_pass(0, d.kin, d.kout, d.vin, d.vout, 0); });
  std::printf("  %-34s %-14s sort %.3f ms = %.1f GKey/s (%.2f x CUB), one pass %.0f us %s\n", label,
              name_of(sizeof(Key), !std::is_same_v<Value, os::detail::no_values>), ms, n / ms / 1e6, d.cub_ms / ms,
              pass_ms * 1e3, ok ? "" : "WRONG");
  CK(cudaFree(temp));
}

/// One binning pass at place 0 and at place 3 (keys only), the whole sort, and the check,
/// with Policy (an atomic_or shape wrapped in ungated<> takes the single launch at every
/// size: no match_any partner for crowded places).
template <class Policy, class Key, class Value>
void pass_times(data<Key, Value>& d, const char* label) {
  os::detail::plan<8, Key, Value, Policy> p(n, 0, sizeof(Key) * 8, false);
  void* temp;
  CK(cudaMalloc(&temp, p.temp_bytes()));
  p.bind(temp);
  p.histogram(d.kin, 0);
  p.exclusive_sum(0);
  const double b0 = median_ms([&] { p.binning_pass(0, d.kin, d.kout, d.vin, d.vout, 0); });
  const double b3 = median_ms([&] { p.binning_pass(3, d.kin, d.kout, d.vin, d.vout, 0); });
  auto sort = [&] { sort_through(p, d); };
  const double ms = median_ms(sort);
  const bool ok = d.check(label);
  std::printf("  %-38s pass0 %5.0f us pass3 %5.0f us sort %.3f ms = %.2f GKey/s (%.3f x CUB) %s\n", label, b0 * 1e3,
              b3 * 1e3, ms, n / ms / 1e6, d.cub_ms / ms, ok ? "" : "WRONG");
  CK(cudaFree(temp));
}

/// Median time (ms) of the public API on d: sort_keys, or sort_pairs when d has values;
/// its temporary storage queried, allocated and freed around the timing. The sorted
/// output stays in d.kout (d.vout) for d.check.
template <class Key, class Value>
double time_public_api(data<Key, Value>& d, int reps = 7) {
  auto sort = [&](void* temp, std::size_t& bytes) {
    if constexpr (std::is_same_v<Value, os::detail::no_values>) {
      os::sort_keys<8>(temp, bytes, d.kin, d.kout, n);
    } else {
      os::sort_pairs<8>(temp, bytes, d.kin, d.kout, d.vin, d.vout, n);
    }
  };
  std::size_t bytes = 0;
  sort(nullptr, bytes);
  void* temp;
  CK(cudaMalloc(&temp, bytes));
  const double ms = median_ms([&] { sort(temp, bytes); }, reps);
  CK(cudaFree(temp));
  return ms;
}

[[maybe_unused]] constexpr auto ballots = os::detail::peer_match::ballots;
[[maybe_unused]] constexpr auto atomic_or = os::detail::peer_match::atomic_or;
[[maybe_unused]] constexpr auto match_any = os::detail::peer_match::match_any;
[[maybe_unused]] constexpr auto dynamic = os::detail::peer_match::dynamic;
template <int B, int I, int M, os::detail::peer_match A, int W>
using S = os::detail::binning_shape<B, I, M, A, W>;
/// Early-counts shapes (histogram, publish, then the multisplit from the warps' offsets).
template <int B, int I, int M, os::detail::peer_match A>
using E = os::detail::binning_shape<B, I, M, A, 4, 1>;
/// The same with two histogram copies per warp (even / odd lanes).
template <int B, int I, int M, os::detail::peer_match A>
using E2 = os::detail::binning_shape<B, I, M, A, 4, 2>;
#define SWEEP(d, ...) sweep<S<__VA_ARGS__>>(d, #__VA_ARGS__)
/// An atomic_or shape whose passes never take the gated atomicOr / match_any pair: one
/// launch per portion, the dynamic kernel (gated_launch's default below the pair size),
/// as plan::set_pair_min_items(~0) gave before the setters left the library.
template <class Shape>
using ungated = os::detail::gated_launch<Shape, os::detail::never_paired>;
/// GROUP 6's shape (the u32-keys default when GROUP 6 was recorded, 1237ba7: 256 x 32
/// atomicOr tiles without early counts, pairs from 2^25 keys) with the dynamic kernel or
/// the atomicOr kernel alone below 2^25 keys, as plan::set_small_dynamic chose.
template <bool SmallDynamic>
using small_g6 = os::detail::gated_launch<S<256, 32, 3, atomic_or, 4>, std::uint64_t{1} << 25, SmallDynamic>;

/// u32 pairs in band q: for m = 2^24 and 2^28, CUB with a 32-bit count (its faster
/// configuration for pairs) and then add_shapes(shape), where shape(policy, label) times a
/// whole sort of the first m keys through a plan with that binning policy and checks it
/// against CUB's output (GROUPs 14-16).
template <class AddShapes>
void pairs_against_cub32(int q, AddShapes&& add_shapes) {
  data<std::uint32_t, std::uint32_t> d(q);
  for (std::size_t m : {std::size_t{1} << 24, std::size_t{1} << 28}) {
    std::size_t bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d.kin, d.kref, d.vin, d.vref, static_cast<int>(m)));
    void* t32;
    CK(cudaMalloc(&t32, bytes));
    const double cub32 = median_ms([&] {
      CK(cub::DeviceRadixSort::SortPairs(t32, bytes, d.kin, d.kref, d.vin, d.vref, static_cast<int>(m)));
    }, 11);
    CK(cudaFree(t32));
    std::printf("pairs q=%d m=2^%d CUB n32 %.1f us\n", q, m == (std::size_t{1} << 24) ? 24 : 28, cub32 * 1e3);
    auto shape = [&](auto policy, const char* label) {
      using P = decltype(policy);
      os::detail::plan<8, std::uint32_t, std::uint32_t, P> p(m, 0, 32, false);
      void* temp;
      CK(cudaMalloc(&temp, p.temp_bytes()));
      p.bind(temp);
      auto sort = [&] {
        p.histogram(d.kin, 0);
        p.exclusive_sum(0);
        p.binning_pass(0, d.kin, d.ktmp, d.vin, d.vtmp, 0);
        p.binning_pass(1, d.ktmp, d.kout, d.vtmp, d.vout, 0);
        p.binning_pass(2, d.kout, d.ktmp, d.vout, d.vtmp, 0);
        p.binning_pass(3, d.ktmp, d.kout, d.vtmp, d.vout, 0);
      };
      const double ms = median_ms(sort, 11);
      const unsigned long long wrong = diff(d.kout, d.kref, m) + diff(d.vout, d.vref, m);
      std::printf("  %-34s %.1f us (%.3f x CUB n32)%s\n", label, ms * 1e3, cub32 / ms, wrong ? " WRONG" : "");
      CK(cudaFree(temp));
    };
    add_shapes(shape);
  }
}

/// Interleaved timing (GROUPs 17, 18): `rounds` rounds, each running every run once in
/// order, each run after before(k) (untimed) and an L2 flush (a memset of flush_bytes bytes at
/// flush), between two CUDA events; after round 0's run k, after_first(k) (the output check).
/// The first `warm` rounds are not kept. Returns the kept times of each run, sorted (ms).
std::vector<std::vector<float>> time_interleaved(const std::vector<std::pair<std::string, std::function<void()>>>& runs,
                                                 int rounds, int warm, void* flush, std::size_t flush_bytes,
                                                 const std::function<void(std::size_t)>& before,
                                                 const std::function<void(std::size_t)>& after_first) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<std::vector<float>> t(runs.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k < runs.size(); ++k) {
      before(k);
      CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
      const float ms = event_ms(a, b, runs[k].second);
      if (r >= warm) t[k].push_back(ms);
      if (r == 0) after_first(k);
    }
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  for (auto& v : t) std::sort(v.begin(), v.end());
  return t;
}

/// GROUP 17: u32 pairs (q = 1) at several sizes; each round runs every candidate once
/// (CUB with a 32-bit count first), each after an L2 flush (a 256 MB memset), and the
/// median over the rounds is reported; outputs compared with CUB's.
template <class AddShapes>
void pairs_interleaved(AddShapes&& add_shapes) {
  data<std::uint32_t, std::uint32_t> d(1);
  void* flush;
  const std::size_t flush_bytes = std::size_t{256} << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  for (int lg : {20, 22, 24, 26, 28}) {
    const std::size_t m = std::size_t{1} << lg;
    std::vector<std::pair<std::string, std::function<void()>>> runs;
    std::vector<void*> temps;
    std::size_t bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d.kin, d.kref, d.vin, d.vref, static_cast<int>(m)));
    void* t32;
    CK(cudaMalloc(&t32, bytes));
    temps.push_back(t32);
    runs.emplace_back("CUB n32", [=, &d] {
      std::size_t b = bytes;
      CK(cub::DeviceRadixSort::SortPairs(t32, b, d.kin, d.kref, d.vin, d.vref, static_cast<int>(m)));
    });
    std::vector<std::function<bool()>> checks;
    auto shape = [&](auto policy, const char* label) {
      using P = decltype(policy);
      auto p = std::make_shared<os::detail::plan<8, std::uint32_t, std::uint32_t, P>>(m, 0, 32, false);
      void* temp;
      CK(cudaMalloc(&temp, p->temp_bytes()));
      temps.push_back(temp);
      p->bind(temp);
      runs.emplace_back(label, [p, &d] {
        p->histogram(d.kin, 0);
        p->exclusive_sum(0);
        p->binning_pass(0, d.kin, d.ktmp, d.vin, d.vtmp, 0);
        p->binning_pass(1, d.ktmp, d.kout, d.vtmp, d.vout, 0);
        p->binning_pass(2, d.kout, d.ktmp, d.vout, d.vtmp, 0);
        p->binning_pass(3, d.ktmp, d.kout, d.vtmp, d.vout, 0);
      });
    };
    add_shapes(shape);
    // 17 rounds, rounds 0 and 1 warm up.
    const auto t = time_interleaved(runs, 17, 2, flush, flush_bytes, [](std::size_t) {}, [&](std::size_t k) {
      if (k == 0) return;
      const unsigned long long wrong = diff(d.kout, d.kref, m) + diff(d.vout, d.vref, m);
      if (wrong) std::printf("  %s WRONG at 2^%d (%llu)\n", runs[k].first.c_str(), lg, wrong);
    });
    std::vector<double> med;
    for (const auto& v : t) med.push_back(v[v.size() / 2]);
    std::printf("pairs q=1 m=2^%d (median of 15 interleaved rounds, L2 flushed)\n", lg);
    for (std::size_t k = 0; k < runs.size(); ++k)
      std::printf("  %-34s %8.1f us  min %8.1f  max %8.1f  (%.3f x CUB n32)\n", runs[k].first.c_str(), med[k] * 1e3,
                  t[k].front() * 1e3, t[k].back() * 1e3, med[0] / med[k]);
    for (void* p : temps) CK(cudaFree(p));
  }
  CK(cudaFree(flush));
}

/// GROUP 18: sorts of 2^12..2^20 keys of (Key, Value) (q = 1), interleaved rounds with an
/// L2 flush before every run; CUB with a 32-bit count, in/out and DoubleBuffer (its two
/// configurations that lead below 2^20), then add_shapes(shape) candidates through a plan
/// (histogram, exclusive sum, every binning pass; no selector, no temporary allocation),
/// each checked against CUB's output. Prints the medians and the ratios to CUB's best.
template <class Key, class Value, class AddShapes>
void small_interleaved(const char* what, AddShapes&& add_shapes) {
  constexpr bool pairs = !std::is_same_v<Value, os::detail::no_values>;
  data<Key, Value> d(1);
  void* flush;
  const std::size_t flush_bytes = std::size_t{256} << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  for (int lg : {12, 14, 16, 18, 20}) {
    const std::size_t m = std::size_t{1} << lg;
    std::vector<std::pair<std::string, std::function<void()>>> runs;
    std::vector<void*> temps;
    std::size_t bytes = 0, db_bytes = 0;
    {
      cub::DoubleBuffer<Key> kdb(d.ktmp, d.kout);
      if constexpr (pairs) {
        cub::DoubleBuffer<Value> vdb(d.vtmp, d.vout);
        CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d.kin, d.kref, d.vin, d.vref, static_cast<int>(m)));
        CK(cub::DeviceRadixSort::SortPairs(nullptr, db_bytes, kdb, vdb, static_cast<int>(m)));
      } else {
        CK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, d.kin, d.kref, static_cast<int>(m)));
        CK(cub::DeviceRadixSort::SortKeys(nullptr, db_bytes, kdb, static_cast<int>(m)));
      }
    }
    void *t32, *tdb;
    CK(cudaMalloc(&t32, bytes));
    CK(cudaMalloc(&tdb, db_bytes));
    temps.push_back(t32);
    temps.push_back(tdb);
    runs.emplace_back("CUB n32", [=, &d] {
      std::size_t b = bytes;
      if constexpr (pairs) {
        CK(cub::DeviceRadixSort::SortPairs(t32, b, d.kin, d.kref, d.vin, d.vref, static_cast<int>(m)));
      } else {
        CK(cub::DeviceRadixSort::SortKeys(t32, b, d.kin, d.kref, static_cast<int>(m)));
      }
    });
    runs.emplace_back("CUB n32 DoubleBuffer", [=, &d] {
      std::size_t b = db_bytes;
      cub::DoubleBuffer<Key> k(d.ktmp, d.kout);
      if constexpr (pairs) {
        cub::DoubleBuffer<Value> v(d.vtmp, d.vout);
        CK(cub::DeviceRadixSort::SortPairs(tdb, b, k, v, static_cast<int>(m)));
      } else {
        CK(cub::DeviceRadixSort::SortKeys(tdb, b, k, static_cast<int>(m)));
      }
    });
    auto shape = [&](auto policy, const char* label) {
      using P = decltype(policy);
      auto p = std::make_shared<os::detail::plan<8, Key, Value, P>>(m, 0, 8 * sizeof(Key), false);
      void* temp;
      CK(cudaMalloc(&temp, p->temp_bytes()));
      temps.push_back(temp);
      p->bind(temp);
      runs.emplace_back(label, [p, &d] {
        const unsigned places = p->num_places();
        p->histogram(d.kin, 0);
        p->exclusive_sum(0);
        const Key* ks = d.kin;
        const Value* vs = d.vin;
        for (unsigned q = 0; q < places; ++q) {
          const bool to_out = (places - 1 - q) % 2 == 0;
          Key* kd = to_out ? d.kout : d.ktmp;
          Value* vd = to_out ? d.vout : d.vtmp;
          p->binning_pass(q, ks, kd, vs, vd, 0);
          ks = kd;
          vs = vd;
        }
      });
    };
    add_shapes(shape);
    // 23 rounds, rounds 0..2 warm up.
    const auto before = [&](std::size_t k) {
      if (k != 1) return;  // the DoubleBuffer run sorts d.ktmp in place: its input is copied there first
      CK(cudaMemcpyAsync(d.ktmp, d.kin, m * sizeof(Key), cudaMemcpyDeviceToDevice));
      if constexpr (pairs) CK(cudaMemcpyAsync(d.vtmp, d.vin, m * sizeof(Value), cudaMemcpyDeviceToDevice));
    };
    const auto t = time_interleaved(runs, 23, 3, flush, flush_bytes, before, [&](std::size_t k) {
      if (k < 2) return;
      unsigned long long wrong = diff(d.kout, d.kref, m);
      if constexpr (pairs) wrong += diff(d.vout, d.vref, m);
      if (wrong) std::printf("  %s WRONG at 2^%d (%llu)\n", runs[k].first.c_str(), lg, wrong);
    });
    std::vector<double> med;
    for (const auto& v : t) med.push_back(v[v.size() / 2]);
    const double best = std::min(med[0], med[1]);
    std::printf("%s q=1 m=2^%d (median of 20 interleaved rounds, L2 flushed)\n", what, lg);
    for (std::size_t k = 0; k < runs.size(); ++k)
      std::printf("  %-36s %8.2f us  min %8.2f  max %8.2f  (%.3f x CUB best)\n", runs[k].first.c_str(), med[k] * 1e3,
                  t[k].front() * 1e3, t[k].back() * 1e3, best / med[k]);
    for (void* p : temps) CK(cudaFree(p));
  }
  CK(cudaFree(flush));
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, n = 2^28\n", prop.name);
  using nv = os::detail::no_values;
#if GROUP == 0
  {
    data<std::uint32_t, nv> d;
    const double ms = time_public_api(d);
    d.check("api u32");
    std::printf("keys u32: onepass %.3f ms = %.1f GKey/s, CUB %.3f ms = %.1f GKey/s, ratio %.3f\n", ms, n / ms / 1e6,
                d.cub_ms, n / d.cub_ms / 1e6, d.cub_ms / ms);
    os::detail::plan<8, std::uint32_t> p(n, 0, 32, false);
    void* pt;
    CK(cudaMalloc(&pt, p.temp_bytes()));
    p.bind(pt);
    const double h = median_ms([&] { p.histogram(d.kin, 0); });
    p.histogram(d.kin, 0);
    p.exclusive_sum(0);
    const double b = median_ms([&] { p.binning_pass(0, d.kin, d.kout, nullptr, nullptr, 0); });
    std::printf("  phases: histogram %.0f us, one binning pass %.0f us\n", h * 1e3, b * 1e3);
    CK(cudaFree(pt));
  }
  {
    data<std::uint32_t, std::uint32_t> d;
    const double ms = time_public_api(d);
    d.check("api pairs");
    std::printf("pairs u32+u32: onepass %.3f ms = %.1f GKey/s, CUB %.3f ms = %.1f GKey/s, ratio %.3f\n", ms,
                n / ms / 1e6, d.cub_ms, n / d.cub_ms / 1e6, d.cub_ms / ms);
  }
  {
    data<std::uint64_t, nv> d;
    const double ms = time_public_api(d);
    d.check("api u64");
    std::printf("keys u64: onepass %.3f ms = %.1f GKey/s, CUB %.3f ms = %.1f GKey/s, ratio %.3f\n", ms, n / ms / 1e6,
                d.cub_ms, n / d.cub_ms / 1e6, d.cub_ms / ms);
    os::detail::plan<8, std::uint64_t> p(n, 0, 64, false);
    void* pt;
    CK(cudaMalloc(&pt, p.temp_bytes()));
    p.bind(pt);
    const double h = median_ms([&] { p.histogram(d.kin, 0); });
    std::printf("  phases u64: histogram %.0f us\n", h * 1e3);
    CK(cudaFree(pt));
  }
#elif GROUP == 1
  {
    data<std::uint32_t, nv> d;
    std::printf("CUB keys u32 %.3f ms\n", d.cub_ms);
    SWEEP(d, 256, 32, 3, ballots, 4);
    SWEEP(d, 256, 32, 3, atomic_or, 4);
    SWEEP(d, 384, 24, 2, atomic_or, 4);
    SWEEP(d, 256, 24, 4, atomic_or, 4);
    SWEEP(d, 512, 16, 2, atomic_or, 4);
  }
#elif GROUP == 2
  {
    data<std::uint32_t, std::uint32_t> d;
    std::printf("CUB pairs u32 %.3f ms\n", d.cub_ms);
    SWEEP(d, 384, 24, 2, ballots, 4);
    SWEEP(d, 384, 24, 2, atomic_or, 4);
    SWEEP(d, 256, 32, 3, atomic_or, 4);
  }
#elif GROUP == 3
  {
    data<std::uint64_t, nv> d;
    std::printf("CUB keys u64 %.3f ms\n", d.cub_ms);
    SWEEP(d, 384, 20, 2, ballots, 4);
    SWEEP(d, 384, 20, 2, atomic_or, 4);
    SWEEP(d, 256, 24, 3, atomic_or, 4);
  }
#elif GROUP == 4
  for (int q : {1, 2, 4, 8, 16}) {
    {
      data<std::uint32_t, nv> d(q);
      const double ms = time_public_api(d, 11);
      const bool ok = d.check("entropy u32");
      os::detail::plan<8, std::uint32_t> p(n, 0, 32, false);
      void* pt;
      CK(cudaMalloc(&pt, p.temp_bytes()));
      p.bind(pt);
      p.histogram(d.kin, 0);
      p.exclusive_sum(0);
      const double b0 = median_ms([&] { p.binning_pass(0, d.kin, d.kout, nullptr, nullptr, 0); }, 11);
      const double b3 = median_ms([&] { p.binning_pass(3, d.kin, d.kout, nullptr, nullptr, 0); }, 11);
      std::printf("q=%2d keys u32 : onepass %.3f ms = %.2f GKey/s, CUB %.3f ms, pass0 %.0f us, pass3 %.0f us %s\n", q,
                  ms, n / ms / 1e6, d.cub_ms, b0 * 1e3, b3 * 1e3, ok ? "" : "WRONG");
      CK(cudaFree(pt));
    }
    if (q == 1 || q == 16) {
      data<std::uint32_t, std::uint32_t> d(q);
      const double ms = time_public_api(d, 11);
      const bool ok = d.check("entropy pairs");
      std::printf("q=%2d pairs u32: onepass %.3f ms = %.2f GKey/s, CUB %.3f ms %s\n", q, ms, n / ms / 1e6, d.cub_ms,
                  ok ? "" : "WRONG");
    }
    if (q == 1 || q == 16) {
      data<std::uint64_t, nv> d(q);
      const double ms = time_public_api(d, 11);
      const bool ok = d.check("entropy u64");
      std::printf("q=%2d keys u64 : onepass %.3f ms = %.2f GKey/s, CUB %.3f ms %s\n", q, ms, n / ms / 1e6, d.cub_ms,
                  ok ? "" : "WRONG");
    }
  }
#elif GROUP == 5
  // Ranking per entropy band: one binning pass (place 0 and place 3) of 2^28 u32 keys
  // with each peer-matching method forced (atomic_or without its gated match_any
  // partner; dynamic = the single kernel that picks atomic_or or match_any from the place
  // flag), for the thresholds of the place flags.
  for (int q : {1, 2, 3, 4, 8, 16}) {
    data<std::uint32_t, nv> d(q);
    std::printf("q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<ungated<S<256, 32, 3, atomic_or, 4>>>(d, "256x32 atomic_or (ungated)");
    pass_times<S<256, 32, 3, atomic_or, 4>>(d, "256x32 atomic_or + gated match_any");
    pass_times<S<256, 32, 3, match_any, 4>>(d, "256x32 match_any");
    pass_times<S<256, 32, 3, ballots, 4>>(d, "256x32 ballots");
    pass_times<S<256, 32, 3, dynamic, 4>>(d, "256x32 dynamic");
    pass_times<S<384, 20, 2, ballots, 4>>(d, "384x20 ballots");
    pass_times<ungated<S<384, 20, 2, atomic_or, 4>>>(d, "384x20 atomic_or (ungated)");
    pass_times<S<384, 20, 2, match_any, 4>>(d, "384x20 match_any");
  }
#elif GROUP == 6
  // Small portions (below gated_launch's pair size, 2^25): one launch per pass, dynamic
  // (atomicOr or match_any by the place flag) vs atomicOr alone (small_g6), against CUB
  // (64-bit NumItemsT) on the first m keys.
  for (int q : {1, 2, 3, 4, 8}) {
    data<std::uint32_t, nv> d(q);
    for (int w : {20, 22, 23, 24, 25}) {
      const std::size_t m = std::size_t{1} << w;
      std::size_t cub_bytes = 0;
      CK(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, d.kin, d.kref, m));
      void* cub_temp;
      CK(cudaMalloc(&cub_temp, cub_bytes));
      const double cub_ms = median_ms([&] { CK(cub::DeviceRadixSort::SortKeys(cub_temp, cub_bytes, d.kin, d.kref, m)); }, 11);
      CK(cudaFree(cub_temp));
      std::printf("q=%2d n=2^%d CUB %.1f us", q, w, cub_ms * 1e3);
      auto one = [&](auto policy, bool dyn) {
        os::detail::plan<8, std::uint32_t, nv, decltype(policy)> p(m, 0, 32, false);
        void* temp;
        CK(cudaMalloc(&temp, p.temp_bytes()));
        p.bind(temp);
        auto sort = [&] {
          p.histogram(d.kin, 0);
          p.exclusive_sum(0);
          p.binning_pass(0, d.kin, d.ktmp, nullptr, nullptr, 0);
          p.binning_pass(1, d.ktmp, d.kout, nullptr, nullptr, 0);
          p.binning_pass(2, d.kout, d.ktmp, nullptr, nullptr, 0);
          p.binning_pass(3, d.ktmp, d.kout, nullptr, nullptr, 0);
        };
        const double ms = median_ms(sort, 11);
        const unsigned long long wrong = diff(d.kout, d.kref, m);
        std::printf(" | %s %.1f us (%.3f x CUB)%s", dyn ? "dynamic" : "atomic_or", ms * 1e3, cub_ms / ms,
                    wrong ? " WRONG" : "");
        CK(cudaFree(temp));
      };
      one(small_g6<false>{}, false);
      one(small_g6<true>{}, true);
      std::printf("\n");
    }
  }
#elif GROUP == 7
  // Early counts (binning_shape's EarlyCounts) against the default shape, u32 keys per
  // entropy band: one pass at place 0 and 3, the whole sort, and CUB in the same run.
  for (int q : {1, 2, 3, 4, 8, 16}) {
    data<std::uint32_t, nv> d(q);
    std::printf("q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<os::detail::binning_policy<4, 0, 8>>(d, "default (256x32 atomic_or gated)");
    pass_times<E<256, 32, 3, atomic_or>>(d, "early 256x32 atomic_or gated");
    pass_times<E<256, 32, 3, ballots>>(d, "early 256x32 ballots");
    pass_times<E<384, 19, 3, ballots>>(d, "early 384x19/3 ballots");
    pass_times<E<384, 20, 3, ballots>>(d, "early 384x20/3 ballots");
    pass_times<E<384, 19, 3, atomic_or>>(d, "early 384x19/3 atomic_or gated");
    pass_times<E<384, 20, 2, atomic_or>>(d, "early 384x20/2 atomic_or gated");
    pass_times<E<512, 15, 2, ballots>>(d, "early 512x15/2 ballots");
  }
#elif GROUP == 8
  // Early counts for u32 pairs and u64 keys (q = 1 and 3).
  for (int q : {1, 3}) {
    {
      data<std::uint32_t, std::uint32_t> d(q);
      std::printf("pairs q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
      pass_times<os::detail::binning_policy<4, 4, 8>>(d, "default pairs (384x24 ballots)");
      pass_times<E<384, 24, 2, ballots>>(d, "early 384x24/2 ballots");
      pass_times<E<384, 17, 3, ballots>>(d, "early 384x17/3 ballots");
      pass_times<E<384, 18, 2, ballots>>(d, "early 384x18/2 ballots");
      pass_times<E<256, 24, 3, atomic_or>>(d, "early 256x24/3 atomic_or gated");
      pass_times<E<384, 17, 3, atomic_or>>(d, "early 384x17/3 atomic_or gated");
    }
    {
      data<std::uint64_t, nv> d(q);
      std::printf("u64 q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
      pass_times<os::detail::binning_policy<8, 0, 8>>(d, "default u64 (384x20 atomic_or gated)");
      pass_times<E<384, 20, 2, atomic_or>>(d, "early 384x20/2 atomic_or gated");
      pass_times<E<384, 19, 3, ballots>>(d, "early 384x19/3 ballots");
      pass_times<E<384, 19, 3, atomic_or>>(d, "early 384x19/3 atomic_or gated");
      pass_times<E<256, 24, 3, atomic_or>>(d, "early 256x24/3 atomic_or gated");
    }
  }
#elif GROUP == 9
  // Early counts, second round: two histogram copies per warp, more tile shapes.
  for (int q : {1, 2, 3, 4}) {
    data<std::uint32_t, nv> d(q);
    std::printf("q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<E<256, 32, 3, atomic_or>>(d, "early 256x32 atomic_or gated");
    pass_times<E2<256, 32, 3, atomic_or>>(d, "early2 256x32 atomic_or gated");
    pass_times<E2<256, 32, 3, ballots>>(d, "early2 256x32 ballots");
    pass_times<E2<384, 20, 3, ballots>>(d, "early2 384x20/3 ballots");
    pass_times<E2<384, 19, 3, atomic_or>>(d, "early2 384x19/3 atomic_or gated");
    pass_times<E<256, 30, 3, atomic_or>>(d, "early 256x30 atomic_or gated");
    pass_times<E<256, 28, 3, atomic_or>>(d, "early 256x28 atomic_or gated");
  }
  for (int q : {1, 3}) {
    data<std::uint32_t, std::uint32_t> d(q);
    std::printf("pairs q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<E<384, 24, 2, ballots>>(d, "early 384x24/2 ballots");
    pass_times<E2<384, 24, 2, ballots>>(d, "early2 384x24/2 ballots");
    pass_times<E<384, 24, 2, atomic_or>>(d, "early 384x24/2 atomic_or gated");
    pass_times<E<256, 28, 3, ballots>>(d, "early 256x28/3 ballots");
    pass_times<E<512, 16, 2, ballots>>(d, "early 512x16/2 ballots");
    pass_times<E<384, 28, 2, ballots>>(d, "early 384x28/2 ballots");
  }
  for (int q : {1, 3}) {
    data<std::uint64_t, nv> d(q);
    std::printf("u64 q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<E<384, 20, 2, atomic_or>>(d, "early 384x20/2 atomic_or gated");
    pass_times<E2<384, 20, 2, atomic_or>>(d, "early2 384x20/2 atomic_or gated");
    pass_times<E2<256, 24, 3, atomic_or>>(d, "early2 256x24/3 atomic_or gated");
    pass_times<E<384, 16, 2, atomic_or>>(d, "early 384x16/2 atomic_or gated");
    pass_times<E<256, 20, 3, atomic_or>>(d, "early 256x20/3 atomic_or gated");
  }
#elif GROUP == 10
  // For Nsight Compute (one launch of each kernel to compare): u32 keys at q = 3, one
  // pass of the early-counts atomic_or shape (its gated launch and the empty match_any
  // partner), one of the early-counts ballots shape, then CUB's sort; u32 pairs at q = 1,
  // one early-counts ballots pass, then CUB's sort.
  {
    data<std::uint32_t, nv> d(3);
    os::detail::plan<8, std::uint32_t, nv, E<256, 32, 3, atomic_or>> a(n, 0, 32, false);
    os::detail::plan<8, std::uint32_t, nv, E<384, 20, 3, ballots>> b(n, 0, 32, false);
    void *ta, *tb, *tc;
    CK(cudaMalloc(&ta, a.temp_bytes()));
    CK(cudaMalloc(&tb, b.temp_bytes()));
    a.bind(ta);
    b.bind(tb);
    a.histogram(d.kin, 0);
    a.exclusive_sum(0);
    b.histogram(d.kin, 0);
    b.exclusive_sum(0);
    a.binning_pass(0, d.kin, d.kout, nullptr, nullptr, 0);
    b.binning_pass(0, d.kin, d.kout, nullptr, nullptr, 0);
    std::size_t bytes = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, d.kin, d.kref, n));
    CK(cudaMalloc(&tc, bytes));
    CK(cub::DeviceRadixSort::SortKeys(tc, bytes, d.kin, d.kref, n));
    CK(cudaDeviceSynchronize());
    cudaFree(ta); cudaFree(tb); cudaFree(tc);
  }
  {
    data<std::uint32_t, std::uint32_t> d(1);
    os::detail::plan<8, std::uint32_t, std::uint32_t, E<384, 24, 2, ballots>> a(n, 0, 32, false);
    void *ta, *tc;
    CK(cudaMalloc(&ta, a.temp_bytes()));
    a.bind(ta);
    a.histogram(d.kin, 0);
    a.exclusive_sum(0);
    a.binning_pass(0, d.kin, d.kout, d.vin, d.vout, 0);
    std::size_t bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d.kin, d.kref, d.vin, d.vref, n));
    CK(cudaMalloc(&tc, bytes));
    CK(cub::DeviceRadixSort::SortPairs(tc, bytes, d.kin, d.kref, d.vin, d.vref, n));
    CK(cudaDeviceSynchronize());
    cudaFree(ta); cudaFree(tc);
  }
#elif GROUP == 11
  // Ballots with one predicate per bit (detail::agreeing_lanes) against atomic_or,
  // early counts throughout: u32 keys per band, u32 pairs and u64 keys at q = 1 and 3.
  for (int q : {1, 2, 3, 4, 8}) {
    data<std::uint32_t, nv> d(q);
    std::printf("q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<E<256, 32, 3, atomic_or>>(d, "early 256x32 atomic_or gated");
    pass_times<E<256, 32, 3, ballots>>(d, "early 256x32 ballots");
    pass_times<E<384, 20, 3, ballots>>(d, "early 384x20/3 ballots");
    pass_times<E<384, 19, 3, ballots>>(d, "early 384x19/3 ballots");
    pass_times<E<512, 15, 2, ballots>>(d, "early 512x15/2 ballots");
    pass_times<E<384, 20, 3, atomic_or>>(d, "early 384x20/3 atomic_or gated");
  }
  for (int q : {1, 3}) {
    {
      data<std::uint32_t, std::uint32_t> d(q);
      std::printf("pairs q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
      pass_times<E<384, 24, 2, ballots>>(d, "early 384x24/2 ballots");
      pass_times<E<384, 17, 3, ballots>>(d, "early 384x17/3 ballots");
      pass_times<E<384, 28, 2, ballots>>(d, "early 384x28/2 ballots");
      pass_times<E<256, 28, 3, ballots>>(d, "early 256x28/3 ballots");
    }
    {
      data<std::uint64_t, nv> d(q);
      std::printf("u64 q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
      pass_times<E<384, 20, 2, atomic_or>>(d, "early 384x20/2 atomic_or gated");
      pass_times<E<384, 20, 2, ballots>>(d, "early 384x20/2 ballots");
      pass_times<E<256, 24, 3, ballots>>(d, "early 256x24/3 ballots");
      pass_times<E<256, 24, 3, atomic_or>>(d, "early 256x24/3 atomic_or gated");
    }
  }
#elif GROUP == 12
  // Tile shapes for the early-counts ballots kernel: u32 pairs (q = 1, 3), then u32 and
  // u64 keys at q = 1; the first row of each is the default.
  for (int q : {1, 3}) {
    data<std::uint32_t, std::uint32_t> d(q);
    std::printf("pairs q=%2d CUB %.3f ms = %.2f GKey/s\n", q, d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<os::detail::binning_policy<4, 4, 8>>(d, "default pairs (384x28/2)");
    pass_times<E<384, 32, 2, ballots>>(d, "early 384x32/2 ballots");
    pass_times<E<256, 40, 2, ballots>>(d, "early 256x40/2 ballots");
    pass_times<E<256, 48, 2, ballots>>(d, "early 256x48/2 ballots");
    pass_times<E<512, 20, 2, ballots>>(d, "early 512x20/2 ballots");
    pass_times<E<384, 26, 2, ballots>>(d, "early 384x26/2 ballots");
  }
  {
    data<std::uint32_t, nv> d(1);
    std::printf("keys q= 1 CUB %.3f ms = %.2f GKey/s\n", d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<os::detail::binning_policy<4, 0, 8>>(d, "default keys (256x32/3)");
    pass_times<E<256, 36, 3, ballots>>(d, "early 256x36/3 ballots");
    pass_times<E<256, 40, 2, ballots>>(d, "early 256x40/2 ballots");
    pass_times<E<384, 24, 2, ballots>>(d, "early 384x24/2 ballots");
  }
  {
    data<std::uint64_t, nv> d(1);
    std::printf("u64 q= 1 CUB %.3f ms = %.2f GKey/s\n", d.cub_ms, n / d.cub_ms / 1e6);
    pass_times<os::detail::binning_policy<8, 0, 8>>(d, "default u64 (384x20/2)");
    pass_times<E<384, 24, 2, ballots>>(d, "early 384x24/2 ballots");
    pass_times<E<256, 32, 2, ballots>>(d, "early 256x32/2 ballots");
    pass_times<E<384, 16, 2, ballots>>(d, "early 384x16/2 ballots");
  }
#elif GROUP == 13
  // u32 pairs: prefetching the tile's values into L2 (binning_shape's PrefetchValues),
  // against CUB with a 32-bit count (its faster configuration for pairs) and 64-bit.
  for (int q : {1, 3}) {
    data<std::uint32_t, std::uint32_t> d(q);
    std::size_t bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d.kin, d.kref, d.vin, d.vref, static_cast<int>(n)));
    void* t32;
    CK(cudaMalloc(&t32, bytes));
    const double cub32 = median_ms([&] {
      CK(cub::DeviceRadixSort::SortPairs(t32, bytes, d.kin, d.kref, d.vin, d.vref, static_cast<int>(n)));
    });
    CK(cudaFree(t32));
    std::printf("pairs q=%2d CUB n64 %.3f ms, CUB n32 %.3f ms = %.2f GKey/s (ratios below: vs n64)\n", q, d.cub_ms,
                cub32, n / cub32 / 1e6);
    using P1 = os::detail::binning_shape<256, 48, 2, ballots, 4, 1, 1>;
    using P2 = os::detail::binning_shape<384, 32, 2, ballots, 4, 1, 1>;
    using P3 = os::detail::binning_shape<384, 28, 2, ballots, 4, 1, 1>;
    using P4 = os::detail::binning_shape<384, 24, 2, ballots, 4, 1, 1>;
    pass_times<E<256, 48, 2, ballots>>(d, "early 256x48/2 ballots");
    pass_times<P1>(d, "early 256x48/2 ballots prefetch");
    pass_times<E<384, 32, 2, ballots>>(d, "early 384x32/2 ballots");
    pass_times<P2>(d, "early 384x32/2 ballots prefetch");
    pass_times<P3>(d, "early 384x28/2 ballots prefetch");
    pass_times<P4>(d, "early 384x24/2 ballots prefetch");
  }
#elif GROUP == 14
  // u32 pairs, q = 1: tile shapes and look-back windows of the early-counts ballots kernel.
  for (int q : {1}) {
    pairs_against_cub32(q, [](auto&& shape) {
      shape(os::detail::binning_shape<256, 48, 2, ballots, 4, 1>{}, "256x48/2 window 4 (default)");
      shape(os::detail::binning_shape<256, 48, 2, ballots, 8, 1>{}, "256x48/2 window 8");
      shape(os::detail::binning_shape<256, 48, 2, ballots, 2, 1>{}, "256x48/2 window 2");
      shape(os::detail::binning_shape<256, 52, 2, ballots, 4, 1>{}, "256x52/2");
      shape(os::detail::binning_shape<288, 44, 2, ballots, 4, 1>{}, "288x44/2");
      shape(os::detail::binning_shape<320, 40, 2, ballots, 4, 1>{}, "320x40/2");
      shape(os::detail::binning_shape<384, 32, 2, ballots, 4, 1>{}, "384x32/2");
      shape(os::detail::binning_shape<384, 32, 2, ballots, 8, 1>{}, "384x32/2 window 8");
      shape(os::detail::binning_shape<256, 44, 2, ballots, 4, 1>{}, "256x44/2");
    });
  }
#elif GROUP == 15
  // u32 pairs, q = 1 and 3: the values loaded into registers with the keys (PrefetchValues 2).
  for (int q : {1, 3}) {
    pairs_against_cub32(q, [](auto&& shape) {
      shape(os::detail::binning_policy<4, 4, 8>{}, "default (256x48/2)");
      shape(os::detail::binning_shape<384, 24, 2, ballots, 4, 1, 2>{}, "384x24/2 values in registers");
      shape(os::detail::binning_shape<320, 28, 2, ballots, 4, 1, 2>{}, "320x28/2 values in registers");
      shape(os::detail::binning_shape<256, 32, 2, ballots, 4, 1, 2>{}, "256x32/2 values in registers");
      shape(os::detail::binning_shape<256, 40, 2, ballots, 4, 1, 2>{}, "256x40/2 values in registers");
      shape(os::detail::binning_shape<384, 28, 2, ballots, 4, 1, 2>{}, "384x28/2 values in registers");
      shape(os::detail::binning_shape<256, 48, 2, ballots, 4, 1, 2>{}, "256x48/2 values in registers");
      shape(os::detail::binning_shape<256, 48, 2, ballots, 2, 1>{}, "256x48/2 window 2");
    });
  }
#elif GROUP == 16
  // u32 pairs, q = 1 and 3: the values through the keys' shared buffer after the keys
  // (ValuesAfterKeys).
  for (int q : {1, 3}) {
    pairs_against_cub32(q, [](auto&& shape) {
      shape(os::detail::binning_policy<4, 4, 8>{}, "default (256x48/2)");
      shape(os::detail::binning_shape<256, 48, 2, ballots, 4, 1, 0, true>{}, "256x48/2 values after keys");
      shape(os::detail::binning_shape<256, 36, 3, ballots, 4, 1, 0, true>{}, "256x36/3 values after keys");
      shape(os::detail::binning_shape<256, 40, 3, ballots, 4, 1, 0, true>{}, "256x40/3 values after keys");
      shape(os::detail::binning_shape<384, 32, 2, ballots, 4, 1, 0, true>{}, "384x32/2 values after keys");
      shape(os::detail::binning_shape<384, 28, 2, ballots, 4, 1, 0, true>{}, "384x28/2 values after keys");
      shape(os::detail::binning_shape<384, 24, 3, ballots, 4, 1, 0, true>{}, "384x24/3 values after keys");
      shape(os::detail::binning_shape<512, 24, 2, ballots, 4, 1, 0, true>{}, "512x24/2 values after keys");
      shape(os::detail::binning_shape<256, 56, 2, ballots, 4, 1, 0, true>{}, "256x56/2 values after keys");
    });
  }
#elif GROUP == 17
  pairs_interleaved([](auto&& shape) {
    shape(os::detail::binning_policy<4, 4, 8>{}, "default (256x56/2 values after keys)");
    shape(os::detail::binning_shape<256, 48, 2, ballots, 4, 1>{}, "256x48/2 (previous default)");
    shape(os::detail::binning_shape<384, 32, 2, ballots, 4, 1, 0, true>{}, "384x32/2 values after keys");
    shape(os::detail::binning_shape<512, 24, 2, ballots, 4, 1, 0, true>{}, "512x24/2 values after keys");
    shape(os::detail::binning_shape<256, 48, 2, ballots, 4, 1, 0, true>{}, "256x48/2 values after keys");
    shape(os::detail::binning_shape<384, 28, 2, ballots, 4, 1, 0, true>{}, "384x28/2 values after keys");
    shape(os::detail::binning_shape<256, 32, 3, ballots, 4, 1, 0, true>{}, "256x32/3 values after keys");
  });
#elif GROUP == 18
  using os::detail::binning_shape;
  using os::detail::no_values;
  small_interleaved<std::uint32_t, no_values>("keys u32", [](auto&& shape) {
    shape(os::detail::binning_policy<4, 0, 8>{}, "default (256x36/3 early counts)");
    shape(binning_shape<256, 16, 3, ballots, 4, 1>{}, "256x16/3 early counts");
    shape(binning_shape<256, 8, 4, ballots, 4, 1>{}, "256x8/4 early counts");
    shape(binning_shape<384, 8, 3, ballots, 4, 1>{}, "384x8/3 early counts");
  });
  small_interleaved<std::uint32_t, std::uint32_t>("pairs u32+u32", [](auto&& shape) {
    shape(os::detail::binning_policy<4, 4, 8>::small_tiles{}, "default below 2^25 (384x32/2 vak)");
    shape(binning_shape<256, 16, 3, ballots, 4, 1, 0, true>{}, "256x16/3 values after keys");
    shape(binning_shape<256, 8, 4, ballots, 4, 1, 0, true>{}, "256x8/4 values after keys");
  });
  small_interleaved<std::uint64_t, no_values>("keys u64", [](auto&& shape) {
    shape(os::detail::binning_policy<8, 0, 8>{}, "default (384x24/2 early counts)");
    shape(binning_shape<256, 12, 3, ballots, 4, 1>{}, "256x12/3 early counts");
    shape(binning_shape<256, 8, 4, ballots, 4, 1>{}, "256x8/4 early counts");
  });
  small_interleaved<std::uint64_t, std::uint64_t>("pairs u64+u64", [](auto&& shape) {
    shape(os::detail::binning_policy<8, 8, 8>{}, "default (512x12/2)");
    shape(binning_shape<256, 12, 3, ballots, 4, 1>{}, "256x12/3 early counts");
    shape(binning_shape<256, 8, 4, ballots, 4, 1>{}, "256x8/4 early counts");
  });
#endif
  return 0;
}
