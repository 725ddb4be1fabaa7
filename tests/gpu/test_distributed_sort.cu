// tests/gpu/test_distributed_sort.cu — onepass::distributed::sort_keys / sort_pairs (both methods) over 1 to 4
// GPUs (one thread and GPU per rank, distributed_test_support.hpp; skipped, and says so, with
// fewer GPUs): the concatenation of the ranks' outputs equals the stable sort of the
// concatenation of their inputs (std::stable_sort by the key field on the CPU; values carry
// each key's global input position, so stability is checked), every rank keeps its count,
// for every key shape, uneven splits with empty ranks, bit ranges and both orders; bad
// arguments on one rank make every rank throw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "distributed_test_support.hpp"
#include "gpu_test_support.hpp"
#include "onepass/distributed/phase_observer.hpp"
#include "onepass/distributed/sort.cuh"
#include "onepass/error.hpp"
#include "onepass/sort/key_traits.hpp"

namespace {

namespace dist = onepass::distributed;
using onepass::testing::dev;
using onepass::testing::download;
using onepass::testing::upload;

template <class Key>
Key make_key(int shape, std::uint64_t i, std::uint64_t n, std::mt19937_64& rng) {
  switch (shape) {
    case 0: return static_cast<Key>(rng());
    case 1: return static_cast<Key>((rng() % 4) * 0x01010101u);             // few values: long ties
    case 2: return static_cast<Key>(i);                                      // presorted
    case 3: return static_cast<Key>(n - i);                                  // reverse
    case 4: return static_cast<Key>(77);                                     // all equal
    default: return rng() % 100 == 0 ? static_cast<Key>(7) : static_cast<Key>(rng());  // 1 % equal
  }
}

std::vector<std::uint64_t> split(std::uint64_t n, int P, int mode, std::mt19937_64& rng) {
  std::vector<std::uint64_t> c(P, 0);
  if (mode == 0) {
    for (int r = 0; r < P; ++r) c[r] = n / P + (static_cast<std::uint64_t>(r) < n % P ? 1 : 0);
  } else if (mode == 1) {
    c[P - 1] = n;  // everything on the last rank
  } else {
    std::vector<std::uint64_t> cuts{0, n};
    for (int k = 0; k + 1 < P; ++k) cuts.push_back(k == 0 ? cuts[0] : rng() % (n + 1));  // rank 0 empty
    std::sort(cuts.begin(), cuts.end());
    for (int r = 0; r < P; ++r) c[r] = cuts[r + 1] - cuts[r];
  }
  return c;
}

/// Sorts keys (and values = global positions) over P ranks and checks the result against the
/// CPU stable sort of the concatenation.
template <class Key, bool Pairs>
void check_sort(onepass::testing::rank_team& team, const std::vector<Key>& all, const std::vector<std::uint64_t>& counts, unsigned begin,
                unsigned end, bool descending, const std::string& what,
                dist::sort_method method = dist::sort_method::partition_first) {
  using Value = std::conditional_t<sizeof(Key) == 8, std::uint64_t, std::uint32_t>;
  const int P = team.size();
  std::vector<std::uint64_t> first(P + 1, 0);
  for (int r = 0; r < P; ++r) first[r + 1] = first[r] + counts[r];
  std::vector<std::vector<Key>> out_keys(P);
  std::vector<std::vector<Value>> out_values(P);
  team.run([&](int r, ncclComm_t comm, cudaStream_t stream) {
    const std::uint64_t n = counts[r];
    dev k0(n * sizeof(Key)), k1(n * sizeof(Key)), v0(n * sizeof(Value)), v1(n * sizeof(Value));
    upload(k0.as<Key>(), std::vector<Key>(all.begin() + first[r], all.begin() + first[r + 1]));
    std::vector<Value> values(n);
    for (std::uint64_t i = 0; i < n; ++i) values[i] = static_cast<Value>(first[r] + i);
    upload(v0.as<Value>(), values);
    dist::double_buffer<Key> keys(k0.as<Key>(), k1.as<Key>());
    dist::double_buffer<Value> vals(v0.as<Value>(), v1.as<Value>());
    std::size_t bytes = 0;
    if constexpr (Pairs) {
      dist::sort_pairs(nullptr, bytes, keys, vals, n, comm, stream, begin, end, descending, method);
      dev temp(bytes);
      dist::sort_pairs(temp.p, bytes, keys, vals, n, comm, stream, begin, end, descending, method);
      onepass::testing::cuda_ok(cudaStreamSynchronize(stream), "sync");
      out_values[r] = download(vals.current(), n);
    } else {
      dist::sort_keys(nullptr, bytes, keys, n, comm, stream, begin, end, descending, method);
      dev temp(bytes);
      dist::sort_keys(temp.p, bytes, keys, n, comm, stream, begin, end, descending, method);
      onepass::testing::cuda_ok(cudaStreamSynchronize(stream), "sync");
    }
    out_keys[r] = download(keys.current(), n);
  });
  // Reference: stable sort of global positions by key field.
  std::vector<std::uint64_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  const auto field = [&](Key k) { return onepass::sort::key_field(onepass::sort::ordered_bits(k, descending), begin, end); };
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return field(all[a]) < field(all[b]); });
  for (int r = 0; r < P; ++r) {
    ASSERT_EQ(out_keys[r].size(), counts[r]) << what << " rank " << r;
    for (std::uint64_t i = 0; i < counts[r]; ++i) {
      const std::uint64_t g = order[first[r] + i];
      if constexpr (Pairs) {
        ASSERT_EQ(out_values[r][i], static_cast<Value>(g)) << what << ": rank " << r << " position " << i;
      }
      ASSERT_EQ(out_keys[r][i], all[g]) << what << ": rank " << r << " position " << i;
    }
  }
}

