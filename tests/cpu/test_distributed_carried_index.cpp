// tests/cpu/test_distributed_carried_index.cpp — the carried-index split of the bijective shuffle
// (distributed/carried_index_plan.hpp, issue 29): the domain chunks tile the domain (2^64
// included), the window rebalance moves every position to its owner, and the CPU simulation of
// P = 1..8 ranks, even, uneven and empty splits, equals the one-rank bijective shuffle of the
// concatenation (so the same permutation for every P and split); each routed item carries one
// index word; bad arguments name themselves.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/distributed/carried_index_plan.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"

namespace {

using onepass::distributed::domain_chunk_begin;
using onepass::distributed::domain_chunk_of;
using onepass::distributed::plan_window_rebalance;
using onepass::distributed::simulate_carried_index_shuffle;

TEST(CarriedIndexPlan, ChunksTileTheDomain) {
  for (unsigned b : {1u, 4u, 5u, 17u, 33u, 63u, 64u}) {
    for (std::size_t p : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{8}}) {
      const std::string what = "b = " + std::to_string(b) + ", P = " + std::to_string(p);
      EXPECT_EQ(domain_chunk_begin(b, p, 0), 0u) << what;
      std::uint64_t previous = 0;
      for (std::size_t q = 0; q < p; ++q) {
        const std::uint64_t c = domain_chunk_begin(b, p, q);
        EXPECT_GE(c, previous) << what;
        previous = c;
        const std::uint64_t last = (q + 1 < p || b < 64) ? domain_chunk_begin(b, p, q + 1) - 1 : ~std::uint64_t{0};
        if (last + 1 == c) continue;  // an empty chunk (more ranks than indices)
        EXPECT_EQ(domain_chunk_of(b, p, c), q) << what << ", q = " << q;
        EXPECT_EQ(domain_chunk_of(b, p, last), q) << what << ", q = " << q;
      }
    }
  }
  // Worked: 2^4 over 3 chunks: [0, 5), [5, 10), [10, 16).
  EXPECT_EQ(domain_chunk_begin(4, 3, 1), 5u);
  EXPECT_EQ(domain_chunk_begin(4, 3, 2), 10u);
  EXPECT_EQ(domain_chunk_begin(4, 3, 3), 16u);
  EXPECT_EQ(domain_chunk_of(4, 3, 4), 0u);
  EXPECT_EQ(domain_chunk_of(4, 3, 5), 1u);
  EXPECT_EQ(domain_chunk_of(4, 3, 15), 2u);
  // Index words: 4 bytes while a chunk holds at most 2^32 indices.
  EXPECT_EQ(onepass::distributed::carried_index_bytes(32, 1), 4u);
  EXPECT_EQ(onepass::distributed::carried_index_bytes(33, 1), 8u);
  EXPECT_EQ(onepass::distributed::carried_index_bytes(33, 2), 4u);
  EXPECT_EQ(onepass::distributed::carried_index_bytes(34, 3), 8u);
}

