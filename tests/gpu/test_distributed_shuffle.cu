// The distributed shuffle over NCCL (distributed/shuffle.cuh), P = 1..4 ranks as threads of
// one process (one GPU each): the global output of every split and every world size equals the
// one-GPU shuffle of the concatenation (gpu::bijective_shuffle for the bijective kind, the CPU
// walking_shuffle for the walking kind), unshuffle inverts shuffle, the edge sizes (N = 0, 1,
// below one tile, just above a power of two), the multi-pass placement and batched tile counts
// (through shrunken internal limits), the general path on one rank, the agreement step's
// errors (every rank throws, none hangs), and the phase marks a phase_observer sees. Label
// `gpu`; a test of P ranks is skipped on a machine with fewer than P GPUs, before any
// communicator is made.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/distributed/phase_observer.hpp"
#include "onepass/distributed/shuffle.cuh"
#include "onepass/distributed/sort.cuh"  // both distributed headers in one translation unit
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "onepass/shuffle/walking_permutation.hpp"
#include "bijective_reference.cuh"
#include "distributed_test_support.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace od = onepass::distributed;
namespace ot = onepass::testing;
using od::permutation;

struct item4 {
  std::uint32_t v;
  bool operator==(const item4& o) const { return v == o.v; }
};
struct item12 {
  std::uint32_t a, b, c;
  bool operator==(const item12& o) const { return a == o.a && b == o.b && c == o.c; }
};

item4 make_item(std::uint64_t i, item4*) { return {static_cast<std::uint32_t>(i * 2654435761u)}; }
item12 make_item(std::uint64_t i, item12*) {
  return {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32) ^ 0x9e3779b9u,
          static_cast<std::uint32_t>(i * 40503u)};
}
std::uint64_t make_item(std::uint64_t i, std::uint64_t*) { return i; }
std::uint8_t make_item(std::uint64_t i, std::uint8_t*) { return static_cast<std::uint8_t>(i * 131u); }
std::uint16_t make_item(std::uint64_t i, std::uint16_t*) { return static_cast<std::uint16_t>(i * 40503u); }
/// 16 bytes in two 8-byte words (the Python binding's widest item word).
struct item16 {
  std::uint64_t a, b;
  bool operator==(const item16& o) const { return a == o.a && b == o.b; }
};
item16 make_item(std::uint64_t i, item16*) { return {i, ~i * 0x9E3779B97F4A7C15ull}; }

template <class T>
std::vector<T> items(std::uint64_t n) {
  std::vector<T> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = make_item(i, static_cast<T*>(nullptr));
  return v;
}

/// How a call is made: the public entry point, or the internal one with other knobs.
struct call_options {
  permutation kind = permutation::bijective;
  std::uint64_t seed = 0;
  unsigned rounds = onepass::bijection::default_rounds;
  bool internal = false;  ///< call detail::shuffle_call with `tuning`
  od::detail::shuffle_tuning tuning{};
};

template <class T>
void call(bool forward, const call_options& o, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
          std::size_t n, ncclComm_t comm, cudaStream_t stream) {
  if (!o.internal) {
    if (forward) od::shuffle(d_temp, temp_bytes, d_in, d_out, n, o.seed, comm, stream, o.kind, o.rounds);
    else od::unshuffle(d_temp, temp_bytes, d_in, d_out, n, o.seed, comm, stream, o.kind, o.rounds);
  } else if (forward) {
    od::detail::shuffle_call<true>("test shuffle", d_temp, temp_bytes, d_in, d_out, n, o.seed, comm, stream, o.kind,
                                   o.rounds, o.tuning);
  } else {
    od::detail::shuffle_call<false>("test unshuffle", d_temp, temp_bytes, d_in, d_out, n, o.seed, comm, stream, o.kind,
                                    o.rounds, o.tuning);
  }
}

std::vector<std::uint64_t> offsets(const std::vector<std::uint64_t>& counts) {
  std::vector<std::uint64_t> o(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) o[r + 1] = o[r] + counts[r];
  return o;
}

/// One distributed call to check: the input split by `counts` over P = counts.size() ranks.
template <class T>
struct shuffle_case {
  std::vector<std::uint64_t> counts;
  std::vector<T> input;
  call_options options;
  std::string label;
};