template <class Key, bool Pairs>
void sweep(int P, std::uint64_t seed) {
  onepass::testing::rank_team team(P);
  std::mt19937_64 rng(seed);
  constexpr unsigned bits = sizeof(Key) * 8;
  for (int shape = 0; shape < 6; ++shape)
    for (int mode = 0; mode < 3; ++mode) {
      const std::uint64_t n = 1000 + rng() % 300000;
      std::vector<Key> all(n);
      for (std::uint64_t i = 0; i < n; ++i) all[i] = make_key<Key>(shape, i, n, rng);
      const auto counts = split(n, P, mode, rng);
      const bool descending = (shape + mode) % 2 == 1;
      unsigned begin = 0, end = bits;
      if (mode == 2 && shape % 2 == 0) begin = 3, end = bits - 5;  // a narrowed bit range
      for (const auto method : {dist::sort_method::partition_first, dist::sort_method::sort_first}) {
        check_sort<Key, Pairs>(team, all, counts, begin, end, descending,
                               "P=" + std::to_string(P) + " shape " + std::to_string(shape) + " split " +
                                   std::to_string(mode) +
                                   (method == dist::sort_method::sort_first ? " sort_first" : " partition_first"),
                               method);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

class DistributedSort : public ::testing::TestWithParam<int> {};

TEST_P(DistributedSort, KeysU32) {
  ONEPASS_REQUIRE_GPUS(GetParam());
  sweep<std::uint32_t, false>(GetParam(), 1);
}
TEST_P(DistributedSort, KeysU64AndDouble) {
  ONEPASS_REQUIRE_GPUS(GetParam());
  sweep<std::uint64_t, false>(GetParam(), 2);
  sweep<double, false>(GetParam(), 3);
}
TEST_P(DistributedSort, KeysI32AndFloat) {
  ONEPASS_REQUIRE_GPUS(GetParam());
  sweep<std::int32_t, false>(GetParam(), 4);
  sweep<float, false>(GetParam(), 5);
}
TEST_P(DistributedSort, PairsAreStable) {
  ONEPASS_REQUIRE_GPUS(GetParam());
  sweep<std::uint32_t, true>(GetParam(), 6);
  sweep<std::uint64_t, true>(GetParam(), 7);
}

TEST_P(DistributedSort, EmptyAndTinyInputs) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  std::mt19937_64 rng(8);
  onepass::testing::rank_team team(P);
  check_sort<std::uint32_t, false>(team, {}, std::vector<std::uint64_t>(P, 0), 0, 32, false, "N = 0");
  check_sort<std::uint32_t, true>(team, {42}, split(1, P, 1, rng), 0, 32, false, "N = 1");
  std::vector<std::uint32_t> few{5, 5, 5, 1, 5, 0, 5};
  check_sort<std::uint32_t, true>(team, few, split(few.size(), P, 0, rng), 0, 32, false, "ties across every boundary");
  const auto sf = dist::sort_method::sort_first;
  check_sort<std::uint32_t, false>(team, {}, std::vector<std::uint64_t>(P, 0), 0, 32, false, "N = 0 sort_first", sf);
  check_sort<std::uint32_t, true>(team, {42}, split(1, P, 1, rng), 0, 32, false, "N = 1 sort_first", sf);
  check_sort<std::uint32_t, true>(team, few, split(few.size(), P, 0, rng), 0, 32, false,
                                  "ties across every boundary sort_first", sf);
  // Runs longer than a merge tile, mostly ties: the merge's tile splits fall inside runs of equal keys.
  std::vector<std::uint64_t> tied(20000);
  for (std::size_t i = 0; i < tied.size(); ++i) tied[i] = (i * 7919) % 3;
  check_sort<std::uint64_t, true>(team, tied, split(tied.size(), P, 2, rng), 0, 64, false,
                                  "three values, 20000 keys, sort_first", sf);
}

TEST_P(DistributedSort, BadArgumentsOnOneRankMakeEveryRankThrow) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  const auto errors = onepass::testing::errors_of_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const std::uint64_t n = 1000;
    dev k0(n * 4), k1(n * 4);
    dist::double_buffer<std::uint32_t> keys(r == P - 1 ? nullptr : k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
    std::size_t bytes = 0;
    dist::sort_keys(nullptr, bytes, keys, n, comm, stream);
    dev temp(bytes);
    dist::sort_keys(temp.p, bytes, keys, n, comm, stream);
  });
  for (int r = 0; r < P; ++r) {
    const std::string want = r == P - 1 ? "keys.current()" : "rank " + std::to_string(P - 1);
    EXPECT_NE(errors[r].find(want), std::string::npos) << "rank " << r << ": '" << errors[r] << "'";
  }
  if (P == 1) return;
  const auto disagree = onepass::testing::errors_of_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const std::uint64_t n = 100;
    dev k0(n * 4), k1(n * 4);
    dist::double_buffer<std::uint32_t> keys(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
    std::size_t bytes = 0;
    dist::sort_keys(nullptr, bytes, keys, n, comm, stream, 0, 32, r == 0);
    dev temp(bytes);
    dist::sort_keys(temp.p, bytes, keys, n, comm, stream, 0, 32, r == 0);
  });
  for (int r = 0; r < P; ++r)
    EXPECT_NE(disagree[r].find("descending"), std::string::npos) << "rank " << r << ": '" << disagree[r] << "'";
  // Ranks that disagree on the method (sort_first on rank 0 only).
  const auto methods = onepass::testing::errors_of_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const std::uint64_t n = 100;
    dev k0(n * 4), k1(n * 4);
    dist::double_buffer<std::uint32_t> keys(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
    const auto method = r == 0 ? dist::sort_method::sort_first : dist::sort_method::partition_first;
    std::size_t bytes = 0;
    dist::sort_keys(nullptr, bytes, keys, n, comm, stream, 0, 32, false, method);
    dev temp(bytes);
    dist::sort_keys(temp.p, bytes, keys, n, comm, stream, 0, 32, false, method);
  });
  for (int r = 0; r < P; ++r)
    EXPECT_NE(methods[r].find("method"), std::string::npos) << "rank " << r << ": '" << methods[r] << "'";
  // Key types of the same size that differ (uint32 on rank 0, float elsewhere).
  const auto types = onepass::testing::errors_of_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const std::uint64_t n = 100;
    dev k0(n * 4), k1(n * 4), temp(1 << 26);
    std::size_t bytes = 0;
    if (r == 0) {
      dist::double_buffer<std::uint32_t> keys(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
      dist::sort_keys(nullptr, bytes, keys, n, comm, stream);
      dist::sort_keys(temp.p, bytes, keys, n, comm, stream);
    } else {
      dist::double_buffer<float> keys(k0.as<float>(), k1.as<float>());
      dist::sort_keys(nullptr, bytes, keys, n, comm, stream);
      dist::sort_keys(temp.p, bytes, keys, n, comm, stream);
    }
  });
  for (int r = 0; r < P; ++r)
    EXPECT_NE(types[r].find("the key type"), std::string::npos) << "rank " << r << ": '" << types[r] << "'";
}

