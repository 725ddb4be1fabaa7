// The CPU segmented shuffle (onepass/shuffle/cpu_segmented_shuffle.hpp): per segment it
// equals the single VariablePhilox shuffle with segment_seed(seed, s); the uniform-length overload equals
// the offsets form; unshuffle inverts it; chi-square uniformity of each segment position
// and independence of neighbouring segments (and a deliberately broken seed rule is
// caught); every bad argument gets onepass::error before anything is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "onepass/random/counter_hash.hpp"
#include "onepass/shuffle/cpu_segmented_shuffle.hpp"
#include "onepass/stats/chi_square.hpp"
#include "onepass/stats/permutation.hpp"

namespace {

namespace sh = onepass::shuffle;
namespace st = onepass::stats;
using u64 = std::uint64_t;

std::vector<u64> iota_vec(std::size_t n) {
  std::vector<u64> v(n);
  std::iota(v.begin(), v.end(), u64{0});
  return v;
}

template <class Offset>
std::vector<Offset> offsets_of(const std::vector<u64>& lengths) {
  std::vector<Offset> offsets(lengths.size() + 1, Offset{0});
  for (std::size_t s = 0; s < lengths.size(); ++s) offsets[s + 1] = static_cast<Offset>(offsets[s] + lengths[s]);
  return offsets;
}

// The definition, written out: segment s is the single shuffle of that segment with
// segment_seed(seed, s); items past the last offset are copied.
template <class T, class Offset>
std::vector<T> reference(const std::vector<T>& in, const std::vector<Offset>& offsets, u64 seed, unsigned rounds,
                         bool inverse = false) {
  std::vector<T> out = in;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    const auto begin = static_cast<std::size_t>(offsets[s]);
    const auto length = static_cast<std::size_t>(offsets[s + 1]) - begin;
    if (inverse) {
      sh::cpu::variable_philox_unshuffle(in.data() + begin, out.data() + begin, length, sh::segment_seed(seed, s),
                                         rounds);
    } else {
      sh::cpu::variable_philox_shuffle(in.data() + begin, out.data() + begin, length, sh::segment_seed(seed, s),
                                       rounds);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The seed rule.

TEST(SegmentSeed, IsTheDocumentedCounterHash) {
  using namespace onepass::random;
  static_assert(sh::segment_seed(0, 0) != sh::segment_seed(0, 1), "segment_seed is constexpr");
  for (u64 seed : {u64{0}, u64{1}, u64{20240601}, ~u64{0}}) {
    const u64 key = mix64(mix64(seed ^ seed_salt) + sh::segment_seed_stream * stream_gamma);
    for (u64 s : {u64{0}, u64{1}, u64{2}, u64{12345}, u64{1} << 40, ~u64{0}}) {
      EXPECT_EQ(sh::segment_seed(seed, s), mix64(key + (s + 1) * golden_gamma)) << seed << " " << s;
      EXPECT_EQ(sh::segment_seed(seed, s), counter_hash(seed, sh::segment_seed_stream)(s));
    }
  }
  // Pinned values: a GPU (or any other) implementation must reproduce these.
  EXPECT_EQ(sh::segment_seed(0, 0), 0x491a1a8504e644b3ull);
  EXPECT_EQ(sh::segment_seed(0, 1), 0xa30a88c74c853917ull);
  EXPECT_EQ(sh::segment_seed(20240601, 12345), 0xa28110d2dd97ba30ull);
}

TEST(SegmentSeed, DistinctAndWellMixed) {
  constexpr u64 count = 1 << 16;
  std::vector<u64> all;
  for (u64 seed : {u64{0}, u64{1}, u64{42}, ~u64{0}}) {
    double flips_s = 0, flips_seed = 0;
    std::array<u64, 64> ones{};
    for (u64 s = 0; s < count; ++s) {
      const u64 v = sh::segment_seed(seed, s);
      all.push_back(v);
      flips_s += __builtin_popcountll(v ^ sh::segment_seed(seed, s + 1));
      flips_seed += __builtin_popcountll(v ^ sh::segment_seed(seed ^ 1, s));
      for (int b = 0; b < 64; ++b) ones[b] += (v >> b) & 1;
    }
    // Mean Hamming distance 32 with standard error sqrt(16 / 65536) = 0.016: +-0.2 is 12 sigma.
    EXPECT_NEAR(flips_s / count, 32.0, 0.2) << seed;
    EXPECT_NEAR(flips_seed / count, 32.0, 0.2) << seed;
    // Each bit set with frequency 1/2, standard error 0.002: +-0.02 is 10 sigma.
    for (int b = 0; b < 64; ++b) EXPECT_NEAR(static_cast<double>(ones[b]) / count, 0.5, 0.02) << seed << " bit " << b;
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "two segments share a seed";
}

// ---------------------------------------------------------------------------------------
// Per segment: the single shuffle with the derived seed.

// Checks every segment of one segmented_shuffle call against the single shuffle.
void expect_segments_equal_single_shuffles(const std::vector<u64>& lengths, u64 seed, unsigned rounds) {
  const auto offsets = offsets_of<std::size_t>(lengths);
  const u64 n = offsets.back();
  const auto in = iota_vec(n);
  std::vector<u64> out(n, ~u64{0});
  sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), lengths.size(), seed, rounds);
  const auto expected = reference(in, offsets, seed, rounds);
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    const auto first = out.begin() + static_cast<std::ptrdiff_t>(offsets[s]);
    const auto last = out.begin() + static_cast<std::ptrdiff_t>(offsets[s + 1]);
    ASSERT_TRUE(std::equal(first, last, expected.begin() + static_cast<std::ptrdiff_t>(offsets[s])))
        << "segment " << s << " of length " << lengths[s] << ", seed " << seed << ", rounds " << rounds;
    std::vector<u64> sorted(first, last);
    std::sort(sorted.begin(), sorted.end());
    ASSERT_TRUE(std::equal(sorted.begin(), sorted.end(), in.begin() + static_cast<std::ptrdiff_t>(offsets[s])))
        << "segment " << s << " is not a permutation of its own items";
  }
}

TEST(SegmentedShuffle, EachSegmentIsTheSingleShuffleWithItsSeed) {
  // Lengths 0, 1, 2, 2^k and 2^k + 1 (b = 4 is the smallest domain), in one call.
  const std::vector<u64> lengths = {0,   1,    2,    3,    0,    4,     5,     15,    16,    17,    1,
                                    255, 256,  257,  0,    4096, 4097,  16384, 16385, 65536, 65537, 2,
                                    1,   1023, 1024, 1025, 0,    32768, 32769, 0,     2,     0};
  for (u64 seed : {u64{0}, u64{7}, ~u64{0}})
    for (unsigned rounds : {24u, 12u, 1u}) expect_segments_equal_single_shuffles(lengths, seed, rounds);
  // A segment of 2^20 + 1 items: the single shuffle's parallel scan runs over many tasks
  // inside one segment while the short segments run beside it.
  expect_segments_equal_single_shuffles({3, (u64{1} << 20) + 1, 0, 1, 100}, 5, 24);
}

TEST(SegmentedShuffle, RaggedOffsetsAndTailPastTheLastOffset) {
  // 400 segments, lengths log-uniform in [1, 2^14] with a zero every ~8, and 1000 items
  // after the last offset, which belong to no segment and are copied unchanged.
  std::mt19937_64 g(99);
  std::vector<u64> lengths;
  for (int s = 0; s < 400; ++s) {
    if (g() % 8 == 0) {
      lengths.push_back(0);
    } else {
      const double e = std::uniform_real_distribution<double>(0, 14)(g);
      lengths.push_back(static_cast<u64>(std::exp2(e)));
    }
  }
  const auto offsets = offsets_of<u64>(lengths);
  const u64 n = offsets.back() + 1000;
  const auto in = iota_vec(n);
  std::vector<u64> out(n, ~u64{0});
  sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), lengths.size(), 2024);
  EXPECT_EQ(out, reference(in, offsets, 2024, 24));
  EXPECT_TRUE(std::equal(out.end() - 1000, out.end(), in.end() - 1000));
  // Equal contents, different seeds per segment: two equal-length segments differ.
  std::vector<u64> rows(4 * 100, 0), rows_out(4 * 100);
  for (u64 i = 0; i < rows.size(); ++i) rows[i] = i % 100;
  sh::cpu::segmented_shuffle(rows.data(), rows_out.data(), 4, 100, 5);
  for (int r = 1; r < 4; ++r)
    EXPECT_FALSE(std::equal(rows_out.begin(), rows_out.begin() + 100, rows_out.begin() + 100 * r)) << r;
}

