// CPU tests of the float-native warp Gaussian generator (onepass/gaussian/float_lane.hpp,
// float_entropy.hpp, float_cpu_generate.hpp; article "Training a random Gaussian
// generator" in float form): the entropy (Philox4x32 known answers), the table and
// coefficients, exactness of the float butterfly, the CPU twin's determinism and output
// order, the statistics of 2^22 floats (moments within 5 standard errors, tails), argument
// errors, and method::rounded_double equal to the double generator rounded, bit for bit.
#include <gtest/gtest.h>

#include "normal_sample_checks.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/stats/hermite.hpp"

namespace g = onepass::gaussian;
namespace h = onepass::stats::hermite;

namespace {
std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
}  // namespace

// Random123's known-answer vectors (kat_vectors): philox4x32 with 10 rounds.
TEST(GaussianFloatEntropy, PhiloxMatchesRandom123KnownAnswers) {
  const g::words4 z = g::philox::philox4x32(0, 0, 0, 0, 0, 0, 10);
  EXPECT_EQ(z.w[0], 0x6627e8d5u);
  EXPECT_EQ(z.w[1], 0xe169c58du);
  EXPECT_EQ(z.w[2], 0xbc57ac4cu);
  EXPECT_EQ(z.w[3], 0x9b00dbd8u);
  const g::words4 f = g::philox::philox4x32(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                                            0xffffffffu, 10);
  EXPECT_EQ(f.w[0], 0x408f276du);
  EXPECT_EQ(f.w[1], 0x41c83b0eu);
  EXPECT_EQ(f.w[2], 0xa20bc7c6u);
  EXPECT_EQ(f.w[3], 0x6d5451fdu);
}

TEST(GaussianFloatEntropy, CounterBasedAndReplayable) {
  const g::float_entropy_source a(42, 7), b(42, 7), c(43, 7), d(42, 8);
  int same_seed = 0, same_stream = 0;
  for (std::uint64_t q = 0; q < 1000; ++q) {
    const g::words4 x = a(q), y = b(q), u = c(q), v = d(q);
    for (int j = 0; j < 4; ++j) {
      ASSERT_EQ(x.w[j], y.w[j]);
      same_seed += x.w[j] == u.w[j];
      same_stream += x.w[j] == v.w[j];
    }
  }
  EXPECT_LE(same_seed, 1);
  EXPECT_LE(same_stream, 1);
  // The documented construction: Philox4x32-7, key = seed halves ^ salts.
  const std::uint64_t seed = 0x0123456789abcdefull;
  const g::words4 w = g::float_entropy_source(seed, 5)(0x100000002ull);
  const g::words4 want = g::philox::philox4x32(2, 1, 5, 0, 0x89abcdefu ^ g::float_seed_salt0,
                                               0x01234567u ^ g::float_seed_salt1, 7);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(w.w[j], want.w[j]);
}

