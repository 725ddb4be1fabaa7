// The GPU baselines of the paper's Table 1 (baselines/gpu/): every permuting GPU shuffle in
// the registry (the baselines and the library's own) returns a permutation of its input on
// poisoned output buffers without writing past them, and every registered GPU shuffle
// throws onepass::error on bad arguments; the
// deterministic ones equal their CPU twins or oracles bit for bit (thrust::shuffle_copy =
// VariablePhilox with 24 rounds, gather and SortShuffle = the CPU baselines of the same
// name); the randomised ones pass the chi-square test over the 5! permutations of length 5
// (paper §5, alpha = 0.01). Label `gpu`: skipped, and
// reported as skipped, on a machine without a GPU.
//
// Each chi-square verdict is for a fixed seed set, so it is reproducible for the
// deterministic baselines; dart_throwing depends on thread timing, so a uniform
// implementation fails it with probability alpha = 1% per run.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "onepass_baselines/gpu/random_gather.cuh"
#include "onepass_baselines/gpu/randperm.cuh"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/stats/chi_square.hpp"
#include "onepass/stats/permutation.hpp"
#include "gpu_test_support.hpp"

namespace {

using onepass::registry::device;
using onepass::registry::shuffle_entry;
using onepass::registry::shuffle_params;
namespace gpu = onepass::baselines::gpu;

using onepass::testing::have_gpu;

#define SKIP_WITHOUT_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped"

using onepass::testing::cuda_ok;

/// Owning device buffer of n elements of T (n may be 0: no allocation).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) { resize(n); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p_ != nullptr) cudaFree(p_);
  }
  void resize(std::size_t n) {
    if (n <= n_) return;
    if (p_ != nullptr) cuda_ok(cudaFree(p_), "cudaFree");
    p_ = nullptr;
    cuda_ok(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc");
    n_ = n;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

constexpr std::size_t guard = 64;                     // poisoned elements after each output
constexpr unsigned char poison_byte = 0xab;
constexpr std::uint64_t poison = 0xababababababababull;

/// Distinct, index-unlike element values (an odd multiplier is a bijection of 2^64).
std::vector<std::uint64_t> distinct_values(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i * 0x9e3779b97f4a7c15ull + 0x0123456789abcdefull;
  return v;
}

std::vector<std::uint64_t> iota_values(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  std::iota(v.begin(), v.end(), std::uint64_t{0});
  return v;
}

/// Runs GPU shuffles on one stream, reusing its buffers (two-phase temp storage).
class gpu_runner {
 public:
  gpu_runner() { cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  gpu_runner(const gpu_runner&) = delete;
  gpu_runner& operator=(const gpu_runner&) = delete;
  ~gpu_runner() { cudaStreamDestroy(stream_); }

  cudaStream_t stream() const { return stream_; }

  /// Uploads `in`, poisons n + guard output elements, runs the entry (query, then run),
  /// and returns all n + guard output elements. `out_offset` shifts d_out by that many
  /// elements (to test misaligned outputs).
  std::vector<std::uint64_t> run(const shuffle_entry& e, const std::vector<std::uint64_t>& in, std::uint64_t seed,
                                 std::size_t out_offset = 0) {
    const std::size_t n = in.size();
    d_in_.resize(std::max<std::size_t>(n, 1));
    d_out_.resize(n + guard + out_offset);
    if (n > 0)
      cuda_ok(cudaMemcpyAsync(d_in_.get(), in.data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream_),
              "upload");
    cuda_ok(cudaMemsetAsync(d_out_.get(), poison_byte, (n + guard + out_offset) * sizeof(std::uint64_t), stream_),
            "poison");
    std::uint64_t* out = d_out_.get() + out_offset;
    shuffle_params params;
    params.seed = seed;
    std::size_t bytes = 0;
    e.gpu_run(nullptr, bytes, d_in_.get(), out, n, params, stream_);
    if (bytes == 0) throw std::runtime_error(e.name + ": size query answered 0 bytes");
    temp_.resize(bytes);
    e.gpu_run(temp_.get(), bytes, d_in_.get(), out, n, params, stream_);
    std::vector<std::uint64_t> result(n + guard);
    cuda_ok(cudaMemcpyAsync(result.data(), out, result.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream_),
            "download");
    cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return result;
  }

  /// randperm_indices into a poisoned buffer of n + guard elements; returns all of them.
  std::vector<std::uint64_t> randperm(std::size_t n, std::uint64_t seed, int key_bits) {
    d_out_.resize(n + guard);
    cuda_ok(cudaMemsetAsync(d_out_.get(), poison_byte, (n + guard) * sizeof(std::uint64_t), stream_), "poison");
    std::size_t bytes = 0;
    gpu::randperm_indices(nullptr, bytes, d_out_.get(), n, seed, stream_, key_bits);
    temp_.resize(bytes);
    gpu::randperm_indices(temp_.get(), bytes, d_out_.get(), n, seed, stream_, key_bits);
    std::vector<std::uint64_t> result(n + guard);
    cuda_ok(cudaMemcpyAsync(result.data(), d_out_.get(), result.size() * sizeof(std::uint64_t),
                            cudaMemcpyDeviceToHost, stream_),
            "download");
    cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return result;
  }

 private:
  cudaStream_t stream_ = nullptr;
  device_buffer<std::uint64_t> d_in_, d_out_;
  device_buffer<unsigned char> temp_;
};

const shuffle_entry& gpu_entry(const std::string& name) { return onepass::registry::find_shuffle(name, device::gpu); }

/// Expects out[0, n) to be a permutation of in and out[n, n + guard) untouched.
void expect_permutation_of(const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& out,
                           const std::string& what) {
  const std::size_t n = in.size();
  ASSERT_EQ(out.size(), n + guard) << what;
  for (std::size_t k = n; k < n + guard; ++k) ASSERT_EQ(out[k], poison) << what << ": wrote past the end at " << k;
  std::vector<std::uint64_t> a(in), b(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ASSERT_TRUE(a == b) << what << ": output is not a permutation of the input (element lost or duplicated)";
}

std::vector<std::uint64_t> head(const std::vector<std::uint64_t>& v, std::size_t n) {
  return std::vector<std::uint64_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

/// The names of every GPU shuffle in the registry (the library's and the baselines'; a
/// baseline added as one file is tested here without a line changed), or only those that
/// permute (not the random-gather bound).
std::vector<std::string> gpu_shuffle_names(bool permuting_only) {
  std::vector<std::string> names;
  for (const auto& e : onepass::registry::shuffles())
    if (e.where == device::gpu && (e.permutes || !permuting_only)) names.push_back(e.name);
  return names;
}

// --- registry -------------------------------------------------------------------------

TEST(GpuBaselines, RegisteredWithPaperLabels) {
  const std::vector<std::pair<std::string, std::string>> labels = {{"gather", "Gather"},
                                                                   {"dart_throwing", "DartThrowing"},
                                                                   {"sort_shuffle", "SortShuffle"},
                                                                   {"thrust_shuffle", "thrust::shuffle_copy"},
                                                                   {"randperm", "randperm+gather"}};
  for (const auto& [name, label] : labels) {
    const shuffle_entry& e = gpu_entry(name);
    EXPECT_EQ(e.where, device::gpu) << name;
    EXPECT_EQ(e.label, label) << name;
    EXPECT_TRUE(static_cast<bool>(e.gpu_run)) << name;
    EXPECT_FALSE(static_cast<bool>(e.run)) << name;
    EXPECT_EQ(e.permutes, name != "gather") << name;
    EXPECT_EQ(e.deterministic, name != "dart_throwing") << name;
  }
}

// --- permutations on poisoned output ---------------------------------------------------

class PermutingBaseline : public ::testing::TestWithParam<std::string> {};

TEST_P(PermutingBaseline, YieldsPermutationOnPoisonedOutput) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& e = gpu_entry(GetParam());
  gpu_runner runner;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
                        std::size_t{2047}, std::size_t{2049}, (std::size_t{1} << 20) + 1}) {
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{20260101}}) {
      const auto in = distinct_values(n);
      const auto out = runner.run(e, in, seed);
      expect_permutation_of(in, out, e.name + " n = " + std::to_string(n) + " seed = " + std::to_string(seed));
    }
  }
}