TEST(CarriedIndexPlan, WindowRebalanceMovesEveryPositionToItsOwner) {
  // Windows [0, 3), [3, 3), [3, 10) onto outputs [0, 4), [4, 6), [6, 10).
  const auto pieces = plan_window_rebalance({3, 0, 7}, {4, 2, 4});
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[0].source, 0u);
  EXPECT_EQ(pieces[0].destination, 0u);
  EXPECT_EQ(pieces[0].count, 3u);
  EXPECT_EQ(pieces[1].source, 2u);  // position 3 of the output: rank 2's first
  EXPECT_EQ(pieces[1].destination, 0u);
  EXPECT_EQ(pieces[1].source_offset, 0u);
  EXPECT_EQ(pieces[1].destination_offset, 3u);
  EXPECT_EQ(pieces[1].count, 1u);
  EXPECT_EQ(pieces[2].destination, 1u);
  EXPECT_EQ(pieces[2].source_offset, 1u);
  EXPECT_EQ(pieces[2].count, 2u);
  EXPECT_EQ(pieces[3].destination, 2u);
  EXPECT_EQ(pieces[3].source_offset, 3u);
  EXPECT_EQ(pieces[3].destination_offset, 0u);
  EXPECT_EQ(pieces[3].count, 4u);

  // Random counts: every output position is written exactly once, by the window holding it.
  std::mt19937_64 gen(5);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t p = 1 + gen() % 8;
    std::vector<std::uint64_t> w(p), s(p);
    for (auto& c : w) c = gen() % 5 == 0 ? 0 : gen() % 40;
    const std::uint64_t total = std::accumulate(w.begin(), w.end(), std::uint64_t{0});
    std::uint64_t left = total;
    for (std::size_t o = 0; o + 1 < p; ++o) {
      s[o] = left == 0 ? 0 : gen() % (left + 1);
      left -= s[o];
    }
    s[p - 1] = left;
    std::vector<std::uint64_t> g(p + 1, 0), so(p + 1, 0);
    for (std::size_t q = 0; q < p; ++q) g[q + 1] = g[q] + w[q], so[q + 1] = so[q] + s[q];
    std::vector<int> written(total, 0);
    for (const auto& piece : plan_window_rebalance(w, s)) {
      ASSERT_GT(piece.count, 0u);
      ASSERT_LE(piece.source_offset + piece.count, w[piece.source]);
      ASSERT_LE(piece.destination_offset + piece.count, s[piece.destination]);
      for (std::uint64_t k = 0; k < piece.count; ++k) {
        const std::uint64_t global = g[piece.source] + piece.source_offset + k;
        ASSERT_EQ(global, so[piece.destination] + piece.destination_offset + k);
        ++written[global];
      }
    }
    for (std::uint64_t x = 0; x < total; ++x) ASSERT_EQ(written[x], 1) << "trial " << trial << ", position " << x;
  }
}

std::vector<std::vector<std::uint64_t>> split(const std::vector<std::uint64_t>& items, const std::vector<std::uint64_t>& counts) {
  std::vector<std::vector<std::uint64_t>> out;
  std::size_t at = 0;
  for (auto c : counts) {
    out.emplace_back(items.begin() + static_cast<std::ptrdiff_t>(at), items.begin() + static_cast<std::ptrdiff_t>(at + c));
    at += c;
  }
  return out;
}

TEST(CarriedIndexPlan, EqualsTheOneRankShuffleForEveryWorldSizeAndSplit) {
  std::mt19937_64 gen(29);
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{17},
                          std::uint64_t{1000}, std::uint64_t{4097}, (std::uint64_t{1} << 16) + 3}) {
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{42}}) {
      const auto f = onepass::bijection::variable_philox::for_length(n, seed);
      std::vector<std::uint64_t> items(n);
      std::iota(items.begin(), items.end(), std::uint64_t{1000});
      std::vector<std::uint64_t> expected(n);
      onepass::shuffle::cpu::bijective_shuffle(items.data(), expected.data(), n, f);
      for (std::size_t p = 1; p <= 8; ++p) {
        for (int layout = 0; layout < 3; ++layout) {  // even, random (with empty ranks), all on the last rank
          std::vector<std::uint64_t> counts(p, 0);
          if (layout == 0) {
            for (std::size_t r = 0; r < p; ++r) counts[r] = n * (r + 1) / p - n * r / p;
          } else if (layout == 1) {
            std::uint64_t left = n;
            for (std::size_t r = 0; r + 1 < p; ++r) {
              counts[r] = (left == 0 || gen() % 4 == 0) ? 0 : gen() % (left + 1);
              left -= counts[r];
            }
            counts[p - 1] = left;
          } else {
            counts[p - 1] = n;
          }
          const std::string what = "N = " + std::to_string(n) + ", seed " + std::to_string(seed) + ", P = " +
                                   std::to_string(p) + ", layout " + std::to_string(layout);
          const auto got = simulate_carried_index_shuffle(split(items, counts), f);
          std::vector<std::uint64_t> joined;
          for (std::size_t r = 0; r < p; ++r) {
            ASSERT_EQ(got.outputs[r].size(), counts[r]) << what;
            joined.insert(joined.end(), got.outputs[r].begin(), got.outputs[r].end());
          }
          ASSERT_EQ(joined, expected) << what;
          // Every item is routed once, with one index word; rebalancing moves only the windows'
          // misfit, never more than the items.
          EXPECT_EQ(std::accumulate(got.send_counts.begin(), got.send_counts.end(), std::uint64_t{0}), n) << what;
          EXPECT_LE(got.routed_elsewhere, n) << what;
          EXPECT_LE(got.rebalanced, n) << what;
          EXPECT_EQ(got.index_bytes, 4u) << what;
        }
      }
    }
  }
}