TEST(GaussianFloatTable, DefaultTableIsTheOptimisedTableOver128WithSolvedFloatCoefficients) {
  const g::float_table& ft = g::default_float_table();
  EXPECT_LE(g::worst_case_register(ft.entries), g::float_table_max_register);
  const g::table& t = g::default_table();
  int shift = 0;
  while (g::worst_case_register(t.entries) >> shift > g::float_table_max_register) ++shift;
  for (unsigned i = 0; i < g::table_entries; ++i)
    ASSERT_EQ(ft.entries[i], static_cast<std::int32_t>(std::llround(std::ldexp(double(t.entries[i]), -shift))));
  const g::float_coefficient_solution sol = g::solve_float_coefficients(ft.entries);
  EXPECT_EQ(bits_of(sol.coeff.p0), bits_of(ft.coeff.p0));
  EXPECT_EQ(bits_of(sol.coeff.w), bits_of(ft.coeff.w));
  EXPECT_TRUE(sol.kurtosis_solved);
  EXPECT_LT(std::fabs(static_cast<double>(sol.variance - 1)), 1e-9);
  EXPECT_LT(std::fabs(static_cast<double>(sol.excess_kurtosis)), 1e-8);
  EXPECT_NEAR(static_cast<double>(ft.coeff.p0 / ft.coeff.p1), std::sqrt(5.0) / 2, 1e-4);
  // The analytic model agrees with the solver: h_2 = Var - 1.
  const auto hx = h::generator_hermites_float(ft, 8);
  EXPECT_NEAR(static_cast<double>(hx[2]), static_cast<double>(sol.variance - 1), 1e-15);
  EXPECT_NEAR(static_cast<double>(hx[4]), 0.0, 1e-8);
  // Every test of order <= 16 needs > 1e20 outputs to fail at 4 sigma (the report: ~1e24).
  for (unsigned n = 2; n <= 8; n += 2) EXPECT_GT(static_cast<double>(h::polynomial_failure_time(hx, n)), 1e20);
  // Argument errors name the argument.
  g::float_table bad = ft;
  bad.entries[5] = 1 << 23;
  EXPECT_THROW(g::solve_float_coefficients(bad.entries), onepass::error);
  bad.entries[5] = -1;
  EXPECT_THROW(g::solve_float_coefficients(bad.entries), onepass::error);
}

// The butterfly is exact: a, b are the +-sums of the 32 lookups of each half-warp (checked
// against an exact integer evaluation of the same network), so they are integers.
TEST(GaussianFloatWarp, ButterflyIsExactIntegerArithmetic) {
  const g::float_table& ft = g::default_float_table();
  const std::vector<float> st = g::signed_float_table(ft);
  std::uint64_t x = 12345;
  for (int trial = 0; trial < 200; ++trial) {
    std::uint32_t e[32];
    for (auto& v : e) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      v = static_cast<std::uint32_t>(x >> 32);
    }
    const g::float_warp_registers w = g::emulate_float_warp_registers(e, st.data());
    // Integer reference of the same network.
    long long a[32], b[32];
    for (unsigned l = 0; l < 32; ++l) {
      auto val = [&](std::uint32_t off) {
        const unsigned word = off >> 2;
        const long long m = ft.entries[g::table_index(word & 15, (word >> 4) & 255)];
        return ((word >> 4) & 256) ? -m : m;
      };
      a[l] = val(g::float_lane::offset_a(e[l], g::float_lane::lane_offset(l)));
      b[l] = val(g::float_lane::offset_b(e[l], g::float_lane::lane_offset(l)));
    }
    for (unsigned layer = 1; layer <= 5; ++layer) {
      long long s[32];
      for (unsigned l = 0; l < 32; ++l) {
        s[l] = a[l] + b[l];
        a[l] = a[l] - b[l];
      }
      for (unsigned l = 0; l < 32; ++l) {
        b[l] = s[l ^ (1u << (layer - 1))];
        if (layer >= 2 && (g::float_lane::flip_word(e[l], layer) >> 31)) a[l] = -a[l];
      }
    }
    for (unsigned l = 0; l < 32; ++l) {
      ASSERT_EQ(static_cast<long long>(w.a[l]), a[l]);
      ASSERT_EQ(static_cast<long long>(w.b[l]), b[l]);
      ASSERT_EQ(static_cast<double>(w.a[l]), static_cast<double>(a[l]));
      ASSERT_LT(std::fabs(w.c[l]), 0.5f);
      const double c23 = std::ldexp(static_cast<double>(w.c[l]), 23);
      ASSERT_EQ(c23, std::floor(c23));
      ASSERT_EQ(std::fmod(std::fabs(c23), 2.0), 1.0);  // odd multiple of 2^-23
    }
  }
}

