// GPU tests of the sort family's names (issue 31: the device as a namespace, sort::cpu:: /
// sort::gpu::, the element count num_items): every deprecated name of the GPU sort
// (removed after one release) still compiles and is its new name — onepass::sort::sort_keys /
// sort_pairs / select_algorithm / choose_algorithm / choose_from_sample (sort.cuh, now
// sort::gpu::), onepass::sort::onesweep::sort_keys / sort_pairs (every overload: out of place
// and double buffer, DigitBits and float_order; now sort::gpu::onesweep::) and
// onepass::sort::hybrid_msd::sort_keys / sort_pairs (now sort::gpu::hybrid_msd::) give output
// bit-identical to the new name's, the same temporary storage size, the same algorithm (or
// double-buffer selector) and the same errors, which name the new function and num_items;
// the names kept by using-declaration (algorithm, to_string, the rule's constants, the
// double_buffer types, the digit constants) are the new entities (static_assert). Keys:
// uint32, uint64 and float (with -0.0, +0.0 and NaNs), full width and a bit range,
// ascending and descending, sizes taking onesweep and the hybrid sort. Skipped (GTEST_SKIP)
// without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../cpu/test_support.hpp"
#include "gpu_test_support.hpp"
#include "onepass/error.hpp"
#include "onepass/sort/hybrid_msd.cuh"
#include "onepass/sort/onesweep.cuh"
#include "onepass/sort/sort.cuh"

// This file calls the deprecated names on purpose; their warnings are silenced here only
// (GCC for the host code, the CUDA front end's diagnostics 1215 and 1444 for the .cu).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diag_suppress 1215
#pragma nv_diag_suppress 1444

namespace {

namespace sg = onepass::sort::gpu;
namespace old = onepass::sort;  // the deprecated names
using onepass::sort::float_order;
using onepass::testing::cuda_ok;
using onepass::testing::dev;
using onepass::testing::download;
using onepass::testing::error_of;
using onepass::testing::have_gpu;
using onepass::testing::same_bits;
using onepass::testing::upload;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// The names kept by using-declaration are the new entities.
static_assert(std::is_same_v<old::algorithm, sg::algorithm>);
static_assert(old::local_sort_max_keys == sg::local_sort_max_keys);
static_assert(old::two_level_bucket_max == sg::two_level_bucket_max);
static_assert(old::hybrid_max_keys == sg::hybrid_max_keys);
static_assert(old::sample_keys == sg::sample_keys && old::sample_prefix_bits == sg::sample_prefix_bits);
static_assert(old::sample_storage_bytes == sg::sample_storage_bytes);
static_assert(std::is_same_v<old::onesweep::double_buffer<u32>, sg::onesweep::double_buffer<u32>>);
static_assert(std::is_same_v<old::hybrid_msd::double_buffer<u64>, sg::onesweep::double_buffer<u64>>);
static_assert(old::onesweep::min_digit_bits == sg::onesweep::min_digit_bits &&
              old::onesweep::max_digit_bits == sg::onesweep::max_digit_bits &&
              old::onesweep::default_portion_items == sg::onesweep::default_portion_items);
static_assert(old::hybrid_msd::digit_bits == sg::hybrid_msd::digit_bits &&
              old::hybrid_msd::radix == sg::hybrid_msd::radix);

// Above local_sort_max_keys (onesweep for 4-byte keys), not a multiple of a tile.
constexpr std::size_t large = 100003;
// At most local_sort_max_keys (the hybrid sort's single-block local finish).
constexpr std::size_t small = 5000;

class SortNamesGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU sort names test skipped";
  }
};

// Random keys with repeats on the low bits (stability shows); floats also -0.0, +0.0,
// infinities and NaNs of both signs.
template <class Key>
std::vector<Key> keys_of(std::size_t n, u64 seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> k(n);
  for (auto& x : k) {
    const u64 r = rng();
    if constexpr (std::is_floating_point_v<Key>) {
      switch (r % 16) {
        case 0: x = Key(-0.0); break;
        case 1: x = Key(0.0); break;
        case 2: x = std::numeric_limits<Key>::quiet_NaN(); break;
        case 3: x = -std::numeric_limits<Key>::quiet_NaN(); break;
        case 4: x = (r & 16) ? std::numeric_limits<Key>::infinity() : -std::numeric_limits<Key>::infinity(); break;
        default: x = static_cast<Key>(static_cast<double>(static_cast<std::int64_t>(r >> 8) % 2001 - 1000) / 8.0);
      }
    } else {
      x = static_cast<Key>(r & (rng() | 0xffff0000ffff0000ull));
    }
  }
  return k;
}

