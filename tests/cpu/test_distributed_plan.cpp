// The host-side planning of the distributed sort and shuffle (distributed/exchange_plan.hpp,
// issue 29): split_digit on random histograms (row and column sums, straddling buckets,
// (source rank, position) order), and a CPU simulation of P = 1..8 ranks that applies the
// plans — the sort's exchange followed by each destination's stable local sort equals
// std::stable_sort of the concatenation with exactly balanced counts, on random splits
// (empty ranks included) and uniform, tied, presorted, reverse and all-equal keys of 32 and
// 64 bits; the walking shuffle's global output is the same for every P and split, equals
// walking_shuffle over the whole, and unshuffle o shuffle = id; the domain walk that
// distributed/shuffle.cuh runs (walk_index_boundaries, walk_send_order, walk_range_sources),
// simulated on P = 1..8 ranks and several splits, equals the one-rank bijective and walking
// shuffles with exactly balanced counts and inverts; bad arguments name themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "onepass/distributed/exchange_plan.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/walking_permutation.hpp"
#include "onepass/sort/key_traits.hpp"

namespace {

namespace dist = onepass::distributed;
using onepass::shuffle::walking_permutation;

/// Counts of P ranks summing to n. mode 0: even; 1: random cuts; 2: random with about a third
/// of the ranks (at least one when P > 1) empty; 3: everything on the last rank.
std::vector<std::uint64_t> random_split(std::uint64_t n, std::size_t P, int mode, std::mt19937_64& rng) {
  std::vector<std::uint64_t> counts(P, 0);
  if (mode == 0) {
    for (std::size_t r = 0; r < P; ++r) counts[r] = n / P + (r < n % P ? 1 : 0);
    return counts;
  }
  if (mode == 3) {
    counts[P - 1] = n;
    return counts;
  }
  std::vector<std::size_t> live;
  for (std::size_t r = 0; r < P; ++r)
    if (mode == 1 || P == 1 || rng() % 3 != 0) live.push_back(r);
  if (mode == 2 && P > 1 && live.size() == P) live.erase(live.begin() + static_cast<long>(rng() % P));
  if (live.empty()) live.push_back(rng() % P);
  std::vector<std::uint64_t> cuts;
  for (std::size_t k = 0; k + 1 < live.size(); ++k) cuts.push_back(n == 0 ? 0 : rng() % (n + 1));
  cuts.push_back(0);
  cuts.push_back(n);
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t k = 0; k < live.size(); ++k) counts[live[k]] = cuts[k + 1] - cuts[k];
  return counts;
}

/// Keys of one shape: 0 uniform, 1 few distinct values (many ties), 2 presorted, 3 reverse,
/// 4 all equal, 5 a narrow band (equal top digits, differing low digits).
template <class Key>
std::vector<Key> make_keys(std::uint64_t n, int shape, std::mt19937_64& rng) {
  std::vector<Key> k(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0: k[i] = static_cast<Key>(rng()); break;
      case 1: k[i] = static_cast<Key>((rng() % 5) * 0x01010101u); break;
      case 2: k[i] = static_cast<Key>(i * 3); break;
      case 3: k[i] = static_cast<Key>((n - i) * 7); break;
      case 4: k[i] = static_cast<Key>(0xabcdef12u); break;
      default: k[i] = static_cast<Key>(Key{0x7a} << (sizeof(Key) * 8 - 8)) | static_cast<Key>(rng() % 300); break;
    }
  }
  return k;
}

