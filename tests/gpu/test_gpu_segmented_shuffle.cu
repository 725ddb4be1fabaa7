// Tests of the GPU segmented shuffle (lib/include/onepass/shuffle/gpu_segmented_shuffle.cuh):
// every segment equals the CPU twin (shuffle/cpu_segmented_shuffle.hpp) bit for bit —
// uniform rows around each path's threshold (lengths 0, 1, 2, 2^k, 2^k + 1, the warp,
// staging and block limits +- 1), ragged offsets mixing all three paths, several element sizes, other
// round counts; unshuffle o shuffle = identity; more than 2^31 items in one call; chi^2
// of the 6 permutations of 3-item rows and of the 36 joint outcomes of neighbouring rows;
// bad offsets rejected before anything is written; the README's one-file segmented baseline
// (examples/baselines/example_segmented.cu, built here) among the registry entries.
// Skipped (GTEST_SKIP) without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "../../examples/baselines/example_segmented.cu"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/cpu_segmented_shuffle.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/gpu_segmented_shuffle.cuh"
#include "gpu_test_support.hpp"

namespace {

namespace g = onepass::shuffle::gpu;
using onepass::testing::cuda_ok;
using onepass::testing::dev;
using onepass::testing::download;
using onepass::testing::have_gpu;
using onepass::testing::upload;

#define REQUIRE_GPU()                                                                       \
  do {                                                                                      \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU segmented shuffle test skipped"; \
  } while (0)

template <class T>
std::vector<T> items(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(i * 2654435761u + 7);
  return v;
}

/// GPU uniform-length shuffle (or unshuffle) of `in`.
template <class T>
std::vector<T> gpu_uniform(const std::vector<T>& in, std::uint64_t rows, std::uint64_t len, std::uint64_t seed,
                           bool inverse = false, unsigned rounds = 24) {
  const std::size_t n = in.size();
  dev din(n * sizeof(T)), dout(n * sizeof(T));
  upload(din.as<T>(), in);
  std::size_t bytes = 0;
  g::segmented_shuffle<T>(nullptr, bytes, din.as<T>(), dout.as<T>(), rows, len, seed, rounds);
  dev temp(bytes);
  if (inverse)
    g::segmented_unshuffle<T>(temp.p, bytes, din.as<T>(), dout.as<T>(), rows, len, seed, rounds);
  else
    g::segmented_shuffle<T>(temp.p, bytes, din.as<T>(), dout.as<T>(), rows, len, seed, rounds);
  cuda_ok(cudaDeviceSynchronize(), "segmented shuffle (uniform)");
  return download(dout.as<T>(), n);
}

/// GPU shuffle (or unshuffle) of `in` with offsets.
template <class T, class Offset>
std::vector<T> gpu_offsets(const std::vector<T>& in, const std::vector<Offset>& offsets, std::uint64_t seed,
                           bool inverse = false, unsigned rounds = 24) {
  const std::size_t n = in.size();
  dev din(n * sizeof(T)), dout(n * sizeof(T)), doff(offsets.size() * sizeof(Offset));
  upload(din.as<T>(), in);
  upload(doff.as<Offset>(), offsets);
  const std::uint64_t segments = offsets.size() - 1;
  std::size_t bytes = 0;
  g::segmented_shuffle<T, Offset>(nullptr, bytes, din.as<T>(), dout.as<T>(), n, doff.as<Offset>(), segments, seed,
                                  rounds);
  dev temp(bytes);
  if (inverse)
    g::segmented_unshuffle<T, Offset>(temp.p, bytes, din.as<T>(), dout.as<T>(), n, doff.as<Offset>(), segments, seed,
                                      rounds);
  else
    g::segmented_shuffle<T, Offset>(temp.p, bytes, din.as<T>(), dout.as<T>(), n, doff.as<Offset>(), segments, seed,
                                    rounds);
  cuda_ok(cudaDeviceSynchronize(), "segmented shuffle (offsets)");
  return download(dout.as<T>(), n);
}

/// A 16-byte element.
struct wide {
  std::uint64_t a, b;
  bool operator==(const wide& o) const { return a == o.a && b == o.b; }
};

class GpuSegmentedShuffle : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_GPU(); }
};

