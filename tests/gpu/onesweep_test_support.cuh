// Shared by the Onesweep GPU tests (test_onesweep*.cu, one executable each so that they
// compile in parallel): input patterns, the std::stable_sort reference by ordered_bits
// restricted to [begin_bit, end_bit), the GPU sort through the public API and through
// detail::plan (small portions), the check of one configuration, and the fixture that
// skips (GTEST_SKIP) without a CUDA device.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"
#include "gpu_test_support.hpp"


namespace {

namespace os = onepass::sort::gpu::onesweep;
using onepass::sort::key_field;
using onepass::sort::ordered_bits;
using onepass::sort::radix_traits;

using onepass::testing::have_gpu;

#define REQUIRE_GPU()                                                    \
  do {                                                                   \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: onesweep GPU test skipped"; \
  } while (0)

void cuda_ok(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

using onepass::testing::dev;
using onepass::testing::download;
using onepass::testing::upload;

// ----------------------------------------------------------------------------
// Inputs.

enum class pattern { random, all_equal, sorted, reversed, few_distinct, entropy };

/// The key whose raw bits are the low bits of w (no order transform).
template <class Key>
Key from_word(std::uint64_t w) {
  using bits_type = typename radix_traits<Key>::bits_type;
  return onepass::sort::detail::bit_cast_from<Key, bits_type>(static_cast<bits_type>(w));
}

template <class Key>
std::vector<Key> make_keys(pattern p, std::size_t n, std::uint64_t seed, int q = 1) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  switch (p) {
    case pattern::random:
    case pattern::sorted:
    case pattern::reversed:
      for (auto& k : keys) k = from_word<Key>(rng());
      break;
    case pattern::all_equal: {
      const Key k = from_word<Key>(rng());
      std::fill(keys.begin(), keys.end(), k);
      break;
    }
    case pattern::few_distinct: {
      Key set[5];
      for (auto& k : set) k = from_word<Key>(rng());
      for (auto& k : keys) k = set[rng() % 5];
      break;
    }
    case pattern::entropy:
      for (auto& k : keys) {
        std::uint64_t w = ~std::uint64_t{0};
        for (int i = 0; i < q; ++i) w &= rng();
        k = from_word<Key>(w);
      }
      break;
  }
  if (p == pattern::sorted || p == pattern::reversed) {
    std::sort(keys.begin(), keys.end(), [](Key a, Key b) { return ordered_bits(a, false) < ordered_bits(b, false); });
    if (p == pattern::reversed) std::reverse(keys.begin(), keys.end());
  }
  return keys;
}

/// The oracle: the input indices in std::stable_sort order of the key field.
template <class Key>
std::vector<std::uint32_t> oracle(const std::vector<Key>& keys, unsigned begin_bit, unsigned end_bit, bool descending) {
  std::vector<std::uint32_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    return key_field(ordered_bits(keys[a], descending), begin_bit, end_bit) <
           key_field(ordered_bits(keys[b], descending), begin_bit, end_bit);
  });
  return idx;
}

template <class Key>
bool same_bits(Key a, Key b) {
  return std::memcmp(&a, &b, sizeof(Key)) == 0;
}

struct config {
  unsigned begin_bit = 0, end_bit = 0;  // end 0: key width
  bool descending = false;
  bool double_buffer = false;
  std::uint64_t portion = 0;  // 0: the public API; else detail::plan with this portion size
};

std::string describe(const config& c, std::size_t n) {
  return "n=" + std::to_string(n) + " bits=[" + std::to_string(c.begin_bit) + "," + std::to_string(c.end_bit) + ")" +
         (c.descending ? " descending" : " ascending") + (c.double_buffer ? " double-buffer" : " out-of-place") +
         (c.portion ? " portion=" + std::to_string(c.portion) : "");
}