std::vector<u32> index_values(std::size_t n) {
  std::vector<u32> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<u32>(i);
  return v;
}

// What one two-phase sort call gave: the sorted keys (and values), the size query's
// answer, and the algorithm run (gpu::sort_keys / sort_pairs) or the double buffers'
// selector (double-buffer overloads), -1 where neither applies.
template <class Key, class Value>
struct outcome {
  std::vector<Key> keys;
  std::vector<Value> values;
  std::size_t temp_bytes = 0;
  int tag = -1;
};

template <class Key, class Value>
void expect_same(const outcome<Key, Value>& a, const outcome<Key, Value>& b, const std::string& what) {
  EXPECT_TRUE(same_bits(a.keys, b.keys)) << what << ": keys";
  EXPECT_TRUE(same_bits(a.values, b.values)) << what << ": values";
  EXPECT_EQ(a.temp_bytes, b.temp_bytes) << what << ": temp_bytes";
  EXPECT_EQ(a.tag, b.tag) << what << ": algorithm / selector";
  EXPECT_FALSE(a.keys.empty()) << what;
}

// Runs sort(temp, temp_bytes, keys_in, keys_out, values_in, values_out) -> int out of place:
// the size query, then the sort. Keys-only: `values` empty (the value pointers null).
template <class Key, class Value, class Sort>
outcome<Key, Value> out_of_place(const std::vector<Key>& keys, const std::vector<Value>& values, Sort sort) {
  const std::size_t n = keys.size();
  dev kin(n * sizeof(Key)), kout(n * sizeof(Key)), vin(values.size() * sizeof(Value)),
      vout(values.size() * sizeof(Value));
  upload(kin.as<Key>(), keys);
  upload(vin.as<Value>(), values);
  outcome<Key, Value> r;
  sort(nullptr, r.temp_bytes, kin.as<const Key>(), kout.as<Key>(), vin.as<const Value>(), vout.as<Value>());
  dev temp(r.temp_bytes);
  std::size_t bytes = r.temp_bytes;
  r.tag = sort(temp.p, bytes, kin.as<const Key>(), kout.as<Key>(), vin.as<const Value>(), vout.as<Value>());
  cuda_ok(cudaDeviceSynchronize(), "sort");
  r.keys = download(kout.as<Key>(), n);
  if (!values.empty()) r.values = download(vout.as<Value>(), n);
  return r;
}

// Runs sort(temp, temp_bytes, keys, values) on double buffers (the alternates
// uninitialised); tag = keys.selector after the sort.
template <class Key, class Value, class Sort>
outcome<Key, Value> double_buffered(const std::vector<Key>& keys, const std::vector<Value>& values, Sort sort) {
  const std::size_t n = keys.size();
  dev k0(n * sizeof(Key)), k1(n * sizeof(Key)), v0(values.size() * sizeof(Value)), v1(values.size() * sizeof(Value));
  upload(k0.as<Key>(), keys);
  upload(v0.as<Value>(), values);
  sg::onesweep::double_buffer<Key> kb(k0.as<Key>(), k1.as<Key>());
  sg::onesweep::double_buffer<Value> vb(v0.as<Value>(), v1.as<Value>());
  outcome<Key, Value> r;
  sort(nullptr, r.temp_bytes, kb, vb);
  dev temp(r.temp_bytes);
  std::size_t bytes = r.temp_bytes;
  sort(temp.p, bytes, kb, vb);
  cuda_ok(cudaDeviceSynchronize(), "sort");
  r.tag = kb.selector;
  if (!values.empty()) EXPECT_EQ(vb.selector, kb.selector);
  r.keys = download(kb.current(), n);
  if (!values.empty()) r.values = download(vb.current(), n);
  return r;
}