TEST_P(DistributedSort, BitRangeIsCheckedBeforeCommunicating) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  const auto errors = onepass::testing::errors_of_ranks(P, [&](int, ncclComm_t comm, cudaStream_t stream) {
    dist::double_buffer<std::uint32_t> keys;
    std::size_t bytes = 0;
    dist::sort_keys(nullptr, bytes, keys, 10, comm, stream, 0, 33);
  });
  for (int r = 0; r < P; ++r) EXPECT_NE(errors[r].find("end_bit"), std::string::npos) << errors[r];
}

/// The long test's keys: a 64-bit mix of (rank, index), cut to 32 bits.
__global__ void fill_long_keys(std::uint32_t* keys, std::uint64_t n, std::uint64_t salt) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    keys[i] = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
}

/// sums[0] += mix(k), sums[1] ^= mix(k) over the keys (a multiset fingerprint); sums[2] +=
/// the positions i with keys[i] > keys[i + 1] (0 when sorted).
__global__ void fingerprint_long_keys(const std::uint32_t* keys, std::uint64_t n, unsigned long long* sums) {
  unsigned long long sum = 0, x = 0, descents = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t k = keys[i];
    const unsigned long long m = (k * 0x9E3779B97F4A7C15ull) ^ (k >> 7);
    sum += m, x ^= m;
    if (i + 1 < n && keys[i] > keys[i + 1]) ++descents;
  }
  atomicAdd(&sums[0], sum);
  atomicXor(&sums[1], x);
  atomicAdd(&sums[2], descents);
}

