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
//   /tmp/blf [rounds = 25]
// STUDY=1 (default): the shapes of the library's kernel (512 x 12, 384 x 16, 256 x 24, 768 x 8,
// 256 x 20). STUDY=2 (-DSTUDY=2): how a single block's LSD passes are ranked, u32 keys and u32
// pairs at 4096, 4603 and 4864 keys (CUB's single-tile sort covers 256 x 19 u32 keys): the
// library's kernel (512 x 12); passes ranked by cub::BlockRadixRankMatch (warp-striped, as the
// library's) with 8- or 6-bit digits over every key bit, per shape; cub::BlockRadixSort
// (blocked, counter-based ranking, what CUB's single-tile kernel runs) with 4- to 6-bit digits,
// per shape. STUDY=3 (-DSTUDY=3): the library after the lean shape (onepass::sort::gpu::sort_keys /
// sort_pairs, 4097..5120 keys: 384 x 13 straight LSD up to lean_max = 4992, 512 x 12 above)
// against its kernel in 512 x 12 as before and CUB, every band q = 1, 2, 4, 8, 16; then the
// public calls' outputs against CUB's at 4097, 4603, 4992 and 4993 keys, ascending and
// descending, full and partial bit ranges, keys and pairs (u32 and u64), "check ... ok" or
// "MISMATCH". STUDY=4 (-DSTUDY=4): u32 pairs at 4097..4992 (the lean shape's range), q = 1..16:
// the whole-input kernel in 512 x 12 and 384 x 13, with the predictor or straight LSD passes,
// values loaded after the passes or prefetched with the keys (PrefetchValues). STUDY=5
// (-DSTUDY=5): whole inputs of 2048..4096 keys (the small shape's range), f32 keys as
// sort_headline makes them (sort_headline at 5aa9fdd: 4096 f32 keys 17.4 us, u32 keys 12.5, CUB
// 12.9), u32 keys and u32 pairs: 256 x 16 with the predictor (the library) or straight passes,
// 384 x 13 alike, and onepass::sort.
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
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
#include "onepass/sort/sort.cuh"

#include "bench_keys.cuh"

#ifndef STUDY
#define STUDY 1
#endif

