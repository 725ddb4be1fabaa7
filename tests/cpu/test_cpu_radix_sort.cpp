// The CPU sorts of the Onesweep area (lib/include/onepass/sort/cpu_radix_sort.hpp and the
// registered CPU sorts "tbb_radix", "std_stable_sort"): the oneTBB radix sort equals the
// std::stable_sort oracle (onepass_baselines/cpu/stable_sort_oracle.hpp) bit for bit for
// every key type (uint32, int32, float, uint64, int64, double), both orders, several bit
// ranges, sizes 0, 1, small and large (several chunks), every entropy band (key = AND of q
// uniform words, q = 1, 2, 3, 4, 8, 16), all-equal, sorted and reversed inputs; pairs are
// stable; floats place -0.0, +0.0 and NaNs as key_traits.hpp documents; bad input throws
// onepass::error. Also: many blocks (an arena of 5 workers), skipped digit places, NumPy's
// float order (cpu::sort_*_numpy_order: the oracle sorts canonical keys carrying their
// index) and cpu::argsort (equal to cpu::sort_pairs with the values 0..n-1).
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

#include <tbb/task_arena.h>

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
  s::cpu::sort_keys(in.data(), ours.data(), in.size(), begin, end, descending);
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
  s::cpu::sort_pairs(in.data(), ours.data(), values.data(), ours_v.data(), n, begin, end, descending);
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
  s::cpu::sort_keys(in.data(), out.data(), in.size());
  EXPECT_TRUE(std::isnan(out[0]) && std::signbit(out[0]));
  EXPECT_EQ(out[1], -inf);
  EXPECT_EQ(out[2], -2.5f);
  EXPECT_TRUE(out[3] == 0.0f && std::signbit(out[3]) && out[4] == 0.0f && std::signbit(out[4]));
  EXPECT_TRUE(out[5] == 0.0f && !std::signbit(out[5]) && out[6] == 0.0f && !std::signbit(out[6]));
  EXPECT_EQ(out[7], 1.0f);
  EXPECT_EQ(out[8], inf);
  EXPECT_TRUE(std::isnan(out[9]) && !std::signbit(out[9]));
  std::vector<float> desc(in.size());
  s::cpu::sort_keys(in.data(), desc.data(), in.size(), 0, 0, true);
  std::vector<float> reversed(out.rbegin(), out.rend());
  EXPECT_EQ(std::memcmp(desc.data(), reversed.data(), in.size() * sizeof(float)), 0);
}

TEST(CpuRadixSortErrors, BadInputThrows) {
  std::vector<std::uint32_t> a(10, 1), b(10);
  std::vector<std::uint32_t> va(10), vb(10);
  EXPECT_THROW(s::cpu::sort_keys(a.data(), b.data(), a.size(), 5, 5), onepass::error);     // begin == end
  EXPECT_THROW(s::cpu::sort_keys(a.data(), b.data(), a.size(), 8, 4), onepass::error);     // begin > end
  EXPECT_THROW(s::cpu::sort_keys(a.data(), b.data(), a.size(), 0, 33), onepass::error);    // end > width
  EXPECT_THROW(s::cpu::sort_keys(a.data(), b.data(), a.size(), 32, 0), onepass::error);    // begin >= width
  EXPECT_THROW(s::cpu::sort_keys<std::uint32_t>(nullptr, b.data(), 10), onepass::error);   // null input
  EXPECT_THROW(s::cpu::sort_keys<std::uint32_t>(a.data(), nullptr, 10), onepass::error);   // null output
  EXPECT_THROW(s::cpu::sort_keys(a.data(), a.data() + 2, 8), onepass::error);              // overlap
  EXPECT_THROW(s::cpu::sort_pairs(a.data(), b.data(), va.data(), va.data(), 10), onepass::error);
  EXPECT_THROW(s::cpu::sort_pairs(a.data(), b.data(), va.data(), b.data(), 10), onepass::error);
  EXPECT_THROW((s::cpu::sort_pairs<std::uint32_t, std::uint32_t>(a.data(), b.data(), nullptr, vb.data(), 10)),
               onepass::error);
  EXPECT_NO_THROW(s::cpu::sort_keys<std::uint32_t>(nullptr, nullptr, 0));  // n = 0 accepts null
  try {
    s::cpu::sort_keys(a.data(), b.data(), a.size(), 0, 40);
    FAIL() << "no exception";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find("end_bit"), std::string::npos) << e.what();
  }
}