// Every GPU entry of the segmented-shuffle registry (ours and the baselines), on uniform
// rows and on ragged offsets: each output segment holds its own input segment's items
// (every item once), and entries that follow the library's definition equal the CPU
// twin bit for bit. A query that needs no pointers, and null pointers refused.
TEST_F(GpuSegmentedShuffle, EveryRegistryEntryPermutesEachSegment) {
  namespace reg = onepass::registry;
  std::vector<reg::segmented_entry> entries;
  for (const auto& e : reg::segmented_shuffles())
    if (e.where == reg::device::gpu) entries.push_back(e);
  ASSERT_GE(entries.size(), 6u)
      << "ours, two CUB segmented sorts, the segment-id sort, the loop and the README's example_segmented";
  ASSERT_TRUE(std::any_of(entries.begin(), entries.end(),
                          [](const reg::segmented_entry& e) { return e.name == "example_segmented"; }));
  struct shape {
    std::uint64_t uniform;  // 0: ragged
    std::vector<std::int64_t> offsets;
  };
  std::vector<shape> shapes;
  for (std::uint64_t len : {1u, 3u, 300u, 5000u}) {
    shape sh{len, {0}};
    for (int r = 0; r < (len > 1000 ? 7 : 100); ++r) sh.offsets.push_back(sh.offsets.back() + static_cast<std::int64_t>(len));
    shapes.push_back(sh);
  }
  {
    shape sh{0, {0}};
    std::mt19937_64 rng(3);
    for (int r = 0; r < 500; ++r) sh.offsets.push_back(sh.offsets.back() + static_cast<std::int64_t>(rng() % 700));
    shapes.push_back(sh);
  }
  const std::uint64_t seed = 77;
  for (const shape& sh : shapes) {
    const std::size_t n = static_cast<std::size_t>(sh.offsets.back());
    const std::size_t rows = sh.offsets.size() - 1;
    std::vector<std::uint64_t> in(n);
    std::iota(in.begin(), in.end(), std::uint64_t{0});
    std::vector<std::uint64_t> want(n);
    onepass::shuffle::cpu::segmented_shuffle(in.data(), want.data(), n, sh.offsets.data(), rows, seed);
    dev din(n * 8 + 8), dout(n * 8 + 8), doff(sh.offsets.size() * 8);
    upload(din.as<std::uint64_t>(), in);
    upload(doff.as<std::int64_t>(), sh.offsets);
    for (const auto& e : entries) {
      if ((e.needs_uniform && sh.uniform == 0) || (e.max_segments > 0 && rows > e.max_segments)) continue;
      SCOPED_TRACE(e.name + (sh.uniform ? " uniform rows of " + std::to_string(sh.uniform) : std::string(" ragged")));
      reg::segmented_params p;
      p.seed = seed;
      p.uniform_length = sh.uniform;
      std::size_t bytes = 0;
      e.gpu_run(nullptr, bytes, nullptr, nullptr, n, nullptr, rows, p, nullptr);  // a query needs no pointers
      ASSERT_GT(bytes, 0u);
      dev temp(bytes);
      cuda_ok(cudaMemset(dout.p, 0xA5, n * 8 + 8), "poison");
      e.gpu_run(temp.p, bytes, din.as<std::uint64_t>(), dout.as<std::uint64_t>(), n, doff.as<std::int64_t>(), rows, p,
                nullptr);
      cuda_ok(cudaDeviceSynchronize(), e.name.c_str());
      const auto got = download(dout.as<std::uint64_t>(), n);
      for (std::size_t r = 0; r < rows; ++r) {
        std::vector<std::uint64_t> seg(got.begin() + sh.offsets[r], got.begin() + sh.offsets[r + 1]);
        std::sort(seg.begin(), seg.end());
        for (std::size_t i = 0; i < seg.size(); ++i)
          ASSERT_EQ(seg[i], static_cast<std::uint64_t>(sh.offsets[r]) + i) << "segment " << r << " is not permuted";
      }
      if (e.library_definition) EXPECT_EQ(got, want) << "differs from the CPU twin";
      if (n > 0) {
        EXPECT_THROW(e.gpu_run(temp.p, bytes, nullptr, dout.as<std::uint64_t>(), n, doff.as<std::int64_t>(), rows, p,
                               nullptr),
                     onepass::error);
      }
    }
  }
}

// Uniform rows around every threshold: equal to the CPU twin; the unshuffle inverts.
TEST_F(GpuSegmentedShuffle, UniformRowsEqualTheCpuTwin) {
  const std::uint64_t w = g::warp_segment_max, b = std::uint64_t{1} << 17;  // b: rows of many tiles
  const std::uint64_t staged = g::stage_bytes / 8;  // the largest uint64 row the block path stages
  const std::uint64_t lengths[] = {0,  1,          2,      3,      15,    16,    17,     w - 1, w,
                                   w + 1, staged - 1, staged, staged + 1, 65536, 65537, b, b + 1};
  for (std::uint64_t len : lengths) {
    const std::uint64_t rows = len == 0 ? 5 : std::max<std::uint64_t>(2, std::min<std::uint64_t>(300, (std::uint64_t{3} << 20) / len));
    const auto in = items<std::uint64_t>(rows * len);
    std::vector<std::uint64_t> want(in.size());
    onepass::shuffle::cpu::segmented_shuffle(in.data(), want.data(), rows, len, 42);
    const auto got = gpu_uniform(in, rows, len, 42);
    ASSERT_TRUE(got == want) << "rows " << rows << " of length " << len;
    const auto back = gpu_uniform(got, rows, len, 42, true);
    ASSERT_TRUE(back == in) << "unshuffle, rows " << rows << " of length " << len;
  }
}