namespace hm = onepass::sort::gpu::hybrid_msd::detail;


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
    return event_ms(a, b, f) * 1000.0f;
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
/// Straight and Prefetch: the kernel's StraightLsd and PrefetchValues (local_finish.cuh).
/// MinBlocks: the kernel's __launch_bounds__ minimum (the library: 2 for the small shape, 1 otherwise).
template <class Key, class Value, int Block, int Items, bool Straight = false, bool Prefetch = false, int MinBlocks = 1>
void launch_local(const Key* kin, Key* kout, const Value* vin, Value* vout, std::uint64_t n) {
  constexpr bool has_values = !std::is_same_v<Value, hm::no_values>;
  using word = std::conditional_t<has_values, hm::value_word<Value>, hm::no_values>;
  constexpr auto kernel = hm::local_sort_kernel<Key, word, false, Block, Items, MinBlocks, Straight, Prefetch>;
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

/// Float keys as sort_headline makes them (experiments/common/sort_bench.cu's band keys): the
/// 32-bit pattern of the AND of q uniform words, bit 30 cleared where the exponent is all ones
/// (every key finite).
__global__ void finite_float_bits(std::uint32_t* w, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    if ((w[i] & 0x7F800000u) == 0x7F800000u) w[i] &= ~0x40000000u;
}

/// keys[0, n): the AND of q uniform words (integers), or their bit patterns made finite (float).
template <class Key>
void fill_keys(Key* keys, std::size_t n, std::uint64_t seed, int q) {
  if constexpr (std::is_floating_point_v<Key>) {
    static_assert(sizeof(Key) == 4, "float keys only");
    auto* w = reinterpret_cast<std::uint32_t*>(keys);
    fill_and<<<64, 256>>>(w, n, seed, q);
    finite_float_bits<<<64, 256>>>(w, n);
  } else {
    fill_and<<<64, 256>>>(keys, n, seed, q);
  }
}

template <int Block, int Items>
struct shape_of {
  static constexpr int first = Block, second = Items;
};

/// STUDY=2's single-block sorts of a whole input of at most Block x Items keys (unsigned
/// keys, ascending, every key bit): BlockSort false: LSD passes of Bits-bit digits ranked by
/// cub::BlockRadixRankMatch over warp-striped keys, keys (and input positions) exchanged
/// through shared memory, values gathered at the end (the library's local finish without its
/// predictor, top-field order and varying-bit range); BlockSort true: cub::BlockRadixSort
/// with Bits-bit digits (blocked keys loaded by a warp transpose, counter-based ranking,
/// striped output), values carried through every pass.
template <class Key, class V, bool HasValues, int Block, int Items, int Bits, bool BlockSort>
__global__ void __launch_bounds__(Block, 1) study_kernel(const Key* kin, Key* kout, const V* vin, V* vout, int m) {
  constexpr int key_bits = 8 * sizeof(Key);
  constexpr int capacity = Block * Items;
  extern __shared__ __align__(16) unsigned char smem[];
  if constexpr (BlockSort) {
    using value_t = std::conditional_t<HasValues, V, cub::NullType>;
    using sort_t = cub::BlockRadixSort<Key, Block, Items, value_t, Bits>;
    using load_k = cub::BlockLoad<Key, Block, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using load_v = cub::BlockLoad<V, Block, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    union stage {
      typename sort_t::TempStorage sort;
      typename load_k::TempStorage lk;
      typename load_v::TempStorage lv;
    };
    stage& s = *reinterpret_cast<stage*>(smem);
    Key k[Items];
    load_k(s.lk).Load(kin, k, m, ~Key{0});
    __syncthreads();
    if constexpr (HasValues) {
      V v[Items];
      load_v(s.lv).Load(vin, v, m, V{});
      __syncthreads();
      sort_t(s.sort).SortBlockedToStriped(k, v, 0, key_bits);
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int pos = i * Block + threadIdx.x;
        if (pos < m) {
          kout[pos] = k[i];
          vout[pos] = v[i];
        }
      }
    } else {
      sort_t(s.sort).SortBlockedToStriped(k, 0, key_bits);
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int pos = i * Block + threadIdx.x;
        if (pos < m) kout[pos] = k[i];
      }
    }
  } else {
    using rank_t = cub::BlockRadixRankMatch<Block, Bits, false>;
    struct stage {
      union {
        typename rank_t::TempStorage rank;
        Key keys[capacity];
        V values[capacity];
      };
      std::uint16_t index[capacity];
    };
    stage& s = *reinterpret_cast<stage*>(smem);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    Key k[Items];
    std::uint32_t idx[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int pos = warp * 32 * Items + i * 32 + lane;
      idx[i] = pos;
      k[i] = pos < m ? kin[pos] : ~Key{0};
    }
    for (int bit = 0; bit < key_bits; bit += Bits) {
      const int width = key_bits - bit < Bits ? key_bits - bit : Bits;
      int rank[Items];
      rank_t(s.rank).RankKeys(k, rank, hm::digit_of<Key>{static_cast<unsigned>(bit), (1u << width) - 1u});
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        s.keys[rank[i]] = k[i];
        if constexpr (HasValues) s.index[rank[i]] = static_cast<std::uint16_t>(idx[i]);
      }
      __syncthreads();
      if (bit + Bits >= key_bits) break;
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int pos = warp * 32 * Items + i * 32 + lane;
        k[i] = s.keys[pos];
        if constexpr (HasValues) idx[i] = s.index[pos];
      }
      __syncthreads();
    }
    for (int slot = threadIdx.x; slot < m; slot += Block) kout[slot] = s.keys[slot];
    if constexpr (HasValues) {
      V v[Items];
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int pos = warp * 32 * Items + i * 32 + lane;
        if (pos < m) v[i] = vin[pos];
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int pos = warp * 32 * Items + i * 32 + lane;
        if (pos < m) s.values[pos] = v[i];
      }
      __syncthreads();
      for (int slot = threadIdx.x; slot < m; slot += Block) vout[slot] = s.values[s.index[slot]];
    }
  }
}