// gpu::sort_keys and its deprecated onepass::sort::sort_keys on one input.
template <class Key>
void compare_sort_keys(const std::vector<Key>& keys, unsigned begin_bit, unsigned end_bit, bool descending,
                       const std::string& what) {
  const std::size_t n = keys.size();
  const std::vector<u32> none;
  const auto fresh = out_of_place(keys, none, [&](void* t, std::size_t& b, const Key* ki, Key* ko, const u32*, u32*) {
    return static_cast<int>(sg::sort_keys(t, b, ki, ko, n, begin_bit, end_bit, descending));
  });
  const auto alias = out_of_place(keys, none, [&](void* t, std::size_t& b, const Key* ki, Key* ko, const u32*, u32*) {
    return static_cast<int>(old::sort_keys(t, b, ki, ko, n, begin_bit, end_bit, descending));
  });
  expect_same(fresh, alias, what);
}

TEST_F(SortNamesGpu, SortKeysAliasIsTheNewName) {
  compare_sort_keys(keys_of<u32>(large, 1), 0, 32, false, "u32 onesweep");
  compare_sort_keys(keys_of<u32>(small, 2), 0, 32, true, "u32 hybrid local finish, descending");
  compare_sort_keys(keys_of<u64>(large, 3), 8, 56, false, "u64 bits [8, 56)");
  compare_sort_keys(keys_of<float>(large, 4), 0, 32, true, "float descending");
  // The default arguments are the new name's too.
  const auto keys = keys_of<u32>(large, 5);
  const std::vector<u32> none;
  const auto fresh = out_of_place(keys, none, [&](void* t, std::size_t& b, const u32* ki, u32* ko, const u32*, u32*) {
    return static_cast<int>(sg::sort_keys(t, b, ki, ko, large));
  });
  const auto alias = out_of_place(keys, none, [&](void* t, std::size_t& b, const u32* ki, u32* ko, const u32*, u32*) {
    return static_cast<int>(old::sort_keys(t, b, ki, ko, large));
  });
  expect_same(fresh, alias, "u32 defaults");
  EXPECT_EQ(fresh.tag, static_cast<int>(sg::algorithm::onesweep));
}

TEST_F(SortNamesGpu, SortPairsAliasIsTheNewName) {
  {
    const auto keys = keys_of<u64>(large, 6);
    const auto values = index_values(large);
    const auto fresh = out_of_place(keys, values, [&](void* t, std::size_t& b, const u64* ki, u64* ko, const u32* vi,
                                                      u32* vo) {
      return static_cast<int>(sg::sort_pairs(t, b, ki, ko, vi, vo, large, 0, 64, false));
    });
    const auto alias = out_of_place(keys, values, [&](void* t, std::size_t& b, const u64* ki, u64* ko, const u32* vi,
                                                      u32* vo) {
      return static_cast<int>(old::sort_pairs(t, b, ki, ko, vi, vo, large, 0, 64, false));
    });
    expect_same(fresh, alias, "u64/u32 pairs");
  }
  {
    const auto keys = keys_of<float>(small, 7);
    std::vector<u64> values(small);
    for (std::size_t i = 0; i < small; ++i) values[i] = u64{0x9e3779b97f4a7c15ull} * i;
    const auto fresh = out_of_place(keys, values, [&](void* t, std::size_t& b, const float* ki, float* ko,
                                                      const u64* vi, u64* vo) {
      return static_cast<int>(sg::sort_pairs(t, b, ki, ko, vi, vo, small, 0, 32, true));
    });
    const auto alias = out_of_place(keys, values, [&](void* t, std::size_t& b, const float* ki, float* ko,
                                                      const u64* vi, u64* vo) {
      return static_cast<int>(old::sort_pairs(t, b, ki, ko, vi, vo, small, 0, 32, true));
    });
    expect_same(fresh, alias, "float/u64 pairs, hybrid local finish, descending");
    EXPECT_EQ(fresh.tag, static_cast<int>(sg::algorithm::hybrid_msd));
  }
}