/// More than 2^31 keys over the ranks (label gpu_long): sorted within and across ranks,
/// balanced, and the same multiset (sum and xor of a mix of the keys). Keys are made and
/// checked on the GPU (the host only reads three words and two keys per rank).
TEST_P(DistributedSort, MoreThan2Pow31KeysU32) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  if (P == 1) GTEST_SKIP() << "the one-GPU sort of more than 2^31 keys is tested by test_onesweep";
  const std::uint64_t total = (std::uint64_t{1} << 31) + 12345;
  std::vector<std::uint64_t> in_sum(P), in_xor(P), out_sum(P), out_xor(P), descents(P);
  std::vector<std::uint32_t> lowest(P), highest(P);
  onepass::testing::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    const std::uint64_t n = total / P + (static_cast<std::uint64_t>(r) < total % P ? 1 : 0);
    dev k0(n * 4), k1(n * 4), sums(3 * 8);
    fill_long_keys<<<1024, 256, 0, stream>>>(k0.as<std::uint32_t>(), n, 100 + r);
    const auto fingerprint = [&](const std::uint32_t* keys, std::uint64_t& sum, std::uint64_t& x,
                                 std::uint64_t* desc) {
      onepass::testing::cuda_ok(cudaMemsetAsync(sums.p, 0, 3 * 8, stream), "memset");
      fingerprint_long_keys<<<1024, 256, 0, stream>>>(keys, n, sums.as<unsigned long long>());
      std::uint64_t h[3];
      onepass::testing::cuda_ok(cudaMemcpyAsync(h, sums.p, sizeof h, cudaMemcpyDeviceToHost, stream), "copy");
      onepass::testing::cuda_ok(cudaStreamSynchronize(stream), "sync");
      sum = h[0], x = h[1];
      if (desc) *desc = h[2];
    };
    fingerprint(k0.as<std::uint32_t>(), in_sum[r], in_xor[r], nullptr);
    dist::double_buffer<std::uint32_t> keys(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
    std::size_t bytes = 0;
    dist::sort_keys(nullptr, bytes, keys, n, comm, stream);
    dev temp(bytes);
    dist::sort_keys(temp.p, bytes, keys, n, comm, stream);
    fingerprint(keys.current(), out_sum[r], out_xor[r], &descents[r]);
    onepass::testing::cuda_ok(cudaMemcpy(&lowest[r], keys.current(), 4, cudaMemcpyDeviceToHost), "first key");
    onepass::testing::cuda_ok(cudaMemcpy(&highest[r], keys.current() + n - 1, 4, cudaMemcpyDeviceToHost), "last key");
  });
  std::uint64_t a = 0, b = 0, c = 0, d = 0;
  for (int r = 0; r < P; ++r) {
    EXPECT_EQ(descents[r], 0u) << "rank " << r << ": not sorted";
    if (r > 0) EXPECT_LE(highest[r - 1], lowest[r]) << "ranks " << r - 1 << " and " << r;
    a += in_sum[r], b ^= in_xor[r], c += out_sum[r], d ^= out_xor[r];
  }
  EXPECT_EQ(a, c);
  EXPECT_EQ(b, d);
}

