// tests/cpu/test_distributed_splitters.cpp — the splitter search of the distributed sort
// (onepass/distributed/splitters.hpp), simulated for P = 1..8 ranks on the CPU: every rank's
// histograms are computed here as the GPU kernels compute them (level 0 over all keys, later
// levels over the keys of the open segments), the search runs on them, and each key's
// destination (binary search over the splitters with the rank's position thresholds) must be
// the output rank of its position in the stable sort of the concatenation, with every rank
// receiving exactly its input count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "onepass/distributed/splitters.hpp"
#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"

namespace {

namespace dist = onepass::distributed;

/// The key fields of one rank: key_field(ordered_bits(key, descending), begin, end).
template <class Key>
std::vector<std::uint64_t> fields_of(const std::vector<Key>& keys, bool descending, unsigned begin, unsigned end) {
  std::vector<std::uint64_t> w(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    w[i] = onepass::sort::key_field(onepass::sort::ordered_bits(keys[i], descending), begin, end);
  return w;
}

/// Runs the search over per-rank fields as the ranks would; returns each key's destination.
std::vector<std::vector<std::uint32_t>> destinations(const std::vector<std::vector<std::uint64_t>>& fields,
                                                     unsigned field_bits, unsigned* levels = nullptr) {
  const std::size_t P = fields.size();
  std::vector<std::uint64_t> counts(P);
  for (std::size_t r = 0; r < P; ++r) counts[r] = fields[r].size();
  dist::splitter_search search(counts, field_bits);
  while (!search.done()) {
    const auto prefixes = search.open_prefixes();
    const std::size_t S = prefixes.size(), B = search.num_buckets();
    const unsigned shift = search.digit_shift(), width = search.digit_width();
    const unsigned prefix_shift = shift + width;
    std::vector<std::uint64_t> h(P * S * B, 0);
    for (std::size_t r = 0; r < P; ++r)
      for (std::uint64_t w : fields[r]) {
        const std::uint64_t prefix = prefix_shift >= 64 ? 0 : w >> prefix_shift;
        const auto it = std::lower_bound(prefixes.begin(), prefixes.end(), prefix);
        if (it == prefixes.end() || *it != prefix) continue;
        const std::size_t s = static_cast<std::size_t>(it - prefixes.begin());
        ++h[(r * S + s) * B + ((w >> shift) & (B - 1))];
      }
    EXPECT_LE(S, P - 1);
    search.add_level(h);
  }
  if (levels) *levels = search.level();
  const auto& sp = search.splitters();
  std::vector<std::vector<std::uint32_t>> dest(P);
  for (std::size_t r = 0; r < P; ++r) {
    std::vector<std::uint64_t> threshold(sp.size());
    for (std::size_t q = 0; q < sp.size(); ++q) {
      std::uint64_t position = 0;
      if (sp[q].needs_position(static_cast<std::uint32_t>(r))) {
        std::uint64_t seen = 0;
        position = std::numeric_limits<std::uint64_t>::max();
        for (std::uint64_t i = 0; i < fields[r].size(); ++i)
          if (fields[r][i] == sp[q].word && seen++ == sp[q].occurrence) {
            position = i;
            break;
          }
        EXPECT_NE(position, std::numeric_limits<std::uint64_t>::max()) << "rank " << r << " boundary " << q + 1;
      }
      threshold[q] = sp[q].threshold(static_cast<std::uint32_t>(r), position);
    }
    for (std::size_t q = 1; q < sp.size(); ++q) {
      const bool ordered = sp[q - 1].word < sp[q].word ||
                           (sp[q - 1].word == sp[q].word && threshold[q - 1] <= threshold[q]);
      EXPECT_TRUE(ordered) << "splitters " << q << " and " << q + 1 << " out of order on rank " << r;
    }
    dest[r].resize(fields[r].size());
    for (std::uint64_t i = 0; i < fields[r].size(); ++i) {
      std::uint32_t d = 0;
      for (std::size_t q = 0; q < sp.size(); ++q)
        if (dist::at_or_after(fields[r][i], i, sp[q].word, threshold[q])) d = static_cast<std::uint32_t>(q + 1);
      dest[r][i] = d;
    }
    // The send counts from the histograms alone equal the keys the rule sends.
    std::vector<std::uint64_t> sent(P, 0);
    for (std::uint32_t d : dest[r]) ++sent[d];
    EXPECT_EQ(search.send_counts(r), sent) << "rank " << r;
  }
  EXPECT_THROW(search.send_counts(P), onepass::error);
  return dest;
}

/// The reference: the destination of each key from its position in the stable sort of the
/// concatenation by field.
std::vector<std::vector<std::uint32_t>> reference(const std::vector<std::vector<std::uint64_t>>& fields) {
  const std::size_t P = fields.size();
  std::vector<std::uint64_t> all, bounds(P + 1, 0);
  for (std::size_t r = 0; r < P; ++r) {
    all.insert(all.end(), fields[r].begin(), fields[r].end());
    bounds[r + 1] = bounds[r] + fields[r].size();
  }
  std::vector<std::uint64_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return all[a] < all[b]; });
  std::vector<std::uint32_t> dest_of(all.size());
  for (std::uint64_t k = 0; k < order.size(); ++k)
    dest_of[order[k]] = static_cast<std::uint32_t>(std::upper_bound(bounds.begin(), bounds.end(), k) - bounds.begin() - 1);
  std::vector<std::vector<std::uint32_t>> dest(P);
  for (std::size_t r = 0; r < P; ++r) dest[r].assign(dest_of.begin() + bounds[r], dest_of.begin() + bounds[r + 1]);
  return dest;
}

