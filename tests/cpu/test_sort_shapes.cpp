// The one list of sort shapes (harness/include/onepass/harness/registry.hpp,
// ONEPASS_SORT_SHAPES) and what derives from it: names, parsing, key/value sizes from the
// types, the visitor; and every CPU sort entry of the registry, for every shape it is
// registered for (keys_i64 included, with negative keys), sorting correctly by the key
// type's own order (operator<, not the radix transform the sorts use), stably.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace reg = onepass::registry;

TEST(SortShapes, NamesSizesAndParsingDeriveFromTheOneList) {
  std::set<std::string> names;
  std::size_t visited = 0;
  reg::for_each_sort_shape([&](auto tag) {
    using types = decltype(tag);
    const reg::sort_shape s = types::shape;
    EXPECT_EQ(reg::all_sort_shapes[visited], s) << "for_each_sort_shape follows all_sort_shapes";
    ++visited;
    names.insert(reg::to_string(s));
    EXPECT_EQ(reg::parse_sort_shape(reg::to_string(s)), s);
    EXPECT_EQ(reg::key_bytes(s), sizeof(typename types::key)) << reg::to_string(s);
    if constexpr (types::has_values)
      EXPECT_EQ(reg::value_bytes(s), sizeof(typename types::value)) << reg::to_string(s);
    else
      EXPECT_EQ(reg::value_bytes(s), 0u) << reg::to_string(s);
    // visit_sort_shape reaches the same compile-time shape.
    EXPECT_EQ(reg::visit_sort_shape(s, [](auto t) { return decltype(t)::shape; }), s);
  });
  EXPECT_EQ(visited, reg::sort_shape_count);
  EXPECT_EQ(names.size(), reg::sort_shape_count) << "shape names are unique";
  EXPECT_EQ(reg::sort_shape_names(","), "keys_u32,pairs_u32_u32,keys_u64,pairs_u64_u64,keys_f32,keys_i64");

  // keys_i64: signed 64-bit keys only, not in sort_headline's default set (the recorded table).
  static_assert(std::is_same_v<reg::shape_types<reg::sort_shape::keys_i64>::key, std::int64_t>);
  static_assert(std::is_void_v<reg::shape_types<reg::sort_shape::keys_i64>::value>);
  EXPECT_EQ(reg::key_bytes(reg::sort_shape::keys_i64), 8u);
  EXPECT_EQ(reg::key_bytes(reg::sort_shape::keys_f32), 4u);
  EXPECT_EQ(reg::value_bytes(reg::sort_shape::pairs_u64_u64), 8u);
  EXPECT_FALSE(reg::headline_default(reg::sort_shape::keys_i64));
  for (auto s : {reg::sort_shape::keys_u32, reg::sort_shape::pairs_u32_u32, reg::sort_shape::keys_u64,
                 reg::sort_shape::pairs_u64_u64, reg::sort_shape::keys_f32})
    EXPECT_TRUE(reg::headline_default(s)) << reg::to_string(s);
}

TEST(SortShapes, BadNamesAndValuesThrow) {
  try {
    reg::parse_sort_shape("keys_i128");
    FAIL() << "no exception";
  } catch (const onepass::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("name"), std::string::npos) << what;
    EXPECT_NE(what.find("keys_i64"), std::string::npos) << "lists the known names: " << what;
  }
  EXPECT_THROW(reg::parse_sort_shape(""), onepass::error);
  EXPECT_THROW(reg::parse_sort_shape("KEYS_U32"), onepass::error);
  const auto bogus = static_cast<reg::sort_shape>(reg::sort_shape_count);
  EXPECT_THROW(reg::key_bytes(bogus), onepass::error);
  EXPECT_STREQ(reg::to_string(bogus), "unknown");
}

// An implementation that declares its shapes is asked for those only.
struct u32_only {
  static constexpr bool supports(reg::sort_shape s) { return s == reg::sort_shape::keys_u32; }
};
struct every_shape {};
static_assert(reg::implementation_supports<u32_only, reg::sort_shape::keys_u32>());
static_assert(!reg::implementation_supports<u32_only, reg::sort_shape::keys_i64>());
static_assert(reg::implementation_supports<every_shape, reg::sort_shape::keys_i64>());

/// n keys of type Key with many ties: half from a few small values (negative ones too for
/// signed and float keys, -0.0 and +0.0 for floats), half spread over the type's range.
template <class Key>
std::vector<Key> make_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t w = g();
    const bool tie = (w & 1) == 0;
    if constexpr (std::is_floating_point_v<Key>) {
      const auto small = static_cast<int>((w >> 1) % 9) - 4;  // -4..4
      keys[i] = tie ? (small == 0 && ((w >> 8) & 1) ? Key(-0.0) : Key(small) / 4)
                    : static_cast<Key>(static_cast<std::int64_t>(w) >> 20) / Key(1024);  // finite
    } else if constexpr (std::is_signed_v<Key>) {
      keys[i] = tie ? static_cast<Key>(static_cast<std::int64_t>((w >> 1) % 7) - 3) : static_cast<Key>(w);
    } else {
      keys[i] = tie ? static_cast<Key>((w >> 1) % 7) : static_cast<Key>(w);
    }
  }
  return keys;
}