TEST(GaussianFloatGenerate, CpuTwinIsDeterministicPrefixStableAndFollowsTheOutputOrder) {
  const std::size_t n = 1000;
  std::vector<float> x(n), y(n), z(77), other(n);
  g::cpu::generate_normal(x.data(), n, 0.0, 1.0, 99, g::method::float_native);
  g::cpu::generate_normal(y.data(), n, 0.0, 1.0, 99, g::default_float_table());
  g::cpu::generate_normal(z.data(), z.size(), 0.0, 1.0, 99, g::method::float_native);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(bits_of(x[i]), bits_of(y[i])) << i;
  for (std::size_t i = 0; i < z.size(); ++i) ASSERT_EQ(bits_of(x[i]), bits_of(z[i])) << i;
  // Round 3, transform 2 by hand: output 128 * 3 + 4 l + 2.
  const g::float_table& ft = g::default_float_table();
  const std::vector<float> st = g::signed_float_table(ft);
  std::uint32_t e[32];
  for (unsigned l = 0; l < 32; ++l) e[l] = g::float_entropy_source(99, l)(3).w[2];
  float w[32];
  g::emulate_float_warp(e, st.data(), g::float_lane::scale(ft.coeff, 0.0, 1.0), w);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(bits_of(x[128 * 3 + 4 * l + 2]), bits_of(w[l]));
  g::cpu::generate_normal(other.data(), n, 0.0, 1.0, 100, g::method::float_native);
  int equal = 0;
  for (std::size_t i = 0; i < n; ++i) equal += x[i] == other[i];
  EXPECT_LE(equal, 2);
  // Nothing past n is written; partial rounds.
  for (std::size_t m : {std::size_t{1}, std::size_t{31}, std::size_t{127}, std::size_t{129}}) {
    std::vector<float> p(m + 3, 7.0f);
    g::cpu::generate_normal(p.data(), m, 0.0, 1.0, 99, g::method::float_native);
    for (std::size_t i = 0; i < m; ++i) ASSERT_EQ(bits_of(p[i]), bits_of(x[i]));
    for (std::size_t i = m; i < m + 3; ++i) ASSERT_EQ(p[i], 7.0f);
  }
}

TEST(GaussianFloatGenerate, StddevTwoDoublesEveryOutputExactly) {
  // mean and stddev are applied as documented: x(mean, s) = fma chain with float(s p).
  const std::size_t n = 4096;
  std::vector<float> a(n), b(n);
  g::cpu::generate_normal(a.data(), n, 0.0, 1.0, 5, g::method::float_native);
  g::cpu::generate_normal(b.data(), n, 0.0, 2.0, 5, g::method::float_native);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(b[i], 2.0f * a[i]);  // scaling by 2 is exact
}

TEST(GaussianFloatGenerate, MomentsAndTailsOfManyOutputs) {
  const std::size_t n = std::size_t{1} << 22;
  std::vector<float> x(n);
  g::cpu::generate_normal(x.data(), n, 0.0, 1.0, 2024, g::method::float_native);
  onepass::testing::expect_standard_normal_sample(x);
  // Every lane position within a round and every transform j: mean and variance per
  // residue i % 128 (catches a lane or transform with a wrong sign rule or scale).
  for (unsigned r = 0; r < 128; r += 5) {
    long double s1 = 0, s2 = 0;
    std::size_t cnt = 0;
    for (std::size_t i = r; i < n; i += 128, ++cnt) {
      s1 += x[i];
      s2 += static_cast<long double>(x[i]) * x[i];
    }
    const double mu = static_cast<double>(s1 / cnt), v = static_cast<double>(s2 / cnt) - mu * mu;
    EXPECT_LT(std::fabs(mu), 5 / std::sqrt(double(cnt))) << "residue " << r;
    EXPECT_LT(std::fabs(v - 1), 5 * std::sqrt(2.0 / cnt)) << "residue " << r;
  }
  // Adjacent outputs (same lane, transforms j and j + 1; neighbouring lanes) uncorrelated.
  const double se = 1 / std::sqrt(static_cast<double>(n));
  long double c1 = 0, c4 = 0;
  for (std::size_t i = 0; i + 4 < n; ++i) {
    c1 += static_cast<long double>(x[i]) * x[i + 1];
    c4 += static_cast<long double>(x[i]) * x[i + 4];
  }
  EXPECT_LT(std::fabs(static_cast<double>(c1 / n)), 5 * se);
  EXPECT_LT(std::fabs(static_cast<double>(c4 / n)), 5 * se);
}