/// Keys with every special float: +-0.0, +-inf, NaNs of both signs and several payloads.
template <class Key>
std::vector<Key> special_float_keys(std::size_t n, std::uint64_t seed) {
  using bits_type = typename s::radix_traits<Key>::bits_type;
  constexpr bits_type sign = bits_type{1} << (s::radix_traits<Key>::bits - 1);
  const Key inf = std::numeric_limits<Key>::infinity();
  const Key qnan = std::numeric_limits<Key>::quiet_NaN();
  bits_type payload_nan_bits;
  std::memcpy(&payload_nan_bits, &qnan, sizeof qnan);
  payload_nan_bits |= 5;  // a quiet NaN with a payload
  std::mt19937_64 g(seed);
  std::vector<Key> out(n);
  for (auto& k : out) {
    switch (g() % 8) {
      case 0: k = Key(0); break;
      case 1: k = -Key(0); break;
      case 2: k = (g() & 1) ? inf : -inf; break;
      case 3: k = (g() & 1) ? qnan : -qnan; break;
      case 4: {
        const bits_type b = static_cast<bits_type>(payload_nan_bits | ((g() & 1) ? sign : bits_type{0}));
        std::memcpy(&k, &b, sizeof k);
        break;
      }
      default: k = static_cast<Key>(static_cast<double>(static_cast<std::int64_t>(g() % 2001) - 1000) / 8);
    }
  }
  return out;
}

/// NumPy's canonical form: every NaN -> +qNaN, -0.0 -> +0.0.
template <class Key>
Key canonical(Key k) {
  if (std::isnan(k)) return std::numeric_limits<Key>::quiet_NaN();
  return k == Key(0) ? Key(0) : k;
}

template <class Key>
void expect_numpy_order_matches(const std::vector<Key>& in, unsigned begin, unsigned end, bool descending,
                                const std::string& what) {
  const std::size_t n = in.size();
  std::vector<Key> canon(n), canon_sorted(n), expected(n), ours(n), ours_pairs(n);
  for (std::size_t i = 0; i < n; ++i) canon[i] = canonical(in[i]);
  std::vector<std::uint64_t> index(n), index_sorted(n), ours_index(n), ours_v(n);
  std::iota(index.begin(), index.end(), std::uint64_t{0});
  stable_sort_oracle(canon.data(), canon_sorted.data(), index.data(), index_sorted.data(), n, begin, end, descending);
  for (std::size_t i = 0; i < n; ++i) expected[i] = in[index_sorted[i]];
  s::cpu::sort_keys_numpy_order(in.data(), ours.data(), n, begin, end, descending);
  EXPECT_TRUE(same_bits(ours, expected)) << what << " keys n=" << n << " [" << begin << "," << end << ") "
                                         << (descending ? "descending" : "ascending");
  s::cpu::sort_pairs_numpy_order(in.data(), ours_pairs.data(), index.data(), ours_v.data(), n, begin, end,
                                  descending);
  EXPECT_TRUE(same_bits(ours_pairs, expected)) << what << " pairs keys";
  EXPECT_EQ(ours_v, index_sorted) << what << " pairs values";
  std::vector<Key> ours_argsort_keys(n);
  s::cpu::argsort(in.data(), ours_argsort_keys.data(), ours_index.data(), n, begin, end, descending, true);
  EXPECT_EQ(ours_index, index_sorted) << what << " argsort";
  EXPECT_TRUE(same_bits(ours_argsort_keys, expected)) << what << " argsort keys";
}

template <class Key>
class CpuRadixSortFloatOrder : public ::testing::Test {};
using FloatKeyTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuRadixSortFloatOrder, FloatKeyTypes);

TYPED_TEST(CpuRadixSortFloatOrder, NumpyOrderSortsCanonicalKeysStablyKeepingTheirBits) {
  using Key = TypeParam;
  constexpr unsigned w = s::radix_traits<Key>::bits;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{20}, std::size_t{5000}, std::size_t{200003}})
    for (bool desc : {false, true}) {
      const auto in = special_float_keys<Key>(n, 7 * n + 1);
      expect_numpy_order_matches(in, 0, 0, desc, "specials");
      expect_numpy_order_matches(in, 3, w - 2, desc, "specials, narrowed bits");
    }
  // Placement, directly: NaNs (any sign) last ascending and first descending, zeros equal.
  const Key nan = std::numeric_limits<Key>::quiet_NaN();
  const std::vector<Key> in = {-nan, Key(1), -Key(0), nan, Key(0), -Key(2)};
  std::vector<Key> out(in.size());
  s::cpu::sort_keys_numpy_order(in.data(), out.data(), in.size());
  EXPECT_EQ(out[0], -Key(2));
  EXPECT_TRUE(out[1] == Key(0) && std::signbit(out[1]));   // -0.0 first: input order among equal zeros
  EXPECT_TRUE(out[2] == Key(0) && !std::signbit(out[2]));
  EXPECT_EQ(out[3], Key(1));
  EXPECT_TRUE(std::isnan(out[4]) && std::signbit(out[4]));  // NaNs last, in input order, bits kept
  EXPECT_TRUE(std::isnan(out[5]) && !std::signbit(out[5]));
  s::cpu::sort_keys_numpy_order(in.data(), out.data(), in.size(), 0, 0, true);
  EXPECT_TRUE(std::isnan(out[0]) && std::signbit(out[0]));
  EXPECT_TRUE(std::isnan(out[1]) && !std::signbit(out[1]));
  EXPECT_EQ(out[2], Key(1));
  EXPECT_TRUE(out[3] == Key(0) && std::signbit(out[3]));
  EXPECT_TRUE(out[4] == Key(0) && !std::signbit(out[4]));
  EXPECT_EQ(out[5], -Key(2));
}

