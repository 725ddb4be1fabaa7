// The CPU sorts of the Onesweep area (lib/include/onepass/sort/cpu_radix_sort.hpp and the
// registered CPU sorts "tbb_radix", "std_stable_sort"): the oneTBB radix sort equals the
// std::stable_sort oracle (onepass_baselines/cpu/stable_sort_oracle.hpp) bit for bit for
// every key type (uint32, int32, float, uint64, int64, double), both orders, several bit
// ranges, sizes 0, 1, small and large (several chunks), every entropy band (key = AND of q
// uniform words, q = 1, 2, 3, 4, 8, 16), all-equal, sorted and reversed inputs; pairs are
// stable; floats place -0.0, +0.0 and NaNs as key_traits.hpp documents; bad input throws
// onepass::error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/sort/cpu_radix_sort.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"

namespace {

namespace s = onepass::sort;
using onepass::baselines::stable_sort_oracle;  // the tests' oracle (a baseline)
namespace reg = onepass::registry;

/// n keys whose words are the AND of q uniform words (Thearling–Smith entropy band q).
template <class Key>
std::vector<Key> band_keys(std::size_t n, unsigned q, std::uint64_t seed) {
  using bits_type = typename s::radix_traits<Key>::bits_type;
  std::mt19937_64 g(seed);
  std::vector<Key> out(n);
  for (auto& k : out) {
    bits_type w = ~bits_type{0};
    for (unsigned j = 0; j < q; ++j) w &= static_cast<bits_type>(g());
    std::memcpy(&k, &w, sizeof(Key));
  }
  return out;
}

template <class Key>
bool same_bits(const std::vector<Key>& a, const std::vector<Key>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Key)) == 0);
}

template <class Key>
void expect_keys_match(const std::vector<Key>& in, unsigned begin, unsigned end, bool descending,
                       const std::string& what) {
  std::vector<Key> ours(in.size()), oracle(in.size());
  s::radix_sort_keys(in.data(), ours.data(), in.size(), begin, end, descending);
  stable_sort_oracle(in.data(), oracle.data(), in.size(), begin, end, descending);
  EXPECT_TRUE(same_bits(ours, oracle)) << what << " n=" << in.size() << " bits [" << begin << "," << end << ") "
                                       << (descending ? "descending" : "ascending");
}

template <class Key>
void expect_pairs_match(const std::vector<Key>& in, unsigned begin, unsigned end, bool descending,
                        const std::string& what) {
  const std::size_t n = in.size();
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  std::vector<Key> ours(n), oracle(n);
  std::vector<std::uint32_t> ours_v(n), oracle_v(n);
  s::radix_sort_pairs(in.data(), ours.data(), values.data(), ours_v.data(), n, begin, end, descending);
  stable_sort_oracle(in.data(), oracle.data(), values.data(), oracle_v.data(), n, begin, end, descending);
  EXPECT_TRUE(same_bits(ours, oracle)) << what << " keys, n=" << n;
  EXPECT_EQ(ours_v, oracle_v) << what << " values, n=" << n;
  // Stability, checked directly: equal key fields keep increasing input indices.
  const s::bit_range bits = s::resolve_bit_range("test", s::radix_traits<Key>::bits, begin, end);
  for (std::size_t i = 1; i < n; ++i) {
    const auto a = s::key_field(s::ordered_bits(in[ours_v[i - 1]], descending), bits.begin, bits.end);
    const auto b = s::key_field(s::ordered_bits(in[ours_v[i]], descending), bits.begin, bits.end);
    ASSERT_LE(a, b) << what << " not sorted at " << i;
    if (a == b) {
      ASSERT_LT(ours_v[i - 1], ours_v[i]) << what << " not stable at " << i;
    }
  }
}

template <class Key>
class CpuRadixSort : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t, double>;
TYPED_TEST_SUITE(CpuRadixSort, KeyTypes);

TYPED_TEST(CpuRadixSort, EqualsStableSortOnEntropyBandsBothOrders) {
  using Key = TypeParam;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{1000},
                        std::size_t{70000}})
    for (unsigned q : {1u, 2u, 3u, 4u, 8u, 16u})
      for (bool desc : {false, true}) {
        const auto in = band_keys<Key>(n, q, 1000 * n + q);
        expect_keys_match(in, 0, 0, desc, "band q=" + std::to_string(q));
      }
}