TEST_P(PermutingBaseline, MisalignedOutputIsStillAPermutation) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& e = gpu_entry(GetParam());
  gpu_runner runner;
  const auto in = distinct_values(5000);
  expect_permutation_of(in, runner.run(e, in, 3, /*out_offset=*/1), e.name + " out misaligned by 8 bytes");
}

TEST_P(PermutingBaseline, SeedDeterminesOutputWhenDeterministic) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& e = gpu_entry(GetParam());
  gpu_runner runner;
  const auto in = distinct_values(1000);
  const auto a = head(runner.run(e, in, 5), in.size());
  const auto b = head(runner.run(e, in, 5), in.size());
  const auto c = head(runner.run(e, in, 6), in.size());
  EXPECT_NE(a, in) << e.name << " returned the input order";
  EXPECT_NE(a, c) << e.name << " ignores the seed";
  if (e.deterministic) EXPECT_EQ(a, b) << e.name << " is marked deterministic but differs between runs";
}

// Evaluated when the tests are set up (after every static registration has run).
INSTANTIATE_TEST_SUITE_P(Gpu, PermutingBaseline, ::testing::ValuesIn(gpu_shuffle_names(true)),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// --- equality with CPU twins and the thrust oracle -------------------------------------

TEST(GpuBaselines, ThrustShuffleEqualsCpuVariablePhilox24Rounds) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& e = gpu_entry("thrust_shuffle");
  gpu_runner runner;
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{15}, std::size_t{16},
                        std::size_t{17}, std::size_t{1000}, std::size_t{4097}, (std::size_t{1} << 16) + 1,
                        (std::size_t{1} << 20) + 1}) {
    const auto in = distinct_values(n);
    const std::vector<std::uint64_t> seeds =
        n <= 4097 ? std::vector<std::uint64_t>{0, 1, 42, ~0ull} : std::vector<std::uint64_t>{7};
    for (std::uint64_t seed : seeds) {
      std::vector<std::uint64_t> expected(n);
      onepass::shuffle::cpu::variable_philox_shuffle(in.data(), expected.data(), n, seed, 24);
      const auto out = runner.run(e, in, seed);
      ASSERT_EQ(head(out, n), expected) << "n = " << n << ", seed = " << seed;
      ASSERT_EQ(out[n], poison) << "n = " << n;
    }
  }
}