// A phase_observer installed on a rank's thread sees that rank's phases in order, for both
// methods, and nothing once its scope has ended.
TEST_P(DistributedSort, PhaseObserverSeesEveryPhase) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  for (const auto method : {dist::sort_method::sort_first, dist::sort_method::partition_first}) {
    std::vector<std::vector<std::string>> seen(P), after(P);
    onepass::testing::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
      const std::uint64_t n = 5000 + 1000 * r;
      std::vector<std::uint32_t> host(n);
      for (std::uint64_t i = 0; i < n; ++i) host[i] = static_cast<std::uint32_t>((i * 2654435761u) ^ r);
      dev k0(n * 4), k1(n * 4);
      upload(k0.as<std::uint32_t>(), host);
      dist::double_buffer<std::uint32_t> keys(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
      std::size_t bytes = 0;
      dist::sort_keys(nullptr, bytes, keys, n, comm, stream, 0, 32, false, method);
      dev temp(bytes);
      onepass::testing::phase_names observer;
      {
        dist::scoped_phase_observer installed(observer);
        dist::sort_keys(temp.p, bytes, keys, n, comm, stream, 0, 32, false, method);
      }
      seen[r] = observer.names;
      observer.names.clear();
      keys = dist::double_buffer<std::uint32_t>(k0.as<std::uint32_t>(), k1.as<std::uint32_t>());
      upload(k0.as<std::uint32_t>(), host);
      dist::sort_keys(temp.p, bytes, keys, n, comm, stream, 0, 32, false, method);
      onepass::testing::cuda_ok(cudaStreamSynchronize(stream), "sync");
      after[r] = observer.names;
    });
    const std::vector<std::string> expected =
        P == 1 ? std::vector<std::string>{"local_sort", "end"}
        : method == dist::sort_method::sort_first
            ? std::vector<std::string>{"local_sort", "splitters", "exchange", "merge", "end"}
            : std::vector<std::string>{"splitters", "partition", "exchange", "local_sort", "end"};
    for (int r = 0; r < P; ++r) {
      EXPECT_EQ(seen[r], expected) << "rank " << r;
      EXPECT_TRUE(after[r].empty()) << "rank " << r << ": marks after the observer's scope ended";
    }
  }
}

// The exchange on its own (dist::all_to_all): rank r sends (r + 1) * (q + 1) items of 12 bytes
// to rank q, item k of them the word triple (r, q, k); every rank checks what it received.
TEST_P(DistributedSort, AllToAllDeliversEveryPieceInOrder) {
  const int P = GetParam();
  ONEPASS_REQUIRE_GPUS(P);
  struct item {
    std::uint32_t from, to, k;
  };
  onepass::testing::run_ranks(P, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    std::vector<std::uint64_t> send(P), recv(P);
    std::vector<item> out;
    for (int q = 0; q < P; ++q) {
      send[q] = static_cast<std::uint64_t>(r + 1) * (q + 1);
      recv[q] = static_cast<std::uint64_t>(q + 1) * (r + 1);
      for (std::uint64_t k = 0; k < send[q]; ++k)
        out.push_back({static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(k)});
    }
    const std::uint64_t total = std::accumulate(recv.begin(), recv.end(), std::uint64_t{0});
    dev d_send(out.size() * sizeof(item)), d_recv(total * sizeof(item));
    upload(static_cast<item*>(d_send.p), out);  // waits for the copy (the rank's stream is non-blocking)
    dist::all_to_all(d_send.p, send, d_recv.p, recv, sizeof(item), comm, stream);
    ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<item> in(total);
    ONEPASS_CUDA_CHECK(cudaMemcpy(in.data(), d_recv.p, total * sizeof(item), cudaMemcpyDeviceToHost));
    std::size_t at = 0;
    for (int q = 0; q < P; ++q)
      for (std::uint64_t k = 0; k < recv[q]; ++k, ++at) {
        ASSERT_EQ(in[at].from, static_cast<std::uint32_t>(q)) << "rank " << r << ", item " << at;
        ASSERT_EQ(in[at].to, static_cast<std::uint32_t>(r)) << "rank " << r << ", item " << at;
        ASSERT_EQ(in[at].k, k) << "rank " << r << ", item " << at;
      }
    // Bad arguments are named before anything is enqueued (every rank, so none waits).
    std::vector<std::uint64_t> short_counts(P + 1, 0);
    EXPECT_THROW(dist::all_to_all(d_send.p, short_counts, d_recv.p, recv, sizeof(item), comm, stream),
                 onepass::error);
    EXPECT_THROW(dist::all_to_all(d_send.p, send, d_recv.p, recv, 0, comm, stream), onepass::error);
    EXPECT_THROW(dist::all_to_all(nullptr, send, d_recv.p, recv, sizeof(item), comm, stream), onepass::error);
  });
  EXPECT_THROW(dist::all_to_all(nullptr, {}, nullptr, {}, 4, nullptr, 0), onepass::error);
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedSort, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return std::to_string(info.param) + "Ranks"; });

}  // namespace