/// Simulates the sort over the ranks with the plan and checks it against std::stable_sort of
/// the concatenation (ties told apart by their global input position).
template <class Key>
void check_sort(const std::vector<Key>& all, const std::vector<std::uint64_t>& counts, bool descending,
                const std::string& what) {
  const std::size_t P = counts.size();
  // Tag every key with its global position so stability is checked, not only the keys.
  std::vector<std::vector<Key>> keys(P);
  std::vector<std::vector<std::uint64_t>> tags(P);
  std::uint64_t pos = 0;
  for (std::size_t r = 0; r < P; ++r)
    for (std::uint64_t i = 0; i < counts[r]; ++i, ++pos) {
      keys[r].push_back(all[pos]);
      tags[r].push_back(pos);
    }
  const dist::exchange_plan plan = dist::plan_sort_exchange(keys, descending);
  ASSERT_EQ(plan.num_ranks, P) << what;
  ASSERT_EQ(plan.input_counts, counts) << what;
  ASSERT_EQ(plan.output_counts, counts) << what;
  ASSERT_GE(plan.digit_places, all.empty() ? 0u : 1u) << what;
  ASSERT_LE(plan.digit_places, sizeof(Key)) << what;
  ASSERT_LE(plan.refined_buckets, (P - 1) * sizeof(Key)) << what;
  // Row sums n_r, column sums m_q (exact balance).
  for (std::size_t r = 0; r < P; ++r) {
    std::uint64_t row = 0, col = 0;
    for (std::size_t q = 0; q < P; ++q) {
      row += plan.send(r, q);
      col += plan.send(q, r);
    }
    ASSERT_EQ(row, counts[r]) << what << " row " << r;
    ASSERT_EQ(col, counts[r]) << what << " column " << r;
  }
  // Send: rank r's groups by destination, in position order; check the counts agree.
  std::vector<std::vector<std::vector<std::uint64_t>>> sent(P, std::vector<std::vector<std::uint64_t>>(P));
  for (std::size_t r = 0; r < P; ++r) {
    ASSERT_EQ(plan.destinations[r].size(), counts[r]) << what;
    for (std::uint64_t i = 0; i < counts[r]; ++i) {
      const std::uint32_t q = plan.destinations[r][i];
      ASSERT_LT(q, P) << what;
      sent[r][q].push_back(i);
    }
    const auto so = plan.send_offsets(r);
    for (std::size_t q = 0; q < P; ++q) ASSERT_EQ(sent[r][q].size(), so[q + 1] - so[q]) << what;
  }
  // Receive in source-rank order, stable-sort locally (by the ordered word), concatenate.
  using Word = typename onepass::sort::radix_traits<Key>::bits_type;
  std::vector<std::uint64_t> result;
  for (std::size_t q = 0; q < P; ++q) {
    std::vector<std::pair<Word, std::uint64_t>> got;  // (word, global tag)
    const auto ro = plan.receive_offsets(q);
    for (std::size_t r = 0; r < P; ++r) {
      ASSERT_EQ(got.size(), ro[r]) << what;
      for (std::uint64_t i : sent[r][q]) got.push_back({onepass::sort::ordered_bits(keys[r][i], descending), tags[r][i]});
    }
    ASSERT_EQ(got.size(), counts[q]) << what << " output count of rank " << q;
    std::stable_sort(got.begin(), got.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& g : got) result.push_back(g.second);
  }
  // The one-GPU stable sort of the concatenation.
  std::vector<std::uint64_t> expect(all.size());
  std::iota(expect.begin(), expect.end(), 0);
  std::stable_sort(expect.begin(), expect.end(), [&](std::uint64_t a, std::uint64_t b) {
    return onepass::sort::ordered_bits(all[a], descending) < onepass::sort::ordered_bits(all[b], descending);
  });
  ASSERT_EQ(result, expect) << what;
}

template <class Key>
void sort_simulation(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int shape = 0; shape < 6; ++shape) {
    for (std::size_t P = 1; P <= 8; ++P) {
      for (int mode = 0; mode < 4; ++mode) {
        const std::uint64_t n = (mode == 1 && P == 5) ? 0 : 200 + rng() % 3000;
        const auto all = make_keys<Key>(n, shape, rng);
        const auto counts = random_split(n, P, mode, rng);
        const std::string what = "bits " + std::to_string(sizeof(Key) * 8) + " shape " + std::to_string(shape) +
                                 " P " + std::to_string(P) + " split " + std::to_string(mode) + " n " +
                                 std::to_string(n);
        check_sort(all, counts, false, what);
        if (shape == 0 || shape == 1) check_sort(all, counts, true, what + " descending");
      }
    }
  }
}

TEST(DistributedSortPlan, SimulationU32) { sort_simulation<std::uint32_t>(1); }
TEST(DistributedSortPlan, SimulationU64) { sort_simulation<std::uint64_t>(2); }