template <class Key, class V, bool HasValues, int Block, int Items, int Bits, bool BlockSort>
std::size_t study_shared() {
  if constexpr (BlockSort) {
    using value_t = std::conditional_t<HasValues, V, cub::NullType>;
    return std::max({sizeof(typename cub::BlockRadixSort<Key, Block, Items, value_t, Bits>::TempStorage),
                     sizeof(typename cub::BlockLoad<Key, Block, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>::TempStorage),
                     sizeof(typename cub::BlockLoad<V, Block, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>::TempStorage)});
  } else {
    constexpr std::size_t cap = std::size_t{Block} * Items;
    return std::max({sizeof(typename cub::BlockRadixRankMatch<Block, Bits, false>::TempStorage), cap * sizeof(Key),
                     cap * sizeof(V)}) + cap * sizeof(std::uint16_t) + 16;
  }
}

template <class Key, class V, bool HasValues, int Block, int Items, int Bits, bool BlockSort>
void launch_study(const Key* kin, Key* kout, const V* vin, V* vout, std::uint64_t n) {
  constexpr auto kernel = study_kernel<Key, V, HasValues, Block, Items, Bits, BlockSort>;
  static const std::size_t shared = study_shared<Key, V, HasValues, Block, Items, Bits, BlockSort>();
  static bool once = [] {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    return true;
  }();
  (void)once;
  kernel<<<1, Block, shared>>>(kin, kout, vin, vout, static_cast<int>(n));
  CK(cudaGetLastError());
}