/// What the ranks hold, concatenated: after the shuffle of the input, and after the
/// unshuffle of that.
template <class T>
struct case_result {
  std::vector<T> shuffled, restored;
};

/// Runs every case, shuffle then unshuffle, on one set of P communicators (made once: making
/// them is the slow part).
template <class T>
std::vector<case_result<T>> run_cases(int P, const std::vector<shuffle_case<T>>& cases) {
  std::vector<case_result<T>> results(cases.size());
  for (std::size_t c = 0; c < cases.size(); ++c) {
    results[c].shuffled.resize(cases[c].input.size());
    results[c].restored.resize(cases[c].input.size());
  }
  ot::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const shuffle_case<T>& k = cases[c];
      const auto off = offsets(k.counts);
      const std::uint64_t n = k.counts[r];
      const std::vector<T> mine(k.input.begin() + off[r], k.input.begin() + off[r + 1]);
      ot::dev d_in(n * sizeof(T)), d_out(n * sizeof(T)), d_back(n * sizeof(T));
      ot::upload(d_in.as<T>(), mine);
      std::size_t bytes = 0, back_bytes = 0;
      call<T>(true, k.options, nullptr, bytes, d_in.as<T>(), d_out.as<T>(), n, comm, stream);
      call<T>(false, k.options, nullptr, back_bytes, d_out.as<T>(), d_back.as<T>(), n, comm, stream);
      ot::dev temp(std::max(bytes, back_bytes));
      call<T>(true, k.options, temp.p, bytes, d_in.as<T>(), d_out.as<T>(), n, comm, stream);
      call<T>(false, k.options, temp.p, back_bytes, d_out.as<T>(), d_back.as<T>(), n, comm, stream);
      ot::cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      const auto shuffled = ot::download(d_out.as<T>(), n);
      const auto restored = ot::download(d_back.as<T>(), n);
      std::copy(shuffled.begin(), shuffled.end(), results[c].shuffled.begin() + off[r]);
      std::copy(restored.begin(), restored.end(), results[c].restored.begin() + off[r]);
    }
  });
  return results;
}

/// The one-GPU reference of the concatenation: gpu::bijective_(un)shuffle on device 0, or the
/// CPU walking_(un)shuffle.
template <class T>
std::vector<T> reference(const std::vector<T>& input, bool forward, const call_options& o) {
  const std::uint64_t N = input.size();
  std::vector<T> out(N);
  if (N == 0) return out;
  if (o.kind == permutation::walking) {
    const auto sigma = onepass::shuffle::walking_permutation::for_length(N, o.seed, o.rounds);
    if (forward) onepass::shuffle::cpu::walking_shuffle(input.data(), out.data(), N, sigma);
    else onepass::shuffle::cpu::walking_unshuffle(input.data(), out.data(), N, sigma);
    return out;
  }
  return ot::one_gpu_bijective(input, o.seed, o.rounds, forward);
}

/// The splits of N items over P ranks the tests use, by name.
std::vector<std::pair<std::string, std::vector<std::uint64_t>>> splits(std::uint64_t N, int P) {
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> s;
  std::vector<std::uint64_t> even(P), uneven(P, 0), gaps(P, 0), last(P, 0), first(P, 0);
  for (int r = 0; r < P; ++r) even[r] = N / P + (static_cast<std::uint64_t>(r) < N % P ? 1 : 0);
  // Weights 1, 3, 5, ...: rank r holds about (2r + 1) / P^2 of the items.
  std::uint64_t given = 0;
  for (int r = 0; r + 1 < P; ++r) {
    uneven[r] = N * (2 * r + 1) / (static_cast<std::uint64_t>(P) * P);
    given += uneven[r];
  }
  uneven[P - 1] = N - given;
  // Every odd rank empty, the even ranks share evenly.
  const int holders = (P + 1) / 2;
  for (int r = 0, k = 0; r < P; r += 2, ++k)
    gaps[r] = N / holders + (static_cast<std::uint64_t>(k) < N % holders ? 1 : 0);
  last[P - 1] = N;
  first[0] = N;
  s.push_back({"even", even});
  s.push_back({"uneven", uneven});
  s.push_back({"odd ranks empty", gaps});
  s.push_back({"all on the last rank", last});
  s.push_back({"all on rank 0", first});
  return s;
}