TEST(DistributedSortPlan, SimulationSignedAndFloat) {
  std::mt19937_64 rng(3);
  for (std::size_t P = 1; P <= 8; ++P) {
    std::vector<std::int32_t> a(1500);
    std::vector<double> d(1500);
    for (auto& x : a) x = static_cast<std::int32_t>(rng() % 41) - 20;
    for (auto& x : d) x = static_cast<double>(static_cast<std::int64_t>(rng() % 1001) - 500) / 7.0;
    const auto counts = random_split(1500, P, 2, rng);
    check_sort(a, counts, false, "int32 P " + std::to_string(P));
    check_sort(d, counts, true, "double descending P " + std::to_string(P));
  }
}

TEST(DistributedSortPlan, TiesAcrossABoundaryAreSplitByRankThenPosition) {
  // Two ranks of four equal keys: rank 0's keys are global ranks 0..3, rank 1's 4..7, so each
  // rank keeps its own keys; with output counts (2, 6) rank 0 keeps two and sends two.
  const std::vector<std::vector<std::uint32_t>> keys = {{7, 7, 7, 7}, {7, 7, 7, 7}};
  const auto plan = dist::plan_sort_exchange(keys);
  EXPECT_EQ(plan.send_counts, (std::vector<std::uint64_t>{4, 0, 0, 4}));
  EXPECT_EQ(plan.digit_places, 4u);  // the boundary falls inside the run: refined to the last digit
  const auto uneven = dist::plan_sort_exchange(keys, false, {2, 6});
  EXPECT_EQ(uneven.send_counts, (std::vector<std::uint64_t>{2, 2, 0, 4}));
  EXPECT_EQ(uneven.destinations[0], (std::vector<std::uint32_t>{0, 0, 1, 1}));
  // Distinct top digits resolve every boundary on the first digit place.
  const auto top = dist::plan_sort_exchange(std::vector<std::vector<std::uint32_t>>{{0x03000000u, 0x01000000u},
                                                                                    {0x02000000u, 0x00000000u}});
  EXPECT_EQ(top.digit_places, 1u);
  EXPECT_EQ(top.refined_buckets, 0u);
  EXPECT_EQ(top.destinations[0], (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(top.destinations[1], (std::vector<std::uint32_t>{1, 0}));
}

TEST(DistributedSortPlan, SplitDigitOnRandomHistograms) {
  std::mt19937_64 rng(4);
  for (std::size_t P = 1; P <= 8; ++P) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::size_t B = trial % 4 == 0 ? 256 : 1 + rng() % 16;
      std::vector<std::vector<std::uint64_t>> h(P, std::vector<std::uint64_t>(B));
      std::uint64_t total = 0;
      for (auto& row : h)
        for (auto& c : row) {
          c = rng() % 3 == 0 ? 0 : rng() % (trial % 2 ? 5 : 1000);
          total += c;
        }
      // A segment inside a larger output: G keys before it, some after.
      const std::uint64_t G = trial % 3 == 0 ? 0 : rng() % 500, after = rng() % 500;
      const auto out = random_split(G + total + after, P, static_cast<int>(trial % 3), rng);
      std::vector<std::uint64_t> S(P + 1, 0);
      for (std::size_t q = 0; q < P; ++q) S[q + 1] = S[q] + out[q];
      const auto s = dist::split_digit(h, out, G);
      ASSERT_EQ(s.num_ranks, P);
      ASSERT_EQ(s.num_buckets, B);
      ASSERT_EQ(s.bucket_offsets.back(), total);
      std::vector<std::uint64_t> column(P, 0);
      std::size_t expected_straddling = 0;
      for (std::size_t b = 0; b < B; ++b) {
        std::size_t last_q = 0;  // destinations are nondecreasing over (r, position)
        std::vector<char> met(P, 0);
        for (std::size_t r = 0; r < P; ++r) {
          std::uint64_t row = 0;
          for (std::size_t q = 0; q < P; ++q) {
            const std::uint64_t c = s.send(r, b, q);
            if (c == 0) continue;
            ASSERT_GE(q, last_q) << "P " << P << " bucket " << b;
            last_q = q;
            met[q] = 1;
            row += c;
            column[q] += c;
          }
          ASSERT_EQ(row, h[r][b]) << "P " << P << " rank " << r << " bucket " << b;
        }
        const bool straddles = std::count(met.begin(), met.end(), 1) > 1;
        expected_straddling += straddles;
        ASSERT_EQ(s.straddles(b), straddles) << "P " << P << " bucket " << b;
      }
      ASSERT_EQ(s.straddling.size(), expected_straddling);
      ASSERT_LE(s.straddling.size(), P - 1);
      for (std::size_t q = 0; q < P; ++q) {
        const std::uint64_t lo = std::max(S[q], G), hi = std::min(S[q + 1], G + total);
        ASSERT_EQ(column[q], hi > lo ? hi - lo : 0) << "P " << P << " destination " << q;
      }
      // The flat form gives the same.
      std::vector<std::uint64_t> flat;
      for (const auto& row : h) flat.insert(flat.end(), row.begin(), row.end());
      ASSERT_EQ(dist::split_digit(flat, P, out, G).send_counts, s.send_counts);
    }
  }
}

