// A randomized fuzzer of the CPU primitives' public calls (issue 32, section 5): random sizes
// (0 .. 2^22, log-uniform, odd ones included), key types, bit ranges, descending, float orders,
// value types, key distributions, seeds, rounds and segment layouts, each against an oracle that
// does not share the primitive's algorithm:
//   sort::cpu::sort_keys / _pairs      baselines' stable_sort_oracle (std::stable_sort of indices)
//   shuffle::cpu::variable_philox_shuffle / _unshuffle
//                                       Algorithm 1 written as its definition: out[j] = in[f(i_j)],
//                                       i_j the j-th index of [0, 2^b) with f(i) < m (a plain loop)
//   shuffle::cpu::walking_shuffle / _unshuffle out[j] = in[sigma(j)]
//   shuffle::cpu::segmented_shuffle / _unshuffle (offsets and uniform)
//                                       each segment = cpu::variable_philox_shuffle with
//                                       segment_seed(seed, s), the tail copied
// plus the inverse of every shuffle. Seeded and bounded in time: case k of seed s draws its
// arguments from std::mt19937_64(s * 2^20 + k); a failure prints the one-line reproducer
//   ONEPASS_FUZZ_SEED=s ONEPASS_FUZZ_CASE=k build/tests/test_fuzz_cpu
// Environment: ONEPASS_FUZZ_SEED (default 20261126, fixed so that CI is reproducible),
// ONEPASS_FUZZ_SECONDS (time budget, default 8), ONEPASS_FUZZ_CASE (run that one case only).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/shuffle/cpu_segmented_shuffle.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/segment_seed.hpp"
#include "onepass/shuffle/walking_permutation.hpp"
#include "onepass/sort/cpu_radix_sort.hpp"
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"

