// CPU tests of the sort family's names (issue 31: the device as a namespace, sort::cpu:: /
// sort::gpu::, the element count num_items): onepass::sort::cpu::sort_keys / sort_pairs (the
// argument order of the GPU sort_keys / sort_pairs of sort.cuh without temporary storage and
// stream), sort_keys<Order> / sort_pairs<Order>, sort_keys_numpy_order /
// sort_pairs_numpy_order and argsort; every deprecated alias in onepass::sort
// (cpu_radix_sort.hpp: radix_sort_keys, radix_sort_pairs, their float_order overloads,
// radix_sort_*_numpy_order, radix_argsort; removed after one release) still compiles and
// gives output identical to its new name -- uint32, uint64 and float keys, the full width
// and a bit range, ascending and descending -- and the same errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "test_support.hpp"
#include "onepass/error.hpp"
#include "onepass/sort/cpu_radix_sort.hpp"
#include "onepass/sort/key_traits.hpp"

namespace s = onepass::sort;
using s::float_order;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

namespace {

using onepass::testing::error_of;
using onepass::testing::same_bits;

// Above small_input (2^16: 11-bit digits) and several 16 Ki-key blocks, not a power of two.
constexpr std::size_t num_items = 5 * 16384 + 77;

// Random keys with many repeats on the low bits (stability shows), and for floats -0.0,
// +0.0, infinities and NaNs of both signs.
template <class Key>
std::vector<Key> keys_of(std::size_t n, u64 seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> k(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<Key>) {
      const u64 r = rng();
      switch (r % 16) {
        case 0: k[i] = Key(-0.0); break;
        case 1: k[i] = Key(0.0); break;
        case 2: k[i] = std::numeric_limits<Key>::quiet_NaN(); break;
        case 3: k[i] = -std::numeric_limits<Key>::quiet_NaN(); break;
        case 4: k[i] = (r & 16) ? std::numeric_limits<Key>::infinity() : -std::numeric_limits<Key>::infinity(); break;
        default: k[i] = static_cast<Key>(static_cast<double>(static_cast<std::int64_t>(r >> 8) % 2001 - 1000) / 8.0);
      }
    } else {
      k[i] = static_cast<Key>(rng() & (rng() | 0xffff0000u));  // skewed: AND of two words
    }
  }
  return k;
}

struct range {
  unsigned begin, end;
};

}  // namespace