/// The distributed walking shuffle (or unshuffle) of `in` over ranks with `in_counts` before
/// and `out_counts` after, simulated: every source computes its plan alone, sends its items per
/// destination in position order, every destination places what arrived with its receive order.
std::vector<std::uint64_t> simulate_shuffle(const std::vector<std::uint64_t>& in, const walking_permutation& sigma,
                                            const std::vector<std::uint64_t>& in_counts,
                                            const std::vector<std::uint64_t>& out_counts, bool forward) {
  const std::size_t P = in_counts.size();
  std::vector<std::vector<std::vector<std::uint64_t>>> sent(P, std::vector<std::vector<std::uint64_t>>(P));
  std::vector<std::vector<std::vector<std::uint64_t>>> sent_offsets(P, std::vector<std::vector<std::uint64_t>>(P));
  std::uint64_t base = 0;
  for (std::size_t r = 0; r < P; ++r) {
    const auto plan = forward ? dist::shuffle_destinations(sigma, in_counts, r, out_counts)
                              : dist::unshuffle_destinations(sigma, in_counts, r, out_counts);
    EXPECT_EQ(plan.rank, r);
    EXPECT_EQ(std::accumulate(plan.send_counts.begin(), plan.send_counts.end(), std::uint64_t{0}), in_counts[r]);
    for (std::uint64_t i = 0; i < in_counts[r]; ++i) {
      sent[r][plan.destinations[i]].push_back(in[base + i]);
      sent_offsets[r][plan.destinations[i]].push_back(plan.offsets[i]);
    }
    for (std::size_t q = 0; q < P; ++q) EXPECT_EQ(sent[r][q].size(), plan.send_counts[q]);
    base += in_counts[r];
  }
  std::vector<std::uint64_t> result;
  for (std::size_t q = 0; q < P; ++q) {
    const auto order = forward ? dist::shuffle_receive_order(sigma, in_counts, q, out_counts)
                               : dist::unshuffle_receive_order(sigma, in_counts, q, out_counts);
    std::vector<std::uint64_t> recv, recv_offsets;
    for (std::size_t r = 0; r < P; ++r) {
      recv.insert(recv.end(), sent[r][q].begin(), sent[r][q].end());
      recv_offsets.insert(recv_offsets.end(), sent_offsets[r][q].begin(), sent_offsets[r][q].end());
    }
    EXPECT_EQ(recv.size(), out_counts[q]) << "output count of rank " << q;
    EXPECT_EQ(order, recv_offsets) << "receiver's order and senders' offsets disagree on rank " << q;
    std::vector<std::uint64_t> out(recv.size());
    for (std::size_t k = 0; k < recv.size() && k < order.size(); ++k) out.at(order[k]) = recv[k];
    result.insert(result.end(), out.begin(), out.end());
  }
  return result;
}