TEST_F(SortNamesGpu, OnesweepAliasesAreTheNewNames) {
  const auto keys = keys_of<u32>(large, 8);
  const auto fkeys = keys_of<float>(large, 9);
  const auto values = index_values(large);
  const std::vector<u32> none;
  const std::size_t n = large;
  using db32 = sg::onesweep::double_buffer<u32>;
  using dbf = sg::onesweep::double_buffer<float>;
  // Out of place, DigitBits default and 6, keys and pairs.
  expect_same(
      out_of_place(keys, none, [&](void* t, std::size_t& b, const u32* ki, u32* ko, const u32*, u32*) {
        sg::onesweep::sort_keys(t, b, ki, ko, n, 4, 28, true);
        return -1;
      }),
      out_of_place(keys, none, [&](void* t, std::size_t& b, const u32* ki, u32* ko, const u32*, u32*) {
        old::onesweep::sort_keys(t, b, ki, ko, n, 4, 28, true);
        return -1;
      }),
      "onesweep::sort_keys");
  expect_same(
      out_of_place(keys, values, [&](void* t, std::size_t& b, const u32* ki, u32* ko, const u32* vi, u32* vo) {
        sg::onesweep::sort_pairs<6>(t, b, ki, ko, vi, vo, n);
        return -1;
      }),
      out_of_place(keys, values, [&](void* t, std::size_t& b, const u32* ki, u32* ko, const u32* vi, u32* vo) {
        old::onesweep::sort_pairs<6>(t, b, ki, ko, vi, vo, n);
        return -1;
      }),
      "onesweep::sort_pairs<6>");
  // Double buffer.
  expect_same(double_buffered(keys, none, [&](void* t, std::size_t& b, db32& k, db32&) {
                sg::onesweep::sort_keys<7, u32>(t, b, k, n);
                return -1;
              }),
              double_buffered(keys, none, [&](void* t, std::size_t& b, db32& k, db32&) {
                old::onesweep::sort_keys<7, u32>(t, b, k, n);
                return -1;
              }),
              "onesweep::sort_keys<7> (double buffer)");
  expect_same(double_buffered(keys, values, [&](void* t, std::size_t& b, db32& k, db32& v) {
                sg::onesweep::sort_pairs(t, b, k, v, n, 0, 24, false);
                return -1;
              }),
              double_buffered(keys, values, [&](void* t, std::size_t& b, db32& k, db32& v) {
                old::onesweep::sort_pairs(t, b, k, v, n, 0, 24, false);
                return -1;
              }),
              "onesweep::sort_pairs (double buffer)");
  // The float_order overloads (float keys with -0.0 and +0.0 and NaNs).
  constexpr float_order sze = float_order::signed_zero_equal;
  expect_same(
      out_of_place(fkeys, none, [&](void* t, std::size_t& b, const float* ki, float* ko, const u32*, u32*) {
        sg::onesweep::sort_keys<sze>(t, b, ki, ko, n, 0, 32, true);
        return -1;
      }),
      out_of_place(fkeys, none, [&](void* t, std::size_t& b, const float* ki, float* ko, const u32*, u32*) {
        old::onesweep::sort_keys<sze>(t, b, ki, ko, n, 0, 32, true);
        return -1;
      }),
      "onesweep::sort_keys<signed_zero_equal>");
  expect_same(
      out_of_place(fkeys, values, [&](void* t, std::size_t& b, const float* ki, float* ko, const u32* vi, u32* vo) {
        sg::onesweep::sort_pairs<sze, 8>(t, b, ki, ko, vi, vo, n);
        return -1;
      }),
      out_of_place(fkeys, values, [&](void* t, std::size_t& b, const float* ki, float* ko, const u32* vi, u32* vo) {
        old::onesweep::sort_pairs<sze, 8>(t, b, ki, ko, vi, vo, n);
        return -1;
      }),
      "onesweep::sort_pairs<signed_zero_equal, 8>");
  expect_same(double_buffered(fkeys, none, [&](void* t, std::size_t& b, dbf& k, db32&) {
                sg::onesweep::sort_keys<sze>(t, b, k, n, 0, 32, false);
                return -1;
              }),
              double_buffered(fkeys, none, [&](void* t, std::size_t& b, dbf& k, db32&) {
                old::onesweep::sort_keys<sze>(t, b, k, n, 0, 32, false);
                return -1;
              }),
              "onesweep::sort_keys<signed_zero_equal> (double buffer)");
  expect_same(double_buffered(fkeys, values, [&](void* t, std::size_t& b, dbf& k, db32& v) {
                sg::onesweep::sort_pairs<sze>(t, b, k, v, n, 0, 32, true);
                return -1;
              }),
              double_buffered(fkeys, values, [&](void* t, std::size_t& b, dbf& k, db32& v) {
                old::onesweep::sort_pairs<sze>(t, b, k, v, n, 0, 32, true);
                return -1;
              }),
              "onesweep::sort_pairs<signed_zero_equal> (double buffer)");
}

