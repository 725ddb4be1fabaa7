// Tests of the Onesweep GPU radix sort (lib/include/onepass/sort/onesweep.cuh):
// output equals std::stable_sort by ordered_bits (sort/key_traits.hpp) restricted to
// [begin_bit, end_bit) for every key type and order, on random, all-equal, sorted,
// reversed, entropy-band (AND of q uniform words) and few-distinct inputs, at sizes
// 0, 1, tile +- 1, several tiles, portion boundaries +- 1 (small portions through the
// detail::plan, and the real 2^28); pairs are stable (values = input index); every
// digit width 5..9; both the out-of-place and the double-buffer API; the registry
// entries; NaN / -0.0 placement; one input above 2^31 keys (checked on the GPU); and
// bad arguments; homogeneous tiles (the binning short-circuit) mixed with general
// ones; crowded places above 2^25 keys (the match_any launch). Skipped (GTEST_SKIP) without a CUDA device.
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
#include "onepass/registry.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"
#include "gpu_test_support.hpp"

namespace {

namespace os = onepass::sort::onesweep;
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

TEST_F(Onesweep, Uint32) { check_key_type<std::uint32_t>("uint32"); }
TEST_F(Onesweep, Int32) { check_key_type<std::int32_t>("int32"); }
TEST_F(Onesweep, Float) { check_key_type<float>("float"); }
TEST_F(Onesweep, Uint64) { check_key_type<std::uint64_t>("uint64"); }
TEST_F(Onesweep, Int64) { check_key_type<std::int64_t>("int64"); }
TEST_F(Onesweep, Double) { check_key_type<double>("double"); }

template <unsigned D>
void check_digit_width() {
  std::uint64_t seed = 100 + D;
  for (std::size_t n : {std::size_t{1}, tile32 - 1, tile32 + 1, std::size_t{150001}}) {
    for (bool descending : {false, true}) {
      config c;
      c.descending = descending;
      check<D, std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), c, "u32 D");
      check<D, std::uint32_t>(make_keys<std::uint32_t>(pattern::entropy, n, ++seed, 3), c, "u32 q=3 D");
      check<D, std::uint64_t, std::uint64_t>(make_keys<std::uint64_t>(pattern::random, n, ++seed), c, "u64 D");
      check<D, float>(make_keys<float>(pattern::random, n, ++seed), c, "float D");
      c.begin_bit = 3;
      c.end_bit = 29;
      c.double_buffer = true;
      check<D, std::int32_t, std::uint32_t>(make_keys<std::int32_t>(pattern::random, n, ++seed), c, "i32 [3,29) D");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(Onesweep, DigitWidth5) { check_digit_width<5>(); }
TEST_F(Onesweep, DigitWidth6) { check_digit_width<6>(); }
TEST_F(Onesweep, DigitWidth7) { check_digit_width<7>(); }
TEST_F(Onesweep, DigitWidth8) { check_digit_width<8>(); }
TEST_F(Onesweep, DigitWidth9) { check_digit_width<9>(); }

// Small portions through detail::plan: the last tile of each portion hands the digit
// starts to the next portion (paper §4). Boundaries +- 1 and partial tiles.
TEST_F(Onesweep, SmallPortions) {
  std::uint64_t seed = 500;
  for (std::uint64_t portion : {std::uint64_t{1000}, std::uint64_t{tile32}, std::uint64_t{2 * tile32 + 5}}) {
    for (std::size_t n : {std::size_t(portion - 1), std::size_t(portion), std::size_t(portion + 1),
                          std::size_t(5 * portion + 3)}) {
      for (bool descending : {false, true}) {
        config c;
        c.descending = descending;
        c.portion = portion;
        check<8, std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), c, "u32 portions");
        check<8, std::uint32_t>(make_keys<std::uint32_t>(pattern::few_distinct, n, ++seed), c, "u32 portions few");
        check<8, double, std::uint64_t>(make_keys<double>(pattern::entropy, n, ++seed, 2), c, "double portions");
        check<5, std::uint64_t, std::uint32_t>(make_keys<std::uint64_t>(pattern::random, n, ++seed), c,
                                               "u64 D=5 portions");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// The off-by-default pairs options of binning_shape (ValuesAfterKeys: the values pass
// through the keys' shared buffer after the keys; PrefetchValues 1 / 2: L2 prefetch /
// values in registers), through the plan: partial tiles, several portions, descending,
// 4- and 8-byte values with 4- and 8-byte keys, random, few distinct and all-equal keys.
template <class Policy>
void check_pairs_shape(const char* name) {
  std::uint64_t seed = 700;
  constexpr std::size_t tile = Policy::tile_items;
  for (std::size_t n : {std::size_t{1}, tile - 1, tile + 1, 3 * tile + 7, std::size_t{200003}}) {
    for (std::uint64_t portion : {std::uint64_t{1} << 28, std::uint64_t{2 * tile + 3}}) {
      for (bool descending : {false, true}) {
        config c;
        c.descending = descending;
        c.portion = portion;
        const std::string what = std::string(name) + " " + describe(c, n);
        for (pattern p : {pattern::random, pattern::few_distinct, pattern::all_equal}) {
          check<8, std::uint32_t, std::uint32_t, Policy>(make_keys<std::uint32_t>(p, n, ++seed), c, what + " u32/u32");
          check<8, std::uint32_t, std::uint64_t, Policy>(make_keys<std::uint32_t>(p, n, ++seed), c, what + " u32/u64");
        }
        check<8, std::uint64_t, std::uint32_t, Policy>(make_keys<std::uint64_t>(pattern::random, n, ++seed), c,
                                                       what + " u64/u32");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}
using ballots_shape_values_after_keys =
    os::detail::binning_shape<256, 56, 2, os::detail::peer_match::ballots, 4, 1, 0, true>;
using ballots_shape_prefetch_l2 = os::detail::binning_shape<256, 48, 2, os::detail::peer_match::ballots, 4, 1, 1>;
using ballots_shape_values_in_registers =
    os::detail::binning_shape<384, 24, 2, os::detail::peer_match::ballots, 4, 1, 2>;
TEST_F(Onesweep, PairsValuesAfterKeys) { check_pairs_shape<ballots_shape_values_after_keys>("values after keys"); }
TEST_F(Onesweep, PairsPrefetchValuesL2) { check_pairs_shape<ballots_shape_prefetch_l2>("prefetch L2"); }
TEST_F(Onesweep, PairsValuesInRegisters) { check_pairs_shape<ballots_shape_values_in_registers>("values in registers"); }

// Homogeneous tiles (every key of a tile with the same digit at the pass's place:
// the binning kernel's short-circuit) mixed with general ones, at several places,
// with partial last tiles, for keys only and pairs (the tile of each configuration).
// Kinds 0-2 have no dominant digit (only the tile short-circuit applies); 3, 5 and 6
// do (warps with one digit also skip the multisplit; kind 5 has such warps in tiles
// that are not homogeneous, kind 6 such warps holding padding slots).
template <class Key>
std::vector<Key> homogeneous_mix(int kind, std::size_t n, std::size_t tile, std::uint64_t seed) {
  using bits_type = typename radix_traits<Key>::bits_type;
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  std::vector<std::uint64_t> few(6);
  for (auto& f : few) f = rng();
  const std::uint64_t same = rng();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t block = i / tile;
    std::uint64_t w = rng();
    switch (kind) {
      case 0:  // low byte constant within each aligned tile, different between tiles
        w = (w & ~std::uint64_t{0xFF}) | (block * 37 + 11) % 251;
        break;
      case 1:  // low two bytes per tile, the next per pair of tiles; higher bytes random
        w = (w & ~std::uint64_t{0xFFFFFF}) | ((block * 7919) & 0xFFFF) | ((((block / 2) * 13) & 0xFF) << 16);
        break;
      case 2:  // whole keys from a small set, constant within each aligned tile
        w = few[(block * 5 + block / 3) % few.size()];
        break;
      case 3:  // all equal
        w = same;
        break;
      case 4: {  // thirds: low-entropy band (AND of 16 words), uniform, all equal
        if (i < n / 3) {
          for (int r = 1; r < 16; ++r) w &= rng();
        } else if (i >= 2 * n / 3) {
          w = same;
        }
        break;
      }
      case 6:  // all ones: every digit is the padding slots' digit (descending: all zeros)
        w = ~std::uint64_t{0};
        break;
      default: {  // kind 5: all equal but one key per tile (a different low byte, in the last lanes too)
        w = same;
        const std::size_t odd = (block * 2654435761u) % tile;
        if (i % tile == odd || i % tile == tile - 1 - (block % 3)) w ^= 1 + (block % 254);
        break;
      }
    }
    keys[i] = from_word<Key>(static_cast<bits_type>(w));
  }
  return keys;
}

template <class Key, class Value>
void check_homogeneous(const char* name) {
  constexpr std::size_t tile_k = os::detail::binning_policy<sizeof(Key), 0, 8>::tile_items;
  // Every n below is small: pairs take the policy's small-sort shape where it has one.
  constexpr std::size_t tile_p =
      os::detail::small_shape<os::detail::binning_policy<sizeof(Key), sizeof(Value), 8>>::type::tile_items;
  std::uint64_t seed = 900 + sizeof(Key);
  for (int kind = 0; kind <= 6; ++kind) {
    for (bool pairs : {false, true}) {
      const std::size_t tile = pairs ? tile_p : tile_k;
      for (std::size_t n : {std::size_t{1}, tile / 2 + 3, tile, tile + 1, 6 * tile, 7 * tile + 123}) {
        const auto keys = homogeneous_mix<Key>(kind, n, tile, ++seed);
        for (bool descending : {false, true}) {
          config c;
          c.descending = descending;
          const std::string what = std::string(name) + " homogeneous kind " + std::to_string(kind);
          if (pairs) {
            check<8, Key, Value>(keys, c, what + " pairs");
          } else {
            check<8, Key>(keys, c, what);
          }
          c.double_buffer = true;
          c.begin_bit = 4;
          c.end_bit = radix_traits<Key>::bits - 3;
          if (pairs) {
            check<8, Key, Value>(keys, c, what + " pairs, bit subset");
          } else {
            check<8, Key>(keys, c, what + " bit subset");
          }
          // Small portions: a homogeneous last tile hands the digit starts on.
          c = config{};
          c.descending = descending;
          c.portion = 2 * tile + 5;
          if (pairs) {
            check<8, Key, Value>(keys, c, what + " pairs, portions");
          } else {
            check<8, Key>(keys, c, what + " portions");
          }
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST_F(Onesweep, HomogeneousTilesU32) { check_homogeneous<std::uint32_t, std::uint32_t>("u32"); }
TEST_F(Onesweep, HomogeneousTilesU64) { check_homogeneous<std::uint64_t, std::uint64_t>("u64"); }
TEST_F(Onesweep, HomogeneousTilesU64PairsU32) { check_homogeneous<std::uint64_t, std::uint32_t>("u64/u32"); }

// Crowded places above pair_min_items keys: the pass runs as the gated atomicOr /
// __match_any_sync pair and the match_any kernel does the work (AND of 4 and of 8
// words: fewer than 16 distinct digits expected among 32 keys at every place), for
// uint32 and uint64 keys, both orders; AND of 2 words stays with atomicOr.
template <class Key>
void check_crowded(const char* name) {
  using bits_type = typename radix_traits<Key>::bits_type;
  const std::size_t n = os::detail::pair_min_items + 4097;
  std::mt19937_64 rng(4242 + sizeof(Key));
  for (int q : {2, 4, 8}) {
    std::vector<Key> keys(n);
    for (auto& k : keys) {
      std::uint64_t w = rng();
      for (int r = 1; r < q; ++r) w &= rng();
      k = from_word<Key>(static_cast<bits_type>(w));
    }
    for (bool descending : {false, true}) {
      config c;
      c.descending = descending;
      check<8, Key>(keys, c, std::string(name) + " crowded, AND of " + std::to_string(q) + " words");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(Onesweep, CrowdedPlacesU32) { check_crowded<std::uint32_t>("u32"); }
TEST_F(Onesweep, CrowdedPlacesU64) { check_crowded<std::uint64_t>("u64"); }

// NaN / -0.0 placement as documented in key_traits.hpp.
template <class F>
void check_special_values() {
  using L = std::numeric_limits<F>;
  const F specials[] = {L::quiet_NaN(), -L::quiet_NaN(), L::infinity(), -L::infinity(), F(0), -F(0), F(1), F(-1),
                        L::denorm_min(), -L::denorm_min(), L::max(), L::lowest(), L::min()};
  std::mt19937_64 rng(7);
  std::vector<F> keys(20000);
  for (auto& k : keys) k = specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
  for (bool descending : {false, true}) {
    config c;
    c.descending = descending;
    check<8, F, std::uint32_t>(keys, c, "special values");
    // Explicit placement (ascending): -NaN first, +NaN last, -0.0 before +0.0.
    if (!descending) {
      std::vector<F> out;
      std::vector<int> unused;
      config plain;
      plain.end_bit = radix_traits<F>::bits;
      gpu_sort<8, F, int>(keys, nullptr, plain, out, unused);
      ASSERT_FALSE(out.empty());
      EXPECT_TRUE(std::isnan(out.front()) && std::signbit(out.front())) << "a NaN with the sign bit set sorts first";
      EXPECT_TRUE(std::isnan(out.back()) && !std::signbit(out.back())) << "a NaN with the sign bit clear sorts last";
      std::size_t last_negative_zero = 0, first_positive_zero = out.size();
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == F(0) && std::signbit(out[i])) last_negative_zero = i;
        if (out[i] == F(0) && !std::signbit(out[i]) && first_positive_zero == out.size()) first_positive_zero = i;
      }
      EXPECT_LT(last_negative_zero, first_positive_zero) << "-0.0 sorts before +0.0";
    }
  }
}

TEST_F(Onesweep, FloatSpecialValues) { check_special_values<float>(); }
TEST_F(Onesweep, DoubleSpecialValues) { check_special_values<double>(); }

// The registry entries (8-bit digits) for the three experiment shapes.
TEST_F(Onesweep, Registry) {
  namespace reg = onepass::registry;
  const std::size_t n = 3 * tile32 + 11;
  for (auto shape : {reg::sort_shape::keys_u32, reg::sort_shape::pairs_u32_u32, reg::sort_shape::keys_u64}) {
    const auto& e = reg::find_sort("onesweep", shape, reg::device::gpu);
    EXPECT_EQ(e.label, "Onesweep (onepass)");
    const bool pairs = shape == reg::sort_shape::pairs_u32_u32;
    const std::size_t key_size = shape == reg::sort_shape::keys_u64 ? 8 : 4;
    std::mt19937_64 rng(11);
    std::vector<std::uint64_t> words(n);
    for (auto& w : words) w = rng();
    std::vector<unsigned char> keys(n * key_size);
    for (std::size_t i = 0; i < n; ++i) std::memcpy(&keys[i * key_size], &words[i], key_size);
    dev kin(n * key_size), kout(n * key_size), vin(n * 4), vout(n * 4);
    cuda_ok(cudaMemcpy(kin.p, keys.data(), keys.size(), cudaMemcpyHostToDevice), "upload");
    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    upload(vin.as<std::uint32_t>(), values);
    reg::sort_params params;  // end_bit 0: the key's width
    std::size_t temp_bytes = 0;
    e.gpu_run(nullptr, temp_bytes, kin.p, kout.p, pairs ? vin.p : nullptr, pairs ? vout.p : nullptr, n, params, nullptr);
    dev temp(temp_bytes);
    e.gpu_run(temp.p, temp_bytes, kin.p, kout.p, pairs ? vin.p : nullptr, pairs ? vout.p : nullptr, n, params, nullptr);
    cuda_ok(cudaDeviceSynchronize(), "registry sort");
    std::vector<unsigned char> out(n * key_size);
    cuda_ok(cudaMemcpy(out.data(), kout.p, out.size(), cudaMemcpyDeviceToHost), "download");
    std::vector<std::uint64_t> expected(n), got(n);
    for (std::size_t i = 0; i < n; ++i) {
      expected[i] = key_size == 8 ? words[i] : static_cast<std::uint32_t>(words[i]);
      got[i] = 0;
      std::memcpy(&got[i], &out[i * key_size], key_size);
    }
    std::vector<std::uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return expected[a] < expected[b]; });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], expected[idx[i]]) << reg::to_string(shape) << " at " << i;
    if (pairs) {
      const auto v = download(vout.as<std::uint32_t>(), n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], idx[i]) << "pairs value at " << i;
    }
  }
}

// ----------------------------------------------------------------------------
// Large inputs, checked on the GPU: keys from a hash of the index; after the sort
// (pairs: values = input index) every adjacent pair is in order (and, for pairs,
// ties in index order, and keys_out[i] == key(values_out[i])), and the multiset of
// keys is unchanged (sum and sum of a mixed hash of all keys, before and after).

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

__global__ void fill_hashed(std::uint32_t* keys, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = static_cast<std::uint32_t>(mix64(i ^ seed));
}

// sums[0] += key, sums[1] += mix64(key); sums[2] counts order violations.
__global__ void check_sorted(const std::uint32_t* keys, const std::uint32_t* values, std::uint64_t n,
                             std::uint64_t seed, unsigned long long* sums) {
  unsigned long long s0 = 0, s1 = 0, bad = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = keys[i];
    s0 += k;
    s1 += mix64(k);
    if (i + 1 < n) {
      const std::uint32_t next = keys[i + 1];
      if (next < k) ++bad;
      if (values != nullptr && next == k && values[i + 1] <= values[i]) ++bad;
    }
    if (values != nullptr && static_cast<std::uint32_t>(mix64(values[i] ^ seed)) != k) ++bad;
  }
  atomicAdd(&sums[0], s0);
  atomicAdd(&sums[1], s1);
  atomicAdd(&sums[2], bad);
}

void large_sort_check(std::uint64_t n, bool pairs, bool double_buffer_api) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::uint64_t seed = 0x1234;
  std::size_t temp_bytes = 0;
  os::double_buffer<std::uint32_t> kd;
  os::double_buffer<std::uint32_t> vd;
  if (double_buffer_api) {
    if (pairs) os::sort_pairs(nullptr, temp_bytes, kd, vd, n);
    else os::sort_keys(nullptr, temp_bytes, kd, n);
  } else {
    if (pairs) os::sort_pairs<8, std::uint32_t, std::uint32_t>(nullptr, temp_bytes, nullptr, nullptr, nullptr, nullptr, n);
    else os::sort_keys<8, std::uint32_t>(nullptr, temp_bytes, nullptr, nullptr, n);
  }
  const std::uint64_t need = 2 * n * 4 * (pairs ? 2 : 1) + temp_bytes + (std::uint64_t{1} << 30);
  if (need > free_bytes) GTEST_SKIP() << "needs " << need << " bytes of GPU memory, " << free_bytes << " free";
  dev k0(n * 4), k1(n * 4), v0(pairs ? n * 4 : 0), v1(pairs ? n * 4 : 0), temp(temp_bytes), sums(6 * 8);
  fill_hashed<<<4096, 256>>>(k0.as<std::uint32_t>(), n, seed);
  if (pairs) {
    // values = index: fill through a tiny kernel-free path (iota on the host would be 8+ GB).
    std::vector<std::uint32_t> iota_chunk(std::uint64_t{1} << 24);
    for (std::uint64_t b = 0; b < n; b += iota_chunk.size()) {
      const std::uint64_t m = std::min<std::uint64_t>(iota_chunk.size(), n - b);
      for (std::uint64_t i = 0; i < m; ++i) iota_chunk[i] = static_cast<std::uint32_t>(b + i);
      cuda_ok(cudaMemcpy(v0.as<std::uint32_t>() + b, iota_chunk.data(), m * 4, cudaMemcpyHostToDevice), "iota");
    }
  }
  cuda_ok(cudaMemset(sums.p, 0, 6 * 8), "memset");
  auto* s = sums.as<unsigned long long>();
  check_sorted<<<4096, 256>>>(k0.as<std::uint32_t>(), nullptr, n, seed, s);  // input checksums in s[0..1]
  const std::uint32_t* out_keys = k1.as<std::uint32_t>();
  const std::uint32_t* out_values = v1.as<std::uint32_t>();
  if (double_buffer_api) {
    kd = os::double_buffer<std::uint32_t>(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
    vd = os::double_buffer<std::uint32_t>(v0.as<std::uint32_t>(), v1.as<std::uint32_t>());
    if (pairs) os::sort_pairs(temp.p, temp_bytes, kd, vd, n);
    else os::sort_keys(temp.p, temp_bytes, kd, n);
    out_keys = kd.current();
    out_values = vd.current();
  } else if (pairs) {
    os::sort_pairs(temp.p, temp_bytes, k0.as<const std::uint32_t>(), k1.as<std::uint32_t>(),
                   v0.as<const std::uint32_t>(), v1.as<std::uint32_t>(), n);
  } else {
    os::sort_keys(temp.p, temp_bytes, k0.as<const std::uint32_t>(), k1.as<std::uint32_t>(), n);
  }
  check_sorted<<<4096, 256>>>(out_keys, pairs ? out_values : nullptr, n, seed, s + 3);
  cuda_ok(cudaDeviceSynchronize(), "large sort");
  unsigned long long h[6];
  cuda_ok(cudaMemcpy(h, s, sizeof(h), cudaMemcpyDeviceToHost), "sums");
  EXPECT_EQ(h[5], 0u) << "n=" << n << ": order/stability/pairing violations";
  EXPECT_EQ(h[3], h[0]) << "n=" << n << ": key sum changed";
  EXPECT_EQ(h[4], h[1]) << "n=" << n << ": key hash sum changed";
}

// The real portion size 2^28 +- 1 (keys and pairs).
TEST_F(Onesweep, PortionBoundary2Pow28) {
  for (std::uint64_t n : {(std::uint64_t{1} << 28) - 1, std::uint64_t{1} << 28, (std::uint64_t{1} << 28) + 1}) {
    large_sort_check(n, true, false);
    large_sort_check(n, false, true);
  }
}

// u32 pairs take the policy's small-sort shape below small_below keys and the default
// shape from there on: the plan's tile count says which, and sorts on both sides of the
// switch are right (pairs, both APIs).
TEST_F(Onesweep, PairsShapeBySize) {
  using P = os::detail::plan<8, std::uint32_t, std::uint32_t>;
  constexpr std::uint64_t below = os::detail::small_shape<P::policy>::below;
  static_assert(below > 0 && !std::is_same_v<P::small_policy, P::policy>, "u32 pairs name a small-sort shape");
  auto tiles = [](std::uint64_t n, std::uint64_t tile) { return (n + tile - 1) / tile; };
  EXPECT_EQ(P(below - 1, 0, 32, false).tiles_per_portion(), tiles(below - 1, P::small_policy::tile_items));
  EXPECT_EQ(P(below, 0, 32, false).tiles_per_portion(), tiles(below, P::policy::tile_items));
  for (std::uint64_t n : {below - 1, below, below + 1}) {
    large_sort_check(n, true, false);
    large_sort_check(n, true, true);
  }
}

// Above 2^31 keys (uint32 keys only, double-buffer API: 2 x 8.6 GB).
TEST_F(Onesweep, Above2Pow31Keys) { large_sort_check((std::uint64_t{1} << 31) + (std::uint64_t{1} << 20) + 7, false, true); }

// ----------------------------------------------------------------------------
// Bad input throws onepass::error naming the argument.

template <class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no onepass::error thrown (expected one naming " << needle << ")";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(Onesweep, BadInput) {
  const std::size_t n = 1000;
  dev a(n * 4), b(n * 4), t(1 << 20);
  auto* in = a.as<const std::uint32_t>();
  auto* out = b.as<std::uint32_t>();
  std::size_t bytes = 0;
  expect_error([&] { os::sort_keys(nullptr, bytes, in, out, n, 0, 33); }, "end_bit");
  expect_error([&] { os::sort_keys(nullptr, bytes, in, out, n, 8, 8); }, "begin_bit");
  expect_error([&] { os::sort_keys(nullptr, bytes, in, out, n, 20, 10); }, "begin_bit");
  expect_error([&] { os::sort_keys<8, std::uint64_t>(nullptr, bytes, nullptr, nullptr, n, 0, 65); }, "end_bit");
  os::sort_keys(nullptr, bytes, in, out, n);
  std::size_t small = bytes - 1;
  expect_error([&] { os::sort_keys(t.p, small, in, out, n); }, "temp_bytes");
  expect_error([&] { os::sort_keys(t.p, bytes, static_cast<const std::uint32_t*>(nullptr), out, n); }, "d_keys_in");
  expect_error([&] { os::sort_keys(t.p, bytes, in, static_cast<std::uint32_t*>(nullptr), n); }, "d_keys_out");
  expect_error([&] { os::sort_keys(t.p, bytes, in, const_cast<std::uint32_t*>(in) + 1, n); }, "overlap");
  expect_error(
      [&] {
        os::sort_pairs(t.p, bytes, in, out, static_cast<const std::uint32_t*>(nullptr), out, n);
      },
      "d_values_in");
  os::double_buffer<std::uint32_t> kd(a.as<std::uint32_t>(), nullptr);
  expect_error([&] { os::sort_keys(t.p, bytes, kd, n); }, "keys.buffers[1]");
  kd.buffers[1] = out;
  kd.selector = 2;
  expect_error([&] { os::sort_keys(t.p, bytes, kd, n); }, "selector");
  // n == 0 with null pointers is fine.
  std::size_t zero_bytes = 0;
  os::sort_keys<8, std::uint32_t>(nullptr, zero_bytes, nullptr, nullptr, 0);
  EXPECT_NO_THROW((os::sort_keys<8, std::uint32_t>(t.p, zero_bytes, nullptr, nullptr, 0)));
}

}  // namespace