TEST(DistributedShufflePlan, WorldSizeInvariantAndEqualToTheWholeShuffle) {
  std::mt19937_64 rng(5);
  for (std::uint64_t n : {1ull, 2ull, 17ull, 1000ull, 4097ull}) {
    for (std::uint64_t seed : {0ull, 0x5eedull}) {
      std::vector<std::uint64_t> in(n);
      for (auto& x : in) x = rng();
      const auto sigma = walking_permutation::for_length(n, seed);
      std::vector<std::uint64_t> whole(n);
      onepass::shuffle::cpu::walking_shuffle(in.data(), whole.data(), n, sigma);
      for (std::uint64_t j = 0; j < n; ++j) ASSERT_EQ(whole[j], in[sigma(j)]);
      for (std::size_t P = 1; P <= 8; ++P) {
        for (int mode = 0; mode < 4; ++mode) {
          const auto in_counts = random_split(n, P, mode, rng);
          const auto out_counts = mode == 1 ? random_split(n, P, 2, rng) : in_counts;
          const std::string what =
              "n " + std::to_string(n) + " P " + std::to_string(P) + " split " + std::to_string(mode);
          const auto shuffled = simulate_shuffle(in, sigma, in_counts, out_counts, true);
          ASSERT_EQ(shuffled, whole) << what;
          // unshuffle o shuffle = id, from the shuffle's output layout back to another one.
          const auto back_counts = random_split(n, P, 1, rng);
          ASSERT_EQ(simulate_shuffle(shuffled, sigma, out_counts, back_counts, false), in) << what;
        }
      }
    }
  }
}

TEST(DistributedShufflePlan, SeedOverloadIsForLength) {
  const std::vector<std::uint64_t> counts = {3, 0, 10, 7};
  const auto sigma = walking_permutation::for_length(20, 42, 16);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const auto a = dist::shuffle_destinations(sigma, counts, r);
    const auto b = dist::shuffle_destinations(42, counts, r, {}, 16);
    EXPECT_EQ(a.destinations, b.destinations);
    EXPECT_EQ(a.offsets, b.offsets);
    EXPECT_EQ(a.send_counts, b.send_counts);
  }
}

template <class F>
void expect_error_naming(F&& f, const std::string& argument) {
  try {
    f();
    ADD_FAILURE() << "no onepass::error (expected one naming " << argument << ")";
  } catch (const onepass::error& e) {
    EXPECT_NE(std::string(e.what()).find(argument), std::string::npos) << e.what();
  }
}