TEST(GaussianFloatGenerate, MeanAndStddevAreApplied) {
  const std::size_t n = std::size_t{1} << 18;
  std::vector<float> x(n);
  g::cpu::generate_normal(x.data(), n, -3.0, 0.5, 5, g::method::float_native);
  onepass::testing::expect_sample_mean_and_variance(x, -3.0, 0.5);
}

TEST(GaussianFloatGenerate, RoundedDoubleMethodIsTheDoubleGeneratorRounded) {
  const std::size_t n = 1000;
  std::vector<double> d(n);
  std::vector<float> f(n), before(n);
  g::cpu::generate_normal(d.data(), n, 0.25, 2.0, 31);
  g::cpu::generate_normal(f.data(), n, 0.25, 2.0, 31, g::method::rounded_double);
  g::cpu::generate_normal(before.data(), n, 0.25, 2.0, 31, g::default_table(), g::form::four);  // the old path
  std::vector<float> by_default(n), native(n);
  g::cpu::generate_normal(by_default.data(), n, 0.25, 2.0, 31);  // the float default: float_native (issue 30)
  g::cpu::generate_normal(native.data(), n, 0.25, 2.0, 31, g::method::float_native);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(bits_of(f[i]), bits_of(static_cast<float>(d[i]))) << i;
    ASSERT_EQ(bits_of(f[i]), bits_of(before[i])) << i;
    ASSERT_EQ(bits_of(native[i]), bits_of(by_default[i])) << i;
    differ += bits_of(native[i]) != bits_of(f[i]);
  }
  EXPECT_GT(differ, n / 2) << "the float-native generator is a generator of its own, not the double rounded";
}

TEST(GaussianFloatGenerate, ArgumentChecksNameTheArgument) {
  std::vector<float> x(8, 123.0f);
  auto expect_names = [&](auto&& call, const char* arg) {
    try {
      call();
      ADD_FAILURE() << "no exception for " << arg;
    } catch (const onepass::error& err) {
      EXPECT_NE(std::string(err.what()).find(arg), std::string::npos) << err.what();
    }
    for (float v : x) EXPECT_EQ(v, 123.0f);  // nothing written
  };
  float* null = nullptr;
  expect_names([&] { g::cpu::generate_normal(null, 8, 0, 1, 1, g::method::float_native); }, "out");
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, NAN, 1, 1, g::method::float_native); }, "mean");
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 1e39, 1, 1, g::method::float_native); }, "mean");
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 0, -1, 1, g::method::float_native); }, "stddev");
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 0, INFINITY, 1, g::method::float_native); }, "stddev");
  expect_names([&] { g::cpu::generate_normal(x.data(), (std::size_t{1} << 62) + 1, 0, 1, 1, g::method::float_native); },
               "num_items");
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 0, 1, 1, static_cast<g::method>(7)); }, "m");
  g::float_table bad = g::default_float_table();
  bad.entries[3] = -5;
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 0, 1, 1, bad); }, "tab");
  bad = g::default_float_table();
  bad.entries[3] = 1 << 24;
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 0, 1, 1, bad); }, "tab");
  bad = g::default_float_table();
  bad.coeff.w = NAN;
  expect_names([&] { g::cpu::generate_normal(x.data(), 8, 0, 1, 1, bad); }, "tab");
  g::cpu::generate_normal(null, 0, 0, 1, 1, g::method::float_native);  // n = 0 with null is fine
}
