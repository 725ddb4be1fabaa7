// `onepass gaussian-stream` (cli/onepass_main.cpp) run as a process, and the
// CDF mapping it uses (onepass/gaussian/cdf_stream.hpp): raw uint32 words equal to the
// article's erf mapping of cpu::generate_normal's output, deterministic per seed, exactly
// 4 N bytes with --count N (a prefix of the longer stream), an unlimited stream that stops
// when the reader closes the pipe, roughly uniform words, and one-line errors. Also the
// float-native generator's mapping (experiments/gaussian_dieharder --generator
// float_native): top 16 bits of Phi per float, two outputs per word, first in the high half.
//
// Needs <build>/bin/onepass: the test target depends on onepass_cli in CMake.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "onepass/gaussian/cdf_stream.hpp"
#include "onepass/gaussian/cpu_generate.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/stats/chi_square.hpp"

namespace {

namespace fs = std::filesystem;
namespace g = onepass::gaussian;

using onepass::testing::outcome;

std::vector<std::uint32_t> words_of(const std::string& bytes) {
  std::vector<std::uint32_t> w(bytes.size() / 4);
  std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

class GaussianStreamTest : public onepass::testing::cli_runner {};

TEST(CdfMapping, MapsTheNormalCdfToUint32) {
  EXPECT_EQ(g::normal_to_uint32(0.0), 0x80000000u);
  EXPECT_EQ(g::normal_to_uint32(-40.0), 0u);
  EXPECT_EQ(g::normal_to_uint32(40.0), 0xFFFFFFFFu);  // erf = 1 exactly: clamped, not overflowed
  EXPECT_EQ(g::normal_to_uint32(std::nan("")), 0u);
  // Phi(1) = 0.841344746...: word = floor(Phi(1) * 2^32) within rounding of erf.
  EXPECT_NEAR(static_cast<double>(g::normal_to_uint32(1.0)), 0.8413447460685429 * 4294967296.0, 2.0);
  for (double x = -6; x < 6; x += 0.01) EXPECT_LE(g::normal_to_uint32(x), g::normal_to_uint32(x + 0.01));
}

TEST(CdfMapping, WordsAreTheMappedOutputsOfGenerateNormalCpu) {
  const std::uint64_t seed = 99;
  const std::size_t n = 32 * 300;
  std::vector<double> x(n);
  g::cpu::generate_normal(x.data(), n, 0.0, 1.0, seed, g::default_table(), g::form::four);
  std::vector<std::uint32_t> w(n), w_window(32 * 100);
  g::fill_cdf_words(w.data(), 0, n / 32, seed, g::default_table(), g::form::four);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], g::normal_to_uint32(x[i])) << "word " << i;
  g::fill_cdf_words(w_window.data(), 200, 100, seed, g::default_table(), g::form::four);  // rounds 200..299
  for (std::size_t i = 0; i < w_window.size(); ++i) ASSERT_EQ(w_window[i], w[32 * 200 + i]) << "word " << i;
  std::vector<double> x3(n);
  g::cpu::generate_normal(x3.data(), n, 0.0, 1.0, seed, g::default_table(), g::form::three);
  g::fill_cdf_words(w.data(), 0, n / 32, seed, g::default_table(), g::form::three);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], g::normal_to_uint32(x3[i])) << "form three, word " << i;
}