// plan_aligned_pieces simulated on P = 1..8 ranks with random counts (zeros included): every
// sender's piece is the size its receiver expects, pieces lie inside the arrays, start on a
// unit boundary on both sides unless the receiver is direct, do not overlap in the receive
// array, fit aligned_receive_capacity, and carry the items meant for the receiver at run_first.
TEST(DistributedAlignedPieces, SimulatedExchangeDeliversEveryItemAligned) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t P = 1 + rng() % 8;
    const std::uint64_t A = std::uint64_t{1} << (rng() % 4);  // 1, 2, 4, 8 items per unit
    std::vector<std::vector<std::uint64_t>> counts(P, std::vector<std::uint64_t>(P));
    const int mode = static_cast<int>(rng() % 4);
    for (auto& row : counts)
      for (auto& c : row) {
        c = rng() % 37;
        if (mode == 1 && rng() % 2) c = 0;          // many empty pieces
        if (mode == 2 && &row != &counts[0]) c = 0;  // one sender only: every receiver direct
      }
    if (mode == 3)  // a diagonal: every rank keeps its own (direct, from itself)
      for (std::size_t r = 0; r < P; ++r)
        for (std::size_t q = 0; q < P; ++q) counts[r][q] = r == q ? counts[r][q] : 0;
    // Send arrays: rank r's item i is (r, i).
    std::vector<std::uint64_t> n(P, 0), received(P, 0);
    for (std::size_t r = 0; r < P; ++r)
      for (std::size_t q = 0; q < P; ++q) n[r] += counts[r][q], received[q] += counts[r][q];
    std::vector<dist::aligned_pieces> plan;
    for (std::size_t r = 0; r < P; ++r) plan.push_back(dist::plan_aligned_pieces(counts, r, A));
    const std::string what = "trial " + std::to_string(trial) + " P=" + std::to_string(P) + " A=" + std::to_string(A);
    for (std::size_t q = 0; q < P; ++q) {
      const auto& rq = plan[q];
      ASSERT_LE(rq.recv_items, dist::aligned_receive_capacity(received[q], P, A)) << what;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> recv(rq.recv_items, {~0ull, ~0ull});
      std::vector<char> used(rq.recv_items, 0);
      std::size_t sources = 0;
      for (std::size_t r = 0; r < P; ++r) sources += counts[r][q] > 0;
      EXPECT_EQ(rq.direct, sources <= 1) << what;
      if (rq.direct) {
        EXPECT_EQ(rq.recv_items, received[q]) << what;
      }
      for (std::size_t r = 0; r < P; ++r) {
        const auto& sr = plan[r];
        ASSERT_EQ(sr.send_count[q], rq.recv_count[r]) << what << " " << r << "->" << q;
        ASSERT_LE(sr.send_first[q] + sr.send_count[q], n[r]) << what;
        ASSERT_LE(rq.recv_first[r] + rq.recv_count[r], rq.recv_items) << what;
        if (sr.send_count[q] > 0 && !rq.direct) {
          EXPECT_EQ(sr.send_first[q] % A, 0u) << what << " send " << r << "->" << q;
          EXPECT_EQ(rq.recv_first[r] % A, 0u) << what << " recv " << r << "->" << q;
        }
        for (std::uint64_t k = 0; k < sr.send_count[q]; ++k) {
          ASSERT_FALSE(used[rq.recv_first[r] + k]) << what << ": pieces overlap";
          used[rq.recv_first[r] + k] = 1;
          recv[rq.recv_first[r] + k] = {r, sr.send_first[q] + k};
        }
      }
      // The items meant for q: rank r's [o(r, q), o(r, q) + counts[r][q]) at run_first[r].
      for (std::size_t r = 0; r < P; ++r) {
        std::uint64_t o = 0;
        for (std::size_t k = 0; k < q; ++k) o += counts[r][k];
        for (std::uint64_t k = 0; k < counts[r][q]; ++k) {
          const auto got = recv[rq.run_first[r] + k];
          ASSERT_EQ(got.first, r) << what << " item " << k << " from " << r << " at " << q;
          ASSERT_EQ(got.second, o + k) << what << " item " << k << " from " << r << " at " << q;
        }
      }
    }
  }
  EXPECT_EQ(dist::items_per_alignment(4), 4u);
  EXPECT_EQ(dist::items_per_alignment(8), 2u);
  EXPECT_EQ(dist::items_per_alignment(12), 1u);
  EXPECT_EQ(dist::items_per_alignment(16), 1u);
  EXPECT_EQ(dist::items_per_alignment(32), 1u);
  EXPECT_EQ(dist::items_per_alignment(4, 64), 16u);
  EXPECT_THROW(dist::plan_aligned_pieces({}, 0, 4), onepass::error);
  EXPECT_THROW(dist::plan_aligned_pieces({{1, 2}}, 0, 4), onepass::error);
  EXPECT_THROW(dist::plan_aligned_pieces({{1}}, 1, 4), onepass::error);
  EXPECT_THROW(dist::plan_aligned_pieces({{1}}, 0, 0), onepass::error);
}

TEST(DistributedPlan, BadArgumentsNameThemselves) {
  using V = std::vector<std::uint64_t>;
  expect_error_naming([] { dist::split_digit(V{1, 2, 3}, 0, V{}); }, "num_ranks");
  expect_error_naming([] { dist::split_digit(V{1, 2, 3}, 2, V{3, 3}); }, "histograms");
  expect_error_naming([] { dist::split_digit(V{}, 1, V{0}); }, "histograms");
  expect_error_naming([] { dist::split_digit(V{1, 2, 3, 4}, 2, V{10}); }, "output_counts");
  expect_error_naming([] { dist::split_digit(V{1, 2, 3, 4}, 2, V{5, 4}); }, "segment_offset");
  expect_error_naming([] { dist::split_digit(V{1, 2, 3, 4}, 2, V{5, 5}, 1); }, "segment_offset");
  expect_error_naming([] { dist::split_digit(std::vector<V>{{1, 2}, {3}}, V{3, 3}); }, "histograms");
  expect_error_naming([] { dist::split_digit(std::vector<V>{}, V{}); }, "histograms");
  expect_error_naming([] { dist::plan_sort_exchange(std::vector<std::vector<std::uint32_t>>{}); }, "keys");
  expect_error_naming(
      [] { dist::plan_sort_exchange(std::vector<std::vector<std::uint32_t>>{{1, 2}, {3}}, false, V{3}); },
      "output_counts");
  expect_error_naming(
      [] { dist::plan_sort_exchange(std::vector<std::vector<std::uint32_t>>{{1, 2}, {3}}, false, V{1, 1}); },
      "output_counts");
  const auto sigma = walking_permutation::for_length(10, 1);
  expect_error_naming([&] { dist::shuffle_destinations(sigma, V{}, 0); }, "input_counts");
  expect_error_naming([&] { dist::shuffle_destinations(sigma, V{5, 5}, 2); }, "rank");
  expect_error_naming([&] { dist::shuffle_destinations(sigma, V{5, 4}, 0); }, "sigma");
  expect_error_naming([&] { dist::shuffle_destinations(sigma, V{5, 5}, 0, V{10}); }, "output_counts");
  expect_error_naming([&] { dist::unshuffle_destinations(sigma, V{5, 5}, 0, V{4, 5}); }, "output_counts");
  expect_error_naming([&] { dist::shuffle_receive_order(sigma, V{5, 5}, 3); }, "rank");
  expect_error_naming([&] { dist::unshuffle_receive_order(sigma, V{6, 5}, 0); }, "sigma");
  const dist::exchange_plan plan = dist::plan_sort_exchange(std::vector<std::vector<std::uint32_t>>{{1}, {2}});
  expect_error_naming([&] { plan.send_offsets(2); }, "rank");
  expect_error_naming([&] { plan.receive_offsets(2); }, "rank");
}