TEST_F(SortNamesGpu, HybridMsdAliasesAreTheNewNames) {
  const std::size_t n = large;
  const auto keys = keys_of<u64>(n, 10);
  const auto values = index_values(n);
  const std::vector<u32> none;
  using db64 = sg::onesweep::double_buffer<u64>;
  using db32 = sg::onesweep::double_buffer<u32>;
  expect_same(
      out_of_place(keys, none, [&](void* t, std::size_t& b, const u64* ki, u64* ko, const u32*, u32*) {
        sg::hybrid_msd::sort_keys(t, b, ki, ko, n, 0, 64, true);
        return -1;
      }),
      out_of_place(keys, none, [&](void* t, std::size_t& b, const u64* ki, u64* ko, const u32*, u32*) {
        old::hybrid_msd::sort_keys(t, b, ki, ko, n, 0, 64, true);
        return -1;
      }),
      "hybrid_msd::sort_keys");
  expect_same(
      out_of_place(keys, values, [&](void* t, std::size_t& b, const u64* ki, u64* ko, const u32* vi, u32* vo) {
        sg::hybrid_msd::sort_pairs(t, b, ki, ko, vi, vo, n, 12, 60);
        return -1;
      }),
      out_of_place(keys, values, [&](void* t, std::size_t& b, const u64* ki, u64* ko, const u32* vi, u32* vo) {
        old::hybrid_msd::sort_pairs(t, b, ki, ko, vi, vo, n, 12, 60);
        return -1;
      }),
      "hybrid_msd::sort_pairs");
  expect_same(double_buffered(keys, none, [&](void* t, std::size_t& b, db64& k, db32&) {
                sg::hybrid_msd::sort_keys(t, b, k, n);
                return -1;
              }),
              double_buffered(keys, none, [&](void* t, std::size_t& b, db64& k, db32&) {
                old::hybrid_msd::sort_keys(t, b, k, n);
                return -1;
              }),
              "hybrid_msd::sort_keys (double buffer)");
  expect_same(double_buffered(keys, values, [&](void* t, std::size_t& b, db64& k, db32& v) {
                sg::hybrid_msd::sort_pairs(t, b, k, v, n, 0, 64, true);
                return -1;
              }),
              double_buffered(keys, values, [&](void* t, std::size_t& b, db64& k, db32& v) {
                old::hybrid_msd::sort_pairs(t, b, k, v, n, 0, 64, true);
                return -1;
              }),
              "hybrid_msd::sort_pairs (double buffer)");
}