std::string describe(const std::string& split, const std::vector<std::uint64_t>& counts) {
  std::string s = split + " {";
  for (std::size_t r = 0; r < counts.size(); ++r) s += (r ? ", " : "") + std::to_string(counts[r]);
  return s + "}";
}

/// One (N, options) configuration, checked for every split of N over the ranks.
struct config {
  std::uint64_t num_items;
  call_options options;
};

/// Checks, for every configuration and every split of its N over P ranks, that shuffle equals
/// the one-GPU reference of the concatenation and that unshuffle restores the input.
template <class T>
void check_all_splits(int P, const std::vector<config>& configs) {
  std::vector<shuffle_case<T>> cases;
  std::vector<std::vector<T>> expected;
  for (const config& g : configs) {
    const auto input = items<T>(g.num_items);
    const auto want = reference(input, true, g.options);
    for (const auto& [name, counts] : splits(g.num_items, P)) {
      cases.push_back({counts, input, g.options,
                       std::string(od::to_string(g.options.kind)) + ", N = " + std::to_string(g.num_items) +
                           ", seed " + std::to_string(g.options.seed) + ", rounds " +
                           std::to_string(g.options.rounds) + ", P = " + std::to_string(P) + ", " +
                           describe(name, counts)});
      expected.push_back(want);
    }
  }
  const auto results = run_cases(P, cases);
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(cases[c].label);
    EXPECT_TRUE(results[c].shuffled == expected[c]) << "shuffle differs from the one-GPU shuffle of the concatenation";
    EXPECT_TRUE(results[c].restored == cases[c].input) << "unshuffle(shuffle(x)) != x";
  }
}

template <class T>
void check_all_splits(int P, std::uint64_t N, const call_options& o) {
  check_all_splits<T>(P, std::vector<config>{{N, o}});
}

class DistributedShuffle : public ::testing::TestWithParam<int> {};

// ---------------------------------------------------------------------------------------------
// The global permutation: independent of the world size and the split

TEST_P(DistributedShuffle, BijectiveEqualsOneGpuShuffleForEverySplit) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  call_options o;
  o.kind = permutation::bijective;
  o.seed = 0x5eed;
  check_all_splits<std::uint64_t>(P, 100003, o);
}

TEST_P(DistributedShuffle, WalkingEqualsWalkingShuffleForEverySplit) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  call_options o;
  o.kind = permutation::walking;
  o.seed = 0x5eed;
  check_all_splits<std::uint64_t>(P, 100003, o);
}

TEST_P(DistributedShuffle, GeneralPathOnEveryWorldSize) {
  // The internal call without the P == 1 shortcut: on one rank it runs the NCCL path.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::vector<config> configs;
  for (const permutation kind : {permutation::bijective, permutation::walking}) {
    call_options o;
    o.kind = kind;
    o.seed = 77;
    o.internal = true;
    o.tuning.single_rank_shortcut = false;
    configs.push_back({54321, o});
  }
  check_all_splits<std::uint64_t>(P, configs);
}

TEST_P(DistributedShuffle, ItemsOfOneTwoFourTwelveAndSixteenBytes) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::vector<config> configs;
  for (const permutation kind : {permutation::bijective, permutation::walking}) {
    call_options o;
    o.kind = kind;
    o.seed = 12;
    configs.push_back({30011, o});
  }
  check_all_splits<item4>(P, configs);
  check_all_splits<item12>(P, configs);
  check_all_splits<std::uint8_t>(P, configs);
  check_all_splits<std::uint16_t>(P, configs);
  check_all_splits<item16>(P, configs);
}

TEST_P(DistributedShuffle, EdgeSizes) {
  // N = 0, 1, below one tile (2^12 indices), just above powers of two, and a larger N.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::vector<config> configs;
  for (const std::uint64_t N : {0ull, 1ull, 2ull, 5ull, 17ull, 1000ull, 4095ull, 4097ull, 65537ull, (1ull << 20) + 1})
    for (const permutation kind : {permutation::bijective, permutation::walking}) {
      call_options o;
      o.kind = kind;
      o.seed = N * 31 + 7;
      configs.push_back({N, o});
    }
  check_all_splits<std::uint64_t>(P, configs);
}