// ---------------------------------------------------------------------------------------------
// The domain walk (distributed/shuffle.cuh's algorithm), simulated on P ranks

/// The distributed shuffle (forward) or unshuffle of the concatenation `in`, split by `counts`,
/// through the map g over [0, domain) as distributed/shuffle.cuh computes it: every rank walks
/// the domain for its send order, every output rank places the arriving groups by the sources
/// of its index range. Checks the counts on the way (exact balance: every rank sends and
/// receives its own count).
template <class Map>
std::vector<std::uint64_t> simulate_walk(const std::vector<std::uint64_t>& in, const Map& g, std::uint64_t domain,
                                         const std::vector<std::uint64_t>& counts, bool forward) {
  const std::size_t P = counts.size();
  std::vector<std::uint64_t> offsets(P + 1, 0);
  for (std::size_t r = 0; r < P; ++r) offsets[r + 1] = offsets[r] + counts[r];
  const std::uint64_t N = offsets[P];
  const auto bounds = dist::walk_index_boundaries(g, domain, N, offsets);
  std::vector<dist::walk_send> walks;
  std::vector<std::vector<std::uint32_t>> sources;
  for (std::size_t r = 0; r < P; ++r) {
    walks.push_back(dist::walk_send_order(g, domain, offsets, bounds, r));
    EXPECT_EQ(walks[r].order.size(), counts[r]);
    sources.push_back(dist::walk_range_sources(g, N, offsets, bounds, r));
    EXPECT_EQ(sources[r].size(), counts[r]) << "rank " << r << " owns its count of output positions";
  }
  // start[s][q]: where source s's group for q begins in s's send order
  std::vector<std::vector<std::uint64_t>> start(P, std::vector<std::uint64_t>(P + 1, 0));
  for (std::size_t s = 0; s < P; ++s)
    for (std::size_t q = 0; q < P; ++q) start[s][q + 1] = start[s][q] + walks[s].send_counts[q];
  std::vector<std::uint64_t> out(N);
  if (forward) {
    // Rank q's k-th output is the next item of the group from sources[q][k].
    for (std::size_t q = 0; q < P; ++q) {
      std::vector<std::uint64_t> cursor(P, 0);
      for (std::uint64_t k = 0; k < counts[q]; ++k) {
        const std::uint32_t s = sources[q][k];
        EXPECT_LT(cursor[s], walks[s].send_counts[q]);
        out[offsets[q] + k] = in[offsets[s] + walks[s].order.at(start[s][q] + cursor[s]++)];
      }
      for (std::size_t s = 0; s < P; ++s) EXPECT_EQ(cursor[s], walks[s].send_counts[q]) << s << " -> " << q;
    }
  } else {
    // Sender q splits its items by sources[q][k] (stable); receiver r's buffer is the groups for r
    // in sender order, placed at its walk's own positions in order.
    std::vector<std::vector<std::uint64_t>> recv(P);
    for (std::size_t q = 0; q < P; ++q) {
      std::vector<std::vector<std::uint64_t>> groups(P);
      for (std::uint64_t k = 0; k < counts[q]; ++k) groups[sources[q][k]].push_back(in[offsets[q] + k]);
      for (std::size_t r = 0; r < P; ++r) {
        EXPECT_EQ(groups[r].size(), walks[r].send_counts[q]) << q << " -> " << r;
        recv[r].insert(recv[r].end(), groups[r].begin(), groups[r].end());
      }
    }
    for (std::size_t r = 0; r < P; ++r)
      for (std::uint64_t m = 0; m < recv[r].size() && m < walks[r].order.size(); ++m)
        out[offsets[r] + walks[r].order[m]] = recv[r][m];
  }
  return out;
}