// Ragged offsets with empty rows and rows of all three paths, a tail past the last
// offset, 32- and 64-bit offsets, several element sizes and round counts.
TEST_F(GpuSegmentedShuffle, RaggedOffsetsEqualTheCpuTwin) {
  std::mt19937_64 rng(7);
  std::vector<std::int64_t> off{0};
  const std::uint64_t pick[] = {0, 1, 2, 3, 100, 4095, 4096, 4097, 20000, (1u << 20), (1u << 20) + 1, 1500000};
  for (int i = 0; i < 400; ++i) {
    const std::uint64_t len = i % 97 == 5 ? pick[9 + (i / 97) % 3] : pick[rng() % 9] + (rng() % 3);
    off.push_back(off.back() + static_cast<std::int64_t>(len));
  }
  const std::size_t n = static_cast<std::size_t>(off.back()) + 1000;  // a tail of 1000 items
  for (unsigned rounds : {24u, 7u}) {
    const auto in = items<std::uint64_t>(n);
    std::vector<std::uint64_t> want(n);
    onepass::shuffle::cpu::segmented_shuffle(in.data(), want.data(), n, off.data(), off.size() - 1, 99, rounds);
    const auto got = gpu_offsets(in, off, 99, false, rounds);
    ASSERT_TRUE(got == want) << "rounds " << rounds;
    EXPECT_TRUE(gpu_offsets(got, off, 99, true, rounds) == in) << "unshuffle, rounds " << rounds;
  }
  // 32-bit offsets, 1-byte and 16-byte elements (short rows only, to keep it quick).
  std::vector<std::uint32_t> off32{0};
  for (int i = 0; i < 3000; ++i) off32.push_back(off32.back() + static_cast<std::uint32_t>(rng() % 5000));
  const std::size_t n32 = off32.back();
  const auto in8 = items<std::uint8_t>(n32);
  std::vector<std::uint8_t> want8(n32);
  onepass::shuffle::cpu::segmented_shuffle(in8.data(), want8.data(), n32, off32.data(), off32.size() - 1, 5);
  EXPECT_TRUE(gpu_offsets(in8, off32, 5) == want8) << "uint8 items";
  std::vector<wide> in16(n32);
  for (std::size_t i = 0; i < n32; ++i) in16[i] = wide{i, ~i};
  std::vector<wide> want16(n32);
  onepass::shuffle::cpu::segmented_shuffle(in16.data(), want16.data(), n32, off32.data(), off32.size() - 1, 5);
  EXPECT_TRUE(gpu_offsets(in16, off32, 5) == want16) << "16-byte items";
}

// Each row equals the single GPU shuffle of that row with the derived seed.
TEST_F(GpuSegmentedShuffle, RowIsTheSingleShuffleWithTheDerivedSeed) {
  const std::uint64_t rows = 3, len = 5000;
  const auto in = items<std::uint64_t>(rows * len);
  const auto got = gpu_uniform(in, rows, len, 1234);
  for (std::uint64_t s = 0; s < rows; ++s) {
    std::vector<std::uint64_t> row(in.begin() + s * len, in.begin() + (s + 1) * len), want(len);
    onepass::shuffle::cpu::variable_philox_shuffle(row.data(), want.data(), len,
                                                   onepass::shuffle::segment_seed(1234, s));
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin() + s * len)) << "row " << s;
  }
}