TEST(CdfMapping, FloatsMapToTheTop16BitsOfTheNormalCdf) {
  EXPECT_EQ(g::normal_to_uint16(0.0f), 0x8000u);
  EXPECT_EQ(g::normal_to_uint16(-40.0f), 0u);
  EXPECT_EQ(g::normal_to_uint16(40.0f), 0xFFFFu);  // clamped, not wrapped to 0
  EXPECT_EQ(g::normal_to_uint16(std::nanf("")), 0u);
  // floor(Phi(x) 2^16), Phi(x) = (1 + erf(x / sqrt 2)) / 2; none within 0.04 of an integer.
  EXPECT_EQ(g::normal_to_uint16(1.0f), 55138u);   // Phi(1) 2^16 = 55138.369
  EXPECT_EQ(g::normal_to_uint16(-1.0f), 10397u);  // 10397.631
  EXPECT_EQ(g::normal_to_uint16(0.5f), 45315u);   // 45315.684
  EXPECT_EQ(g::normal_to_uint16(2.0f), 64045u);   // 64045.047
  EXPECT_EQ(g::normal_to_uint16(-3.0f), 88u);     // 88.467
  for (float x = -6; x < 6; x += 0.01f) {
    EXPECT_LE(g::normal_to_uint16(x), g::normal_to_uint16(x + 0.01f));
    EXPECT_EQ(g::normal_to_uint16(x), g::normal_to_uint32(static_cast<double>(x)) >> 16) << x;
  }
}

TEST(CdfMapping, PairsPackTheFirstOutputIntoTheHighHalf) {
  EXPECT_EQ(g::normal_pair_to_uint32(0.0f, 1.0f), 0x8000D762u);  // 55138 = 0xD762
  EXPECT_EQ(g::normal_pair_to_uint32(1.0f, 0.0f), 0xD7628000u);
  EXPECT_EQ(g::normal_pair_to_uint32(-40.0f, 40.0f), 0x0000FFFFu);
  EXPECT_EQ(g::normal_pair_to_uint32(40.0f, -40.0f), 0xFFFF0000u);
  EXPECT_EQ(g::normal_pair_to_uint32(-3.0f, 2.0f), (88u << 16) | 64045u);
}

TEST(CdfMapping, FloatWordsArePairsOfGenerateNormalFloatCpuOutputs) {
  const std::uint64_t seed = 99;
  const std::size_t rounds = 300, n = 128 * rounds;
  std::vector<float> x(n);
  g::cpu::generate_normal(x.data(), n, 0.0, 1.0, seed, g::default_float_table());
  std::vector<std::uint32_t> w(64 * rounds), w_window(64 * 100);
  g::fill_float_cdf_words(w.data(), 0, rounds, seed, g::default_float_table());
  for (std::size_t k = 0; k < w.size(); ++k) {
    ASSERT_EQ(w[k] >> 16, g::normal_to_uint16(x[2 * k])) << "word " << k << ", high half";
    ASSERT_EQ(w[k] & 0xFFFFu, g::normal_to_uint16(x[2 * k + 1])) << "word " << k << ", low half";
  }
  g::fill_float_cdf_words(w_window.data(), 200, 100, seed, g::default_float_table());  // rounds 200..299
  for (std::size_t i = 0; i < w_window.size(); ++i) ASSERT_EQ(w_window[i], w[64 * 200 + i]) << "word " << i;
  g::fill_float_cdf_words(w_window.data(), 0, 100, seed + 1, g::default_float_table());
  int equal = 0;
  for (std::size_t i = 0; i < w_window.size(); ++i) equal += w_window[i] == w[i];
  EXPECT_LE(equal, 2) << "another seed, the same words";
}

TEST(CdfMapping, FloatWordsAreRoughlyUniformInBothHalves) {
  const std::size_t rounds = std::size_t{1} << 14;  // 2^20 words, 2^21 outputs
  std::vector<std::uint32_t> w(64 * rounds);
  g::fill_float_cdf_words(w.data(), 0, rounds, 11, g::default_float_table());
  // Top and low byte of each half, each over 256 cells.
  for (unsigned shift : {24u, 16u, 8u, 0u}) {
    std::vector<std::uint64_t> cells(256, 0);
    for (std::uint32_t v : w) ++cells[(v >> shift) & 255u];
    const auto chi = onepass::stats::chi_square_uniform(cells, 1e-6);
    EXPECT_TRUE(chi.passes) << "bits " << shift << ".." << shift + 7 << ": chi-square " << chi.statistic
                            << " > " << chi.critical_value;
  }
}