TYPED_TEST(CpuRadixSort, ManyBlocksSkippedPlacesAndArgsortEqualTheOracle) {
  using Key = TypeParam;
  using bits_type = typename s::radix_traits<Key>::bits_type;
  constexpr unsigned w = s::radix_traits<Key>::bits;
  tbb::task_arena arena(5);  // 5 blocks of unequal work whatever the machine
  arena.execute([&] {
    const std::size_t n = 300007;
    const auto random = band_keys<Key>(n, 1, 5);
    // Only bits [12, 20) of the transformed word vary: the other digit places are skipped.
    std::vector<Key> middle(n);
    const Key base = random[0];
    for (std::size_t i = 0; i < n; ++i) {
      bits_type word = s::radix_traits<Key>::to_bits(base);
      word = static_cast<bits_type>((word & ~(bits_type{0xff} << 12)) |
                                    (static_cast<bits_type>(s::radix_traits<Key>::to_bits(random[i]) & 0xff) << 12));
      middle[i] = s::radix_traits<Key>::from_bits(word);
    }
    for (bool desc : {false, true}) {
      expect_keys_match(random, 0, 0, desc, "5 blocks");
      expect_keys_match(random, 1, w - 1, desc, "5 blocks, narrowed bits");
      expect_pairs_match(random, 0, 0, desc, "5 blocks, pairs");
      expect_keys_match(middle, 0, 0, desc, "skipped places");
      expect_pairs_match(middle, 4, w, desc, "skipped places, pairs");
      for (const std::vector<Key>* keys : std::initializer_list<const std::vector<Key>*>{&random, &middle}) {
        std::vector<Key> sorted(n), sorted_pairs(n);
        std::vector<std::uint32_t> index(n), values(n), values_out(n);
        std::iota(values.begin(), values.end(), 0u);
        s::cpu::argsort(keys->data(), sorted.data(), index.data(), n, 0, 0, desc);
        s::cpu::sort_pairs(keys->data(), sorted_pairs.data(), values.data(), values_out.data(), n, 0, 0, desc);
        EXPECT_EQ(index, values_out) << "argsort";
        EXPECT_TRUE(same_bits(sorted, sorted_pairs)) << "argsort keys";
      }
    }
  });
  // Every place trivial (all keys equal): the identity, indices 0..n-1.
  std::vector<Key> equal(70000, band_keys<Key>(1, 1, 3)[0]), out(70000);
  std::vector<std::uint64_t> index(70000);
  s::cpu::argsort(equal.data(), out.data(), index.data(), equal.size());
  for (std::size_t i = 0; i < index.size(); ++i) ASSERT_EQ(index[i], i);
  EXPECT_TRUE(same_bits(out, equal));
}

TEST(CpuRadixSortErrors, ArgsortBadInputThrows) {
  std::vector<std::uint32_t> a(10, 1), b(10);
  std::vector<std::uint64_t> index(10);
  EXPECT_THROW(s::cpu::argsort(a.data(), b.data(), static_cast<std::uint64_t*>(nullptr), 10), onepass::error);
  EXPECT_THROW(s::cpu::argsort(a.data(), b.data(), reinterpret_cast<std::uint64_t*>(b.data()), 4), onepass::error);
  EXPECT_THROW(s::cpu::argsort(a.data(), b.data(), index.data(), 10, 0, 33), onepass::error);
  std::vector<std::uint8_t> small_index(300);
  std::vector<std::uint32_t> c(300, 2), d(300);
  EXPECT_THROW(s::cpu::argsort(c.data(), d.data(), small_index.data(), 300), onepass::error);  // 299 > 255
  EXPECT_NO_THROW(s::cpu::argsort(c.data(), d.data(), small_index.data(), 256));
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