// More than 2^31 items in one call (1-byte items, rows of 4096): sampled rows against the CPU.
TEST_F(GpuSegmentedShuffle, MoreThan2Pow31Items) {
  const std::uint64_t len = 4096, rows = (std::uint64_t{1} << 19) + 3;  // 2^31 + 12288 items
  const std::uint64_t n = rows * len;
  dev din(n), dout(n);
  std::vector<std::uint8_t> pattern(len);
  for (std::uint64_t i = 0; i < len; ++i) pattern[i] = static_cast<std::uint8_t>(i * 37 + i / 256);
  std::vector<std::uint8_t> chunk(4096 * len);  // 4096 rows of the pattern, 16 MB
  for (std::uint64_t r = 0; r < 4096; ++r) std::copy(pattern.begin(), pattern.end(), chunk.begin() + r * len);
  for (std::uint64_t s = 0; s < rows; s += 4096) {
    const std::uint64_t count = std::min<std::uint64_t>(4096, rows - s);
    cuda_ok(cudaMemcpy(din.as<std::uint8_t>() + s * len, chunk.data(), count * len, cudaMemcpyHostToDevice), "fill");
  }
  std::size_t bytes = 0;
  g::segmented_shuffle<std::uint8_t>(nullptr, bytes, din.as<std::uint8_t>(), dout.as<std::uint8_t>(), rows, len, 3);
  dev temp(bytes);
  g::segmented_shuffle<std::uint8_t>(temp.p, bytes, din.as<std::uint8_t>(), dout.as<std::uint8_t>(), rows, len, 3);
  cuda_ok(cudaDeviceSynchronize(), "segmented shuffle above 2^31");
  for (std::uint64_t s : {std::uint64_t{0}, std::uint64_t{1} << 18, rows - 1}) {
    std::vector<std::uint8_t> got(len), want(len);
    cuda_ok(cudaMemcpy(got.data(), dout.as<std::uint8_t>() + s * len, len, cudaMemcpyDeviceToHost), "row");
    onepass::shuffle::cpu::variable_philox_shuffle(pattern.data(), want.data(), len,
                                                   onepass::shuffle::segment_seed(3, s));
    EXPECT_TRUE(got == want) << "row " << s;
  }
}

// chi^2: 2^18 rows of 3 items; the 6 permutations equally likely, and the 36 joint
// outcomes of rows 2r and 2r + 1 (independence of neighbours).
TEST_F(GpuSegmentedShuffle, ThreeItemRowsAreUniformAndIndependent) {
  const std::uint64_t rows = std::uint64_t{1} << 18;
  std::vector<std::uint32_t> in(rows * 3);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (int k = 0; k < 3; ++k) in[r * 3 + k] = static_cast<std::uint32_t>(k);
  const auto out = gpu_uniform(in, rows, 3, 2026);
  auto code = [&](std::uint64_t r) {  // permutation index 0..5 from the row's order
    const std::uint32_t a = out[r * 3], b = out[r * 3 + 1];
    return static_cast<int>(a * 2 + (b > a ? b - 1 : b));
  };
  std::array<double, 6> one{};
  std::array<double, 36> two{};
  for (std::uint64_t r = 0; r < rows; ++r) one[code(r)] += 1;
  for (std::uint64_t r = 0; r + 1 < rows; r += 2) two[code(r) * 6 + code(r + 1)] += 1;
  auto chi2 = [](const auto& counts, double total) {
    const double e = total / counts.size();
    double x = 0;
    for (double c : counts) x += (c - e) * (c - e) / e;
    return x;
  };
  const double alpha = 1e-4;
  boost::math::chi_squared d5(5), d35(35);
  EXPECT_LT(chi2(one, rows), boost::math::quantile(boost::math::complement(d5, alpha)));
  EXPECT_LT(chi2(two, rows / 2), boost::math::quantile(boost::math::complement(d35, alpha)));
}

// Bad offsets: a clear error, and the output untouched.
TEST_F(GpuSegmentedShuffle, BadOffsetsAreRejectedBeforeWriting) {
  const std::size_t n = 100;
  const auto in = items<std::uint64_t>(n);
  dev din(n * 8), dout(n * 8), doff(8 * 8);
  upload(din.as<std::uint64_t>(), in);
  const std::vector<std::vector<std::int64_t>> bad = {{0, 10, 5, 20}, {1, 10, 20, 30}, {0, 10, 20, 101}};
  for (const auto& off : bad) {
    upload(doff.as<std::int64_t>(), off);
    cuda_ok(cudaMemset(dout.p, 0xA5, n * 8), "poison");
    std::size_t bytes = 0;
    g::segmented_shuffle(nullptr, bytes, din.as<std::uint64_t>(), dout.as<std::uint64_t>(), n,
                         doff.as<std::int64_t>(), off.size() - 1, 1);
    dev temp(bytes);
    EXPECT_THROW(g::segmented_shuffle(temp.p, bytes, din.as<std::uint64_t>(), dout.as<std::uint64_t>(), n,
                                      doff.as<std::int64_t>(), off.size() - 1, 1),
                 onepass::error);
    cuda_ok(cudaDeviceSynchronize(), "after the error");
    const auto after = download(dout.as<std::uint64_t>(), n);
    EXPECT_TRUE(std::all_of(after.begin(), after.end(), [](std::uint64_t v) { return v == 0xA5A5A5A5A5A5A5A5ull; }));
  }
  std::size_t bytes = 0;
  EXPECT_THROW(g::segmented_shuffle<std::uint64_t>(nullptr, bytes, nullptr, nullptr, 1, 10, 1, 0), onepass::error);
  EXPECT_THROW(g::segmented_shuffle<std::uint64_t>(nullptr, bytes, nullptr, nullptr, 1, 10, 1, 65), onepass::error);
}

}  // namespace