TEST_F(GaussianStreamTest, DeterministicExactByteCountAndEqualToTheLibrary) {
  const std::uint64_t count = 100003;  // not a multiple of 32: the last round is cut
  const outcome a = run("gaussian-stream --seed 7 --count " + std::to_string(count));
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.err, "");
  ASSERT_EQ(a.out.size(), 4 * count);
  const outcome b = run("gaussian-stream --seed 7 --count " + std::to_string(count));
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out, b.out) << "same seed, different bytes";
  const outcome c = run("gaussian-stream --seed 8 --count " + std::to_string(count));
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(a.out, c.out);

  const auto got = words_of(a.out);
  std::vector<std::uint32_t> want(32 * ((count + 31) / 32));
  g::fill_cdf_words(want.data(), 0, want.size() / 32, 7, g::default_table(), g::form::four);
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(got[i], want[i]) << "word " << i;

  const outcome prefix = run("gaussian-stream --seed 7 --count 5");
  ASSERT_EQ(prefix.status, 0) << prefix.err;
  EXPECT_EQ(prefix.out, a.out.substr(0, 20));
  const outcome none = run("gaussian-stream --seed 7 --count 0");
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(none.out, "");
  const outcome three = run("gaussian-stream --seed 7 --count 1000 --form 3");
  ASSERT_EQ(three.status, 0) << three.err;
  ASSERT_EQ(three.out.size(), 4000u);
  std::vector<std::uint32_t> want3(1024);
  g::fill_cdf_words(want3.data(), 0, 32, 7, g::default_table(), g::form::three);
  const auto got3 = words_of(three.out);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(got3[i], want3[i]) << "form 3, word " << i;
}

TEST_F(GaussianStreamTest, UnlimitedStreamStopsWhenTheReaderCloses) {
  const outcome r = run("gaussian-stream --seed 3", "/dev/null", "head -c 4096000");
  EXPECT_EQ(r.out.size(), 4096000u);
  std::vector<std::uint32_t> want(4096000 / 4);  // 32000 whole rounds
  g::fill_cdf_words(want.data(), 0, want.size() / 32, 3, g::default_table(), g::form::four);
  EXPECT_EQ(words_of(r.out), want);
}

TEST_F(GaussianStreamTest, WordsAreRoughlyUniform) {
  const std::uint64_t count = std::uint64_t{1} << 20;
  const outcome r = run("gaussian-stream --seed 11 --count " + std::to_string(count));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto w = words_of(r.out);
  ASSERT_EQ(w.size(), count);
  // Top byte, low byte and bits 12..19, each over 256 cells; mean of the word / 2^32.
  for (unsigned shift : {24u, 12u, 0u}) {
    std::vector<std::uint64_t> cells(256, 0);
    for (std::uint32_t v : w) ++cells[(v >> shift) & 255u];
    const auto chi = onepass::stats::chi_square_uniform(cells, 1e-6);
    EXPECT_TRUE(chi.passes) << "bits " << shift << ".." << shift + 7 << ": chi-square " << chi.statistic
                            << " > " << chi.critical_value;
  }
  long double sum = 0;
  for (std::uint32_t v : w) sum += v / 4294967296.0L;
  const double mean = static_cast<double>(sum / count);
  EXPECT_NEAR(mean, 0.5, 6 * std::sqrt(1.0 / 12 / count));
}

TEST_F(GaussianStreamTest, BadArgumentsGiveOneLineAndNothingOnStdout) {
  for (const char* args : {"gaussian-stream --seed -1", "gaussian-stream --count x", "gaussian-stream --form 5",
                           "gaussian-stream --count 4611686018427387905", "gaussian-stream --seed 18446744073709551616"}) {
    const outcome r = run(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    ASSERT_FALSE(r.err.empty()) << args;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("onepass: ", 0), 0u) << args << ": " << r.err;
  }
}

}  // namespace