TEST(SegmentedShuffle, AnyIntegralOffsetTypeGivesTheSameResult) {
  const std::vector<u64> lengths = {5, 0, 17, 300, 1, 2, 4097};
  const u64 n = 5 + 17 + 300 + 1 + 2 + 4097;
  const auto in = iota_vec(n);
  std::vector<u64> a(n), b(n), c(n), d(n);
  sh::cpu::segmented_shuffle(in.data(), a.data(), n, offsets_of<std::int32_t>(lengths).data(), lengths.size(), 3);
  sh::cpu::segmented_shuffle(in.data(), b.data(), n, offsets_of<std::uint32_t>(lengths).data(), lengths.size(), 3);
  sh::cpu::segmented_shuffle(in.data(), c.data(), n, offsets_of<std::int64_t>(lengths).data(), lengths.size(), 3);
  sh::cpu::segmented_shuffle(in.data(), d.data(), n, offsets_of<u64>(lengths).data(), lengths.size(), 3);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a, d);
  EXPECT_EQ(a, reference(in, offsets_of<u64>(lengths), 3, 24));
}

TEST(SegmentedShuffle, AnyTriviallyCopyableType) {
  struct record {
    std::array<char, 13> bytes;
    bool operator==(const record& o) const { return bytes == o.bytes; }
  };
  const std::vector<u64> lengths = {3, 0, 1000, 17, 1};
  const auto offsets = offsets_of<u64>(lengths);
  const u64 n = offsets.back();
  std::vector<record> in(n), out(n);
  std::vector<std::uint8_t> small(n), small_out(n);
  for (u64 i = 0; i < n; ++i) {
    in[i].bytes.fill(static_cast<char>(i % 127));
    in[i].bytes[0] = static_cast<char>(i >> 8);
    small[i] = static_cast<std::uint8_t>(i);
  }
  sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), lengths.size(), 8);
  sh::cpu::segmented_shuffle(small.data(), small_out.data(), n, offsets.data(), lengths.size(), 8);
  EXPECT_TRUE(out == reference(in, offsets, 8, 24));
  EXPECT_EQ(small_out, reference(small, offsets, 8, 24));
}