/// Splits of N over P ranks: even, all on the last rank, and random (empty ranks likely).
std::vector<std::vector<std::uint64_t>> splits_of(std::uint64_t N, std::size_t P, std::mt19937_64& rng) {
  std::vector<std::vector<std::uint64_t>> out;
  std::vector<std::uint64_t> even(P, N / P);
  even.back() += N % P;
  out.push_back(even);
  std::vector<std::uint64_t> last(P, 0);
  last.back() = N;
  out.push_back(last);
  std::vector<std::uint64_t> cuts{0, N};
  for (std::size_t r = 1; r < P; ++r) cuts.push_back(rng() % (N + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::uint64_t> random;
  for (std::size_t r = 0; r < P; ++r) random.push_back(cuts[r + 1] - cuts[r]);
  out.push_back(random);
  return out;
}

TEST(DistributedShuffleDomainWalk, EqualsTheWholeShuffleOnEveryWorldSizeAndSplitAndInverts) {
  std::mt19937_64 rng(29);
  for (const std::uint64_t N : {1ull, 2ull, 5ull, 17ull, 1000ull, 4096ull, 4097ull, 20011ull}) {
    std::vector<std::uint64_t> in(N);
    for (auto& x : in) x = rng();
    const std::uint64_t seed = N * 7 + 3;
    const auto f = onepass::bijection::variable_philox::for_length(N, seed);
    const auto sigma = walking_permutation::for_length(N, seed);
    std::vector<std::uint64_t> bijective(N), walking(N);
    onepass::shuffle::cpu::bijective_shuffle(in.data(), bijective.data(), N, f);
    onepass::shuffle::cpu::walking_shuffle(in.data(), walking.data(), N, sigma);
    const auto g_f = [&](std::uint64_t i) { return f(i); };
    const auto g_sigma = [&](std::uint64_t j) { return sigma(j); };
    const std::uint64_t D = std::uint64_t{1} << f.domain_bits();
    for (std::size_t P = 1; P <= 8; ++P)
      for (const auto& counts : splits_of(N, P, rng)) {
        SCOPED_TRACE("N = " + std::to_string(N) + ", P = " + std::to_string(P));
        const auto b = simulate_walk(in, g_f, D, counts, true);
        ASSERT_EQ(b, bijective);
        ASSERT_EQ(simulate_walk(b, g_f, D, counts, false), in);
        const auto w = simulate_walk(in, g_sigma, N, counts, true);
        ASSERT_EQ(w, walking);
        ASSERT_EQ(simulate_walk(w, g_sigma, N, counts, false), in);
      }
  }
}

TEST(DistributedShuffleDomainWalk, BoundariesAreTheOffsetsWhenEveryIndexIsFlagged) {
  // N a power of two (>= 16): D == N, every index flagged, so i_q = S_q (the GPU skips the count).
  const std::uint64_t N = 1024;
  const auto f = onepass::bijection::variable_philox::for_length(N, 1);
  ASSERT_EQ(std::uint64_t{1} << f.domain_bits(), N);
  const std::vector<std::uint64_t> offsets{0, 100, 100, 700, 1024};
  EXPECT_EQ(dist::walk_index_boundaries([&](std::uint64_t i) { return f(i); }, N, N, offsets), offsets);
  expect_error_naming([&] { dist::walk_index_boundaries([&](std::uint64_t i) { return f(i); }, N, N, {0, 5}); },
                      "offsets");
}

}  // namespace
