// Tests of the hybrid MSD radix sort (lib/include/onepass/sort/hybrid_msd.cuh) and of
// onepass::sort::gpu (sort/sort.cuh): output equals std::stable_sort by ordered_bits
// (sort/key_traits.hpp) restricted to [begin_bit, end_bit), for every key type and order,
// on random, all-equal, sorted, reversed, few-distinct and entropy-band inputs; sizes 0, 1,
// the local-finish threshold +- 1 (the whole input, and one top-digit bucket of exactly
// that many keys), tile boundaries; heavily skewed inputs (one bucket holds 99% of the
// keys; all keys share their top 24 / 56 bits); pairs are stable (values = input index)
// with 4- and 8-byte values; both APIs; the registry entries; one input above 2^31 keys
// (checked on the GPU); bad arguments; the local finish's two orders of passes on inputs
// of at most local_max keys: low-entropy keys (the AND of q uniform words; also above
// local_max) and runs of keys tied on their top 16 bits, of every length class, hidden
// from its predictor; SanitizerSizes, every kernel once at small sizes (scripts/
// gpu-sanitize.sh's racecheck runs). Skipped (GTEST_SKIP) without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/sort/hybrid_msd.cuh"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/sort.cuh"
#include "gpu_test_support.hpp"

namespace {

namespace hm = onepass::sort::gpu::hybrid_msd;
namespace sg = onepass::sort::gpu;
using onepass::sort::key_field;
using onepass::sort::ordered_bits;
using onepass::sort::radix_traits;
using onepass::testing::cuda_ok;
using onepass::testing::dev;
using onepass::testing::download;
using onepass::testing::have_gpu;
using onepass::testing::upload;

#define REQUIRE_GPU()                                                                \
  do {                                                                               \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: hybrid MSD GPU test skipped"; \
  } while (0)

constexpr std::size_t local_max = hm::detail::local_max;
constexpr std::size_t window = hm::detail::window_items;
constexpr std::size_t small_max = hm::detail::small_max;
/// Largest whole input of the lean shape (straight LSD passes, 384 x 13).
constexpr std::size_t lean_max = hm::detail::lean_max;

template <class Key>
Key from_word(std::uint64_t w) {
  using bits_type = typename radix_traits<Key>::bits_type;
  return onepass::sort::detail::bit_cast_from<Key, bits_type>(static_cast<bits_type>(w));
}

enum class pattern { random, all_equal, sorted, reversed, few_distinct, entropy4, top_bits_shared, skew99 };

template <class Key>
std::vector<Key> make_keys(pattern p, std::size_t n, std::uint64_t seed) {
  constexpr unsigned bits = 8 * sizeof(Key);
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  const std::uint64_t common = rng();
  const Key equal = from_word<Key>(rng());
  Key set[5];
  for (auto& k : set) k = from_word<Key>(rng());
  for (auto& k : keys) {
    switch (p) {
      case pattern::all_equal: k = equal; break;
      case pattern::few_distinct: k = set[rng() % 5]; break;
      case pattern::entropy4: k = from_word<Key>(rng() & rng() & rng() & rng()); break;
      case pattern::top_bits_shared: {
        // Only the low (bits - 24) bits vary for 32-bit keys, the low 8 for 64-bit keys.
        const unsigned free_bits = bits == 32 ? 8 : 8;
        const std::uint64_t low_mask = (std::uint64_t{1} << free_bits) - 1;
        k = from_word<Key>((common & ~low_mask) | (rng() & low_mask));
        break;
      }
      case pattern::skew99:
        // 99% of the keys in one top-digit bucket (top byte 0x5A), the rest anywhere.
        if (rng() % 100 != 0) {
          const std::uint64_t w = rng();
          k = from_word<Key>((w & ((std::uint64_t{1} << (bits - 8)) - 1)) | (std::uint64_t{0x5A} << (bits - 8)));
        } else {
          k = from_word<Key>(rng());
        }
        break;
      default: k = from_word<Key>(rng()); break;
    }
  }
  if (p == pattern::sorted || p == pattern::reversed) {
    std::sort(keys.begin(), keys.end(), [](Key a, Key b) { return ordered_bits(a, false) < ordered_bits(b, false); });
    if (p == pattern::reversed) std::reverse(keys.begin(), keys.end());
  }
  return keys;
}

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

enum class api { out_of_place, double_buffer, selector };

struct config {
  unsigned begin_bit = 0, end_bit = 0;  // end 0: key width
  bool descending = false;
  api how = api::out_of_place;
};

std::string describe(const config& c, std::size_t n) {
  return "n=" + std::to_string(n) + " bits=[" + std::to_string(c.begin_bit) + "," + std::to_string(c.end_bit) + ")" +
         (c.descending ? " descending" : " ascending") +
         (c.how == api::double_buffer ? " double-buffer" : c.how == api::selector ? " onepass::sort" : " out-of-place");
}

/// Sorts on the GPU with `c` and compares with the oracle; Value = void: keys only
/// (values are the input index otherwise).
template <class Key, class Value = void>
void check(const std::vector<Key>& keys, config c, const std::string& what) {
  constexpr bool pairs = !std::is_void_v<Value>;
  using V = std::conditional_t<pairs, Value, std::uint32_t>;
  if (c.end_bit == 0) c.end_bit = radix_traits<Key>::bits;
  const std::size_t n = keys.size();
  std::vector<V> values(pairs ? n : 0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<V>(i);
  dev k0(n * sizeof(Key)), k1(n * sizeof(Key)), v0(pairs ? n * sizeof(V) : 0), v1(pairs ? n * sizeof(V) : 0);
  upload(k0.as<Key>(), keys);
  if (pairs) upload(v0.as<V>(), values);
  if (n) cuda_ok(cudaMemset(k1.p, 0xA5, n * sizeof(Key)), "poison");
  if (pairs && n) cuda_ok(cudaMemset(v1.p, 0xA5, n * sizeof(V)), "poison");
  std::size_t temp_bytes = 0;
  const Key* result_keys = k1.as<Key>();
  const V* result_values = v1.as<V>();
  if (c.how == api::double_buffer) {
    hm::double_buffer<Key> kd(k0.as<Key>(), k1.as<Key>());
    hm::double_buffer<V> vd(v0.as<V>(), v1.as<V>());
    if constexpr (pairs) {
      hm::sort_pairs(nullptr, temp_bytes, kd, vd, n, c.begin_bit, c.end_bit, c.descending);
      dev temp(temp_bytes);
      hm::sort_pairs(temp.p, temp_bytes, kd, vd, n, c.begin_bit, c.end_bit, c.descending);
      cuda_ok(cudaDeviceSynchronize(), "sort_pairs (double buffer)");
      EXPECT_EQ(vd.selector, 0);
      result_values = vd.current();
    } else {
      hm::sort_keys(nullptr, temp_bytes, kd, n, c.begin_bit, c.end_bit, c.descending);
      dev temp(temp_bytes);
      hm::sort_keys(temp.p, temp_bytes, kd, n, c.begin_bit, c.end_bit, c.descending);
      cuda_ok(cudaDeviceSynchronize(), "sort_keys (double buffer)");
    }
    EXPECT_EQ(kd.selector, 0);
    result_keys = kd.current();
  } else {
    const bool sel = c.how == api::selector;
    if constexpr (pairs) {
      auto run = [&](void* t) {
        if (sel)
          sg::sort_pairs(t, temp_bytes, k0.as<const Key>(), k1.as<Key>(), v0.as<const V>(), v1.as<V>(), n,
                         c.begin_bit, c.end_bit, c.descending);
        else
          hm::sort_pairs(t, temp_bytes, k0.as<const Key>(), k1.as<Key>(), v0.as<const V>(), v1.as<V>(), n, c.begin_bit,
                         c.end_bit, c.descending);
      };
      run(nullptr);
      dev temp(temp_bytes);
      run(temp.p);
      cuda_ok(cudaDeviceSynchronize(), "sort");
    } else {
      auto run = [&](void* t) {
        if (sel)
          sg::sort_keys(t, temp_bytes, k0.as<const Key>(), k1.as<Key>(), n, c.begin_bit, c.end_bit, c.descending);
        else
          hm::sort_keys(t, temp_bytes, k0.as<const Key>(), k1.as<Key>(), n, c.begin_bit, c.end_bit, c.descending);
      };
      run(nullptr);
      dev temp(temp_bytes);
      run(temp.p);
      cuda_ok(cudaDeviceSynchronize(), "sort");
    }
    const auto in_after = download(k0.as<Key>(), n);
    EXPECT_EQ(0, n ? std::memcmp(in_after.data(), keys.data(), n * sizeof(Key)) : 0) << what << ": input modified";
  }
  const auto out_keys = download(result_keys, n);
  const auto out_values = pairs ? download(result_values, n) : std::vector<V>{};
  const auto idx = oracle(keys, c.begin_bit, c.end_bit, c.descending);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(0, std::memcmp(&out_keys[i], &keys[idx[i]], sizeof(Key)))
        << what << " " << describe(c, n) << ": key mismatch at " << i;
    if constexpr (pairs)
      ASSERT_EQ(static_cast<std::uint64_t>(out_values[i]), static_cast<std::uint64_t>(idx[i]))
          << what << " " << describe(c, n) << ": value (input index) mismatch at " << i << " (not stable)";
  }
}

template <class Key>
void check_key_type(const char* name) {
  const std::size_t sizes[] = {0,         1,         2,         1000, small_max, small_max + 1, local_max - 1,
                               local_max, local_max + 1, 3 * local_max + 17, 250003};
  std::uint64_t seed = 11;
  for (bool descending : {false, true}) {
    for (std::size_t n : sizes) {
      for (pattern p : {pattern::random, pattern::all_equal, pattern::sorted, pattern::reversed, pattern::few_distinct,
                        pattern::entropy4}) {
        config c;
        c.descending = descending;
        check<Key>(make_keys<Key>(p, n, ++seed), c, name);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

struct HybridMsd : ::testing::Test {
  void SetUp() override { REQUIRE_GPU(); }
};

TEST_F(HybridMsd, KeysU32) { check_key_type<std::uint32_t>("u32"); }
TEST_F(HybridMsd, KeysI32) { check_key_type<std::int32_t>("i32"); }
TEST_F(HybridMsd, KeysF32) { check_key_type<float>("f32"); }
TEST_F(HybridMsd, KeysU64) { check_key_type<std::uint64_t>("u64"); }
TEST_F(HybridMsd, KeysI64) { check_key_type<std::int64_t>("i64"); }
TEST_F(HybridMsd, KeysF64) { check_key_type<double>("f64"); }

// Pairs, stable, 4- and 8-byte values, both APIs and the selector, larger inputs
// (several levels: 2^22 keys make two levels of 32-bit keys).
TEST_F(HybridMsd, PairsStable) {
  std::uint64_t seed = 100;
  for (api how : {api::out_of_place, api::double_buffer, api::selector}) {
    for (std::size_t n : {std::size_t{5000}, std::size_t{70001}, std::size_t{1} << 22}) {
      for (pattern p : {pattern::random, pattern::few_distinct, pattern::entropy4}) {
        config c;
        c.how = how;
        check<std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(p, n, ++seed), c, "u32/u32");
        check<std::uint64_t, std::uint64_t>(make_keys<std::uint64_t>(p, n, ++seed), c, "u64/u64");
        c.descending = true;
        check<std::uint32_t, std::uint64_t>(make_keys<std::uint32_t>(p, n, ++seed), c, "u32/u64");
        check<double, std::uint32_t>(make_keys<double>(p, n, ++seed), c, "f64/u32");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Bit ranges: the MSD levels start at end_bit (the last level narrower), keys differ
// outside the range.
TEST_F(HybridMsd, BitRanges) {
  std::uint64_t seed = 200;
  const std::pair<unsigned, unsigned> ranges32[] = {{0, 12}, {4, 28}, {7, 32}, {31, 32}, {0, 31}};
  const std::pair<unsigned, unsigned> ranges64[] = {{0, 20}, {13, 64}, {33, 40}, {0, 63}, {60, 64}};
  for (std::size_t n : {std::size_t{3000}, std::size_t{200001}}) {
    for (auto [b, e] : ranges32) {
      config c{b, e, (b % 2) == 1, api::out_of_place};
      check<std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), c, "u32 range");
      check<float>(make_keys<float>(pattern::random, n, ++seed), c, "f32 range");
    }
    for (auto [b, e] : ranges64) {
      config c{b, e, (e % 2) == 1, api::double_buffer};
      check<std::int64_t, std::uint32_t>(make_keys<std::int64_t>(pattern::random, n, ++seed), c, "i64 range");
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Skewed inputs: 99% of the keys in one top-digit bucket; all keys sharing their top 24
// (u32) or 56 (u64) bits, so the first levels find one bucket holding every key (it is not
// moved); all-equal keys above local_max (copied after the last level).
TEST_F(HybridMsd, Skewed) {
  std::uint64_t seed = 300;
  for (std::size_t n : {std::size_t{20000}, std::size_t{1} << 21}) {
    for (pattern p : {pattern::skew99, pattern::top_bits_shared, pattern::all_equal}) {
      for (api how : {api::out_of_place, api::double_buffer}) {
        config c;
        c.how = how;
        check<std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(p, n, ++seed), c, "u32 skewed");
        check<std::uint64_t>(make_keys<std::uint64_t>(p, n, ++seed), c, "u64 skewed");
        c.descending = true;
        check<std::int64_t, std::uint64_t>(make_keys<std::int64_t>(p, n, ++seed), c, "i64 skewed");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// A top-digit bucket of exactly local_max - 1, local_max, local_max + 1, small_max,
// small_max + 1, window and window + 1 keys (local finish vs. a further level; the large
// vs. the small local shape; segment vs. window batch), beside
// buckets of every other size class, and tile boundaries inside buckets.
TEST_F(HybridMsd, LocalFinishThreshold) {
  std::uint64_t seed = 400;
  const std::size_t tile32 = hm::detail::plan<std::uint32_t, hm::detail::no_values>::tile_items;
  for (std::size_t m : {local_max - 1, local_max, local_max + 1, lean_max, lean_max + 1, small_max, small_max + 1,
                        window, window + 1, tile32 - 1, tile32 + 1, 2 * tile32}) {
    std::mt19937_64 rng(++seed);
    std::vector<std::uint32_t> keys;
    for (std::size_t i = 0; i < m; ++i) keys.push_back((0x7Bu << 24) | static_cast<std::uint32_t>(rng() & 0xFFFFFF));
    for (std::size_t i = 0; i < 3 * local_max + 5; ++i) keys.push_back(static_cast<std::uint32_t>(rng()));
    for (std::size_t i = 0; i < 37; ++i) keys.push_back((0x7Cu << 24) | static_cast<std::uint32_t>(rng() & 0xFFFFFF));
    std::shuffle(keys.begin(), keys.end(), rng);
    config c;
    check<std::uint32_t, std::uint32_t>(keys, c, "threshold m=" + std::to_string(m));
    c.how = api::double_buffer;
    check<std::uint32_t>(keys, c, "threshold m=" + std::to_string(m));
    std::vector<std::uint64_t> keys64(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) keys64[i] = (std::uint64_t{keys[i]} << 32) | (rng() & 0xFFFF);
    c.how = api::out_of_place;
    check<std::uint64_t, std::uint64_t>(keys64, c, "threshold64 m=" + std::to_string(m));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// ----------------------------------------------------------------------------
// The local finish's two orders of passes (hybrid_msd/local_finish.cuh, step 5e): inputs
// of at most local_max keys (one launch of the whole input, both local shapes) of
// low-entropy keys, which its predictor sends to straight LSD passes over every varying
// bit, and of keys whose top 16 bits form runs the predictor cannot see, which take the
// passes over the top 16 bits and then finish the runs (step 5f) of every length class.
// Pairs (values = input index: stability), u32 / u64 / float keys, both orders, bit
// ranges, both APIs; above local_max, windows and segments of low-entropy keys.

/// Keys that are the bitwise AND of q uniform words (sort_headline's Thearling-Smith band
/// q: each bit set with probability 2^-q).
template <class Key>
std::vector<Key> band_keys(unsigned q, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  for (auto& k : keys) {
    std::uint64_t w = ~std::uint64_t{0};
    for (unsigned j = 0; j < q; ++j) w &= rng();
    k = from_word<Key>(w);
  }
  return keys;
}

/// What the bits under the top 16 hold in tie_run_keys: random (runs out of order), one
/// value per run (runs of equal keys), the input position (runs of integer keys in order
/// under the sort's order; float keys with the sign bit set reversed).
enum class run_tail { random, equal, ordered };

/// Keys whose top 16 bits are a run's field: position p (row p / 32, lane p % 32) is in
/// run (row mod 5) + 5 (lane / lanes + (32 / lanes) (row / (5 rows))), so a run holds
/// lanes x rows keys (fewer at the end), and keys 32 d apart, d = 1..4, are never in one
/// run: the local finish's predictor (items i and i + d of a thread, d up to
/// local_tie_distances) sees no tie when local_tie_distances <= 4, and an input of at
/// most local_max keys takes the top passes and step 5f. The fields are distinct per run
/// (an odd multiplier), with the top bit set in some and clear in others, so the varying
/// bits reach the key's top bit and the top field is the top 16 bits. descent_at >= 0
/// (ordered tails): run 0's keys descent_at and descent_at + 1 swap their tails, so the
/// input's one descent under the top field is that far into run 0.
template <class Key>
std::vector<Key> tie_run_keys(std::size_t n, unsigned lanes, unsigned rows, run_tail tail, bool descending,
                              std::uint64_t seed, int descent_at = -1) {
  constexpr unsigned bits = 8 * sizeof(Key);
  using bits_type = typename radix_traits<Key>::bits_type;
  std::mt19937_64 rng(seed);
  const std::uint64_t rest_mask = (std::uint64_t{1} << (bits - 16)) - 1;
  std::vector<std::uint64_t> words(n);
  std::vector<std::size_t> run0;
  for (std::size_t p = 0; p < n; ++p) {
    const std::uint64_t row = p / 32, lane = p % 32;
    const std::uint64_t run = row % 5 + 5 * (lane / lanes + (32 / lanes) * (row / (5 * rows)));
    const std::uint64_t field = 0x8000 ^ ((run * 0x9E37) & 0xFFFF);
    std::uint64_t rest = 0;
    switch (tail) {
      case run_tail::random: rest = rng(); break;
      case run_tail::equal: rest = (run + 1) * 0x9E3779B97F4A7C15ull >> 7; break;
      case run_tail::ordered: rest = descending ? rest_mask - p : p + 1; break;
    }
    words[p] = (field << (bits - 16)) | (rest & rest_mask);
    if (run == 0) run0.push_back(p);
  }
  if (descent_at >= 0 && static_cast<std::size_t>(descent_at) + 1 < run0.size()) {
    std::uint64_t& a = words[run0[descent_at]];
    std::uint64_t& b = words[run0[descent_at + 1]];
    const std::uint64_t ta = a & rest_mask, tb = b & rest_mask;
    a = (a & ~rest_mask) | tb;
    b = (b & ~rest_mask) | ta;
  }
  std::vector<Key> keys(n);
  for (std::size_t p = 0; p < n; ++p) keys[p] = from_word<Key>(static_cast<bits_type>(words[p]));
  return keys;
}

TEST_F(HybridMsd, LocalFinishLowEntropy) {
  std::uint64_t seed = 500;
  const std::size_t sizes[] = {2,    33,           1000,     2500,         small_max - 1, small_max,     small_max + 1,
                               4603, lean_max - 1, lean_max, lean_max + 1, 5000,          local_max - 1, local_max};
  for (std::size_t n : sizes) {
    for (unsigned q : {2u, 3u, 4u, 8u, 16u}) {
      for (bool descending : {false, true}) {
        config c;
        c.descending = descending;
        c.how = q % 2 == 1 ? api::double_buffer : api::out_of_place;
        const std::string band = " band q=" + std::to_string(q);
        check<std::uint32_t, std::uint32_t>(band_keys<std::uint32_t>(q, n, ++seed), c, "u32/u32" + band);
        check<std::uint64_t, std::uint64_t>(band_keys<std::uint64_t>(q, n, ++seed), c, "u64/u64" + band);
        check<float, std::uint32_t>(band_keys<float>(q, n, ++seed), c, "f32/u32" + band);
        check<std::uint32_t>(band_keys<std::uint32_t>(q, n, ++seed), c, "u32" + band);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Bit ranges: the varying bits, the top field and the sort mask inside [begin_bit,
// end_bit); keys differ outside it.
TEST_F(HybridMsd, LocalFinishLowEntropyBitRanges) {
  std::uint64_t seed = 600;
  const std::pair<unsigned, unsigned> ranges32[] = {{0, 32}, {3, 29}, {9, 32}, {0, 24}, {5, 22}, {15, 32}};
  const std::pair<unsigned, unsigned> ranges64[] = {{0, 64}, {7, 61}, {32, 64}, {0, 40}, {20, 45}};
  for (std::size_t n : {std::size_t{1500}, small_max, lean_max, local_max}) {
    for (unsigned q : {2u, 3u, 8u}) {
      for (bool descending : {false, true}) {
        const std::string band = " band q=" + std::to_string(q);
        for (auto [b, e] : ranges32) {
          config c{b, e, descending, descending ? api::double_buffer : api::out_of_place};
          check<std::uint32_t, std::uint32_t>(band_keys<std::uint32_t>(q, n, ++seed), c, "u32/u32 range" + band);
          check<float, std::uint32_t>(band_keys<float>(q, n, ++seed), c, "f32/u32 range" + band);
        }
        for (auto [b, e] : ranges64) {
          config c{b, e, descending, descending ? api::out_of_place : api::double_buffer};
          check<std::uint64_t, std::uint64_t>(band_keys<std::uint64_t>(q, n, ++seed), c, "u64/u64 range" + band);
        }
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Runs on the top 16 bits the predictor does not see, of 3, 12, 16, 17, 20, 30, 32, 200
// and about n / 5 keys: with local_tie_run = 16, at most local_tie_run keys (insertion),
// longer (an out-of-order one sends the range to passes over every varying bit); out of
// order, of equal keys, in order (neither of the last two needs the fallback); and in
// order but for one descent at a chosen depth into run 0, on both sides of local_tie_run
// - 1 (the depth from which a descent finds its long run by itself; shallower ones are
// found by the run's head): the fallback when run 0 is longer than local_tie_run (a
// missed descent leaves the output out of order), insertion when it is not.
TEST_F(HybridMsd, LocalFinishTieRuns) {
  std::uint64_t seed = 700;
  const struct {
    unsigned lanes, rows;  // runs of lanes x rows keys
  } runs[] = {{1, 3}, {4, 3}, {4, 4}, {1, 17}, {2, 10}, {2, 15}, {8, 4}, {8, 25}, {32, 26}};
  for (std::size_t n : {std::size_t{1000}, window, small_max, std::size_t{5000}, local_max}) {
    for (const auto& r : runs) {
      const std::string what = " runs of " + std::to_string(r.lanes * r.rows);
      for (bool descending : {false, true}) {
        config c;
        c.descending = descending;
        for (run_tail tail : {run_tail::random, run_tail::equal, run_tail::ordered}) {
          c.how = tail == run_tail::equal ? api::double_buffer : api::out_of_place;
          const std::string tails = what + " tail " + std::to_string(static_cast<int>(tail));
          check<std::uint32_t, std::uint32_t>(
              tie_run_keys<std::uint32_t>(n, r.lanes, r.rows, tail, descending, ++seed), c, "u32/u32" + tails);
          check<std::uint64_t, std::uint32_t>(
              tie_run_keys<std::uint64_t>(n, r.lanes, r.rows, tail, descending, ++seed), c, "u64/u32" + tails);
          check<float, std::uint32_t>(tie_run_keys<float>(n, r.lanes, r.rows, tail, descending, ++seed), c,
                                      "f32/u32" + tails);
        }
        c.how = api::out_of_place;
        for (int at : {0, 1, 7, 13, 14, 15, 16, 17, 28, 29, 30, 100}) {
          if (at + 2 > static_cast<int>(r.lanes * r.rows)) continue;
          const std::string one = what + " one descent at " + std::to_string(at);
          check<std::uint32_t, std::uint32_t>(
              tie_run_keys<std::uint32_t>(n, r.lanes, r.rows, run_tail::ordered, descending, ++seed, at), c,
              "u32/u32" + one);
          check<std::uint64_t>(
              tie_run_keys<std::uint64_t>(n, r.lanes, r.rows, run_tail::ordered, descending, ++seed, at), c,
              "u64" + one);
        }
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Above local_max: windows (batched small children) and segments of both local shapes
// of low-entropy keys, after one or more levels.
TEST_F(HybridMsd, LocalFinishLowEntropyLevels) {
  std::uint64_t seed = 800;
  for (std::size_t n : {std::size_t{20000}, std::size_t{100003}}) {
    for (unsigned q : {2u, 3u, 4u}) {
      config c;
      check<std::uint32_t, std::uint32_t>(band_keys<std::uint32_t>(q, n, ++seed), c, "u32/u32 levels");
      check<float, std::uint32_t>(band_keys<float>(q, n, ++seed), c, "f32/u32 levels");
      c.descending = true;
      c.how = api::double_buffer;
      check<std::uint64_t, std::uint32_t>(band_keys<std::uint64_t>(q, n, ++seed), c, "u64/u32 levels");
      c.begin_bit = 5;
      c.end_bit = 29;
      c.how = api::out_of_place;
      check<std::uint32_t, std::uint32_t>(band_keys<std::uint32_t>(q, n, ++seed), c, "u32/u32 levels range");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// SanitizerSizes: every kernel of the hybrid sort, each launched at least once, at the
// smallest inputs that reach it. scripts/gpu-sanitize.sh runs racecheck on this test alone:
// racecheck instruments every shared-memory access, and the tests above sort millions of
// keys (PairsStable 2^22 keys 36 times), more than it finishes in minutes. Covered, each
// sort checked against the oracle:
//   - the whole-input local finish (one launch, no level): n = 1, 31 and small_max = 4096
//     (the small local shape, 256 x 16; straight passes for 4-byte keys), small_max + 1 (the
//     lean shape, 384 x 13, for 4-byte keys; the large one, 512 x 12, for 8-byte keys) and
//     lean_max + 1 (the large shape for every key), for u32
//     keys, u32 / u32 pairs (descending, double buffer), u64 / u64 pairs and float keys
//     (descending); inside it, the passes over every varying bit for low-entropy keys (band
//     q = 8, 4097 keys) and the passes over the top 16 bits then the runs tied on them,
//     short (insertion) and long (the fallback), tie_run_keys at window = 2048 keys (4-byte
//     whole inputs of (window, small_max] take straight passes in the small shape);
//   - the levels, on 22089 keys built to reach every step (leveled_keys): init, tile
//     histogram, the three scan kernels, scatter and classify at each level; a top-digit
//     bucket of 5000 keys (a segment of the large local shape), one of 3000 (a segment of
//     the small shape), one of local_max + 300 keys (a second level, whose children are
//     windows), 1500 keys spread over the other buckets (windows at level 0), and
//     local_max + 1 equal keys (a large bucket through every level, then copy_kernel);
//     for u32 keys, u32 / u32 pairs (descending, double buffer), u64 keys (descending),
//     u64 / u64 pairs, u32 / u64 pairs and i64 / u32 pairs.
// Without the sanitizer it runs in well under a second on an H100.

/// Keys (top 32 bits of 64-bit keys; their low 32 bits random) made of top-digit buckets
/// that reach every step of a level (see SanitizerSizes): 5000 keys of top byte 0x11,
/// 3000 of 0x22, local_max + 300 of 0x33, local_max + 1 equal keys 0x44444444 (all 64 bits
/// equal), 1500 uniform keys; shuffled.
template <class Key>
std::vector<Key> leveled_keys(std::uint64_t seed) {
  constexpr unsigned bits = 8 * sizeof(Key);
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> top;  // the top 32 bits
  auto bucket = [&](std::uint32_t top_byte, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) top.push_back((std::uint64_t{top_byte} << 24) | (rng() & 0xFFFFFF));
  };
  bucket(0x11, 5000);
  bucket(0x22, 3000);
  bucket(0x33, local_max + 300);
  for (std::size_t i = 0; i < 1500; ++i) top.push_back(rng() & 0xFFFFFFFF);
  const std::size_t varying = top.size();
  top.insert(top.end(), local_max + 1, 0x44444444u);
  std::vector<Key> keys(top.size());
  const std::uint64_t equal_low = rng() & 0xFFFFFFFF;
  for (std::size_t i = 0; i < top.size(); ++i) {
    const std::uint64_t low = i < varying ? rng() & 0xFFFFFFFF : equal_low;
    keys[i] = from_word<Key>(bits == 32 ? top[i] : (top[i] << 32) | low);
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

TEST_F(HybridMsd, SanitizerSizes) {
  std::uint64_t seed = 900;
  config asc, desc_buffers;
  desc_buffers.descending = true;
  desc_buffers.how = api::double_buffer;
  // The whole-input local finish, its three shapes (small, lean for 4-byte keys, large).
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, small_max, small_max + 1, lean_max + 1}) {
    check<std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), asc, "u32 whole input");
    check<std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, n, ++seed), desc_buffers,
                                        "u32/u32 whole input");
    check<std::uint64_t, std::uint64_t>(make_keys<std::uint64_t>(pattern::random, n, ++seed), asc,
                                        "u64/u64 whole input");
    check<float>(make_keys<float>(pattern::random, n, ++seed), desc_buffers, "f32 whole input");
    if (HasFatalFailure()) return;
  }
  // The local finish's orders of passes: low-entropy keys (every varying bit), runs tied on
  // the top 16 bits, short (insertion) and long and out of order (the fallback).
  check<std::uint32_t, std::uint32_t>(band_keys<std::uint32_t>(8, small_max + 1, ++seed), asc, "u32/u32 band q=8");
  // (window keys: 4-byte whole inputs of (window, small_max] take straight passes, plan::small_straight.)
  check<std::uint32_t, std::uint32_t>(tie_run_keys<std::uint32_t>(window, 4, 3, run_tail::random, false, ++seed),
                                      asc, "u32/u32 runs of 12");
  check<std::uint32_t, std::uint32_t>(tie_run_keys<std::uint32_t>(window, 32, 26, run_tail::random, false, ++seed),
                                      asc, "u32/u32 runs of 832");
  check<std::uint32_t, std::uint32_t>(tie_run_keys<std::uint32_t>(lean_max, 4, 3, run_tail::random, true, ++seed),
                                      desc_buffers, "u32/u32 runs of 12, whole input of lean_max");
  if (HasFatalFailure()) return;
  // The levels: segments of both local shapes, windows, a second level, copy_kernel.
  config desc;
  desc.descending = true;
  check<std::uint32_t>(leveled_keys<std::uint32_t>(++seed), asc, "u32 levels");
  check<std::uint32_t, std::uint32_t>(leveled_keys<std::uint32_t>(++seed), desc_buffers, "u32/u32 levels");
  check<std::uint64_t>(leveled_keys<std::uint64_t>(++seed), desc, "u64 levels");
  check<std::uint64_t, std::uint64_t>(leveled_keys<std::uint64_t>(++seed), asc, "u64/u64 levels");
  check<std::uint32_t, std::uint64_t>(leveled_keys<std::uint32_t>(++seed), asc, "u32/u64 levels");
  check<std::int64_t, std::uint32_t>(leveled_keys<std::int64_t>(++seed), desc, "i64/u32 levels");
}

// Every registry entry (hybrid_msd, onepass_sort) for every shape sorts like the oracle.
TEST_F(HybridMsd, RegistryEntries) {
  namespace reg = onepass::registry;
  int seen = 0;
  for (const auto& e : reg::sorts()) {
    if (e.where != reg::device::gpu || (e.name != "hybrid_msd" && e.name != "onepass_sort")) continue;
    ++seen;
    const std::size_t n = 300001;
    const bool pairs = reg::value_bytes(e.shape) != 0;
    const std::size_t kb = reg::key_bytes(e.shape);
    ASSERT_TRUE(!pairs || reg::value_bytes(e.shape) == kb) << "values as wide as keys (the uploads below)";
    std::mt19937_64 rng(seen);
    std::vector<unsigned char> host(n * kb);
    for (auto& b : host) b = static_cast<unsigned char>(rng());
    std::vector<std::uint64_t> vals(n);
    std::iota(vals.begin(), vals.end(), 0);
    dev ki(n * kb), ko(n * kb), vi(pairs ? n * kb : 0), vo(pairs ? n * kb : 0);
    cuda_ok(cudaMemcpy(ki.p, host.data(), n * kb, cudaMemcpyHostToDevice), "upload");
    if (pairs) {
      std::vector<unsigned char> vb(n * kb);
      for (std::size_t i = 0; i < n; ++i) std::memcpy(&vb[i * kb], &vals[i], kb);
      cuda_ok(cudaMemcpy(vi.p, vb.data(), n * kb, cudaMemcpyHostToDevice), "upload");
    }
    reg::sort_params p;
    std::size_t temp_bytes = 0;
    e.gpu_run(nullptr, temp_bytes, ki.p, ko.p, vi.p, vo.p, n, p, nullptr);
    dev temp(temp_bytes);
    e.gpu_run(temp.p, temp_bytes, ki.p, ko.p, vi.p, vo.p, n, p, nullptr);
    cuda_ok(cudaDeviceSynchronize(), "registry sort");
    std::vector<unsigned char> out(n * kb);
    cuda_ok(cudaMemcpy(out.data(), ko.p, n * kb, cudaMemcpyDeviceToHost), "download");
    // Keys in order (by the key type's order) and a permutation of the input.
    auto key_at = [&](const std::vector<unsigned char>& v, std::size_t i) -> std::uint64_t {
      if (kb == 8) {
        std::uint64_t x;
        std::memcpy(&x, &v[i * 8], 8);
        // Signed keys: flipping the sign bit maps int64 order onto uint64 order.
        return e.shape == reg::sort_shape::keys_i64 ? x ^ (std::uint64_t{1} << 63) : x;
      }
      std::uint32_t x;
      std::memcpy(&x, &v[i * 4], 4);
      if (e.shape == reg::sort_shape::keys_f32) {
        float f;
        std::memcpy(&f, &x, 4);
        return ordered_bits(f, false);
      }
      return x;
    };
    std::vector<std::uint64_t> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = key_at(host, i);
      b[i] = key_at(out, i);
    }
    std::sort(a.begin(), a.end());
    ASSERT_EQ(a, b) << e.name << " " << reg::to_string(e.shape);
  }
  EXPECT_EQ(seen, 2 * static_cast<int>(reg::sort_shape_count)) << "hybrid_msd and onepass_sort for every shape";
}

// The selector's stage 1 (sort.cuh): at most local_max keys take the hybrid sort's
// single-block finish; above, keys of more than 32 sorted bits are hybrid candidates from
// 2^25 keys on (2^22 with values) up to hybrid_max_keys (two levels); 32-bit keys take
// onesweep. Stage 2's threshold on the sample's shared pairs.
TEST_F(HybridMsd, SelectorRule) {
  using sg::algorithm;
  using sg::choose_algorithm;
  using sg::choose_from_sample;
  EXPECT_EQ(choose_algorithm(8, 0, std::uint64_t{1} << 28, 64), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(8, 0, std::uint64_t{1} << 25, 64), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(8, 0, (std::uint64_t{1} << 25) - 1, 64), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(8, 8, std::uint64_t{1} << 22, 64), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(8, 8, (std::uint64_t{1} << 22) - 1, 64), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(8, 0, std::uint64_t{1} << 28, 32), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(4, 0, std::uint64_t{1} << 28, 32), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(8, 0, local_max, 64), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(4, 4, local_max, 32), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(4, 0, 0, 32), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(8, 0, local_max + 1, 64), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(4, 0, local_max + 1, 32), algorithm::onesweep);
  const std::uint64_t top = sg::hybrid_max_keys;
  EXPECT_EQ(top, std::uint64_t{65536} * 5632);
  EXPECT_EQ(choose_algorithm(8, 0, top, 64), algorithm::hybrid_msd);
  EXPECT_EQ(choose_algorithm(8, 0, top + 1, 64), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(8, 8, top + 1, 64), algorithm::onesweep);
  EXPECT_EQ(choose_algorithm(8, 8, std::uint64_t{1} << 30, 64), algorithm::onesweep);
  // Stage 2: uniform keys share a 16-bit prefix in about 1 / 2^16 of the sample's pairs.
  const std::uint64_t pairs = std::uint64_t{sg::sample_keys} * (sg::sample_keys - 1) / 2;
  EXPECT_EQ(choose_from_sample(std::uint64_t{1} << 28, pairs / 65536), algorithm::hybrid_msd);
  EXPECT_EQ(choose_from_sample(std::uint64_t{1} << 28, pairs / 65536 * 2), algorithm::onesweep);
  EXPECT_EQ(choose_from_sample(std::uint64_t{1} << 25, pairs / 65536 * 10), algorithm::hybrid_msd);
  EXPECT_EQ(choose_from_sample(std::uint64_t{1} << 25, pairs / 65536 * 12), algorithm::onesweep);
  std::size_t t = 0;
  EXPECT_EQ(sg::sort_keys<std::uint64_t>(nullptr, t, nullptr, nullptr, std::size_t{1} << 28),
            algorithm::hybrid_msd);
  EXPECT_GT(t, 0u);
}

// Stage 2 on real keys: uniform 64-bit keys stay with the hybrid sort, skewed ones (the
// bit-AND of two words, Fig. 11's band q = 2; all keys sharing their top 24 bits) go to
// onesweep; sort_keys / sort_pairs run what select_algorithm answers, and sort correctly.
TEST_F(HybridMsd, SelectorSamplesTheKeys) {
  REQUIRE_GPU();
  using sg::algorithm;
  const std::size_t n = std::size_t{1} << 25;
  std::mt19937_64 rng(2026);
  std::vector<std::uint64_t> uniform(n), and2(n), shared(n);
  for (std::size_t i = 0; i < n; ++i) {
    uniform[i] = rng();
    and2[i] = rng() & rng();
    shared[i] = (std::uint64_t{0xABCDEF} << 40) | (rng() >> 24);
  }
  dev sample(sg::sample_storage_bytes);
  const struct {
    const char* name;
    const std::vector<std::uint64_t>* keys;
    algorithm expected;
  } cases[] = {{"uniform", &uniform, algorithm::hybrid_msd},
               {"and2", &and2, algorithm::onesweep},
               {"top 24 bits shared", &shared, algorithm::onesweep}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    dev in(n * 8), out(n * 8), vals(n * 4), vout(n * 4);
    upload(in.as<std::uint64_t>(), *c.keys);
    EXPECT_EQ(sg::select_algorithm(in.as<std::uint64_t>(), n, 0, 0, 64, sample.p), c.expected);
    cuda_ok(cudaDeviceSynchronize(), "select_algorithm");
    std::size_t bytes = 0;
    sg::sort_keys(nullptr, bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), n);
    dev temp(bytes);
    EXPECT_EQ(sg::sort_keys(temp.p, bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), n), c.expected);
    cuda_ok(cudaDeviceSynchronize(), "sort_keys");
    {
      // The registry entry reports the algorithm it ran (experiments log it without a
      // second selection); a single-algorithm entry reports nothing.
      namespace reg = onepass::registry;
      const reg::sort_params params;
      const auto& selected = reg::find_sort("onepass_sort", reg::sort_shape::keys_u64);
      std::size_t entry_bytes = 0;
      selected.gpu_run(nullptr, entry_bytes, in.p, out.p, nullptr, nullptr, n, params, nullptr);
      dev entry_temp(entry_bytes);
      const char* ran = selected.gpu_run(entry_temp.p, entry_bytes, in.p, out.p, nullptr, nullptr, n, params, nullptr);
      cuda_ok(cudaDeviceSynchronize(), "registry onepass_sort");
      ASSERT_NE(ran, nullptr);
      EXPECT_STREQ(ran, sg::to_string(c.expected));
      std::size_t hybrid_bytes = 0;
      EXPECT_EQ(reg::find_sort("hybrid_msd", reg::sort_shape::keys_u64)
                    .gpu_run(nullptr, hybrid_bytes, in.p, out.p, nullptr, nullptr, n, params, nullptr),
                nullptr);
    }
    std::vector<std::uint64_t> expect = *c.keys;
    std::sort(expect.begin(), expect.end());
    EXPECT_TRUE(download(out.as<std::uint64_t>(), n) == expect);
    // Pairs: the same choice (values of 4 bytes), values follow their keys stably.
    std::vector<std::uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    upload(vals.as<std::uint32_t>(), idx);
    bytes = 0;
    sg::sort_pairs(nullptr, bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), vals.as<std::uint32_t>(),
                   vout.as<std::uint32_t>(), n);
    dev temp2(bytes);
    EXPECT_EQ(sg::sort_pairs(temp2.p, bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(),
                             vals.as<std::uint32_t>(), vout.as<std::uint32_t>(), n),
              c.expected);
    cuda_ok(cudaDeviceSynchronize(), "sort_pairs");
    const auto got = download(vout.as<std::uint32_t>(), n);
    std::vector<std::uint32_t> stable(n);
    std::iota(stable.begin(), stable.end(), 0u);
    std::stable_sort(stable.begin(), stable.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return (*c.keys)[a] < (*c.keys)[b]; });
    EXPECT_TRUE(got == stable);
  }
  // Stage 2's argument checks.
  EXPECT_THROW(sg::select_algorithm<std::uint64_t>(nullptr, n, 0, 0, 64, sample.p), onepass::error);
  EXPECT_THROW(sg::select_algorithm(reinterpret_cast<const std::uint64_t*>(sample.p), n, 0, 0, 64, nullptr),
               onepass::error);
  EXPECT_THROW(sg::select_algorithm<std::uint64_t>(nullptr, n, 0, 65, 64, sample.p), onepass::error);
}

// Bad input: the same errors as onesweep, nothing enqueued.
TEST_F(HybridMsd, BadArguments) {
  std::size_t t = 0;
  EXPECT_THROW(hm::sort_keys<std::uint32_t>(nullptr, t, nullptr, nullptr, 10, 0, 33), onepass::error);
  EXPECT_THROW(hm::sort_keys<std::uint64_t>(nullptr, t, nullptr, nullptr, 10, 9, 9), onepass::error);
  hm::sort_keys<std::uint32_t>(nullptr, t, nullptr, nullptr, 100000);
  dev temp(t), k(400000);
  EXPECT_THROW(hm::sort_keys<std::uint32_t>(temp.p, t, nullptr, k.as<std::uint32_t>(), 100000), onepass::error);
  EXPECT_THROW(hm::sort_keys<std::uint32_t>(temp.p, t, k.as<std::uint32_t>(), k.as<std::uint32_t>() + 1, 100000),
               onepass::error);
  std::size_t small = t - 1;
  dev out(400000);
  EXPECT_THROW(hm::sort_keys<std::uint32_t>(temp.p, small, k.as<std::uint32_t>(), out.as<std::uint32_t>(), 100000),
               onepass::error);
  try {
    hm::sort_keys<std::uint32_t>(nullptr, t, nullptr, nullptr, 10, 0, 40);
    FAIL() << "no throw";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find("end_bit"), std::string::npos) << e.what();
  }
}

// ----------------------------------------------------------------------------
// Above 2^31 keys, checked on the GPU (keys from a hash of the index; sorted order and
// an unchanged multiset: sum and hash sum).

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

__global__ void check_sorted(const std::uint32_t* keys, std::uint64_t n, unsigned long long* sums) {
  unsigned long long s0 = 0, s1 = 0, bad = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t k = keys[i];
    s0 += k;
    s1 += mix64(k);
    if (i + 1 < n && keys[i + 1] < k) ++bad;
  }
  atomicAdd(&sums[0], s0);
  atomicAdd(&sums[1], s1);
  atomicAdd(&sums[2], bad);
}

TEST_F(HybridMsd, Above2Pow31Keys) {
  const std::uint64_t n = (std::uint64_t{1} << 31) + (std::uint64_t{1} << 20) + 7;
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  std::size_t temp_bytes = 0;
  hm::sort_keys<std::uint32_t>(nullptr, temp_bytes, nullptr, nullptr, n);
  const std::uint64_t need = 2 * n * 4 + temp_bytes + (std::uint64_t{1} << 30);
  if (need > free_bytes) GTEST_SKIP() << "needs " << need << " bytes of GPU memory, " << free_bytes << " free";
  dev k0(n * 4), k1(n * 4), temp(temp_bytes), sums(6 * 8);
  fill_hashed<<<4096, 256>>>(k0.as<std::uint32_t>(), n, 0x99);
  cuda_ok(cudaMemset(sums.p, 0, 6 * 8), "memset");
  auto* s = sums.as<unsigned long long>();
  check_sorted<<<4096, 256>>>(k0.as<std::uint32_t>(), n, s);
  hm::sort_keys(temp.p, temp_bytes, k0.as<const std::uint32_t>(), k1.as<std::uint32_t>(), n);
  check_sorted<<<4096, 256>>>(k1.as<std::uint32_t>(), n, s + 3);
  cuda_ok(cudaDeviceSynchronize(), "large sort");
  unsigned long long h[6];
  cuda_ok(cudaMemcpy(h, s, sizeof(h), cudaMemcpyDeviceToHost), "sums");
  EXPECT_EQ(h[5], 0u) << "order violations";
  EXPECT_EQ(h[3], h[0]) << "key sum changed";
  EXPECT_EQ(h[4], h[1]) << "key hash sum changed";
}

}  // namespace