TEST(SegmentedShuffle, UniformOverloadEqualsOffsets) {
  const std::vector<std::pair<u64, u64>> shapes = {{0, 5}, {5, 0}, {1, 1}, {7, 2},     {9, 3},
                                                   {33, 64}, {5, 65}, {3, 4097}, {1000, 5}, {2, 1u << 16}};
  for (const auto& [rows, length] : shapes) {
    const u64 n = rows * length;
    const auto in = iota_vec(n);
    std::vector<u64> offsets(rows + 1);
    for (u64 s = 0; s <= rows; ++s) offsets[s] = s * length;
    std::vector<u64> uniform(n, 1), with_offsets(n, 2);
    sh::cpu::segmented_shuffle(in.data(), uniform.data(), rows, length, 11, 20);
    sh::cpu::segmented_shuffle(in.data(), with_offsets.data(), n, offsets.data(), rows, 11, 20);
    EXPECT_EQ(uniform, with_offsets) << rows << " x " << length;
    EXPECT_EQ(uniform, reference(in, offsets, 11, 20)) << rows << " x " << length;
  }
}

TEST(SegmentedShuffle, UnshuffleInvertsShuffle) {
  const std::vector<u64> lengths = {0, 1, 2, 3, 16, 17, 0, 4097, 65537, 5, 1};
  const auto offsets = offsets_of<std::int64_t>(lengths);
  const u64 n = static_cast<u64>(offsets.back()) + 7;  // and a tail
  const auto in = iota_vec(n);
  for (unsigned rounds : {1u, 24u}) {
    std::vector<u64> shuffled(n), back(n, ~u64{0});
    sh::cpu::segmented_shuffle(in.data(), shuffled.data(), n, offsets.data(), lengths.size(), 31, rounds);
    EXPECT_NE(shuffled, in);
    sh::cpu::segmented_unshuffle(shuffled.data(), back.data(), n, offsets.data(), lengths.size(), 31, rounds);
    EXPECT_EQ(back, in) << rounds;
    EXPECT_EQ(back, reference(shuffled, offsets, 31, rounds, true));
  }
  for (const auto& [rows, length] : std::vector<std::pair<u64, u64>>{{1, 1}, {100, 3}, {17, 1000}, {3, 4097}}) {
    const auto x = iota_vec(rows * length);
    std::vector<u64> shuffled(x.size()), back(x.size());
    sh::cpu::segmented_shuffle(x.data(), shuffled.data(), rows, length, 9);
    sh::cpu::segmented_unshuffle(shuffled.data(), back.data(), rows, length, 9);
    EXPECT_EQ(back, x) << rows << " x " << length;
  }
}