TYPED_TEST(CpuRadixSort, EqualsStableSortOnBitRanges) {
  using Key = TypeParam;
  constexpr unsigned w = s::radix_traits<Key>::bits;
  const auto in = band_keys<Key>(50000, 1, 7);
  const unsigned ranges[][2] = {{0, w}, {0, 1}, {0, 8}, {3, 11}, {5, w - 3}, {w - 1, w}, {w / 2, w}, {0, 0}};
  for (const auto& r : ranges)
    for (bool desc : {false, true}) expect_keys_match(in, r[0], r[1], desc, "bit range");
}

TYPED_TEST(CpuRadixSort, PairsAreStableAndEqualTheOracle) {
  using Key = TypeParam;
  constexpr unsigned w = s::radix_traits<Key>::bits;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{777}, std::size_t{100000}})
    for (unsigned q : {1u, 4u, 16u})
      for (bool desc : {false, true}) {
        const auto in = band_keys<Key>(n, q, 31 * n + q);
        expect_pairs_match(in, 0, 0, desc, "pairs q=" + std::to_string(q));
        expect_pairs_match(in, 2, w / 2 + 1, desc, "pairs partial bits q=" + std::to_string(q));
      }
}

TYPED_TEST(CpuRadixSort, SpecialInputs) {
  using Key = TypeParam;
  const std::size_t n = 40000;
  auto random = band_keys<Key>(n, 1, 99);
  std::vector<Key> equal(n, random[0]);
  std::vector<Key> sorted(n);
  stable_sort_oracle(random.data(), sorted.data(), n);
  std::vector<Key> reversed(sorted.rbegin(), sorted.rend());
  auto few = band_keys<Key>(n, 1, 5);
  for (auto& k : few) k = random[static_cast<std::size_t>(s::radix_traits<Key>::to_bits(k) % 3)];
  for (bool desc : {false, true}) {
    expect_keys_match(equal, 0, 0, desc, "all equal");
    expect_keys_match(sorted, 0, 0, desc, "sorted");
    expect_keys_match(reversed, 0, 0, desc, "reversed");
    expect_keys_match(few, 0, 0, desc, "three distinct values");
    expect_pairs_match(few, 0, 0, desc, "three distinct values, pairs");
  }
}

TEST(CpuRadixSortOracle, MatchesStdStableSortOnIntegers) {
  const auto in = band_keys<std::int64_t>(20000, 2, 3);
  std::vector<std::int64_t> expected = in, oracle(in.size());
  std::stable_sort(expected.begin(), expected.end());
  stable_sort_oracle(in.data(), oracle.data(), in.size());
  EXPECT_EQ(oracle, expected);
  std::stable_sort(expected.begin(), expected.end(), std::greater<>());
  stable_sort_oracle(in.data(), oracle.data(), in.size(), 0, 0, true);
  EXPECT_EQ(oracle, expected);
}

TEST(CpuRadixSortFloat, SpecialValuesAreOrderedAsDocumented) {
  const float nan = std::numeric_limits<float>::quiet_NaN();  // sign bit clear: sorts last
  const float neg_nan = -nan;                                   // sign bit set: sorts first
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {1.0f, nan, -0.0f, 0.0f, -inf, neg_nan, -2.5f, inf, 0.0f, -0.0f};
  std::vector<float> out(in.size());
  s::radix_sort_keys(in.data(), out.data(), in.size());
  EXPECT_TRUE(std::isnan(out[0]) && std::signbit(out[0]));
  EXPECT_EQ(out[1], -inf);
  EXPECT_EQ(out[2], -2.5f);
  EXPECT_TRUE(out[3] == 0.0f && std::signbit(out[3]) && out[4] == 0.0f && std::signbit(out[4]));
  EXPECT_TRUE(out[5] == 0.0f && !std::signbit(out[5]) && out[6] == 0.0f && !std::signbit(out[6]));
  EXPECT_EQ(out[7], 1.0f);
  EXPECT_EQ(out[8], inf);
  EXPECT_TRUE(std::isnan(out[9]) && !std::signbit(out[9]));
  std::vector<float> desc(in.size());
  s::radix_sort_keys(in.data(), desc.data(), in.size(), 0, 0, true);
  std::vector<float> reversed(out.rbegin(), out.rend());
  EXPECT_EQ(std::memcmp(desc.data(), reversed.data(), in.size() * sizeof(float)), 0);
}