TEST(GpuBaselines, GatherEqualsCpuGather) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& g = gpu_entry("gather");
  const shuffle_entry& c = onepass::registry::find_shuffle("gather", device::cpu);
  gpu_runner runner;
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000}, std::size_t{2047},
                        std::size_t{2048}, std::size_t{2049}, std::size_t{3 * 2048 + 5}, (std::size_t{1} << 20) + 1}) {
    const auto in = distinct_values(n);
    std::vector<std::uint64_t> expected(n);
    shuffle_params p;
    p.seed = 99;
    c.run(in.data(), expected.data(), n, p);
    for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {  // vector and scalar kernels
      const auto out = runner.run(g, in, 99, offset);
      ASSERT_EQ(head(out, n), expected) << "n = " << n << ", out offset = " << offset;
      for (std::size_t k = n; k < n + guard; ++k) ASSERT_EQ(out[k], poison) << "n = " << n << ": wrote at " << k;
    }
  }
}

TEST(GpuBaselines, SortShuffleEqualsCpuSortShuffle) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& g = gpu_entry("sort_shuffle");
  const shuffle_entry& c = onepass::registry::find_shuffle("sort_shuffle", device::cpu);
  gpu_runner runner;
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
                        (std::size_t{1} << 20) + 1}) {
    const auto in = distinct_values(n);
    std::vector<std::uint64_t> expected(n);
    shuffle_params p;
    p.seed = 2024;
    c.run(in.data(), expected.data(), n, p);
    ASSERT_EQ(head(runner.run(g, in, 2024), n), expected) << "n = " << n;
  }
}

// --- the gather functions the experiments time -----------------------------------------

TEST(GpuBaselines, IndexArrayGatherEqualsComputedGather) {
  SKIP_WITHOUT_GPU();
  gpu_runner runner;
  const cudaStream_t s = runner.stream();
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{2049}, (std::size_t{1} << 20) + 1}) {
    const auto in = distinct_values(n);
    device_buffer<std::uint64_t> d_in(n), d_idx(n + 1), d_a(n + 1), d_b(n + 1);
    cuda_ok(cudaMemcpy(d_in.get(), in.data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice), "upload");
    for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {  // aligned and misaligned index/output arrays
      std::uint64_t* idx = d_idx.get() + offset;
      gpu::fill_random_indices(idx, n, 11, s);
      gpu::random_gather_indexed(idx, d_in.get(), d_a.get() + offset, n, s);
      gpu::random_gather(d_in.get(), d_b.get(), n, 11, s);
      std::vector<std::uint64_t> h_idx(n), a(n), b(n);
      cuda_ok(cudaMemcpyAsync(h_idx.data(), idx, n * 8, cudaMemcpyDeviceToHost, s), "download");
      cuda_ok(cudaMemcpyAsync(a.data(), d_a.get() + offset, n * 8, cudaMemcpyDeviceToHost, s), "download");
      cuda_ok(cudaMemcpyAsync(b.data(), d_b.get(), n * 8, cudaMemcpyDeviceToHost, s), "download");
      cuda_ok(cudaStreamSynchronize(s), "sync");
      for (std::size_t i = 0; i < n; ++i) ASSERT_LT(h_idx[i], n) << "n = " << n << ", i = " << i;
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], in[h_idx[i]]) << "n = " << n << ", i = " << i;
      ASSERT_EQ(a, b) << "n = " << n << ", offset = " << offset;
    }
  }
}