// ---------------------------------------------------------------------------------------
// Uniformity and independence.
//
// `samples` calls, each with its own seed, shuffle `rows` segments of n = 3 items. For each
// segment position s the 3! = 6 outcomes are tested for uniformity (chi-square, 5 df, 1000
// expected per cell), and for each neighbouring pair (s, s + 1) the 36 joint outcomes for
// uniformity, i.e. independence of uniform marginals (35 df, 166.7 expected per cell).
// Each test rejects a correct shuffle with probability alpha = 1e-6 (expected counts >= 166
// make the chi-square approximation accurate at this level), so the 8 + 7 = 15 tests of
// ChiSquarePerPositionAndNeighbours fail falsely with probability <= 1.5e-5 (Bonferroni),
// and the 8 marginal checks of the broken rule below add <= 8e-6. The seeds are fixed, so
// the verdicts are reproducible; the probabilities are the a priori ones over seed sets.

constexpr u64 rows = 8;
constexpr u64 samples = 6000;
constexpr double alpha = 1e-6;
constexpr u64 base_seed = 20240614;

struct outcome_counts {
  std::vector<std::vector<u64>> position;   // [s][Lehmer rank of segment s]
  std::vector<std::vector<u64>> neighbours;  // [s][6 * rank(s) + rank(s + 1)]
};

// shuffle_rows(in, out, seed) shuffles `rows` segments of 3 items.
outcome_counts count_outcomes(const std::function<void(const u64*, u64*, u64)>& shuffle_rows) {
  outcome_counts c{std::vector<std::vector<u64>>(rows, std::vector<u64>(6)),
                   std::vector<std::vector<u64>>(rows - 1, std::vector<u64>(36))};
  const auto in = iota_vec(rows * 3);
  std::vector<u64> out(rows * 3);
  for (u64 k = 0; k < samples; ++k) {
    shuffle_rows(in.data(), out.data(), base_seed + k);
    u64 previous = 0;
    for (u64 s = 0; s < rows; ++s) {
      const u64 p[3] = {out[3 * s] - 3 * s, out[3 * s + 1] - 3 * s, out[3 * s + 2] - 3 * s};
      const u64 rank = st::lehmer_rank(p, 3);
      ++c.position[s][rank];
      if (s > 0) ++c.neighbours[s - 1][6 * previous + rank];
      previous = rank;
    }
  }
  return c;
}

std::string describe(const st::chi_square_result& r) {
  return "X^2 = " + std::to_string(r.statistic) + ", critical value = " + std::to_string(r.critical_value) +
         ", p = " + std::to_string(r.p_value);
}

void segmented_rows(const u64* in, u64* out, u64 seed) { sh::cpu::segmented_shuffle(in, out, rows, 3, seed); }

TEST(SegmentedShuffleUniformity, ChiSquarePerPositionAndNeighbours) {
  const auto c = count_outcomes(segmented_rows);
  for (u64 s = 0; s < rows; ++s) {
    const auto r = st::chi_square_permutations(c.position[s], 3, alpha);
    EXPECT_EQ(r.samples, samples);
    EXPECT_TRUE(r.passes) << "segment " << s << ": " << describe(r);
  }
  for (u64 s = 0; s + 1 < rows; ++s) {
    const auto r = st::chi_square_uniform(c.neighbours[s], alpha);
    EXPECT_EQ(r.cells, 36u);
    EXPECT_TRUE(r.passes) << "segments " << s << ", " << s + 1 << ": " << describe(r);
  }
}