TEST_P(DistributedShuffle, RoundsAndSeedsSelectThePermutation) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::vector<config> configs;
  for (const unsigned rounds : {1u, 8u, 64u}) {
    call_options o;
    o.seed = rounds * 1000003ull;
    o.rounds = rounds;
    configs.push_back({9001, o});
    o.kind = permutation::walking;
    configs.push_back({9001, o});
  }
  check_all_splits<std::uint64_t>(P, configs);
}

TEST_P(DistributedShuffle, LongChunksManySegmentsAndTileBatches) {
  // A tiny chunk budget, look-back state and tile batch: the range passes take chunks far
  // longer than 1024 indices, the domain pass many segments (each starting where the last
  // ended) and the boundary counts many batches; and the forward exchange in 1 and 16 pieces
  // per destination.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::vector<config> configs;
  for (const permutation kind : {permutation::bijective, permutation::walking}) {
    call_options o;
    o.kind = kind;
    o.seed = 4242;
    o.internal = true;
    o.tuning.single_rank_shortcut = false;
    o.tuning.min_chunks = 1;
    o.tuning.max_chunks = 3;
    o.tuning.min_segment_tiles = 1;
    o.tuning.max_segment_tiles = 2;
    o.tuning.min_tile_batch = 1;
    o.tuning.max_tile_batch = 3;
    configs.push_back({20011, o});  // more pieces (8 / (P - 1)) than chunks: some pieces empty
    // The forward exchange in one piece per group, and in the most pieces over many chunks.
    for (const std::uint64_t pieces : {std::uint64_t{1}, od::detail::max_pieces}) {
      call_options p;
      p.kind = kind;
      p.seed = 777;
      p.internal = true;
      p.tuning.single_rank_shortcut = false;
      p.tuning.pieces = pieces;
      configs.push_back({70001, p});
    }
  }
  check_all_splits<std::uint64_t>(P, configs);
}

TEST_P(DistributedShuffle, WalksThatLeaveSmsToTheExchange) {
  // tuning.exchange_sm_share caps the persistent grid of the walks beside the exchange: none
  // left (the whole device), a few SMs, and more than the device has (the grid keeps one SM's
  // share); the same permutation.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::vector<config> configs;
  for (const double share : {0.0, 16.0 / 132.0, 1000.0}) {
    call_options o;
    o.seed = 99 + static_cast<std::uint64_t>(share * 132);
    o.internal = true;
    o.tuning.single_rank_shortcut = false;
    o.tuning.exchange_sm_share = share;
    configs.push_back({(1ull << 18) + 3, o});
  }
  check_all_splits<std::uint64_t>(P, configs);
}

// ---------------------------------------------------------------------------------------------
// The agreement step: bad arguments on one rank make every rank throw

/// Runs one (forward, bijective unless told) call per rank with per-rank arguments from
/// `tweak(rank, options, d_in, temp_bytes)`; returns each rank's onepass::error message (empty:
/// it did not throw onepass::error; any other exception fails the test).
template <class Tweak>
std::vector<std::string> errors_of(int P, std::uint64_t per_rank, Tweak tweak) {
  std::vector<std::string> errors(P);
  ot::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    ot::dev d_in(per_rank * sizeof(std::uint64_t)), d_out(per_rank * sizeof(std::uint64_t));
    call_options o;
    o.seed = 99;
    const std::uint64_t* in = d_in.as<std::uint64_t>();
    std::size_t bytes = 0;
    od::shuffle<std::uint64_t>(nullptr, bytes, in, d_out.as<std::uint64_t>(), per_rank, o.seed, comm, stream);
    ot::dev temp(bytes);
    tweak(r, o, in, bytes);
    try {
      od::shuffle(temp.p, bytes, in, d_out.as<std::uint64_t>(), per_rank, o.seed, comm, stream, o.kind, o.rounds);
    } catch (const onepass::error& e) {
      errors[r] = e.what();
    }
  });
  return errors;
}