TEST(SortNames, NewNamesSortAndDefaultEndBitIsTheKeyWidth) {
  const auto in = keys_of<u32>(num_items, 1);
  std::vector<u32> a(num_items), b(num_items);
  s::cpu::sort_keys(in.data(), a.data(), num_items);
  for (std::size_t i = 1; i < num_items; ++i) ASSERT_LE(a[i - 1], a[i]) << i;
  s::cpu::sort_keys(in.data(), b.data(), num_items, 0, 32);  // the GPU sort_keys's default end_bit
  EXPECT_EQ(a, b);
  // argsort = sort_pairs with the values 0..num_items-1.
  std::vector<u64> iota(num_items), index(num_items), values(num_items);
  for (std::size_t i = 0; i < num_items; ++i) iota[i] = i;
  s::cpu::argsort(in.data(), a.data(), index.data(), num_items, 3, 29, true);
  s::cpu::sort_pairs(in.data(), b.data(), iota.data(), values.data(), num_items, 3, 29, true);
  EXPECT_EQ(a, b);
  EXPECT_EQ(index, values);
  // The errors name the new function and the count num_items.
  const std::string bad_range = error_of([&] { s::cpu::sort_keys(in.data(), a.data(), num_items, 0, 33); });
  EXPECT_NE(bad_range.find("onepass::sort::cpu::sort_keys"), std::string::npos) << bad_range;
  std::vector<std::uint8_t> small(num_items);
  EXPECT_NE(error_of([&] { s::cpu::argsort(in.data(), a.data(), small.data(), num_items); }).find("num_items"),
            std::string::npos);
  // The shared buffer checks (sort_args.hpp, also behind the GPU sort baselines) name num_items.
  EXPECT_EQ(error_of([&] { s::cpu::sort_keys<u32>(nullptr, a.data(), 10); }),
            "onepass::sort::cpu::sort_keys: keys_in must not be null when num_items > 0");
  EXPECT_EQ(error_of([&] { s::cpu::sort_pairs<u32, u32>(in.data(), a.data(), nullptr, b.data(), 10); }),
            "onepass::sort::cpu::sort_pairs: values_in must not be null when num_items > 0 (key-value sort)");
  EXPECT_NO_THROW(s::cpu::sort_keys<u32>(nullptr, nullptr, 0));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

template <class Key>
void check_aliases(u64 seed) {
  const auto in = keys_of<Key>(num_items, seed);
  std::vector<u32> v32(num_items);
  std::vector<u64> v64(num_items);
  for (std::size_t i = 0; i < num_items; ++i) v32[i] = static_cast<u32>(i * 2654435761u), v64[i] = ~u64{i};
  constexpr unsigned width = s::radix_traits<Key>::bits;
  for (const range r : {range{0, 0}, range{0, width}, range{3, width - 5}}) {
    for (const bool desc : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "key bits " << width << " range [" << r.begin << ", " << r.end
                                        << ") descending " << desc);
      std::vector<Key> want(num_items), got(num_items);
      std::vector<u32> want32(num_items), got32(num_items);
      std::vector<u64> want64(num_items), got64(num_items);
      // radix_sort_keys -> cpu::sort_keys
      s::cpu::sort_keys(in.data(), want.data(), num_items, r.begin, r.end, desc);
      s::radix_sort_keys(in.data(), got.data(), num_items, r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      // radix_sort_pairs -> cpu::sort_pairs (4- and 8-byte values)
      s::cpu::sort_pairs(in.data(), want.data(), v32.data(), want32.data(), num_items, r.begin, r.end, desc);
      s::radix_sort_pairs(in.data(), got.data(), v32.data(), got32.data(), num_items, r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      EXPECT_EQ(got32, want32);
      s::cpu::sort_pairs(in.data(), want.data(), v64.data(), want64.data(), num_items, r.begin, r.end, desc);
      s::radix_sort_pairs(in.data(), got.data(), v64.data(), got64.data(), num_items, r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      EXPECT_EQ(got64, want64);
      // The float_order overloads (integer keys: the same sort under both orders).
      s::cpu::sort_keys<float_order::signed_zero_equal>(in.data(), want.data(), num_items, r.begin, r.end, desc);
      s::radix_sort_keys<float_order::signed_zero_equal>(in.data(), got.data(), num_items, r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      s::cpu::sort_pairs<float_order::signed_zero_equal>(in.data(), want.data(), v64.data(), want64.data(), num_items,
                                                         r.begin, r.end, desc);
      s::radix_sort_pairs<float_order::signed_zero_equal>(in.data(), got.data(), v64.data(), got64.data(), num_items,
                                                          r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      EXPECT_EQ(got64, want64);
      s::cpu::sort_keys<float_order::total_order>(in.data(), want.data(), num_items, r.begin, r.end, desc);
      s::radix_sort_keys<float_order::total_order>(in.data(), got.data(), num_items, r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      // NumPy's order.
      s::cpu::sort_keys_numpy_order(in.data(), want.data(), num_items, r.begin, r.end, desc);
      s::radix_sort_keys_numpy_order(in.data(), got.data(), num_items, r.begin, r.end, desc);
      EXPECT_TRUE(same_bits(got, want));
      s::cpu::sort_pairs_numpy_order(in.data(), want.data(), v32.data(), want32.data(), num_items, r.begin, r.end,
                                     desc);
      s::radix_sort_pairs_numpy_order(in.data(), got.data(), v32.data(), got32.data(), num_items, r.begin, r.end,
                                      desc);
      EXPECT_TRUE(same_bits(got, want));
      EXPECT_EQ(got32, want32);
      // radix_argsort -> cpu::argsort, both orders, 4- and 8-byte indices.
      for (const bool numpy : {false, true}) {
        s::cpu::argsort(in.data(), want.data(), want64.data(), num_items, r.begin, r.end, desc, numpy);
        s::radix_argsort(in.data(), got.data(), got64.data(), num_items, r.begin, r.end, desc, numpy);
        EXPECT_TRUE(same_bits(got, want)) << "numpy_order " << numpy;
        EXPECT_EQ(got64, want64) << "numpy_order " << numpy;
        s::cpu::argsort(in.data(), want.data(), want32.data(), num_items, r.begin, r.end, desc, numpy);
        s::radix_argsort(in.data(), got.data(), got32.data(), num_items, r.begin, r.end, desc, numpy);
        EXPECT_TRUE(same_bits(got, want)) << "numpy_order " << numpy;
        EXPECT_EQ(got32, want32) << "numpy_order " << numpy;
      }
    }
  }
  // The defaults (no bit range, ascending) forward too.
  std::vector<Key> want(num_items), got(num_items);
  std::vector<u64> want64(num_items), got64(num_items);
  s::cpu::sort_keys(in.data(), want.data(), num_items);
  s::radix_sort_keys(in.data(), got.data(), num_items);
  EXPECT_TRUE(same_bits(got, want));
  s::cpu::argsort(in.data(), want.data(), want64.data(), num_items);
  s::radix_argsort(in.data(), got.data(), got64.data(), num_items);
  EXPECT_TRUE(same_bits(got, want));
  EXPECT_EQ(got64, want64);
}

}  // namespace

TEST(SortNames, DeprecatedAliasesEqualNewNamesU32) { check_aliases<u32>(11); }
TEST(SortNames, DeprecatedAliasesEqualNewNamesU64) { check_aliases<u64>(12); }
TEST(SortNames, DeprecatedAliasesEqualNewNamesFloat) { check_aliases<float>(13); }

TEST(SortNames, DeprecatedAliasesGiveTheSameErrors) {
  std::vector<u32> a(10, 1), b(10), va(10), vb(10);
  std::vector<u64> index(10);
  std::vector<std::uint8_t> small(300);
  std::vector<u32> c(300), d(300);
  // Each pair: the alias's message equals the new name's (both name cpu::...), non-empty.
  const auto same = [](const std::string& alias, const std::string& name) {
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(alias, name);
  };
  same(error_of([&] { s::radix_sort_keys(a.data(), b.data(), a.size(), 5, 5); }),
       error_of([&] { s::cpu::sort_keys(a.data(), b.data(), a.size(), 5, 5); }));
  same(error_of([&] { s::radix_sort_keys(a.data(), b.data(), a.size(), 0, 33); }),
       error_of([&] { s::cpu::sort_keys(a.data(), b.data(), a.size(), 0, 33); }));
  same(error_of([&] { s::radix_sort_keys<u32>(nullptr, b.data(), 10); }),
       error_of([&] { s::cpu::sort_keys<u32>(nullptr, b.data(), 10); }));
  same(error_of([&] { s::radix_sort_keys(a.data(), a.data() + 2, 8); }),
       error_of([&] { s::cpu::sort_keys(a.data(), a.data() + 2, 8); }));
  same(error_of([&] { s::radix_sort_keys<float_order::signed_zero_equal>(a.data(), b.data(), a.size(), 32, 0); }),
       error_of([&] { s::cpu::sort_keys<float_order::signed_zero_equal>(a.data(), b.data(), a.size(), 32, 0); }));
  same(error_of([&] { s::radix_sort_pairs(a.data(), b.data(), va.data(), va.data(), 10); }),
       error_of([&] { s::cpu::sort_pairs(a.data(), b.data(), va.data(), va.data(), 10); }));
  same(error_of([&] { s::radix_sort_pairs<u32, u32>(a.data(), b.data(), nullptr, vb.data(), 10); }),
       error_of([&] { s::cpu::sort_pairs<u32, u32>(a.data(), b.data(), nullptr, vb.data(), 10); }));
  same(error_of([&] {
         s::radix_sort_pairs<float_order::signed_zero_equal>(a.data(), b.data(), va.data(), b.data(), 10);
       }),
       error_of([&] {
         s::cpu::sort_pairs<float_order::signed_zero_equal>(a.data(), b.data(), va.data(), b.data(), 10);
       }));
  same(error_of([&] { s::radix_sort_keys_numpy_order(a.data(), b.data(), a.size(), 0, 40); }),
       error_of([&] { s::cpu::sort_keys_numpy_order(a.data(), b.data(), a.size(), 0, 40); }));
  same(error_of([&] { s::radix_sort_pairs_numpy_order(a.data(), b.data(), va.data(), a.data(), 10); }),
       error_of([&] { s::cpu::sort_pairs_numpy_order(a.data(), b.data(), va.data(), a.data(), 10); }));
  same(error_of([&] { s::radix_argsort(a.data(), b.data(), static_cast<u64*>(nullptr), 10); }),
       error_of([&] { s::cpu::argsort(a.data(), b.data(), static_cast<u64*>(nullptr), 10); }));
  same(error_of([&] { s::radix_argsort(a.data(), b.data(), reinterpret_cast<u64*>(b.data()), 4); }),
       error_of([&] { s::cpu::argsort(a.data(), b.data(), reinterpret_cast<u64*>(b.data()), 4); }));
  same(error_of([&] { s::radix_argsort(c.data(), d.data(), small.data(), 300, 0, 0, false, true); }),
       error_of([&] { s::cpu::argsort(c.data(), d.data(), small.data(), 300, 0, 0, false, true); }));
  // num_items = 0 accepts null pointers under every alias.
  EXPECT_NO_THROW(s::radix_sort_keys<u32>(nullptr, nullptr, 0));
  EXPECT_NO_THROW((s::radix_sort_pairs<u32, u64>(nullptr, nullptr, nullptr, nullptr, 0)));
  EXPECT_NO_THROW((s::radix_argsort<u32, u64>(nullptr, nullptr, nullptr, 0)));
}

#pragma GCC diagnostic pop