TEST_F(SortNamesGpu, SelectAlgorithmAliasIsTheNewName) {
  // Stage 1 on the host.
  for (std::size_t key_bytes : {4, 8})
    for (std::size_t value_bytes : {0, 4, 8})
      for (u64 n : {u64{0}, u64{6144}, u64{6145}, u64{1} << 22, u64{1} << 25, sg::hybrid_max_keys + 1})
        for (unsigned bits : {16u, 32u, 33u, 64u})
          EXPECT_EQ(old::choose_algorithm(key_bytes, value_bytes, n, bits),
                    sg::choose_algorithm(key_bytes, value_bytes, n, bits));
  for (u64 n : {u64{1} << 25, u64{1} << 28})
    for (u64 shared : {u64{0}, u64{2000}, u64{1} << 20})
      EXPECT_EQ(old::choose_from_sample(n, shared), sg::choose_from_sample(n, shared));
  EXPECT_STREQ(old::to_string(old::algorithm::onesweep), sg::to_string(sg::algorithm::onesweep));
  EXPECT_STREQ(old::to_string(sg::algorithm::hybrid_msd), "hybrid_msd");

  // On the device: stage 1 only (small, 4-byte keys) and stage 2 (2^25 8-byte keys, uniform
  // and skewed: the sample decides).
  dev sample(sg::sample_storage_bytes);
  const auto small_keys = keys_of<u64>(small, 11);
  dev d_small(small * sizeof(u64));
  upload(d_small.as<u64>(), small_keys);
  EXPECT_EQ(old::select_algorithm(d_small.as<const u64>(), small, 0, 0, 64, sample.p),
            sg::select_algorithm(d_small.as<const u64>(), small, 0, 0, 64, sample.p));
  const std::size_t n = std::size_t{1} << 25;
  std::vector<u64> big(n);
  dev d_big(n * sizeof(u64));
  for (int skewed = 0; skewed < 2; ++skewed) {
    u64 x = 12345 + skewed;
    for (auto& k : big) {  // splitmix64; skewed: the AND of three words
      auto next = [&x] {
        u64 z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
      };
      k = skewed ? next() & next() & next() : next();
    }
    upload(d_big.as<u64>(), big);
    const sg::algorithm fresh = sg::select_algorithm(d_big.as<const u64>(), n, 0, 0, 64, sample.p);
    EXPECT_EQ(old::select_algorithm(d_big.as<const u64>(), n, 0, 0, 64, sample.p), fresh);
    EXPECT_EQ(fresh, skewed ? sg::algorithm::onesweep : sg::algorithm::hybrid_msd) << "skewed " << skewed;
  }
}

// The deprecated name's error is the new name's: the same text, naming the new function
// (onepass::sort::gpu::...) and, for a count, num_items.
void same_error(const std::string& alias, const std::string& fresh, const std::string& function,
                const std::string& argument) {
  EXPECT_EQ(alias, fresh);
  EXPECT_NE(fresh.find(function), std::string::npos) << fresh;
  EXPECT_NE(fresh.find(argument), std::string::npos) << fresh;
}