void expect_every_rank_names(const std::vector<std::string>& errors, int bad_rank, const std::string& argument) {
  for (int r = 0; r < static_cast<int>(errors.size()); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    ASSERT_FALSE(errors[r].empty()) << "rank " << r << " did not throw onepass::error";
    if (bad_rank < 0 || r == bad_rank) EXPECT_NE(errors[r].find(argument), std::string::npos) << errors[r];
    else EXPECT_NE(errors[r].find("rank " + std::to_string(bad_rank)), std::string::npos) << errors[r];
  }
}

TEST_P(DistributedShuffle, NullInputOnOneRankMakesEveryRankThrow) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  const int bad = P - 1;
  const auto errors = errors_of(P, 1000, [&](int r, call_options&, const std::uint64_t*& in, std::size_t&) {
    if (r == bad) in = nullptr;
  });
  expect_every_rank_names(errors, bad, "d_in");
}

TEST_P(DistributedShuffle, TooLittleTemporaryStorageOnOneRankMakesEveryRankThrow) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  const int bad = 0;
  const auto errors = errors_of(P, 1000, [&](int r, call_options&, const std::uint64_t*&, std::size_t& bytes) {
    if (r == bad) bytes -= 1;
  });
  expect_every_rank_names(errors, bad, "temp_bytes");
}

TEST_P(DistributedShuffle, TemporaryStorageTooSmallForTheAgreementStillAgrees) {
  // temp_bytes below even the agreement's scratch: the call borrows a scratch to agree.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  const auto errors = errors_of(P, 1000, [&](int r, call_options&, const std::uint64_t*&, std::size_t& bytes) {
    if (r == 0) bytes = 1;
  });
  expect_every_rank_names(errors, 0, "temp_bytes");
}

TEST_P(DistributedShuffle, SeedThatDiffersBetweenRanksMakesEveryRankThrow) {
  const int P = GetParam();
  if (P < 2) GTEST_SKIP() << "a disagreement needs two ranks";
  ONEPASS_REQUIRE_GPUS(P);
  const auto errors = errors_of(P, 1000, [&](int r, call_options& o, const std::uint64_t*&, std::size_t&) {
    o.seed = 99 + static_cast<std::uint64_t>(r);
  });
  expect_every_rank_names(errors, -1, "seed");
}

TEST_P(DistributedShuffle, ZeroRoundsIsRejectedOnEveryRank) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  const auto errors =
      errors_of(P, 1000, [&](int, call_options& o, const std::uint64_t*&, std::size_t&) { o.rounds = 0; });
  expect_every_rank_names(errors, -1, "rounds");
}

TEST_P(DistributedShuffle, TheQueryNeedsNoCommunication) {
  // Only rank 0 queries (the others do nothing): a query that communicated would hang.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::size_t bytes = 0;
  ot::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    if (r != 0) return;
    od::shuffle<std::uint64_t>(nullptr, bytes, nullptr, nullptr, 12345, 1, comm, stream);
    std::size_t walking = 0;
    od::unshuffle<std::uint64_t>(nullptr, walking, nullptr, nullptr, 12345, 1, comm, stream, permutation::walking);
    EXPECT_GT(walking, 2 * 12345 * sizeof(std::uint64_t));
  });
  EXPECT_GT(bytes, 2 * 12345 * sizeof(std::uint64_t));
}

// ---------------------------------------------------------------------------------------------
// Profiling: the phase marks (distributed/phase_observer.hpp; shuffle.cuh's "Profiling")

/// The phases one rank of P should mark, in order: forward or unshuffle, `boundaries` when
/// step 1 counts (bijective with D > N), the one-GPU call when `one_gpu`.
std::vector<std::string> expected_phases(int P, bool forward, bool boundaries, bool one_gpu) {
  if (one_gpu) return {forward ? "local_shuffle" : "local_unshuffle", "end"};
  std::vector<std::string> v;
  if (boundaries) v.push_back("boundaries");
  if (forward) {
    v.insert(v.end(), {"own_walk", "plan"});
    if (P > 1) v.insert(v.end(), {"walk_exchange", "exchange_tail"});
    v.insert(v.end(), {"place", "end"});
  } else {
    v.insert(v.end(), {"split", "exchange", "inverse_walk", "end"});
  }
  return v;
}