std::vector<std::uint64_t> split(std::uint64_t n, std::size_t P, int mode, std::mt19937_64& rng) {
  std::vector<std::uint64_t> c(P, 0);
  if (mode == 0) {
    for (std::size_t r = 0; r < P; ++r) c[r] = n / P + (r < n % P ? 1 : 0);
  } else if (mode == 1) {
    c[rng() % P] = n;
  } else {
    std::vector<std::uint64_t> cuts{0, n};
    for (std::size_t k = 0; k + 1 < P; ++k) cuts.push_back(rng() % (n + 1));
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t r = 0; r < P; ++r) c[r] = cuts[r + 1] - cuts[r];
  }
  return c;
}

template <class Key>
Key make_key(int shape, std::uint64_t i, std::uint64_t n, std::mt19937_64& rng) {
  switch (shape) {
    case 0: return static_cast<Key>(rng());
    case 1: return static_cast<Key>((rng() % 4) * 0x01010101u);          // few values, long ties
    case 2: return static_cast<Key>(i);                                   // presorted
    case 3: return static_cast<Key>(n - i);                               // reverse
    case 4: return static_cast<Key>(0x5eedu);                              // all equal
    default: return rng() % 100 == 0 ? Key{7} : static_cast<Key>(rng());  // 1% equal
  }
}

template <class Key>
void simulate(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr unsigned bits = sizeof(Key) * 8;
  for (std::size_t P = 1; P <= 8; ++P)
    for (int shape = 0; shape < 6; ++shape)
      for (int mode = 0; mode < 3; ++mode) {
        const std::uint64_t n = 1 + rng() % 3000;
        const auto counts = split(n, P, mode, rng);
        const bool descending = rng() % 2 == 1;
        unsigned begin = 0, end = bits;
        if (rng() % 3 == 0) {  // a narrowed bit range
          begin = static_cast<unsigned>(rng() % (bits / 2));
          end = begin + 1 + static_cast<unsigned>(rng() % (bits - begin));
        }
        std::vector<std::vector<std::uint64_t>> fields(P);
        std::uint64_t g = 0;
        for (std::size_t r = 0; r < P; ++r) {
          std::vector<Key> keys(counts[r]);
          for (auto& k : keys) k = make_key<Key>(shape, g++, n, rng);
          fields[r] = fields_of(keys, descending, begin, end);
        }
        unsigned levels = 0;
        const auto got = destinations(fields, end - begin, &levels);
        const auto want = reference(fields);
        std::vector<std::uint64_t> received(P, 0);
        for (std::size_t r = 0; r < P; ++r)
          for (std::uint32_t d : got[r]) ++received[d];
        const std::string what = "P=" + std::to_string(P) + " shape=" + std::to_string(shape) + " split=" +
                                 std::to_string(mode) + " bits [" + std::to_string(begin) + ", " + std::to_string(end) +
                                 ") descending=" + std::to_string(descending);
        ASSERT_EQ(got, want) << what;
        ASSERT_EQ(received, counts) << what;
        ASSERT_LE(levels, 1u + (end - begin + 7) / 8) << what;
      }
}