TEST(GpuBaselines, FillRandomPermutationThenIndexedGather) {
  SKIP_WITHOUT_GPU();
  gpu_runner runner;
  const cudaStream_t s = runner.stream();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}, (std::size_t{1} << 20) + 1}) {
    const auto in = distinct_values(n);
    device_buffer<std::uint64_t> d_in(n), d_idx(n), d_out(n);
    cuda_ok(cudaMemcpy(d_in.get(), in.data(), n * 8, cudaMemcpyHostToDevice), "upload");
    std::size_t bytes = 0;
    gpu::fill_random_permutation(nullptr, bytes, d_idx.get(), n, 5, s);
    device_buffer<unsigned char> temp(bytes);
    gpu::fill_random_permutation(temp.get(), bytes, d_idx.get(), n, 5, s);
    gpu::random_gather_indexed(d_idx.get(), d_in.get(), d_out.get(), n, s);
    std::vector<std::uint64_t> idx(n), out(n);
    cuda_ok(cudaMemcpyAsync(idx.data(), d_idx.get(), n * 8, cudaMemcpyDeviceToHost, s), "download");
    cuda_ok(cudaMemcpyAsync(out.data(), d_out.get(), n * 8, cudaMemcpyDeviceToHost, s), "download");
    cuda_ok(cudaStreamSynchronize(s), "sync");
    ASSERT_TRUE(onepass::stats::is_permutation(idx)) << "n = " << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[idx[i]]) << "n = " << n << ", i = " << i;
  }
}

// --- randperm's tie fix ------------------------------------------------------------------

TEST(GpuBaselines, RandpermKeyBitsFollowPyTorch) {
  EXPECT_EQ(gpu::randperm_key_bits(5), 7);
  EXPECT_EQ(gpu::randperm_key_bits(std::size_t{1} << 20), 43);
  EXPECT_EQ(gpu::randperm_key_bits(std::size_t{1} << 29), 61);
  EXPECT_EQ(gpu::randperm_key_bits(std::size_t{1} << 40), 64);
}

TEST(GpuBaselines, RandpermWithForcedTiesIsAPermutation) {
  SKIP_WITHOUT_GPU();
  gpu_runner runner;
  for (int bits : {1, 2, 3, 8, 32, 33, 64}) {
    for (std::size_t n : {std::size_t{2}, std::size_t{3}, std::size_t{1000}, (std::size_t{1} << 16) + 1}) {
      const auto out = runner.randperm(n, 17, bits);
      for (std::size_t k = n; k < n + guard; ++k) ASSERT_EQ(out[k], poison) << "bits " << bits << ", n " << n;
      ASSERT_TRUE(onepass::stats::is_permutation(out.data(), n)) << "bits " << bits << ", n " << n;
      if (bits <= 3 && n > 3) EXPECT_NE(head(out, n), iota_values(n)) << "ties left in index order, bits " << bits;
    }
  }
}

// --- chi-square at n = 5 (paper §5) ------------------------------------------------------

constexpr std::size_t chi_length = 5;
constexpr std::uint64_t chi_samples = 24000;  // 200 expected per cell of 120
constexpr double chi_alpha = 0.01;
constexpr std::uint64_t chi_base_seed = 20240601;

std::string describe(const onepass::stats::chi_square_result& r) {
  return "X^2 = " + std::to_string(r.statistic) + ", critical value = " + std::to_string(r.critical_value) +
         ", p = " + std::to_string(r.p_value);
}

template <class Draw>
onepass::stats::chi_square_result chi_square_of(Draw&& draw) {
  std::vector<std::uint64_t> counts(120, 0);
  for (std::uint64_t k = 0; k < chi_samples; ++k) {
    const std::vector<std::uint64_t> out = draw(chi_base_seed + k);
    const std::vector<std::uint64_t> sigma = head(out, chi_length);
    if (!onepass::stats::is_permutation(sigma)) throw std::runtime_error("not a permutation, sample " + std::to_string(k));
    ++counts[onepass::stats::lehmer_rank(sigma)];
  }
  return onepass::stats::chi_square_permutations(counts, chi_length, chi_alpha);
}