TEST(CpuRadixSortErrors, BadInputThrows) {
  std::vector<std::uint32_t> a(10, 1), b(10);
  std::vector<std::uint32_t> va(10), vb(10);
  EXPECT_THROW(s::radix_sort_keys(a.data(), b.data(), a.size(), 5, 5), onepass::error);     // begin == end
  EXPECT_THROW(s::radix_sort_keys(a.data(), b.data(), a.size(), 8, 4), onepass::error);     // begin > end
  EXPECT_THROW(s::radix_sort_keys(a.data(), b.data(), a.size(), 0, 33), onepass::error);    // end > width
  EXPECT_THROW(s::radix_sort_keys(a.data(), b.data(), a.size(), 32, 0), onepass::error);    // begin >= width
  EXPECT_THROW(s::radix_sort_keys<std::uint32_t>(nullptr, b.data(), 10), onepass::error);   // null input
  EXPECT_THROW(s::radix_sort_keys<std::uint32_t>(a.data(), nullptr, 10), onepass::error);   // null output
  EXPECT_THROW(s::radix_sort_keys(a.data(), a.data() + 2, 8), onepass::error);              // overlap
  EXPECT_THROW(s::radix_sort_pairs(a.data(), b.data(), va.data(), va.data(), 10), onepass::error);
  EXPECT_THROW(s::radix_sort_pairs(a.data(), b.data(), va.data(), b.data(), 10), onepass::error);
  EXPECT_THROW((s::radix_sort_pairs<std::uint32_t, std::uint32_t>(a.data(), b.data(), nullptr, vb.data(), 10)),
               onepass::error);
  EXPECT_NO_THROW(s::radix_sort_keys<std::uint32_t>(nullptr, nullptr, 0));  // n = 0 accepts null
  try {
    s::radix_sort_keys(a.data(), b.data(), a.size(), 0, 40);
    FAIL() << "no exception";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find("end_bit"), std::string::npos) << e.what();
  }
}

TEST(CpuSortRegistry, TbbRadixAndOracleAreRegisteredForEveryShapeAndAgree) {
  for (auto shape : reg::all_sort_shapes) {
    ASSERT_TRUE(reg::contains_sort("tbb_radix", shape, reg::device::cpu)) << reg::to_string(shape);
    ASSERT_TRUE(reg::contains_sort("std_stable_sort", shape, reg::device::cpu)) << reg::to_string(shape);
    const auto& ours = reg::find_sort("tbb_radix", shape, reg::device::cpu);
    const auto& oracle = reg::find_sort("std_stable_sort", shape, reg::device::cpu);
    const std::size_t value_size = reg::value_bytes(shape);
    const bool pairs = value_size != 0;
    const std::size_t n = 30000, key_size = reg::key_bytes(shape);
    std::vector<unsigned char> keys(n * key_size), a(n * key_size), b(n * key_size);
    std::mt19937_64 g(11);
    for (auto& c : keys) c = static_cast<unsigned char>(g() & 0x0f);  // many ties (for f32: finite values)
    // Values: the index i in the shape's value width (little endian).
    std::vector<unsigned char> values(n * value_size), va(n * value_size), vb(n * value_size);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t byte = 0; byte < value_size; ++byte)
        values[i * value_size + byte] = static_cast<unsigned char>(std::uint64_t{i} >> (8 * byte));
    for (bool desc : {false, true}) {
      reg::sort_params p;
      p.descending = desc;
      p.begin_bit = 2;
      p.end_bit = 13;
      ours.run(keys.data(), a.data(), pairs ? values.data() : nullptr, pairs ? va.data() : nullptr, n, p);
      oracle.run(keys.data(), b.data(), pairs ? values.data() : nullptr, pairs ? vb.data() : nullptr, n, p);
      EXPECT_EQ(a, b) << reg::to_string(shape);
      if (pairs) {
        EXPECT_EQ(va, vb);
      }
    }
    if (pairs) {
      EXPECT_THROW(ours.run(keys.data(), a.data(), nullptr, nullptr, n, reg::sort_params{}), onepass::error);
    }
  }
}

}  // namespace