TEST_P(DistributedShuffle, PhaseObserverSeesEveryPhase) {
  // Every rank marks the phases of its call path, in order, once each; nothing in a size query
  // and nothing once the observer's scope has ended. Bijective with N a power of two (D == N:
  // no boundary count) and not (D > N), walking, and the general path on one rank.
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  struct phase_case {
    std::uint64_t N;
    call_options options;
    bool boundaries;  ///< step 1 counts (bijective, 2^b > N)
    bool one_gpu;     ///< P == 1 through the one-GPU call
  };
  std::vector<phase_case> cases;
  for (const std::uint64_t N : {std::uint64_t{1} << 14, std::uint64_t{10000}}) {
    call_options bijective;
    bijective.seed = 7;
    cases.push_back({N, bijective, N != (std::uint64_t{1} << 14), P == 1});
  }
  call_options walking;
  walking.kind = permutation::walking;
  walking.seed = 7;
  cases.push_back({10000, walking, false, P == 1});
  if (P == 1) {
    call_options general;  // the general path on one rank: no other ranks' walks to mark
    general.seed = 7;
    general.internal = true;
    general.tuning.single_rank_shortcut = false;
    cases.push_back({10000, general, true, false});
  }
  for (const phase_case& k : cases) {
    SCOPED_TRACE(std::string(od::to_string(k.options.kind)) + ", N = " + std::to_string(k.N) +
                 (k.options.internal ? ", general path" : ""));
    std::vector<std::vector<std::string>> query(P), forward(P), inverse(P), after(P);
    ot::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
      const std::uint64_t n = k.N / P + (static_cast<std::uint64_t>(r) < k.N % P ? 1 : 0);
      std::vector<std::uint64_t> host(n);
      for (std::uint64_t i = 0; i < n; ++i) host[i] = i * 2654435761u + static_cast<std::uint64_t>(r);
      ot::dev d_in(n * 8), d_out(n * 8), d_back(n * 8);
      ot::upload(d_in.as<std::uint64_t>(), host);
      onepass::testing::phase_names observer;
      std::size_t bytes = 0, back_bytes = 0;
      {
        od::scoped_phase_observer installed(observer);
        call<std::uint64_t>(true, k.options, nullptr, bytes, d_in.as<std::uint64_t>(), d_out.as<std::uint64_t>(), n,
                            comm, stream);
        call<std::uint64_t>(false, k.options, nullptr, back_bytes, d_out.as<std::uint64_t>(),
                            d_back.as<std::uint64_t>(), n, comm, stream);
      }
      query[r] = observer.names;
      observer.names.clear();
      ot::dev temp(std::max(bytes, back_bytes));
      {
        od::scoped_phase_observer installed(observer);
        call<std::uint64_t>(true, k.options, temp.p, bytes, d_in.as<std::uint64_t>(), d_out.as<std::uint64_t>(), n,
                            comm, stream);
        forward[r] = observer.names;
        observer.names.clear();
        call<std::uint64_t>(false, k.options, temp.p, back_bytes, d_out.as<std::uint64_t>(),
                            d_back.as<std::uint64_t>(), n, comm, stream);
        inverse[r] = observer.names;
        observer.names.clear();
      }
      call<std::uint64_t>(true, k.options, temp.p, bytes, d_in.as<std::uint64_t>(), d_out.as<std::uint64_t>(), n,
                          comm, stream);
      call<std::uint64_t>(false, k.options, temp.p, back_bytes, d_out.as<std::uint64_t>(), d_back.as<std::uint64_t>(),
                          n, comm, stream);
      ot::cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      after[r] = observer.names;
      EXPECT_TRUE(ot::download(d_back.as<std::uint64_t>(), n) == host)
          << "rank " << r << ": unshuffle(shuffle(x)) != x";
    });
    for (int r = 0; r < P; ++r) {
      EXPECT_TRUE(query[r].empty()) << "rank " << r << ": a size query marked phases";
      EXPECT_EQ(forward[r], expected_phases(P, true, k.boundaries, k.one_gpu)) << "rank " << r << ", shuffle";
      EXPECT_EQ(inverse[r], expected_phases(P, false, k.boundaries, k.one_gpu)) << "rank " << r << ", unshuffle";
      EXPECT_TRUE(after[r].empty()) << "rank " << r << ": marks after the observer's scope ended";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedShuffle, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return "P" + std::to_string(info.param); });

}  // namespace