template <class Key, class Value>
void bench(const char* shape, std::uint64_t n, int q, timer& t, int rounds) {
  constexpr bool has_values = !std::is_same_v<Value, hm::no_values>;
  using V = std::conditional_t<has_values, Value, std::uint32_t>;  // a dummy buffer for keys-only
  Key *kin, *kdb_in, *kdb_alt, *kref;
  V *vin, *vdb_in, *vdb_alt, *vref;
  CK(cudaMalloc(&kin, n * sizeof(Key)));
  CK(cudaMalloc(&kdb_in, n * sizeof(Key)));
  CK(cudaMalloc(&kdb_alt, n * sizeof(Key)));
  CK(cudaMalloc(&kref, n * sizeof(Key)));
  CK(cudaMalloc(&vin, n * sizeof(V)));
  CK(cudaMalloc(&vdb_in, n * sizeof(V)));
  CK(cudaMalloc(&vdb_alt, n * sizeof(V)));
  CK(cudaMalloc(&vref, n * sizeof(V)));
  fill_keys(kin, n, 777 + n, q);
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
  std::vector<void*> owned;
  // One candidate: launch(kin, kout, vin, vout, n) into its own output buffers (V is a dummy
  // type for keys-only sorts; the launchers pass no values then).
  auto ours = [&](const std::string& name, auto launch) {
    Key* ko;
    V* vo;
    CK(cudaMalloc(&ko, n * sizeof(Key)));
    CK(cudaMalloc(&vo, n * sizeof(V)));
    owned.push_back(ko);
    owned.push_back(vo);
    c.push_back({name, [=] { launch(kin, ko, vin, vo, n); }, [] {}, ko, vo});
  };
  using Vv = std::conditional_t<has_values, Value, hm::no_values>;
  // The library's kernel launched directly: shape Block x Items, StraightLsd (`straight`),
  // PrefetchValues (`prefetch`, pairs only), MinBlocks as the library (2 for the small shape).
  using no = std::false_type;
  using yes = std::true_type;
  auto variant = [&](const std::string& name, auto shape, auto straight, auto prefetch) {
    constexpr int block = decltype(shape)::first, items = decltype(shape)::second;
    constexpr bool st = decltype(straight)::value;
    if (std::uint64_t{block} * items < n) return;
    ours(name, [](const Key* a, Key* b, const V* va, V* vb, std::uint64_t m) {
      constexpr int min_blocks = block == hm::small_block && items == hm::small_items ? 2 : 1;
      if constexpr (has_values) {
        launch_local<Key, Vv, block, items, st, decltype(prefetch)::value, min_blocks>(a, b, va, vb, m);
      } else {
        launch_local<Key, Vv, block, items, st, false, min_blocks>(a, b, nullptr, nullptr, m);
      }
    });
  };
  // The kernel as the large and children's shapes run it: the predictor, values after the passes.
  auto library = [&](const std::string& name, auto shape) { variant(name, shape, no{}, no{}); };
#if STUDY == 3 || STUDY == 5
  // The library through its public call (onepass::sort::gpu::sort_keys / sort_pairs), temporary
  // storage allocated here, outside the timed region.
  auto public_call = [&] {
    std::size_t lib_bytes = 0;
    if constexpr (has_values) {
      onepass::sort::gpu::sort_pairs<Key, V>(nullptr, lib_bytes, kin, kref, vin, vref, n);
    } else {
      onepass::sort::gpu::sort_keys<Key>(nullptr, lib_bytes, kin, kref, n);
    }
    void* lib_tmp;
    CK(cudaMalloc(&lib_tmp, lib_bytes + 1));
    owned.push_back(lib_tmp);
    ours("onepass::sort", [lib_tmp, lib_bytes](const Key* a, Key* o, const V* va, V* vo, std::uint64_t m) {
      std::size_t bytes = lib_bytes;
      if constexpr (!std::is_same_v<Value, hm::no_values>) {  // has_values (g++ does not see it, nor V, here)
        onepass::sort::gpu::sort_pairs<Key, Value>(lib_tmp, bytes, a, o, va, vo, m);
      } else {
        onepass::sort::gpu::sort_keys<Key>(lib_tmp, bytes, a, o, m);
      }
    });
  };
#endif
#if STUDY == 1
  library("512x12 (today)", shape_of<512, 12>{});
  library("384x16", shape_of<384, 16>{});
  library("256x24", shape_of<256, 24>{});
  library("768x8", shape_of<768, 8>{});
  library("256x20", shape_of<256, 20>{});
#elif STUDY == 4
  // The whole-input local finish of pairs: shape x (predictor or straight LSD) x (values
  // loaded after the passes or prefetched with the keys).
  variant("512x12 predictor", shape_of<512, 12>{}, no{}, no{});
  variant("512x12 predictor+pf", shape_of<512, 12>{}, no{}, yes{});
  variant("384x13 straight", shape_of<384, 13>{}, yes{}, no{});
  variant("384x13 straight+pf", shape_of<384, 13>{}, yes{}, yes{});
  variant("384x13 predictor", shape_of<384, 13>{}, no{}, no{});
  variant("384x13 predictor+pf", shape_of<384, 13>{}, no{}, yes{});
#elif STUDY == 5
  // Whole inputs of at most small_max keys: the small shape, 256 x 16, with the predictor (what
  // the library ran there for every size until 1929e32; prefetched values here, the library
  // loaded them after the passes) against straight LSD passes (what it runs above
  // window_items for 4-byte keys since, plan::small_straight) and the lean shape; then the
  // public call.
  constexpr std::bool_constant<has_values> pf{};
  variant("256x16 predictor", shape_of<256, 16>{}, no{}, pf);
  variant("256x16 straight", shape_of<256, 16>{}, yes{}, pf);
  variant("384x13 predictor", shape_of<384, 13>{}, no{}, pf);
  variant("384x13 straight", shape_of<384, 13>{}, yes{}, pf);
  public_call();
#elif STUDY == 3
  library("512x12 (before)", shape_of<512, 12>{});
  public_call();
#else
  library("512x12 (today)", shape_of<512, 12>{});
  auto match = [&](auto shape, auto bits) {
    constexpr int block = decltype(shape)::first, items = decltype(shape)::second, b = decltype(bits)::value;
    if (std::uint64_t{block} * items < n) return;
    ours("match " + std::to_string(block) + "x" + std::to_string(items) + " " + std::to_string(b) + "-bit",
         [](const Key* a, Key* o, const V* va, V* vo, std::uint64_t m) {
           launch_study<Key, V, has_values, block, items, b, false>(a, o, va, vo, m);
         });
  };
  auto blocksort = [&](auto shape, auto bits) {
    constexpr int block = decltype(shape)::first, items = decltype(shape)::second, b = decltype(bits)::value;
    if (std::uint64_t{block} * items < n) return;
    ours("BlockRadixSort " + std::to_string(block) + "x" + std::to_string(items) + " " + std::to_string(b) + "-bit",
         [](const Key* a, Key* o, const V* va, V* vo, std::uint64_t m) {
           launch_study<Key, V, has_values, block, items, b, true>(a, o, va, vo, m);
         });
  };
  using b8 = std::integral_constant<int, 8>;
  using b6 = std::integral_constant<int, 6>;
  using b5 = std::integral_constant<int, 5>;
  using b4 = std::integral_constant<int, 4>;
  match(shape_of<512, 12>{}, b8{});
  match(shape_of<512, 12>{}, b6{});
  match(shape_of<512, 10>{}, b8{});
  match(shape_of<512, 10>{}, b6{});
  match(shape_of<384, 13>{}, b8{});
  match(shape_of<384, 13>{}, b6{});
  match(shape_of<256, 19>{}, b8{});
  match(shape_of<256, 19>{}, b6{});
  blocksort(shape_of<256, 19>{}, b6{});
  blocksort(shape_of<256, 19>{}, b5{});
  blocksort(shape_of<256, 19>{}, b4{});
  blocksort(shape_of<384, 13>{}, b6{});
  blocksort(shape_of<512, 10>{}, b6{});
  blocksort(shape_of<512, 10>{}, b4{});
  blocksort(shape_of<512, 12>{}, b6{});
  blocksort(shape_of<256, 24>{}, b6{});
#endif
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
  for (void* p : owned) CK(cudaFree(p));
}