template <class T>
std::vector<std::uint64_t> bit_patterns(const std::vector<T>& v) {
  std::vector<std::uint64_t> out(v.size(), 0);
  for (std::size_t i = 0; i < v.size(); ++i) std::memcpy(&out[i], &v[i], sizeof(T));
  std::sort(out.begin(), out.end());
  return out;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Runs CPU entry e (shape with key type Key, value type Value or void) on n keys,
/// ascending and descending, and checks the output by Key's operator<.
template <class Key, class Value>
void check_cpu_entry(const reg::sort_entry& e, std::size_t n) {
  constexpr bool pairs = !std::is_void_v<Value>;
  using value_type = std::conditional_t<pairs, Value, std::uint32_t>;
  const std::string where = e.name + " (cpu, " + reg::to_string(e.shape) + ")";
  const std::vector<Key> keys = make_keys<Key>(n, 17 + n);
  if constexpr (std::is_signed_v<Key> || std::is_floating_point_v<Key>) {
    if (n >= 100) {
      ASSERT_TRUE(std::any_of(keys.begin(), keys.end(), [](Key k) { return k < Key(0); }))
          << "negative keys in input";
    }
  }
  std::vector<value_type> values(n);
  std::iota(values.begin(), values.end(), value_type{0});
  for (bool descending : {false, true}) {
    std::vector<Key> out(n);
    std::vector<value_type> vout(n);
    reg::sort_params p;
    p.descending = descending;
    e.run(keys.data(), out.data(), pairs ? values.data() : nullptr, pairs ? vout.data() : nullptr, n, p);
    const std::string what = where + (descending ? " descending" : " ascending");
    for (std::size_t i = 0; i + 1 < n; ++i)
      ASSERT_FALSE(descending ? out[i] < out[i + 1] : out[i + 1] < out[i]) << what << ": out of order at " << i;
    EXPECT_EQ(bit_patterns(out), bit_patterns(keys)) << what << ": not a permutation of the input";
    if constexpr (std::is_signed_v<Key>) {
      if (!descending && n > 0) {
        EXPECT_EQ(out.front(), *std::min_element(keys.begin(), keys.end())) << what;
      }
    }
    if constexpr (pairs) {
      EXPECT_EQ(bit_patterns(vout), bit_patterns(values)) << what << ": values not a permutation";
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_LT(vout[i], n) << what;
        ASSERT_TRUE(same_bits(keys[vout[i]], out[i])) << what << ": value " << i << " does not follow its key";
        if (i + 1 < n && same_bits(out[i], out[i + 1])) {
          ASSERT_LT(vout[i], vout[i + 1]) << what << ": unstable at " << i;
        }
      }
    }
  }
}

TEST(SortShapes, EveryCpuEntrySortsEveryShapeItIsRegisteredFor) {
  std::set<std::string> cpu_names;
  std::size_t checked = 0;
  for (const auto& e : reg::sorts()) {
    if (e.where != reg::device::cpu) continue;
    ASSERT_TRUE(static_cast<bool>(e.run)) << e.name;
    cpu_names.insert(e.name);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5000}}) {
      reg::visit_sort_shape(e.shape, [&](auto tag) {
        using types = decltype(tag);
        check_cpu_entry<typename types::key, typename types::value>(e, n);
      });
      if (::testing::Test::HasFatalFailure()) return;
    }
    ++checked;
  }
  // The CPU sorts of the baselines take every shape, keys_i64 included.
  for (const char* name : {"std_stable_sort", "tbb_radix"}) {
    EXPECT_TRUE(cpu_names.count(name)) << name;
    for (auto s : reg::all_sort_shapes)
      EXPECT_TRUE(reg::contains_sort(name, s, reg::device::cpu)) << name << " " << reg::to_string(s);
  }
  EXPECT_GE(checked, 2 * reg::sort_shape_count);
}

#ifdef ONEPASS_HAVE_CUDA_SOURCES
// A CUDA build registers keys_i64 for the library's GPU sorts and CUB's; VREN and
// thrust::sort declare the five shapes of the recorded experiments only.
TEST(SortShapes, GpuSortsRegisteredForKeysI64) {
  const auto s = reg::sort_shape::keys_i64;
  for (const char* name : {"onesweep", "onesweep_db", "hybrid_msd", "onepass_sort", "cub_onesweep_n32",
                           "cub_onesweep_n64", "cub_onesweep_db_n32", "cub_onesweep_db_n64", "cub_reduce_then_scan"})
    EXPECT_TRUE(reg::contains_sort(name, s, reg::device::gpu)) << name;
  for (const char* name : {"vren", "thrust_sort"}) {
    EXPECT_TRUE(reg::contains_sort(name, reg::sort_shape::keys_f32, reg::device::gpu)) << name;
    EXPECT_FALSE(reg::contains_sort(name, s, reg::device::gpu)) << name;
  }
}
#endif

}  // namespace