TEST_F(SortNamesGpu, AliasesThrowTheNewNamesErrors) {
  const std::size_t n = 1000;
  dev a(n * sizeof(u64)), b(n * sizeof(u64)), va(n * sizeof(u32)), t(1 << 22);
  auto* in = a.as<u32>();
  auto* out = b.as<u32>();
  auto* in64 = a.as<u64>();
  auto* out64 = b.as<u64>();
  auto* vals = va.as<u32>();
  std::size_t query = 0, bytes = std::size_t{1} << 22;
  // gpu::sort_keys / sort_pairs.
  same_error(error_of([&] { old::sort_keys<u32>(nullptr, query, nullptr, nullptr, n, 0, 33); }),
             error_of([&] { sg::sort_keys<u32>(nullptr, query, nullptr, nullptr, n, 0, 33); }),
             "onepass::sort::gpu::sort_keys", "end_bit");
  same_error(error_of([&] { old::sort_keys<u32>(t.p, bytes, nullptr, out, n); }),
             error_of([&] { sg::sort_keys<u32>(t.p, bytes, nullptr, out, n); }),
             "onepass::sort::gpu::hybrid_msd::sort_keys", "d_keys_in must not be null when num_items > 0");
  same_error(error_of([&] { old::sort_pairs(t.p, bytes, in, out, vals, reinterpret_cast<u32*>(vals) + 1, n); }),
             error_of([&] { sg::sort_pairs(t.p, bytes, in, out, vals, reinterpret_cast<u32*>(vals) + 1, n); }),
             "onepass::sort::gpu::hybrid_msd::sort_pairs", "d_values_out");
  same_error(error_of([&] { old::sort_pairs<u64, u32>(nullptr, query, in64, out64, vals, vals, n, 9, 9); }),
             error_of([&] { sg::sort_pairs<u64, u32>(nullptr, query, in64, out64, vals, vals, n, 9, 9); }),
             "onepass::sort::gpu::sort_pairs", "begin_bit");
  // gpu::select_algorithm (stage 2's arguments are checked before anything is read).
  const std::size_t stage2 = std::size_t{1} << 25;
  same_error(error_of([&] { old::select_algorithm(in64, stage2, 0, 0, 64, nullptr); }),
             error_of([&] { sg::select_algorithm(in64, stage2, 0, 0, 64, nullptr); }),
             "onepass::sort::gpu::select_algorithm", "d_sample");
  same_error(error_of([&] { old::select_algorithm<u64>(nullptr, stage2, 0, 0, 64, t.p); }),
             error_of([&] { sg::select_algorithm<u64>(nullptr, stage2, 0, 0, 64, t.p); }),
             "onepass::sort::gpu::select_algorithm", "d_keys must not be null when num_items > 0");
  same_error(error_of([&] { old::select_algorithm(in64, n, 0, 65, 64, t.p); }),
             error_of([&] { sg::select_algorithm(in64, n, 0, 65, 64, t.p); }),
             "onepass::sort::gpu::select_algorithm", "begin_bit");
  // gpu::onesweep.
  same_error(error_of([&] { old::onesweep::sort_keys<8, u64>(nullptr, query, nullptr, nullptr, n, 0, 65); }),
             error_of([&] { sg::onesweep::sort_keys<8, u64>(nullptr, query, nullptr, nullptr, n, 0, 65); }),
             "onepass::sort::gpu::onesweep::sort_keys", "end_bit");
  same_error(error_of([&] { old::onesweep::sort_keys(t.p, bytes, in, in + 1, n); }),
             error_of([&] { sg::onesweep::sort_keys(t.p, bytes, in, in + 1, n); }),
             "onepass::sort::gpu::onesweep::sort_keys", "overlap");
  const u32* no_values = nullptr;
  same_error(error_of([&] { old::onesweep::sort_pairs(t.p, bytes, in, out, no_values, vals, n); }),
             error_of([&] { sg::onesweep::sort_pairs(t.p, bytes, in, out, no_values, vals, n); }),
             "onepass::sort::gpu::onesweep::sort_pairs", "d_values_in must not be null when num_items > 0");
  sg::onesweep::double_buffer<u32> kd(in, out);
  kd.selector = 2;
  same_error(error_of([&] { old::onesweep::sort_keys(t.p, bytes, kd, n); }),
             error_of([&] { sg::onesweep::sort_keys(t.p, bytes, kd, n); }), "onepass::sort::gpu::onesweep::sort_keys",
             "selector");
  std::size_t too_small = 1;
  same_error(error_of([&] {
               old::onesweep::sort_keys<float_order::signed_zero_equal>(t.p, too_small, a.as<const float>(),
                                                                         b.as<float>(), n);
             }),
             error_of([&] {
               sg::onesweep::sort_keys<float_order::signed_zero_equal>(t.p, too_small, a.as<const float>(),
                                                                        b.as<float>(), n);
             }),
             "onepass::sort::gpu::onesweep::sort_keys", "temp_bytes");
  // gpu::hybrid_msd.
  same_error(error_of([&] { old::hybrid_msd::sort_keys<u32>(nullptr, query, nullptr, nullptr, n, 0, 33); }),
             error_of([&] { sg::hybrid_msd::sort_keys<u32>(nullptr, query, nullptr, nullptr, n, 0, 33); }),
             "onepass::sort::gpu::hybrid_msd::sort_keys", "end_bit");
  same_error(error_of([&] { old::hybrid_msd::sort_keys(t.p, bytes, static_cast<const u64*>(nullptr), out64, n); }),
             error_of([&] { sg::hybrid_msd::sort_keys(t.p, bytes, static_cast<const u64*>(nullptr), out64, n); }),
             "onepass::sort::gpu::hybrid_msd::sort_keys", "d_keys_in must not be null when num_items > 0");
  sg::onesweep::double_buffer<u64> k64(in64, nullptr);
  sg::onesweep::double_buffer<u32> v32(vals, vals);
  same_error(error_of([&] { old::hybrid_msd::sort_pairs(t.p, bytes, k64, v32, n); }),
             error_of([&] { sg::hybrid_msd::sort_pairs(t.p, bytes, k64, v32, n); }),
             "onepass::sort::gpu::hybrid_msd::sort_pairs", "keys.buffers[1]");
  // Nothing above was enqueued; the device is still fine.
  cuda_ok(cudaDeviceSynchronize(), "after the error checks");
}

}  // namespace