TEST(CarriedIndexPlan, EvenSplitsRebalanceFewItems) {
  // 2^16 + 3 items evenly on 4 ranks: the chunks' counts differ from the even split by the random
  // imbalance of a bijection (about sqrt(N / P) each), far less than the items routed.
  const std::uint64_t n = (std::uint64_t{1} << 16) + 3;
  const auto f = onepass::bijection::variable_philox::for_length(n, 7);
  std::vector<std::uint64_t> items(n);
  std::iota(items.begin(), items.end(), std::uint64_t{0});
  std::vector<std::uint64_t> counts(4);
  for (std::size_t r = 0; r < 4; ++r) counts[r] = n * (r + 1) / 4 - n * r / 4;
  const auto got = simulate_carried_index_shuffle(split(items, counts), f);
  EXPECT_GT(got.routed_elsewhere, n / 2);  // about 3/4 of the items change rank
  EXPECT_LT(got.rebalanced, n / 50) << "rebalanced " << got.rebalanced << " of " << n;
}

TEST(CarriedIndexPlan, OtherOutputCountsAndBadArguments) {
  const std::uint64_t n = 300;
  const auto f = onepass::bijection::variable_philox::for_length(n, 3);
  std::vector<std::uint64_t> items(n);
  std::iota(items.begin(), items.end(), std::uint64_t{0});
  std::vector<std::uint64_t> expected(n);
  onepass::shuffle::cpu::bijective_shuffle(items.data(), expected.data(), n, f);
  const auto got = simulate_carried_index_shuffle(split(items, {100, 100, 100}), f, {0, 250, 50});
  ASSERT_EQ(got.outputs[0].size(), 0u);
  std::vector<std::uint64_t> joined = got.outputs[1];
  joined.insert(joined.end(), got.outputs[2].begin(), got.outputs[2].end());
  EXPECT_EQ(joined, expected);

  auto message = [](auto&& call) {
    try {
      call();
    } catch (const onepass::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { simulate_carried_index_shuffle(split(items, {100, 100, 100}), f, {1, 2}); })
                .find("output_counts"), std::string::npos);
  EXPECT_NE(message([&] { simulate_carried_index_shuffle(split(items, {100, 100, 100}), f, {1, 2, 3}); })
                .find("output_counts must sum"), std::string::npos);
  EXPECT_NE(message([&] { simulate_carried_index_shuffle(std::vector<std::vector<std::uint64_t>>{}, f); })
                .find("inputs"), std::string::npos);
  const auto small = onepass::bijection::variable_philox::for_length(16, 3);  // domain 2^4 < 300 items
  EXPECT_NE(message([&] { simulate_carried_index_shuffle(split(items, {150, 150}), small); }).find(" f must"),
            std::string::npos);
  EXPECT_NE(message([] { plan_window_rebalance({1, 2}, {3}); }).find("output_counts"), std::string::npos);
  EXPECT_NE(message([] { plan_window_rebalance({}, {}); }).find("window_counts"), std::string::npos);
  EXPECT_NE(message([] { domain_chunk_begin(65, 2, 0); }).find("domain_bits"), std::string::npos);
  EXPECT_NE(message([] { domain_chunk_begin(8, 2, 3); }).find(": q must"), std::string::npos);
  EXPECT_NE(message([] { domain_chunk_of(8, 0, 1); }).find("num_ranks"), std::string::npos);
  EXPECT_NE(message([] { domain_chunk_of(8, 2, 256); }).find(": i must"), std::string::npos);
}

}  // namespace