TEST(DistributedSplitters, SimulationU32) { simulate<std::uint32_t>(11); }
TEST(DistributedSplitters, SimulationU64) { simulate<std::uint64_t>(12); }
TEST(DistributedSplitters, SimulationSignedAndFloat) {
  simulate<std::int32_t>(13);
  simulate<double>(14);
}

TEST(DistributedSplitters, ATieAcrossABoundaryNamesRankAndOccurrence) {
  // Ranks hold {5, 5, 1} and {5, 0, 5}: sorted (field, rank, position): 0(r1) 1(r0) 5(r0,0)
  // 5(r0,1) 5(r1,0) 5(r1,2); boundary 1 at position 3 = rank 0's second 5 (occurrence 1).
  dist::splitter_search s({3, 3}, 8, 8, 8);
  std::vector<std::uint64_t> h(2 * 256, 0);
  h[5] = 2, h[1] = 1, h[256 + 5] = 2, h[256 + 0] = 1;
  s.add_level(h);
  ASSERT_TRUE(s.done());
  const auto& sp = s.splitters()[0];
  EXPECT_TRUE(sp.tie);
  EXPECT_EQ(sp.word, 5u);
  EXPECT_EQ(sp.rank, 0u);
  EXPECT_EQ(sp.occurrence, 1u);
  EXPECT_TRUE(sp.needs_position(0));
  EXPECT_FALSE(sp.needs_position(1));
  EXPECT_EQ(sp.threshold(0, 1), 1u);
  EXPECT_EQ(sp.threshold(1), 0u);  // all of rank 1's fives are after the boundary
  // Rank 0 sends its 1 and its first 5 to rank 0, its second 5 to rank 1; rank 1 its 0 to
  // rank 0 and both 5s to rank 1.
  EXPECT_EQ(s.send_counts(0), (std::vector<std::uint64_t>{2, 1}));
  EXPECT_EQ(s.send_counts(1), (std::vector<std::uint64_t>{1, 2}));
}

TEST(DistributedSplitters, EmptyRanksAndBadArguments) {
  // Ranks 1 and 2 hold nothing: boundaries 1 and 2 sit at the same position.
  dist::splitter_search s({4, 0, 0}, 32);
  EXPECT_EQ(s.splitters().size(), 2u);
  EXPECT_TRUE(s.done());  // both boundaries at N: nothing to search
  EXPECT_TRUE(s.splitters()[0].beyond_all);
  EXPECT_EQ(s.send_counts(0), (std::vector<std::uint64_t>{4, 0, 0}));
  EXPECT_EQ(s.send_counts(2), (std::vector<std::uint64_t>{0, 0, 0}));
  EXPECT_THROW(dist::splitter_search({}, 32), onepass::error);
  EXPECT_THROW(dist::splitter_search({1}, 0), onepass::error);
  EXPECT_THROW(dist::splitter_search({1}, 65), onepass::error);
  dist::splitter_search t({2, 2}, 32);
  EXPECT_THROW(t.send_counts(0), onepass::error);  // the search has not run
  try {
    t.add_level(std::vector<std::uint64_t>(3, 0));
    FAIL() << "expected onepass::error";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find("histograms"), std::string::npos) << e.what();
  }
}

}  // namespace