/// STUDY=3's check of the public calls against CUB on one input (keys the AND of q words).
template <class Key, bool Pairs>
void check_public(std::uint64_t n, int q, bool descending, unsigned begin, unsigned end) {
  Key *kin, *kout, *kref;
  std::uint32_t *vin, *vout, *vref;
  CK(cudaMalloc(&kin, n * sizeof(Key)));
  CK(cudaMalloc(&kout, n * sizeof(Key)));
  CK(cudaMalloc(&kref, n * sizeof(Key)));
  CK(cudaMalloc(&vin, n * 4));
  CK(cudaMalloc(&vout, n * 4));
  CK(cudaMalloc(&vref, n * 4));
  fill_and<<<64, 256>>>(kin, n, 4242 + n + q, q);
  fill_index<<<64, 256>>>(vin, n);
  CK(cudaMemset(kout, 0xA5, n * sizeof(Key)));
  CK(cudaMemset(vout, 0xA5, n * 4));
  const int num = static_cast<int>(n);
  // Both sorts through CUB's two-phase protocol: sizes with null storage, then the runs.
  auto sorts = [&](void* t1, std::size_t& b1, void* t2, std::size_t& b2) {
    if constexpr (Pairs) {
      onepass::sort::gpu::sort_pairs<Key, std::uint32_t>(t1, b1, kin, kout, vin, vout, n, begin, end, descending);
      if (descending) {
        CK(cub::DeviceRadixSort::SortPairsDescending(t2, b2, kin, kref, vin, vref, num, begin, end));
      } else {
        CK(cub::DeviceRadixSort::SortPairs(t2, b2, kin, kref, vin, vref, num, begin, end));
      }
    } else {
      onepass::sort::gpu::sort_keys<Key>(t1, b1, kin, kout, n, begin, end, descending);
      if (descending) {
        CK(cub::DeviceRadixSort::SortKeysDescending(t2, b2, kin, kref, num, begin, end));
      } else {
        CK(cub::DeviceRadixSort::SortKeys(t2, b2, kin, kref, num, begin, end));
      }
    }
  };
  std::size_t b1 = 0, b2 = 0;
  sorts(nullptr, b1, nullptr, b2);
  void *t1, *t2;
  CK(cudaMalloc(&t1, b1 + 1));
  CK(cudaMalloc(&t2, b2 + 1));
  sorts(t1, b1, t2, b2);
  CK(cudaDeviceSynchronize());
  const bool ok = equal(kout, kref, n) && (!Pairs || equal(vout, vref, n));
  std::printf("check %s%s n=%llu q=%d %s bits [%u, %u): %s\n", sizeof(Key) == 4 ? "u32" : "u64",
              Pairs ? " pairs" : " keys", static_cast<unsigned long long>(n), q,
              descending ? "descending" : "ascending", begin, end, ok ? "ok" : "MISMATCH");
  for (void* p : {static_cast<void*>(kin), static_cast<void*>(kout), static_cast<void*>(kref), static_cast<void*>(vin),
                  static_cast<void*>(vout), static_cast<void*>(vref), t1, t2})
    CK(cudaFree(p));
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 25;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s\n", prop.name);
  timer t;
#if STUDY == 1
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
#elif STUDY == 3
  for (std::uint64_t n : {4097, 4603, 4864, 4992, 4993, 5120})
    for (int q : {1, 2, 4, 8, 16}) bench<std::uint32_t, hm::no_values>("keys u32", n, q, t, rounds);
  for (std::uint64_t n : {4097, 4603, 4864, 4992, 4993, 5120})
    for (int q : {1, 2, 4, 8, 16}) bench<std::uint32_t, std::uint32_t>("pairs u32+u32", n, q, t, rounds);
  for (std::uint64_t n : {4603, 4992})
    for (int q : {1, 2, 16}) bench<std::uint64_t, hm::no_values>("keys u64", n, q, t, rounds);
  for (std::uint64_t n : {4603, 4992})
    for (int q : {1, 2}) bench<std::uint64_t, std::uint64_t>("pairs u64+u64", n, q, t, rounds);
  for (std::uint64_t n : {4097, 4603, 4992, 4993})
    for (int q : {1, 2, 16})
      for (bool d : {false, true}) {
        check_public<std::uint32_t, false>(n, q, d, 0, 32);
        check_public<std::uint32_t, false>(n, q, d, 3, 29);
        check_public<std::uint32_t, true>(n, q, d, 0, 32);
        check_public<std::uint32_t, true>(n, q, d, 5, 21);
        check_public<std::uint64_t, false>(n, q, d, 0, 64);
        check_public<std::uint64_t, true>(n, q, d, 7, 50);
      }
#elif STUDY == 5
  for (std::uint64_t n : {1024, 2048, 2049, 2500, 3000, 3500, 4096}) {
    bench<float, hm::no_values>("keys f32", n, 1, t, rounds);
    for (int q : {1, 2, 8}) bench<std::uint32_t, hm::no_values>("keys u32", n, q, t, rounds);
    for (int q : {1, 2}) bench<std::uint32_t, std::uint32_t>("pairs u32+u32", n, q, t, rounds);
  }
#elif STUDY == 4
  for (std::uint64_t n : {4097, 4603, 4864, 4992})
    for (int q : {1, 2, 4, 8, 16}) bench<std::uint32_t, std::uint32_t>("pairs u32+u32", n, q, t, rounds);
#else
  for (std::uint64_t n : {4096, 4603, 4864})
    for (int q : {1, 2, 4, 8}) bench<std::uint32_t, hm::no_values>("keys u32", n, q, t, rounds);
  for (std::uint64_t n : {4096, 4603, 4864})
    for (int q : {1, 2, 4, 8}) bench<std::uint32_t, std::uint32_t>("pairs u32+u32", n, q, t, rounds);
#endif
  return 0;
}