/// Sorts keys (and values = index when Value is not void-like) on the GPU with the
/// configuration; returns keys and values.
template <unsigned D, class Key, class Value, class Policy = void>
void gpu_sort(const std::vector<Key>& keys, const std::vector<Value>* values, const config& c, std::vector<Key>& out_keys,
              std::vector<Value>& out_values) {
  const std::size_t n = keys.size();
  const bool pairs = values != nullptr;
  dev k0(n * sizeof(Key)), k1(n * sizeof(Key)), v0(pairs ? n * sizeof(Value) : 0), v1(pairs ? n * sizeof(Value) : 0);
  upload(k0.as<Key>(), keys);
  if (pairs) upload(v0.as<Value>(), *values);
  // Poison the outputs so that an unwritten slot shows.
  if (n) cuda_ok(cudaMemset(k1.p, 0xA5, n * sizeof(Key)), "poison");
  if (pairs && n) cuda_ok(cudaMemset(v1.p, 0xA5, n * sizeof(Value)), "poison");
  std::size_t temp_bytes = 0;
  const Key* result_keys = k1.as<Key>();
  const Value* result_values = v1.as<Value>();
  if (c.portion != 0) {
    // The plan with small portions: exercises the chaining of digit starts (and, with a
    // Policy, that binning-kernel shape instead of the default one).
    using V = std::conditional_t<std::is_same_v<Value, int>, os::detail::no_values, Value>;
    using P = std::conditional_t<std::is_void_v<Policy>,
                                 os::detail::binning_policy<sizeof(Key), os::detail::value_bytes<V>, D>, Policy>;
    os::detail::plan<D, Key, V, P> p(n, c.begin_bit, c.end_bit, c.descending, c.portion);
    dev temp(p.temp_bytes());
    p.bind(temp.p);
    p.histogram(k0.as<Key>(), 0);
    p.exclusive_sum(0);
    Key* kb[2] = {k0.as<Key>(), k1.as<Key>()};
    Value* vb[2] = {v0.as<Value>(), v1.as<Value>()};
    int sel = 0;
    for (unsigned place = 0; place < p.num_places(); ++place, sel ^= 1) {
      if constexpr (std::is_same_v<Value, int>) {
        p.binning_pass(place, kb[sel], kb[sel ^ 1], nullptr, nullptr, 0);
      } else {
        p.binning_pass(place, kb[sel], kb[sel ^ 1], vb[sel], vb[sel ^ 1], 0);
      }
    }
    cuda_ok(cudaDeviceSynchronize(), "plan sort");
    out_keys = download(kb[sel], n);
    if (pairs) out_values = download(vb[sel], n);
    return;
  }
  if (c.double_buffer) {
    os::double_buffer<Key> kd(k0.as<Key>(), k1.as<Key>());
    os::double_buffer<Value> vd(v0.as<Value>(), v1.as<Value>());
    if constexpr (std::is_same_v<Value, int>) {
      os::sort_keys<D>(nullptr, temp_bytes, kd, n, c.begin_bit, c.end_bit, c.descending);
      dev temp(temp_bytes);
      os::sort_keys<D>(temp.p, temp_bytes, kd, n, c.begin_bit, c.end_bit, c.descending);
      cuda_ok(cudaDeviceSynchronize(), "sort_keys (double buffer)");
    } else {
      os::sort_pairs<D>(nullptr, temp_bytes, kd, vd, n, c.begin_bit, c.end_bit, c.descending);
      dev temp(temp_bytes);
      os::sort_pairs<D>(temp.p, temp_bytes, kd, vd, n, c.begin_bit, c.end_bit, c.descending);
      cuda_ok(cudaDeviceSynchronize(), "sort_pairs (double buffer)");
      EXPECT_EQ(kd.selector, vd.selector);
      result_values = vd.current();
    }
    const unsigned places = n == 0 ? 0 : os::detail::places_for(c.begin_bit, c.end_bit, D);
    EXPECT_EQ(kd.selector, static_cast<int>(places % 2));
    result_keys = kd.current();
  } else {
    if constexpr (std::is_same_v<Value, int>) {
      os::sort_keys<D>(nullptr, temp_bytes, k0.as<const Key>(), k1.as<Key>(), n, c.begin_bit, c.end_bit, c.descending);
      dev temp(temp_bytes);
      os::sort_keys<D>(temp.p, temp_bytes, k0.as<const Key>(), k1.as<Key>(), n, c.begin_bit, c.end_bit, c.descending);
      cuda_ok(cudaDeviceSynchronize(), "sort_keys");
    } else {
      os::sort_pairs<D>(nullptr, temp_bytes, k0.as<const Key>(), k1.as<Key>(), v0.as<const Value>(), v1.as<Value>(), n,
                        c.begin_bit, c.end_bit, c.descending);
      dev temp(temp_bytes);
      os::sort_pairs<D>(temp.p, temp_bytes, k0.as<const Key>(), k1.as<Key>(), v0.as<const Value>(), v1.as<Value>(), n,
                        c.begin_bit, c.end_bit, c.descending);
      cuda_ok(cudaDeviceSynchronize(), "sort_pairs");
    }
    // The input is not modified by the out-of-place API.
    const auto in_after = download(k0.as<Key>(), n);
    EXPECT_EQ(0, n ? std::memcmp(in_after.data(), keys.data(), n * sizeof(Key)) : 0) << "input modified";
  }
  out_keys = download(result_keys, n);
  if (pairs) out_values = download(result_values, n);
}