namespace {

namespace os = onepass::sort;
namespace sh = onepass::shuffle;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

/// A size in [0, 2^22]: log-uniform, so that small and edge sizes come often; odd half the time.
std::uint64_t random_size(std::mt19937_64& rng) {
  const unsigned bits = static_cast<unsigned>(rng() % 23);
  std::uint64_t n = bits == 0 ? rng() % 2 : (std::uint64_t{1} << (bits - 1)) + rng() % (std::uint64_t{1} << (bits - 1));
  if (rng() % 2) n |= 1;
  return std::min<std::uint64_t>(n, std::uint64_t{1} << 22);
}

/// Random keys of a distribution drawn by the case: uniform bits, few distinct values (ties),
/// presorted, reversed, all equal, or (floating point) special values mixed in.
template <class Key>
std::vector<Key> random_keys(std::uint64_t n, std::mt19937_64& rng, std::string& what) {
  using bits_type = typename os::radix_traits<Key>::bits_type;
  std::vector<Key> keys(n);
  auto from_bits = [](bits_type b) {
    Key k;
    std::memcpy(&k, &b, sizeof k);
    return k;
  };
  const int kind = static_cast<int>(rng() % 6);
  const char* names[] = {"uniform", "ties", "presorted", "reversed", "equal", "specials"};
  what = names[kind];
  if (kind == 5 && !std::is_floating_point_v<Key>) what = "uniform";  // no special values
  const bits_type pool[4] = {static_cast<bits_type>(rng()), static_cast<bits_type>(rng()),
                             static_cast<bits_type>(rng()), static_cast<bits_type>(rng())};
  for (auto& k : keys) k = from_bits(kind == 1 ? pool[rng() % 4] : kind == 4 ? pool[0] : static_cast<bits_type>(rng()));
  if (kind == 2 || kind == 3) {
    std::vector<Key> sorted(n);
    onepass::baselines::stable_sort_oracle(keys.data(), sorted.data(), n, 0, 0, kind == 3);
    keys = sorted;
  }
  if constexpr (std::is_floating_point_v<Key>) {
    if (kind == 5) {
      const Key specials[] = {std::numeric_limits<Key>::quiet_NaN(), -std::numeric_limits<Key>::quiet_NaN(),
                              std::numeric_limits<Key>::infinity(), -std::numeric_limits<Key>::infinity(),
                              Key(0), -Key(0), std::numeric_limits<Key>::denorm_min(), Key(1)};
      for (auto& k : keys)
        if (rng() % 3 == 0) k = specials[rng() % 8];
    }
  }
  return keys;
}

bool same_bytes(const void* a, const void* b, std::size_t bytes) { return bytes == 0 || std::memcmp(a, b, bytes) == 0; }

/// One sort case of key type Key: keys or pairs (u32 or u64 values = positions), a bit range,
/// descending or not, and (floating point) either float order.
template <class Key>
std::string sort_case(std::mt19937_64& rng) {
  std::string dist;
  const std::uint64_t n = random_size(rng);
  const auto keys = random_keys<Key>(n, rng, dist);
  const unsigned width = os::radix_traits<Key>::bits;
  unsigned begin = 0, end = 0;  // end 0: the whole key
  if (rng() % 3 == 0) {
    begin = static_cast<unsigned>(rng() % width);
    end = begin + 1 + static_cast<unsigned>(rng() % (width - begin));
  }
  const bool descending = rng() % 2;
  const bool signed_zero_equal = std::is_floating_point_v<Key> && rng() % 2;
  const int values = static_cast<int>(rng() % 3);  // 0 keys only, 1 u32 values, 2 u64 values
  std::ostringstream what;
  what << "sort n=" << n << " key=" << sizeof(Key) * 8 << (std::is_floating_point_v<Key> ? "f" : std::is_signed_v<Key> ? "i" : "u")
       << " " << dist << " bits=[" << begin << "," << end << ") desc=" << descending
       << " order=" << (signed_zero_equal ? "signed_zero_equal" : "total") << " values=" << values;
  std::vector<Key> got(n), want(n);
  auto run = [&](auto value_tag) {
    using V = decltype(value_tag);
    std::vector<V> vin(n), vgot(n), vwant(n);
    for (std::uint64_t i = 0; i < n; ++i) vin[i] = static_cast<V>(i);
    if (signed_zero_equal) {
      if constexpr (std::is_floating_point_v<Key>) {
        constexpr auto O = os::float_order::signed_zero_equal;
        if (values) {
          os::cpu::sort_pairs<O>(keys.data(), got.data(), vin.data(), vgot.data(), n, begin, end, descending);
          onepass::baselines::stable_sort_oracle<O>(keys.data(), want.data(), vin.data(), vwant.data(), n, begin, end,
                                                    descending);
        } else {
          os::cpu::sort_keys<O>(keys.data(), got.data(), n, begin, end, descending);
          onepass::baselines::stable_sort_oracle<O>(keys.data(), want.data(), n, begin, end, descending);
        }
      }
    } else if (values) {
      os::cpu::sort_pairs(keys.data(), got.data(), vin.data(), vgot.data(), n, begin, end, descending);
      onepass::baselines::stable_sort_oracle(keys.data(), want.data(), vin.data(), vwant.data(), n, begin, end,
                                             descending);
    } else {
      os::cpu::sort_keys(keys.data(), got.data(), n, begin, end, descending);
      onepass::baselines::stable_sort_oracle(keys.data(), want.data(), n, begin, end, descending);
    }
    if (!same_bytes(got.data(), want.data(), n * sizeof(Key))) what << ": keys differ from the oracle";
    else if (values && !same_bytes(vgot.data(), vwant.data(), n * sizeof(V))) what << ": values differ from the oracle";
    else return;
    what << " FAILED";
  };
  if (values == 2) run(std::uint64_t{});
  else run(std::uint32_t{});
  return what.str();
}

/// Algorithm 1 as its definition (the oracle of the shuffles): out[j] = in[f(i_j)].
template <class T>
std::vector<T> definition_shuffle(const std::vector<T>& in, const onepass::bijection::variable_philox& f) {
  std::vector<T> out;
  out.reserve(in.size());
  const std::uint64_t domain = std::uint64_t{1} << f.domain_bits();
  for (std::uint64_t i = 0; i < domain && out.size() < in.size(); ++i) {
    const std::uint64_t x = f(i);
    if (x < in.size()) out.push_back(in[x]);
  }
  return out;
}

std::string shuffle_case(std::mt19937_64& rng) {
  const std::uint64_t n = random_size(rng);
  const std::uint64_t seed = rng();
  const unsigned rounds = rng() % 4 == 0 ? 1 + static_cast<unsigned>(rng() % 64) : onepass::bijection::default_rounds;
  const int kind = static_cast<int>(rng() % 4);  // 0 bijective, 1 walking, 2 segmented (offsets), 3 uniform
  std::vector<std::uint64_t> in(n), out(n), back(n), want;
  for (auto& x : in) x = rng();
  std::ostringstream what;
  what << "shuffle n=" << n << " seed=" << seed << " rounds=" << rounds << " kind=" << kind;
  if (kind == 0) {
    sh::cpu::variable_philox_shuffle(in.data(), out.data(), n, seed, rounds);
    sh::cpu::variable_philox_unshuffle(out.data(), back.data(), n, seed, rounds);
    want = definition_shuffle(in, onepass::bijection::variable_philox::for_length(n, seed, rounds));
  } else if (kind == 1) {
    const auto sigma = sh::walking_permutation::for_length(n, seed, rounds);
    sh::cpu::walking_shuffle(in.data(), out.data(), n, sigma);
    sh::cpu::walking_unshuffle(out.data(), back.data(), n, sigma);
    want.resize(n);
    for (std::uint64_t j = 0; j < n; ++j) want[j] = in[sigma(j)];
  } else {
    // Segments: random cut points (empty segments likely), a tail left out half the time; or
    // uniform segments of a random length.
    std::vector<std::uint64_t> offsets{0};
    std::uint64_t segments = 0, length = 0;
    if (kind == 2) {
      segments = n == 0 ? rng() % 2 : 1 + rng() % std::min<std::uint64_t>(n, 64);
      for (std::uint64_t s = 0; s + 1 < segments; ++s) offsets.push_back(n == 0 ? 0 : rng() % (n + 1));
      offsets.push_back(rng() % 2 || n == 0 ? n : rng() % (n + 1));
      std::sort(offsets.begin(), offsets.end());
      offsets.resize(segments + 1);
      sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), segments, seed, rounds);
      sh::cpu::segmented_unshuffle(out.data(), back.data(), n, offsets.data(), segments, seed, rounds);
    } else {
      length = 1 + rng() % std::max<std::uint64_t>(1, std::min<std::uint64_t>(n, 5000));
      segments = n / length;
      in.resize(segments * length), out.resize(segments * length), back.resize(segments * length);
      for (std::uint64_t s = 0; s <= segments; ++s) offsets.push_back(s * length);
      offsets.erase(offsets.begin());
      sh::cpu::segmented_shuffle(in.data(), out.data(), segments, length, seed, rounds);
      sh::cpu::segmented_unshuffle(out.data(), back.data(), segments, length, seed, rounds);
    }
    what << " segments=" << segments << " length=" << length;
    want = in;  // the tail past the last segment stays
    for (std::uint64_t s = 0; s < segments; ++s) {
      const std::vector<std::uint64_t> part(in.begin() + offsets[s], in.begin() + offsets[s + 1]);
      const auto shuffled = definition_shuffle(
          part, onepass::bijection::variable_philox::for_length(part.size(), sh::segment_seed(seed, s), rounds));
      std::copy(shuffled.begin(), shuffled.end(), want.begin() + offsets[s]);
    }
  }
  if (out != want) what << ": output differs from the definition FAILED";
  else if (back != in) what << ": the unshuffle does not restore the input FAILED";
  return what.str();
}