class RandomisedBaseline : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomisedBaseline, PassesChiSquareAtLengthFive) {
  SKIP_WITHOUT_GPU();
  const shuffle_entry& e = gpu_entry(GetParam());
  gpu_runner runner;
  const auto identity = iota_values(chi_length);
  const auto r = chi_square_of([&](std::uint64_t seed) { return runner.run(e, identity, seed); });
  EXPECT_TRUE(r.passes) << e.name << ": " << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Gpu, RandomisedBaseline, ::testing::Values("dart_throwing", "sort_shuffle", "randperm"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(GpuBaselines, RandpermWithHeavyTiesPassesChiSquare) {
  SKIP_WITHOUT_GPU();
  gpu_runner runner;
  for (int bits : {1, 2}) {  // at n = 5 nearly every sample has tied keys
    const auto r = chi_square_of([&](std::uint64_t seed) { return runner.randperm(chi_length, seed, bits); });
    EXPECT_TRUE(r.passes) << "key bits " << bits << ": " << describe(r);
  }
}

// --- bad arguments ------------------------------------------------------------------------

TEST(GpuBaselines, BadArgumentsThrow) {
  SKIP_WITHOUT_GPU();
  gpu_runner runner;
  const std::size_t n = 1000;
  device_buffer<std::uint64_t> d_in(n), d_out(n);
  shuffle_params p;
  void* stream = runner.stream();
  const auto names = gpu_shuffle_names(false);
  ASSERT_GE(names.size(), 5u);
  for (const std::string& name : names) {
    const shuffle_entry& e = gpu_entry(name);
    std::size_t bytes = 0;
    e.gpu_run(nullptr, bytes, d_in.get(), d_out.get(), n, p, stream);
    ASSERT_GE(bytes, 1u) << name;
    device_buffer<unsigned char> temp(bytes);
    std::size_t b = bytes;
    EXPECT_THROW(e.gpu_run(temp.get(), b, nullptr, d_out.get(), n, p, stream), onepass::error) << name << " null in";
    EXPECT_THROW(e.gpu_run(temp.get(), b, d_in.get(), nullptr, n, p, stream), onepass::error) << name << " null out";
    EXPECT_THROW(e.gpu_run(temp.get(), b, d_in.get(), d_in.get(), n, p, stream), onepass::error) << name << " in place";
    EXPECT_THROW(e.gpu_run(temp.get(), b, d_in.get(), d_in.get() + n / 2, n, p, stream), onepass::error)
        << name << " overlap";
    std::size_t small = bytes - 1;
    EXPECT_THROW(e.gpu_run(temp.get(), small, d_in.get(), d_out.get(), n, p, stream), onepass::error)
        << name << " too little temp";
    std::size_t q = 0;
    // Above every entry's limit (the library's shuffle takes up to 2^63 items).
    EXPECT_THROW(e.gpu_run(nullptr, q, d_in.get(), d_out.get(), (std::size_t{1} << 63) + 1, p, stream),
                 onepass::error)
        << name << " n too large";
    // n = 0: null pointers are fine, nothing is written.
    std::size_t zero_bytes = 0;
    EXPECT_NO_THROW(e.gpu_run(nullptr, zero_bytes, nullptr, nullptr, 0, p, stream)) << name;
    EXPECT_GE(zero_bytes, 1u) << name;
    EXPECT_NO_THROW(e.gpu_run(temp.get(), bytes, nullptr, nullptr, 0, p, stream)) << name;
  }
  std::size_t bytes = 0;
  EXPECT_THROW(gpu::randperm_indices(nullptr, bytes, d_out.get(), n, 1, runner.stream(), 65), onepass::error);
  gpu::randperm_indices(nullptr, bytes, d_out.get(), n, 1, runner.stream());
  device_buffer<unsigned char> temp(bytes);
  EXPECT_THROW(gpu::randperm_indices(temp.get(), bytes, nullptr, n, 1, runner.stream()), onepass::error);
  std::size_t small = bytes - 1;
  EXPECT_THROW(gpu::randperm_indices(temp.get(), small, d_out.get(), n, 1, runner.stream()), onepass::error);
  EXPECT_THROW(gpu::random_gather_indexed(nullptr, d_in.get(), d_out.get(), n, runner.stream()), onepass::error);
  EXPECT_THROW(gpu::random_gather(d_in.get(), d_in.get(), n, 1, runner.stream()), onepass::error);
  EXPECT_THROW(gpu::fill_random_indices(nullptr, n, 1, runner.stream()), onepass::error);
  cuda_ok(cudaStreamSynchronize(runner.stream()), "sync");
}

}  // namespace