/// Sorts on the GPU and compares with the oracle. Value = int: keys only.
template <unsigned D, class Key, class Value = int, class Policy = void>
void check(const std::vector<Key>& keys, config c, const std::string& what) {
  if (c.end_bit == 0) c.end_bit = radix_traits<Key>::bits;
  const std::size_t n = keys.size();
  constexpr bool pairs = !std::is_same_v<Value, int>;
  std::vector<Value> values;
  if constexpr (pairs) {
    values.resize(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<Value>(i);
  }
  std::vector<Key> out_keys;
  std::vector<Value> out_values;
  gpu_sort<D, Key, Value, Policy>(keys, pairs ? &values : nullptr, c, out_keys, out_values);
  if (::testing::Test::HasFatalFailure()) return;
  const auto idx = oracle(keys, c.begin_bit, c.end_bit, c.descending);
  ASSERT_EQ(out_keys.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same_bits(out_keys[i], keys[idx[i]]))
        << what << " D=" << D << " " << describe(c, n) << ": key mismatch at " << i;
    if constexpr (pairs) {
      ASSERT_EQ(static_cast<std::uint64_t>(out_values[i]), static_cast<std::uint64_t>(idx[i]))
          << what << " D=" << D << " " << describe(c, n) << ": value (input index) mismatch at " << i
          << " (not stable or values not moved with their keys)";
    }
  }
}

constexpr std::size_t tile32 = os::detail::binning_policy<4>::tile_items;
constexpr std::size_t tile64 = os::detail::binning_policy<8>::tile_items;

template <class Key>
std::vector<std::size_t> sizes() {
  const std::size_t tile = sizeof(Key) == 4 ? tile32 : tile64;
  return {0, 1, 2, 31, 1000, tile - 1, tile, tile + 1, 3 * tile + 17, 100003};
}

/// Every pattern x size x order for one key type at 8-bit digits, keys only and
/// pairs with 4- and 8-byte values.
template <class Key>
void check_key_type(const char* name) {
  std::uint64_t seed = 1;
  for (bool descending : {false, true}) {
    for (std::size_t n : sizes<Key>()) {
      for (pattern p : {pattern::random, pattern::all_equal, pattern::sorted, pattern::reversed, pattern::few_distinct}) {
        const auto keys = make_keys<Key>(p, n, ++seed);
        config c;
        c.descending = descending;
        const std::string what = std::string(name) + " pattern " + std::to_string(static_cast<int>(p));
        check<8, Key>(keys, c, what);
        check<8, Key, std::uint32_t>(keys, c, what + " pairs u32");
        c.double_buffer = true;
        check<8, Key, std::uint64_t>(keys, c, what + " pairs u64");
        check<8, Key>(keys, c, what + " double-buffer");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
    for (int q : {1, 2, 3, 4, 8, 16}) {
      const auto keys = make_keys<Key>(pattern::entropy, 200000, ++seed, q);
      config c;
      c.descending = descending;
      check<8, Key, std::uint32_t>(keys, c, std::string(name) + " entropy q=" + std::to_string(q));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Bit subsets (stable on equal fields), both orders.
  const unsigned width = radix_traits<Key>::bits;
  const unsigned ranges[][2] = {{0, 1}, {3, 11}, {0, 8}, {8, 16}, {5, width}, {width - 1, width}, {7, width - 9}};
  for (const auto& r : ranges) {
    for (bool descending : {false, true}) {
      const auto keys = make_keys<Key>(pattern::random, 50000, ++seed);
      config c;
      c.begin_bit = r[0];
      c.end_bit = r[1];
      c.descending = descending;
      check<8, Key, std::uint32_t>(keys, c, std::string(name) + " bit subset");
      c.double_buffer = true;
      check<8, Key>(keys, c, std::string(name) + " bit subset, double-buffer");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

class Onesweep : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_GPU(); }
};

}  // namespace