/// Case k of seed s: its description, ending in "FAILED" when the primitive and its oracle differ.
std::string run_case(std::uint64_t seed, std::uint64_t k) {
  std::mt19937_64 rng(seed * (std::uint64_t{1} << 20) + k);
  switch (rng() % 8) {
    case 0: return sort_case<std::uint32_t>(rng);
    case 1: return sort_case<std::int32_t>(rng);
    case 2: return sort_case<float>(rng);
    case 3: return sort_case<std::uint64_t>(rng);
    case 4: return sort_case<std::int64_t>(rng);
    case 5: return sort_case<double>(rng);
    default: return shuffle_case(rng);
  }
}

bool failed(const std::string& what) { return what.size() >= 6 && what.compare(what.size() - 6, 6, "FAILED") == 0; }

TEST(CpuFuzz, PublicCallsAgreeWithTheirOracles) {
  const std::uint64_t seed = env_u64("ONEPASS_FUZZ_SEED", 20261126);
  const double budget = static_cast<double>(env_u64("ONEPASS_FUZZ_SECONDS", 8));
  const char* one = std::getenv("ONEPASS_FUZZ_CASE");
  if (one != nullptr && *one != '\0') {
    const std::string what = run_case(seed, std::strtoull(one, nullptr, 10));
    std::printf("%s\n", what.c_str());
    EXPECT_FALSE(failed(what)) << what;
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t k = 0;
  for (; std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budget; ++k) {
    const std::string what = run_case(seed, k);
    ASSERT_FALSE(failed(what)) << what << "\n  reproduce: ONEPASS_FUZZ_SEED=" << seed << " ONEPASS_FUZZ_CASE=" << k
                               << " build/tests/test_fuzz_cpu";
  }
  std::printf("fuzzed %llu cases (seed %llu) in %.0f s\n", static_cast<unsigned long long>(k),
              static_cast<unsigned long long>(seed), budget);
  EXPECT_GT(k, 0u);
}

/// The shuffle oracle is Algorithm 1's definition and agrees with the library on a fixed case;
/// a shuffled sequence differs from its input, and only a description ending in FAILED counts.
TEST(CpuFuzz, TheShuffleOracleAndTheFailureMark) {
  std::vector<std::uint64_t> in(1000), out(1000);
  for (std::uint64_t i = 0; i < in.size(); ++i) in[i] = i;
  sh::cpu::variable_philox_shuffle(in.data(), out.data(), in.size(), 1);
  EXPECT_NE(out, in);
  EXPECT_EQ(definition_shuffle(in, onepass::bijection::variable_philox::for_length(in.size(), 1)), out);
  EXPECT_TRUE(failed("x FAILED"));
  EXPECT_FALSE(failed("x"));
}

}  // namespace