TEST(SegmentedShuffleUniformity, BrokenSeedRuleIsCaughtByTheIndependenceTest) {
  // The same seed for every segment: each segment alone is still a uniform shuffle, so
  // the per-position test passes, but neighbours are identical, which the joint test must see.
  const auto c = count_outcomes([](const u64* in, u64* out, u64 seed) {
    for (u64 s = 0; s < rows; ++s)
      sh::cpu::variable_philox_shuffle(in + 3 * s, out + 3 * s, 3, sh::segment_seed(seed, 0));
  });
  for (u64 s = 0; s < rows; ++s) {
    const auto r = st::chi_square_permutations(c.position[s], 3, alpha);
    EXPECT_TRUE(r.passes) << "segment " << s << ": " << describe(r);
  }
  for (u64 s = 0; s + 1 < rows; ++s) {
    const auto r = st::chi_square_uniform(c.neighbours[s], alpha);
    EXPECT_FALSE(r.passes) << "segments " << s << ", " << s + 1 << ": " << describe(r);
    EXPECT_LT(r.p_value, 1e-100) << describe(r);
  }
}

TEST(SegmentedShuffleUniformity, NonUniformShuffleIsCaughtByThePositionTest) {
  // One Feistel round is far from uniform (paper Fig. 6; for n = 3 it gives the same
  // permutation for every seed): the per-position test must fail.
  const auto c = count_outcomes(
      [](const u64* in, u64* out, u64 seed) { sh::cpu::segmented_shuffle(in, out, rows, 3, seed, 1); });
  for (u64 s = 0; s < rows; ++s) {
    const auto r = st::chi_square_permutations(c.position[s], 3, alpha);
    EXPECT_FALSE(r.passes) << "segment " << s << ": " << describe(r);
  }
}

// ---------------------------------------------------------------------------------------
// Bad input: onepass::error naming the argument and its range, nothing written.

constexpr u64 sentinel = 0x5e57'1e15'5e57'1e15ull;

// Runs f, which must throw onepass::error whose message contains every one of `parts`,
// and checks that `buffer` still holds only the sentinel.
void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts,
                  const std::vector<u64>& buffer) {
  try {
    f();
    ADD_FAILURE() << "no onepass::error; expected one mentioning " << parts.front();
  } catch (const onepass::error& e) {
    const std::string message = e.what();
    for (const auto& part : parts) EXPECT_NE(message.find(part), std::string::npos) << message << " lacks " << part;
  }
  EXPECT_TRUE(std::all_of(buffer.begin(), buffer.end(), [](u64 v) { return v == sentinel; }))
      << "output written before the error";
}

TEST(SegmentedShuffleErrors, BadOffsets) {
  const u64 n = 100;
  const auto in = iota_vec(n);
  std::vector<u64> out(n, sentinel);
  auto offsets_case = [&](const auto& offsets, const std::vector<std::string>& parts) {
    const u64 segments = offsets.size() - 1;
    expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), segments, 1); }, parts,
                 out);
    expect_error([&] { sh::cpu::segmented_unshuffle(in.data(), out.data(), n, offsets.data(), segments, 1); }, parts,
                 out);
  };
  offsets_case(std::vector<u64>{0, 10, 5, 100},
               {"segmented_", "segment_offsets", "non-decreasing", "segment_offsets[1] = 10 > segment_offsets[2] = 5"});
  offsets_case(std::vector<std::int32_t>{0, -5, 100}, {"segment_offsets", "non-decreasing", "= -5"});
  offsets_case(std::vector<u64>{3, 10, 100}, {"segment_offsets", "[0] must be 0, got 3"});
  offsets_case(std::vector<std::int64_t>{-1, 10, 100}, {"segment_offsets", "[0] must be 0, got -1"});
  offsets_case(std::vector<u64>{0, 50, 101}, {"segment_offsets", "[num_segments] must be in [0, num_items] = [0, 100]",
                                              "got 101"});
  offsets_case(std::vector<u64>{0, u64{1} << 40}, {"segment_offsets", "[0, 100]", "got 1099511627776"});
  // Many segments (the check runs in parallel): the first decrease is the one reported.
  std::vector<std::uint32_t> many(300001, 0);
  many[150000] = 1;
  many[250000] = 7;
  offsets_case(many, {"segment_offsets[150000] = 1 > segment_offsets[150001] = 0"});
  // The last offset is also checked when all segments before it are valid.
  many.assign(300001, 0);
  many.back() = 101;
  offsets_case(many, {"[num_segments] must be in [0, num_items]", "got 101"});
}

