// Tests of the Onesweep GPU radix sort (lib/include/onepass/sort/onesweep.cuh):
// output equals std::stable_sort by ordered_bits (sort/key_traits.hpp) restricted to
// [begin_bit, end_bit) for every key type and order, on random, all-equal, sorted,
// reversed, entropy-band (AND of q uniform words) and few-distinct inputs, at sizes
// 0, 1, tile +- 1, several tiles, portion boundaries +- 1 (small portions through the
// detail::plan, and the real 2^28); pairs are stable (values = input index); both the
// out-of-place and the double-buffer API; the registry entries; NaN / -0.0 placement;
// one input above 2^31 keys (checked on the GPU; label gpu_long); bad arguments; and
// SanitizerSizes, every kernel once at small sizes (scripts/gpu-sanitize.sh's racecheck runs).
// Skipped (GTEST_SKIP) without a CUDA device. The digit widths 5..9 and small portions:
// test_onesweep_digit_widths.cu; the pairs options of binning_shape, homogeneous tiles
// and crowded places: test_onesweep_shapes.cu; helpers: onesweep_test_support.cuh.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onesweep_test_support.cuh"

namespace {

TEST_F(Onesweep, Uint32) { check_key_type<std::uint32_t>("uint32"); }
TEST_F(Onesweep, Int32) { check_key_type<std::int32_t>("int32"); }
TEST_F(Onesweep, Float) { check_key_type<float>("float"); }
TEST_F(Onesweep, Uint64) { check_key_type<std::uint64_t>("uint64"); }
TEST_F(Onesweep, Int64) { check_key_type<std::int64_t>("int64"); }
TEST_F(Onesweep, Double) { check_key_type<double>("double"); }


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

// The registry entries (8-bit digits) for the three Onesweep experiment shapes and the
// signed 64-bit keys (keys_i64: negative keys first).
TEST_F(Onesweep, Registry) {
  namespace reg = onepass::registry;
  const std::size_t n = 3 * tile32 + 11;
  for (auto shape : {reg::sort_shape::keys_u32, reg::sort_shape::pairs_u32_u32, reg::sort_shape::keys_u64,
                     reg::sort_shape::keys_i64}) {
    const auto& e = reg::find_sort("onesweep", shape, reg::device::gpu);
    EXPECT_EQ(e.label, "Onesweep (onepass)");
    const bool pairs = shape == reg::sort_shape::pairs_u32_u32;
    const bool is_signed = shape == reg::sort_shape::keys_i64;
    const std::size_t key_size = reg::key_bytes(shape);
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
    // Signed keys: flipping the sign bit maps int64 order onto uint64 order.
    const std::uint64_t flip = is_signed ? std::uint64_t{1} << 63 : 0;
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return (expected[a] ^ flip) < (expected[b] ^ flip); });
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

// ----------------------------------------------------------------------------
// SanitizerSizes: every kernel of the sort, each launched at least once, at the smallest
// inputs that reach it. scripts/gpu-sanitize.sh runs racecheck on this test alone:
// racecheck instruments every shared-memory access, and the tests above sort tens of
// millions of keys (PairsShapeBySize 2^25 pairs six times), more than it finishes in
// minutes. Covered (d = 8, the sm_90 table's shapes, each checked against the oracle):
//   - the upfront histogram (one and several chunks: 4097 and 20001 keys > the 4096-key
//     minimum chunk) and the exclusive-sum kernel, in every sort;
//   - the tiny tier (256 x 8 tiles, n < tiny_below = 2^20) through the public API at
//     n = 1, 31, 4097, 20001 (20001: ten tiles, so the look-back crosses tiles) for every
//     key / value width pair the binning kernel is built for: u32 keys, u32 / u32 pairs
//     (values after the keys), float / u64 pairs, u64 keys, i64 / u32 pairs, u64 / u64
//     pairs; both orders and both APIs;
//   - the default tiles and u32 pairs' small tiles at their real size: one pass
//     ([0, 8): one histogram place, one binning kernel) over tiny_below + 1 keys, u32 keys
//     and u32 / u32 pairs (small_tiles, n < small_below = 2^25);
//   - every default shape at a few tiles (2 tiles + 17 keys, all bits) through the plan
//     with the shape alone as Policy (the same binning_shape, without the tiers, so small
//     inputs take it): u32 pairs' default 256 x 56 tiles, which only sorts of 2^25 keys
//     reach otherwise, and the default tiles of the other five width pairs;
//   - portions (the last tile of a portion seeding the next portion's bins): the plan
//     with portions of tile + 1 keys (default shape) and of 1500 keys (tiny tier).
// Without the sanitizer it runs in well under a second on an H100.

/// The binning_shape of Policy alone: its tile shape without the tiny and small tiers, so
/// that detail::plan<..., tile_shape_of<Policy>> runs Policy's own tiles at any size.
template <class P>
using tile_shape_of = os::detail::binning_shape<P::block, P::items, P::min_blocks, P::match, P::window,
                                                P::early_counts, P::prefetch_values, P::values_after_keys>;

/// Random keys through the public API (tiny tier at these sizes) and through the plan with
/// the default shape of (Key, Value) alone at 2 tiles + 17 keys; Value = int: keys only.
template <class Key, class Value>
void check_sanitizer_sizes(const char* name, bool descending, bool double_buffer, std::uint64_t seed) {
  using V = std::conditional_t<std::is_same_v<Value, int>, os::detail::no_values, Value>;
  using shape = tile_shape_of<os::detail::binning_policy<sizeof(Key), os::detail::value_bytes<V>, 8>>;
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{4097}, std::size_t{20001}}) {
    config c;
    c.descending = descending;
    c.double_buffer = double_buffer;
    check<8, Key, Value>(make_keys<Key>(pattern::random, n, ++seed), c, std::string(name) + " tiny tier");
    if (::testing::Test::HasFatalFailure()) return;
  }
  config c;
  c.descending = descending;
  c.portion = os::default_portion_items;
  check<8, Key, Value, shape>(make_keys<Key>(pattern::random, 2 * shape::tile_items + 17, ++seed), c,
                              std::string(name) + " default tiles");
}