TEST(SegmentedShuffleErrors, BadPointersSizesAndRounds) {
  const u64 n = 100;
  const auto in = iota_vec(n);
  std::vector<u64> out(n, sentinel);
  const std::vector<u64> offsets = {0, 40, 100};
  expect_error([&] { sh::cpu::segmented_shuffle<u64>(nullptr, out.data(), n, offsets.data(), 2, 1); },
               {"segmented_shuffle", "in", "must not be null when num_items > 0"}, out);
  expect_error([&] { sh::cpu::segmented_unshuffle<u64>(in.data(), nullptr, n, offsets.data(), 2, 1); },
               {"segmented_unshuffle", "out", "must not be null"}, out);
  expect_error([&] { sh::cpu::segmented_shuffle<u64, u64>(in.data(), out.data(), n, nullptr, 2, 1); },
               {"segment_offsets", "must not be null when num_segments > 0"}, out);
  expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), 2, 1, 0); },
               {"rounds", "must be in [1, 64], got 0"}, out);
  expect_error([&] { sh::cpu::segmented_unshuffle(in.data(), out.data(), n, offsets.data(), 2, 1, 65); },
               {"rounds", "must be in [1, 64], got 65"}, out);
  expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), (u64{1} << 63) + 1, offsets.data(), 2, 1); },
               {"num_items", "must be in [0, 2^63]"}, out);
  expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), n, offsets.data(), u64{1} << 63, 1); },
               {"num_segments", "must be in [0, 2^63)"}, out);
  // Overlapping in and out (one buffer: in is its first 100 items), and in == out.
  std::vector<u64> buffer(2 * n, sentinel);
  for (u64 shift : {u64{0}, u64{1}, u64{50}, u64{99}}) {
    expect_error([&] { sh::cpu::segmented_shuffle(buffer.data(), buffer.data() + shift, n, offsets.data(), 2, 1); },
                 {"out", "must not overlap in"}, buffer);
    expect_error([&] { sh::cpu::segmented_shuffle(buffer.data() + shift, buffer.data(), n, offsets.data(), 2, 1); },
                 {"out", "must not overlap in"}, buffer);
  }
  EXPECT_NO_THROW(sh::cpu::segmented_shuffle(buffer.data(), buffer.data() + n, n, offsets.data(), 2, 1));  // adjacent
  // Nothing to do: null pointers are fine.
  EXPECT_NO_THROW((sh::cpu::segmented_shuffle<u64, u64>(nullptr, nullptr, 0, nullptr, 0, 1)));
  const std::vector<u64> empty_segments = {0, 0, 0};
  EXPECT_NO_THROW(sh::cpu::segmented_shuffle<u64>(nullptr, nullptr, 0, empty_segments.data(), 2, 1));
}

TEST(SegmentedShuffleErrors, UniformOverload) {
  const auto in = iota_vec(100);
  std::vector<u64> out(100, sentinel);
  expect_error([&] { sh::cpu::segmented_shuffle<u64>(nullptr, out.data(), 10, 10, 1); }, {"in", "must not be null"},
               out);
  expect_error([&] { sh::cpu::segmented_unshuffle<u64>(in.data(), nullptr, 10, 10, 1); }, {"out", "must not be null"},
               out);
  expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), u64{1} << 40, u64{1} << 30, 1); },
               {"num_segments", "must be in [0, 2^63 / segment_length] = [0, 8589934592], got 1099511627776"}, out);
  expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), 1, (u64{1} << 63) + 1, 1); },
               {"segment_length", "must be in [0, 2^63]"}, out);
  expect_error([&] { sh::cpu::segmented_shuffle(in.data(), out.data(), 10, 10, 1, 0); }, {"rounds", "[1, 64]"}, out);
  std::vector<u64> buffer(200, sentinel);
  expect_error([&] { sh::cpu::segmented_shuffle(buffer.data(), buffer.data() + 30, 10, 10, 1); },
               {"out", "must not overlap in"}, buffer);
  EXPECT_NO_THROW(sh::cpu::segmented_shuffle<u64>(nullptr, nullptr, 0, 10, 1));
  EXPECT_NO_THROW(sh::cpu::segmented_shuffle<u64>(nullptr, nullptr, 10, 0, 1));
}

}  // namespace