TEST_F(Onesweep, SanitizerSizes) {
  check_sanitizer_sizes<std::uint32_t, int>("u32", false, false, 100);
  check_sanitizer_sizes<std::uint32_t, std::uint32_t>("u32/u32", true, true, 200);
  check_sanitizer_sizes<float, std::uint64_t>("float/u64", true, false, 300);
  check_sanitizer_sizes<std::uint64_t, int>("u64", false, true, 400);
  check_sanitizer_sizes<std::int64_t, std::uint32_t>("i64/u32", false, false, 500);
  check_sanitizer_sizes<std::uint64_t, std::uint64_t>("u64/u64", true, false, 600);
  if (HasFatalFailure()) return;

  // u32 pairs' small tiles alone at a few tiles (the public API reaches them from 2^20 keys).
  using pairs_policy = os::detail::binning_policy<4, 4, 8>;
  config c;
  c.portion = os::default_portion_items;
  check<8, std::uint32_t, std::uint32_t, pairs_policy::small_tiles>(
      make_keys<std::uint32_t>(pattern::random, 2 * pairs_policy::small_tiles::tile_items + 17, 700), c,
      "u32/u32 small tiles");

  // Portions: the default u32-key shape with portions of tile + 1 keys (three portions), the
  // tiny tier with portions of 1500 keys (three portions of pairs).
  using keys_shape = tile_shape_of<os::detail::binning_policy<4, 0, 8>>;
  c.portion = keys_shape::tile_items + 1;
  check<8, std::uint32_t, int, keys_shape>(
      make_keys<std::uint32_t>(pattern::random, 2 * keys_shape::tile_items + 17, 701), c, "u32 portions");
  c.portion = 1500;
  c.descending = true;
  check<8, std::uint32_t, std::uint32_t>(make_keys<std::uint32_t>(pattern::random, 4097, 702), c,
                                         "u32/u32 tiny-tier portions");
  if (HasFatalFailure()) return;

  // The real default tiles (u32 keys) and small tiles (u32 pairs) through the public API:
  // tiny_below + 1 keys, one digit place (one histogram place, one binning pass).
  using P = os::detail::plan<8, std::uint32_t, std::uint32_t>;
  constexpr std::uint64_t above_tiny = os::detail::tiny_shape<P::policy>::below + 1;
  static_assert(above_tiny < os::detail::small_shape<P::policy>::below, "u32 pairs take small_tiles there");
  EXPECT_EQ(P(above_tiny, 0, 8, false).tiles_per_portion(),
            (above_tiny + P::small_policy::tile_items - 1) / P::small_policy::tile_items);
  config one_place;
  one_place.end_bit = 8;
  const auto keys = make_keys<std::uint32_t>(pattern::random, above_tiny, 703);
  check<8, std::uint32_t>(keys, one_place, "u32 default tiles, one place");
  check<8, std::uint32_t, std::uint32_t>(keys, one_place, "u32/u32 small tiles, one place");
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
  // num_items whose bytes overflow size_t: named before any device query (u64 pairs: the sm_90
  // and sm_80 tables differ, so the policy asks the device), in a size query and a run.
  const std::size_t huge = SIZE_MAX / 4;
  expect_error([&] { os::sort_pairs<8, std::uint64_t, std::uint64_t>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, huge); },
               "num_items");
  os::double_buffer<std::uint64_t> k64(nullptr, nullptr), v64(nullptr, nullptr);
  expect_error([&] { os::sort_pairs(nullptr, bytes, k64, v64, huge); }, "num_items");
  expect_error([&] { os::sort_keys<8, std::uint32_t>(t.p, bytes, in, out, SIZE_MAX / 2); }, "num_items");
  // n == 0 with null pointers is fine.
  std::size_t zero_bytes = 0;
  os::sort_keys<8, std::uint32_t>(nullptr, zero_bytes, nullptr, nullptr, 0);
  EXPECT_NO_THROW((os::sort_keys<8, std::uint32_t>(t.p, zero_bytes, nullptr, nullptr, 0)));
}

}  // namespace
