// The GPU bijective shuffle (Bijective0/1/2, unshuffle) and the decoupled look-back
// scan it is built on. Every variant must give the CPU shuffle's permutation bit
// for bit (same bijection: seed and rounds), write every output element exactly
// once (outputs poisoned with two different byte patterns, a guard zone after the
// last element checked untouched), and be a permutation of its input. SanitizerSizes:
// every kernel once at small sizes (scripts/gpu-sanitize.sh's racecheck runs). Label
// `gpu`: skipped, and reported as skipped, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/scan/tile_state.cuh"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/gpu_shuffle.cuh"
#include "gpu_test_support.hpp"

namespace {

namespace gpu = onepass::shuffle::gpu;
namespace cpu = onepass::shuffle::cpu;
using gpu::fusion;
using onepass::bijection::lcg;
using onepass::bijection::variable_philox;

using onepass::testing::have_gpu;

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped"

// ---------------------------------------------------------------------------
// Element types of 1, 2, 4, 8 and 16 bytes (two 16-byte ones: 16-byte aligned,
// moved as one 16-byte word, and 8-byte aligned, moved as two).

struct alignas(16) pair16 {
  std::uint64_t a, b;
};
struct pair8x2 {
  std::uint64_t a, b;
};
static_assert(sizeof(pair16) == 16 && alignof(pair16) == 16);
static_assert(sizeof(pair8x2) == 16 && alignof(pair8x2) == 8);

constexpr std::uint64_t value_multiplier = 0x9E3779B97F4A7C15ull;  // odd
constexpr std::uint64_t value_offset = 0x0123456789ABCDEFull;

/// Input element i: distinct for u64 and the 16-byte types, for u32 below 2^32;
/// the small types take a mixed byte of i (many repeats, but not a pattern).
template <class T>
T make_value(std::uint64_t i) {
  const std::uint64_t v = i * value_multiplier + value_offset;
  if constexpr (sizeof(T) == 16) {
    return T{v, ~i};
  } else if constexpr (sizeof(T) == 8) {
    return static_cast<T>(v);
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(i * 0x9E3779B1u + 12345u);
  } else {
    return static_cast<T>(v >> (64 - 8 * sizeof(T)));
  }
}

template <class T>
std::vector<T> make_input(std::size_t m) {
  std::vector<T> v(m);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m, 1 << 16), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) v[i] = make_value<T>(i);
  });
  return v;
}

template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::pair<std::uint64_t, std::uint64_t> sort_key(const T& x) {
  std::uint64_t part[2] = {0, 0};
  std::memcpy(part, &x, sizeof(T));
  return {part[1], part[0]};
}

/// out is a permutation of in: both sorted (by their bytes) are equal.
template <class T>
void expect_same_multiset(const std::vector<T>& in, const std::vector<T>& out, const std::string& what) {
  ASSERT_EQ(in.size(), out.size()) << what;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> a(in.size()), b(out.size());
  std::transform(in.begin(), in.end(), a.begin(), sort_key<T>);
  std::transform(out.begin(), out.end(), b.begin(), sort_key<T>);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_TRUE(a == b) << what << ": output is not a permutation of the input";
}

/// Linear-time permutation check for u64 inputs make_value<u64>(i): recovers i from
/// each output value and marks it; every i in [0, m) exactly once.
void expect_permutation_of_indices(const std::vector<std::uint64_t>& out, const std::string& what) {
  const std::uint64_t inverse = onepass::inverse_mod_2_64(value_multiplier);
  std::vector<std::uint8_t> seen(out.size(), 0);
  std::size_t bad = 0;
  for (std::uint64_t v : out) {
    const std::uint64_t i = (v - value_offset) * inverse;
    if (i >= out.size() || seen[i]) {
      ++bad;
      continue;
    }
    seen[i] = 1;
  }
  EXPECT_EQ(bad, 0u) << what << ": values lost or duplicated";
}

/// Index of the first differing element, or size when equal.
template <class T>
std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0 || std::memcmp(a.data(), b.data(), n * sizeof(T)) == 0) return n;
  for (std::size_t i = 0; i < n; ++i)
    if (!same_bytes(a[i], b[i])) return i;
  return n;
}

// ---------------------------------------------------------------------------
// Device memory and one GPU call with poisoned output.

template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t count) : count_(count) {
    ONEPASS_CUDA_CHECK(cudaMalloc(&data_, (count == 0 ? 1 : count) * sizeof(T)));
  }
  ~device_buffer() { cudaFree(data_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

constexpr std::size_t guard_elements = 67;  // poisoned zone after the m outputs

enum class operation { shuffle, unshuffle };

/// One input on the device, shuffled (or unshuffled) as often as asked.
template <class T>
class device_case {
 public:
  explicit device_case(const std::vector<T>& in) : m_(in.size()), d_in_(in.size()), d_out_(in.size() + guard_elements) {
    if (m_ > 0) ONEPASS_CUDA_CHECK(cudaMemcpy(d_in_.get(), in.data(), m_ * sizeof(T), cudaMemcpyHostToDevice));
  }

  /// Runs the GPU shuffle (or unshuffle) with f, the output poisoned with `poison`
  /// and the temporary storage filled with 0xFF (so the init kernel must do its
  /// work); checks the guard zone after the output; returns the m outputs.
  template <class Bijection>
  std::vector<T> run(const Bijection& f, operation op, fusion variant, unsigned char poison) {
    ONEPASS_CUDA_CHECK(cudaMemset(d_out_.get(), poison, (m_ + guard_elements) * sizeof(T)));
    std::size_t temp_bytes = 0;
    call(nullptr, temp_bytes, f, op, variant);
    EXPECT_GT(temp_bytes, 0u);
    device_buffer<unsigned char> temp(temp_bytes);
    ONEPASS_CUDA_CHECK(cudaMemset(temp.get(), 0xFF, temp_bytes));
    call(temp.get(), temp_bytes, f, op, variant);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
    ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> out(m_ + guard_elements);
    ONEPASS_CUDA_CHECK(cudaMemcpy(out.data(), d_out_.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<unsigned char> guard(guard_elements * sizeof(T));
    std::memcpy(guard.data(), out.data() + m_, guard.size());
    EXPECT_TRUE(std::all_of(guard.begin(), guard.end(), [&](unsigned char c) { return c == poison; }))
        << "a write past the last output element (m = " << m_ << ")";
    out.resize(m_);
    return out;
  }

  /// Forces bijective2's structure (tiled or staged) for the forward shuffle.
  void force_path(gpu::detail::bijective2_path path) { path_ = path; }

 private:
  template <class Bijection>
  void call(void* temp, std::size_t& temp_bytes, const Bijection& f, operation op, fusion variant) {
    if (op == operation::shuffle && variant == fusion::bijective2 && path_ != gpu::detail::bijective2_path::automatic) {
      gpu::bijective_shuffle<T>(nullptr, temp_bytes, d_in_.get(), d_out_.get(), m_, f, variant);  // the size query
      if (temp != nullptr && m_ > 0)
        gpu::detail::run_bijective2<false>(temp, d_in_.get(), d_out_.get(), m_, f, cudaStream_t{}, path_);
      return;
    }
    if (op == operation::shuffle) {
      gpu::bijective_shuffle<T>(temp, temp_bytes, d_in_.get(), d_out_.get(), m_, f, variant);
    } else {
      gpu::bijective_unshuffle<T>(temp, temp_bytes, d_in_.get(), d_out_.get(), m_, f);
    }
  }

  std::size_t m_;
  device_buffer<T> d_in_;
  device_buffer<T> d_out_;
  gpu::detail::bijective2_path path_ = gpu::detail::bijective2_path::automatic;
};

/// One GPU run of `in` (see device_case::run).
template <class T, class Bijection>
std::vector<T> run_gpu(const std::vector<T>& in, const Bijection& f, operation op, fusion variant,
                       unsigned char poison) {
  device_case<T> c(in);
  return c.run(f, op, variant, poison);
}

/// CPU reference: the fused oneTBB shuffle (or unshuffle) with the same f.
template <class T, class Bijection>
std::vector<T> run_cpu(const std::vector<T>& in, const Bijection& f, operation op) {
  std::vector<T> out(in.size());
  if (op == operation::shuffle) {
    cpu::bijective_shuffle(in.data(), out.data(), in.size(), f);
  } else {
    cpu::bijective_unshuffle(in.data(), out.data(), in.size(), f);
  }
  return out;
}

std::string describe(std::size_t m, fusion variant, operation op, unsigned bits, const char* bijection,
                     unsigned rounds) {
  return std::string(op == operation::shuffle ? "shuffle " : "unshuffle ") +
         (op == operation::shuffle ? gpu::to_string(variant) : "bijective2") + " " + bijection + " b=" +
         std::to_string(bits) + " rounds=" + std::to_string(rounds) + " m=" + std::to_string(m);
}

/// Every variant listed (and the unshuffle) equals the CPU reference bit for bit.
/// Outputs are poisoned with 0xA5, and for elements under 8 bytes, whose values
/// repeat, once more with 0x5A: a slot left unwritten cannot match the CPU under
/// both. The CPU output is checked to be a permutation of the input (sorting up to
/// 2^20 elements; for u64 by a linear index check at every size).
template <class T, class Bijection>
void expect_gpu_equals_cpu(const std::vector<T>& in, const Bijection& f, const std::vector<fusion>& variants,
                           bool with_unshuffle, const char* name, unsigned rounds) {
  const std::size_t m = in.size();
  device_case<T> device(in);
  std::vector<unsigned char> poisons = {0xA5};
  if (sizeof(T) < 8) poisons.push_back(0x5A);
  for (operation op : {operation::shuffle, operation::unshuffle}) {
    if (op == operation::unshuffle && !with_unshuffle) continue;
    const std::vector<T> expected = run_cpu(in, f, op);
    const std::vector<fusion> list = op == operation::shuffle ? variants : std::vector<fusion>{fusion::bijective2};
    for (fusion variant : list) {
      const std::string what = describe(m, variant, op, f.domain_bits(), name, rounds);
      for (unsigned char poison : poisons) {
        const std::vector<T> got = device.run(f, op, variant, poison);
        const std::size_t at = first_difference(got, expected);
        ASSERT_EQ(at, m) << what << ": first difference from the CPU at output " << at;
      }
    }
    const std::string what = describe(m, fusion::bijective2, op, f.domain_bits(), name, rounds);
    if constexpr (std::is_same_v<T, std::uint64_t>) expect_permutation_of_indices(expected, what);
    if (m <= (std::size_t{1} << 20)) expect_same_multiset(in, expected, what);
  }
}

const std::vector<fusion> all_variants = {fusion::bijective0, fusion::bijective1, fusion::bijective2};

/// 0..3, around the tiles (512 below 2^22 indices, 2048 from there), 2^k - 1,
/// 2^k, 2^k + 1 for k = 2..max_k.
std::vector<std::size_t> test_sizes(unsigned max_k) {
  std::vector<std::size_t> sizes = {0, 1, 2, 3, 511, 512, 513, 1023, 1025, 2047, 2048, 2049, 4095, 4097, 100000};
  for (unsigned k = 2; k <= max_k; ++k) {
    const std::size_t p = std::size_t{1} << k;
    for (std::size_t m : {p - 1, p, p + 1}) sizes.push_back(m);
  }
  if (max_k >= 22) {
    // First sizes on the large tile (domain 2^22 and up), a few tiles past a boundary.
    for (std::size_t m : {(std::size_t{1} << 21) + 2048, (std::size_t{1} << 22) + 2047, (std::size_t{1} << 22) + 2049,
                          (std::size_t{3} << 21) + 12345})
      sizes.push_back(m);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// ---------------------------------------------------------------------------
// The look-back scan component on its own.

/// One tile per loop iteration (ids from the counter); warp 0 takes the tile's exclusive
/// prefix with warp_exclusive_prefix. Tiles with t % 61 == 7 stall before publishing, so
/// that successors meet "not ready" descriptors and spin.
template <class T>
__global__ void look_back_kernel(onepass::scan::tile_state<T> state, const T* aggregates, T* exclusive,
                                 std::uint64_t num_tiles) {
  __shared__ std::uint64_t tile_id;
  for (;;) {
    if (threadIdx.x == 0) tile_id = state.acquire_tile();
    __syncthreads();
    const std::uint64_t tile = tile_id;
    if (tile >= num_tiles) return;
    if (tile % 61 == 7) {
      const long long start = clock64();
      while (clock64() - start < 20000) {
      }
    }
    if (threadIdx.x < 32) {
      const T e = state.warp_exclusive_prefix(tile, aggregates[tile]);
      if (threadIdx.x == 0) exclusive[tile] = e;
    }
    __syncthreads();
  }
}

template <class T>
void check_look_back(std::uint64_t num_tiles, T max_value) {
  using state_t = onepass::scan::tile_state<T>;
  std::vector<T> aggregates(num_tiles);
  std::mt19937_64 g(num_tiles * 31 + sizeof(T));
  for (auto& a : aggregates) a = static_cast<T>(g() % (static_cast<std::uint64_t>(max_value) + 1));
  device_buffer<T> d_aggregates(num_tiles), d_exclusive(num_tiles);
  device_buffer<unsigned char> temp(state_t::temp_bytes(num_tiles));
  ONEPASS_CUDA_CHECK(cudaMemset(temp.get(), 0xFF, state_t::temp_bytes(num_tiles)));
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_aggregates.get(), aggregates.data(), num_tiles * sizeof(T), cudaMemcpyHostToDevice));
  const state_t state(temp.get(), num_tiles);
  for (int repeat = 0; repeat < 2; ++repeat) {  // the second run reuses the state after a new init
    ONEPASS_CUDA_CHECK(cudaMemset(d_exclusive.get(), 0xEE, num_tiles * sizeof(T)));
    state.initialize(0);
    look_back_kernel<T><<<264, 64>>>(state, d_aggregates.get(), d_exclusive.get(), num_tiles);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
    ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> exclusive(num_tiles);
    ONEPASS_CUDA_CHECK(cudaMemcpy(exclusive.data(), d_exclusive.get(), num_tiles * sizeof(T), cudaMemcpyDeviceToHost));
    std::uint64_t sum = 0;
    for (std::uint64_t t = 0; t < num_tiles; ++t) {
      const std::uint64_t expected = sizeof(T) == 8 ? (sum & onepass::scan::descriptor_value_mask) : static_cast<T>(sum);
      ASSERT_EQ(static_cast<std::uint64_t>(exclusive[t]), expected) << "tile " << t << " of " << num_tiles;
      sum += aggregates[t];
    }
  }
}

TEST(LookBackScan, WarpLookBack32And64Bit) {
  REQUIRE_GPU();
  check_look_back<std::uint32_t>(1, 1000);
  check_look_back<std::uint32_t>(100003, 4096);
  check_look_back<std::uint32_t>(20011, 0xFFFFFFFFu);  // sums wrap modulo 2^32
  check_look_back<std::uint64_t>(100003, 1ull << 40);
  check_look_back<std::uint64_t>(20011, 1ull << 60);  // sums wrap modulo 2^62
}

TEST(LookBackScan, UnwrapRecoversTheWindow) {
  using onepass::scan::unwrap_62;
  const std::uint64_t m62 = onepass::scan::descriptor_value_mask;
  EXPECT_EQ(unwrap_62(5, 0), 5u);
  EXPECT_EQ(unwrap_62(5, 3), 5u);
  EXPECT_EQ(unwrap_62(0, 1ull << 62), 1ull << 62);
  EXPECT_EQ(unwrap_62(3, (1ull << 62) - 10), (1ull << 62) + 3);
  EXPECT_EQ(unwrap_62(m62, 1ull << 62), (1ull << 62) + m62);
  static_assert(onepass::scan::pack_descriptor(onepass::scan::tile_status::aggregate, 7) == ((1ull << 62) | 7));
}

// ---------------------------------------------------------------------------
// The device form of the bijections (run here on the host: no GPU needed) equals
// the bijections for every domain the GPU shuffle accepts, unrolled 24 rounds and
// the run-time round loop, even and odd domains, strided runs of 8 inputs.

template <class Bijection>
void expect_evaluator_equals_bijection(const Bijection& f, const std::string& what) {
  const std::uint64_t mask = onepass::low_mask(f.domain_bits());
  std::mt19937_64 g(f.domain_bits());
  gpu::detail::with_evaluator(f, [&](const auto& eval) {
    for (int sample = 0; sample < 512; ++sample) {
      const std::uint64_t first = g() & mask;
      const std::uint64_t stride = sample % 3 == 0 ? 1 : (sample % 3 == 1 ? 256 : (g() & mask));
      std::uint64_t w[8];
      eval.template images<8>(first, stride, w);
      for (int k = 0; k < 8; ++k) {
        const std::uint64_t x = (first + static_cast<std::uint64_t>(k) * stride) & mask;
        ASSERT_EQ(w[k], f(x)) << what << " x " << x;
      }
    }
  });
}

TEST(GpuShuffleEvaluators, PhiloxTwinEqualsVariablePhilox) {
  for (unsigned bits = 1; bits <= 63; ++bits) {
    for (unsigned rounds : {1u, 2u, 7u, 23u, 24u, 25u, 64u}) {
      expect_evaluator_equals_bijection(variable_philox(bits, std::mt19937_64(bits * 100 + rounds), rounds),
                                        "b=" + std::to_string(bits) + " rounds=" + std::to_string(rounds));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(GpuShuffleEvaluators, LcgThroughItsOperator) {
  for (unsigned bits = 1; bits <= 63; ++bits) {
    expect_evaluator_equals_bijection(lcg(bits, std::mt19937_64(bits)), "lcg b=" + std::to_string(bits));
    if (HasFatalFailure()) return;
  }
}

// ---------------------------------------------------------------------------
// The shuffle against the CPU, uint64 over all sizes and every variant.

TEST(GpuShuffle, VariablePhiloxU64EqualsCpuAllVariants) {
  REQUIRE_GPU();
  for (std::size_t m : test_sizes(26)) {
    const auto in = make_input<std::uint64_t>(m);
    const auto f = variable_philox::for_length(m, 1000 + m);
    // Bijective0 needs 8 (n + m) bytes of temporary storage: every size here fits.
    expect_gpu_equals_cpu(in, f, all_variants, true, "VariablePhilox", 24);
    if (HasFatalFailure()) return;
  }
}

TEST(GpuShuffle, LcgU64EqualsCpuAllVariants) {
  REQUIRE_GPU();
  for (std::size_t m : test_sizes(24)) {
    const auto in = make_input<std::uint64_t>(m);
    expect_gpu_equals_cpu(in, lcg::for_length(m, 77 + m), all_variants, true, "LCG", 0);
    if (HasFatalFailure()) return;
  }
}

TEST(GpuShuffle, RunTimeRoundCounts) {
  REQUIRE_GPU();
  // Rounds other than 24 take the run-time round loop; odd and even domains, both tiles.
  for (unsigned rounds : {1u, 5u, 23u, 64u}) {
    for (std::size_t m : {std::size_t{3}, std::size_t{1000}, (std::size_t{1} << 16) + 1, (std::size_t{1} << 17) + 1,
                          (std::size_t{1} << 22) + 1, (std::size_t{1} << 23) + 1}) {
      const auto in = make_input<std::uint64_t>(m);
      expect_gpu_equals_cpu(in, variable_philox::for_length(m, rounds * 7 + m, rounds), all_variants, true,
                            "VariablePhilox", rounds);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(GpuShuffle, DomainsLargerThanTheSchedule) {
  REQUIRE_GPU();
  // Bijections built for a domain other than schedule_domain_bits(m): tiny domains
  // (b = 1..3) and domains much larger than m (most tiles flag nothing).
  for (unsigned bits = 1; bits <= 3; ++bits) {
    for (std::size_t m = 0; m <= (std::size_t{1} << bits); ++m) {
      const auto in = make_input<std::uint64_t>(m);
      expect_gpu_equals_cpu(in, variable_philox(bits, std::mt19937_64(bits * 10 + m)), all_variants, true,
                            "VariablePhilox", 24);
      expect_gpu_equals_cpu(in, lcg(bits, std::mt19937_64(bits * 10 + m)), all_variants, true, "LCG", 0);
      if (HasFatalFailure()) return;
    }
  }
  for (std::size_t m : {std::size_t{1}, std::size_t{5}, std::size_t{3000}}) {
    const auto in = make_input<std::uint64_t>(m);
    expect_gpu_equals_cpu(in, variable_philox(23, std::mt19937_64(m)), all_variants, true, "VariablePhilox", 24);
    expect_gpu_equals_cpu(in, variable_philox(24, std::mt19937_64(m), 3), all_variants, true, "VariablePhilox", 3);
    expect_gpu_equals_cpu(in, lcg(22, std::mt19937_64(m)), all_variants, true, "LCG", 0);
    if (HasFatalFailure()) return;
  }
}

// ---------------------------------------------------------------------------
// Bijective2's two structures: tiles with the decoupled look-back, and the staged
// one (every block resident, output ranks from one grid barrier).

/// An H100-like device for the plan's arithmetic (no GPU needed).
gpu::detail::staged_device h100_like() {
  gpu::detail::staged_device d;
  d.sms = 132;
  d.shared_per_sm = 233472;
  d.shared_per_block = 232448;
  d.reserved_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.cooperative = true;
  return d;
}

TEST(StagedPlan, CoversTheDomainWithResidentBlocks) {
  namespace d = gpu::detail;
  const d::staged_device dev = h100_like();
  const std::uint64_t warps = d::staged_block / 32;
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4}, std::size_t{8}, std::size_t{16}}) {
    for (unsigned bits = 1; bits <= 24; ++bits) {
      const d::staged_plan p = d::plan_staged(bits, bytes, dev, 4);
      const std::uint64_t domain = std::uint64_t{1} << bits;
      // Fits exactly when the worst case (every index flagged) fits the device's shared memory.
      if (domain * bytes <= (std::uint64_t{1} << 21) * 8) {
        EXPECT_TRUE(p.fits) << "b = " << bits << ", " << bytes << "-byte elements";
      }
      if (domain * bytes > static_cast<std::uint64_t>(dev.sms) * dev.shared_per_sm) {
        EXPECT_FALSE(p.fits) << "b = " << bits << ", " << bytes << "-byte elements";
      }
      if (!p.fits) continue;
      EXPECT_EQ(p.warp_chunk % d::staged_step, 0u);
      EXPECT_GE(static_cast<std::uint64_t>(p.blocks) * warps * p.warp_chunk, domain);
      EXPECT_LT(static_cast<std::uint64_t>(p.blocks - 1) * warps * p.warp_chunk, domain) << "an idle block";
      EXPECT_EQ(p.shared_bytes, static_cast<std::size_t>(p.warp_chunk) * warps * bytes);
      EXPECT_LE(p.shared_bytes + d::staged_static_shared, dev.shared_per_block);
      const std::uint64_t per_block = p.shared_bytes + d::staged_static_shared + dev.reserved_per_block;
      const std::uint64_t per_sm = std::min<std::uint64_t>(dev.shared_per_sm / per_block, 4);
      EXPECT_LE(p.blocks, per_sm * dev.sms) << "blocks that cannot all be resident";
      EXPECT_GE(d::staged_temp_bytes(bits), p.blocks * sizeof(std::uint32_t) + onepass::device::temp_alignment);
    }
  }
  gpu::detail::staged_device no_coop = dev;
  no_coop.cooperative = false;
  EXPECT_FALSE(d::plan_staged(10, 8, no_coop, 4).fits);
  // A kernel with fewer resident blocks per SM (more registers) gets a plan within them.
  const d::staged_plan two = d::plan_staged(21, 8, dev, 2);
  EXPECT_TRUE(two.fits);
  EXPECT_LE(two.blocks, 2u * dev.sms);
  EXPECT_FALSE(d::plan_staged(21, 8, dev, 0).fits);
}

/// Both structures of bijective2 give the CPU permutation (where the staged one fits).
template <class T>
void check_both_structures(const std::vector<std::size_t>& sizes, const char* type_name) {
  namespace d = gpu::detail;
  for (std::size_t m : sizes) {
    const auto in = make_input<T>(m);
    const auto f = variable_philox::for_length(m, 5 * m + sizeof(T));
    const std::vector<T> expected = run_cpu(in, f, operation::shuffle);
    device_case<T> c(in);
    const bool staged_fits = d::takes_staged_structure<T>(f);
    if (f.domain_bits() <= 16) {
      ASSERT_TRUE(staged_fits) << "the staged structure should fit 2^" << f.domain_bits() << " indices";
    }
    for (d::bijective2_path path : {d::bijective2_path::tiled, d::bijective2_path::staged}) {
      if (path == d::bijective2_path::staged && !staged_fits) continue;
      c.force_path(path);
      const std::vector<T> got = c.run(f, operation::shuffle, fusion::bijective2, 0xA5);
      const std::size_t at = first_difference(got, expected);
      ASSERT_EQ(at, m) << type_name << " m = " << m << (path == d::bijective2_path::staged ? " staged" : " tiled")
                       << ": first difference from the CPU at output " << at;
    }
  }
}

TEST(GpuShuffle, StagedAndTiledStructuresEqualCpu) {
  REQUIRE_GPU();
  std::vector<std::size_t> sizes = test_sizes(21);
  for (std::size_t m : {std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{8191}, std::size_t{8193},
                        (std::size_t{1} << 20) + 12345})
    sizes.push_back(m);
  check_both_structures<std::uint64_t>(sizes, "uint64");
  if (HasFatalFailure()) return;
  check_both_structures<std::uint8_t>(test_sizes(18), "uint8");
  if (HasFatalFailure()) return;
  check_both_structures<std::uint32_t>(test_sizes(22), "uint32");
  if (HasFatalFailure()) return;
  check_both_structures<pair16>(test_sizes(20), "pair16");
  if (HasFatalFailure()) return;
  check_both_structures<pair8x2>(test_sizes(20), "pair8x2");
  if (HasFatalFailure()) return;
  // The staged structure with a run-time round count and with LCG.
  for (std::size_t m : {std::size_t{5}, std::size_t{3000}, (std::size_t{1} << 18) + 1}) {
    const auto in = make_input<std::uint64_t>(m);
    expect_gpu_equals_cpu(in, variable_philox::for_length(m, m, 7), {fusion::bijective2}, false, "VariablePhilox", 7);
    expect_gpu_equals_cpu(in, lcg::for_length(m, m), {fusion::bijective2}, false, "LCG", 0);
    if (HasFatalFailure()) return;
  }
}

// ---------------------------------------------------------------------------
// Element sizes 1, 2, 4, 8, 16.

template <class T>
void check_element_type(const char* type_name) {
  for (std::size_t m : test_sizes(20)) {
    const auto in = make_input<T>(m);
    SCOPED_TRACE(type_name);
    expect_gpu_equals_cpu(in, variable_philox::for_length(m, 3 * m + sizeof(T)), all_variants, true,
                          "VariablePhilox", 24);
    if (testing::Test::HasFatalFailure()) return;
  }
  // The large tile, an odd and an even domain, and LCG once.
  for (std::size_t m : {(std::size_t{1} << 22) + 3, (std::size_t{1} << 23) - 5}) {
    const auto in = make_input<T>(m);
    SCOPED_TRACE(type_name);
    expect_gpu_equals_cpu(in, variable_philox::for_length(m, m), {fusion::bijective1, fusion::bijective2}, true,
                          "VariablePhilox", 24);
    expect_gpu_equals_cpu(in, lcg::for_length(m, m), {fusion::bijective2}, false, "LCG", 0);
    if (testing::Test::HasFatalFailure()) return;
  }
}

TEST(GpuShuffle, ElementSize1) {
  REQUIRE_GPU();
  check_element_type<std::uint8_t>("uint8");
}
TEST(GpuShuffle, ElementSize2) {
  REQUIRE_GPU();
  check_element_type<std::uint16_t>("uint16");
}
TEST(GpuShuffle, ElementSize4) {
  REQUIRE_GPU();
  check_element_type<std::uint32_t>("uint32");
}
TEST(GpuShuffle, ElementSize16Aligned16) {
  REQUIRE_GPU();
  check_element_type<pair16>("pair16");
}
TEST(GpuShuffle, ElementSize16Aligned8) {
  REQUIRE_GPU();
  check_element_type<pair8x2>("pair8x2");
}

// ---------------------------------------------------------------------------
// Unshuffle inverts the shuffle on the device.

TEST(GpuShuffle, UnshuffleInvertsEveryVariant) {
  REQUIRE_GPU();
  for (std::size_t m : {std::size_t{1}, std::size_t{17}, std::size_t{4097}, (std::size_t{1} << 21) + 1,
                        (std::size_t{1} << 24) - 1}) {
    const auto in = make_input<std::uint64_t>(m);
    const auto f = variable_philox::for_length(m, m ^ 0x55);
    for (fusion variant : all_variants) {
      const auto shuffled = run_gpu(in, f, operation::shuffle, variant, 0xA5);
      const auto back = run_gpu(shuffled, f, operation::unshuffle, fusion::bijective2, 0x5A);
      ASSERT_EQ(first_difference(back, in), m) << "unshuffle(shuffle) != identity, " << gpu::to_string(variant)
                                               << " m=" << m;
    }
  }
}

// ---------------------------------------------------------------------------
// SanitizerSizes: every kernel of the shuffle, each launched at least once, at the
// smallest inputs that reach it. scripts/gpu-sanitize.sh runs racecheck on this test
// alone: racecheck instruments every shared-memory access, and the tests above shuffle
// millions of elements (ElementSize* 2^22 and 2^23 per type, UnshuffleInvertsEveryVariant
// 2^24), more than it finishes in minutes. For elements of 1, 2, 4, 8 and 16 bytes (16:
// 16- and 8-byte aligned), each output equal to the CPU's bit for bit:
//   - Bijective0 (evaluate, gather), Bijective1 (count, scan, gather), Bijective2 (the
//     staged structure, which the forward shuffle takes where it fits) and the unshuffle
//     (tiled, small tile 256 x 2) at m = 1, 31 and 4097 (9 tiles: the look-back crosses
//     tiles), and 70001 (256 tiles) for 1- and 8-byte elements;
//   - Bijective2's tiled structure forced at m = 31 and 4097 (the pipelined kernel for
//     elements of 4 bytes and more, the one-tile kernel below);
//   - the large tile (256 x 4; domains of 2^22 indices and up): a bijection of 2^22
//     indices over m = 3000 elements (most tiles flag nothing), every variant, the tiled
//     structure forced, and the unshuffle;
//   - the other evaluators (8-byte elements, m = 4097): VariablePhilox with a run-time
//     round count (7) and LCG, every variant and the unshuffle.
// Without the sanitizer it runs in well under a second on an H100.

template <class T>
void check_sanitizer_sizes(const char* type_name, bool with_70001) {
  SCOPED_TRACE(type_name);
  std::vector<std::size_t> sizes = {1, 31, 4097};
  if (with_70001) sizes.push_back(70001);
  for (std::size_t m : sizes) {
    expect_gpu_equals_cpu(make_input<T>(m), variable_philox::for_length(m, 11 * m + sizeof(T)), all_variants, true,
                          "VariablePhilox", 24);
    if (testing::Test::HasFatalFailure()) return;
  }
  check_both_structures<T>({31, 4097}, type_name);
  if (testing::Test::HasFatalFailure()) return;
  // The large tile: a domain of 2^22 indices over a few elements.
  const std::size_t m = 3000;
  const auto in = make_input<T>(m);
  const variable_philox f(gpu::detail::large_tile_min_bits, std::mt19937_64(sizeof(T) * 31 + alignof(T)));
  expect_gpu_equals_cpu(in, f, all_variants, true, "VariablePhilox", 24);
  if (testing::Test::HasFatalFailure()) return;
  device_case<T> tiled(in);
  tiled.force_path(gpu::detail::bijective2_path::tiled);
  const std::vector<T> got = tiled.run(f, operation::shuffle, fusion::bijective2, 0xA5);
  ASSERT_EQ(first_difference(got, run_cpu(in, f, operation::shuffle)), m)
      << type_name << ": the large tile's tiled structure differs from the CPU";
}

TEST(GpuShuffle, SanitizerSizes) {
  REQUIRE_GPU();
  check_sanitizer_sizes<std::uint8_t>("uint8", true);
  check_sanitizer_sizes<std::uint16_t>("uint16", false);
  check_sanitizer_sizes<std::uint32_t>("uint32", false);
  check_sanitizer_sizes<std::uint64_t>("uint64", true);
  check_sanitizer_sizes<pair16>("pair16", false);
  check_sanitizer_sizes<pair8x2>("pair8x2", false);
  if (HasFatalFailure()) return;
  const std::size_t m = 4097;
  const auto in = make_input<std::uint64_t>(m);
  expect_gpu_equals_cpu(in, variable_philox::for_length(m, 17, 7), all_variants, true, "VariablePhilox", 7);
  expect_gpu_equals_cpu(in, lcg::for_length(m, 19), all_variants, true, "LCG", 0);
}

// ---------------------------------------------------------------------------
// Above 2^32 elements (1-byte elements, 4 GiB per buffer): 64-bit sizes and
// indices all the way through. Bijective0 is left out: it would need 8 (n + m)
// bytes (96 GiB) of temporary storage.

TEST(GpuShuffle, MoreThan2To32OneByteElements) {
  REQUIRE_GPU();
  const std::size_t m = (std::size_t{1} << 32) + 3;
  std::size_t free_bytes = 0, total_bytes = 0;
  ONEPASS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < 3 * m + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << ((3 * m) >> 30) << " GiB of free device memory, has " << (free_bytes >> 30);
  const auto f = variable_philox::for_length(m, 20261121);
  ASSERT_EQ(f.domain_bits(), 33u);
  const auto in = make_input<std::uint8_t>(m);
  const auto expected = run_cpu(in, f, operation::shuffle);

  device_buffer<std::uint8_t> d_in(m), d_out(m), d_back(m);
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), m, cudaMemcpyHostToDevice));
  std::vector<std::uint8_t> got(m);
  for (fusion variant : {fusion::bijective2, fusion::bijective1}) {
    ONEPASS_CUDA_CHECK(cudaMemset(d_out.get(), 0xA5, m));
    std::size_t temp_bytes = 0;
    gpu::bijective_shuffle(nullptr, temp_bytes, d_in.get(), d_out.get(), m, f, variant);
    device_buffer<unsigned char> temp(temp_bytes);
    gpu::bijective_shuffle(temp.get(), temp_bytes, d_in.get(), d_out.get(), m, f, variant);
    ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
    ONEPASS_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), m, cudaMemcpyDeviceToHost));
    ASSERT_EQ(first_difference(got, expected), m) << gpu::to_string(variant) << " at m = 2^32 + 3";
  }
  // Unshuffle the device output (bijective1's, equal to bijective2's) back to the input.
  {
    ONEPASS_CUDA_CHECK(cudaMemset(d_back.get(), 0x5A, m));
    std::size_t temp_bytes = 0;
    gpu::bijective_unshuffle(nullptr, temp_bytes, d_out.get(), d_back.get(), m, f);
    device_buffer<unsigned char> temp(temp_bytes);
    gpu::bijective_unshuffle(temp.get(), temp_bytes, d_out.get(), d_back.get(), m, f);
    ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
    ONEPASS_CUDA_CHECK(cudaMemcpy(got.data(), d_back.get(), m, cudaMemcpyDeviceToHost));
    ASSERT_EQ(first_difference(got, in), m) << "unshuffle at m = 2^32 + 3";
  }
}

// ---------------------------------------------------------------------------
// Streams, determinism, the registry.

TEST(GpuShuffle, RunsOnAStream) {
  REQUIRE_GPU();
  const std::size_t m = 300001;
  const auto in = make_input<std::uint64_t>(m);
  const auto f = variable_philox::for_length(m, 5);
  const auto expected = run_cpu(in, f, operation::shuffle);
  cudaStream_t stream = nullptr;
  ONEPASS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  device_buffer<std::uint64_t> d_in(m), d_out(m);
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), m * 8, cudaMemcpyHostToDevice));
  ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());  // the non-blocking stream does not wait for the legacy one
  for (fusion variant : all_variants) {
    std::size_t temp_bytes = 0;
    gpu::bijective_shuffle(nullptr, temp_bytes, d_in.get(), d_out.get(), m, f, variant, stream);
    device_buffer<unsigned char> temp(temp_bytes);
    ONEPASS_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0xA5, m * 8, stream));
    gpu::bijective_shuffle(temp.get(), temp_bytes, d_in.get(), d_out.get(), m, f, variant, stream);
    ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<std::uint64_t> got(m);
    ONEPASS_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), m * 8, cudaMemcpyDeviceToHost));
    EXPECT_EQ(first_difference(got, expected), m) << gpu::to_string(variant);
  }
  ONEPASS_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GpuShuffle, RegistryEntriesMatchTheCpuEntries) {
  REQUIRE_GPU();
  namespace reg = onepass::registry;
  const std::size_t m = 100003;
  const auto in = make_input<std::uint64_t>(m);
  device_buffer<std::uint64_t> d_in(m), d_out(m);
  ONEPASS_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), m * 8, cudaMemcpyHostToDevice));
  const std::vector<std::pair<std::string, std::string>> pairs = {{"variable_philox", "variable_philox"},
                                                                  {"variable_philox_bijective0", "variable_philox"},
                                                                  {"variable_philox_bijective1", "variable_philox"},
                                                                  {"lcg", "lcg"},
                                                                  {"walking", "walking"}};
  for (const auto& [gpu_name, cpu_name] : pairs) {
    const reg::shuffle_entry& g = reg::find_shuffle(gpu_name, reg::device::gpu);
    const reg::shuffle_entry& c = reg::find_shuffle(cpu_name, reg::device::cpu);
    EXPECT_EQ(g.where, reg::device::gpu);
    EXPECT_TRUE(g.gpu_run);
    EXPECT_FALSE(g.run);
    EXPECT_EQ(g.uses_rounds, cpu_name != "lcg") << gpu_name;
    EXPECT_EQ(g.uniform, c.uniform) << gpu_name;
    for (unsigned rounds : {24u, 10u}) {
      reg::shuffle_params params;
      params.seed = 4242;
      params.rounds = rounds;
      std::vector<std::uint64_t> expected(m);
      c.run(in.data(), expected.data(), m, params);
      std::size_t temp_bytes = 0;
      g.gpu_run(nullptr, temp_bytes, d_in.get(), d_out.get(), m, params, nullptr);
      device_buffer<unsigned char> temp(temp_bytes);
      ONEPASS_CUDA_CHECK(cudaMemset(d_out.get(), 0xA5, m * 8));
      g.gpu_run(temp.get(), temp_bytes, d_in.get(), d_out.get(), m, params, nullptr);
      ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<std::uint64_t> got(m);
      ONEPASS_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), m * 8, cudaMemcpyDeviceToHost));
      EXPECT_EQ(first_difference(got, expected), m) << gpu_name << " rounds " << rounds;
    }
  }
  EXPECT_EQ(reg::find_shuffle("variable_philox", reg::device::gpu).label, "VarPhilox");
  EXPECT_EQ(reg::find_shuffle("lcg", reg::device::gpu).label, "LCG");
  EXPECT_EQ(reg::find_shuffle("walking", reg::device::gpu).label, "Walking");
}

// ---------------------------------------------------------------------------
// Bad input: onepass::error, nothing enqueued.

TEST(GpuShuffleErrors, BadArgumentsThrow) {
  REQUIRE_GPU();
  const std::size_t m = 1000;
  const auto f = variable_philox::for_length(m, 1);
  device_buffer<std::uint64_t> d_in(m), d_out(m);
  std::size_t temp_bytes = 0;
  gpu::bijective_shuffle(nullptr, temp_bytes, d_in.get(), d_out.get(), m, f);
  ASSERT_GT(temp_bytes, 0u);
  device_buffer<unsigned char> temp(temp_bytes);
  const std::uint64_t* null_in = nullptr;
  std::uint64_t* null_out = nullptr;
  for (fusion variant : all_variants) {
    std::size_t bytes = 0;
    gpu::bijective_shuffle(nullptr, bytes, d_in.get(), d_out.get(), m, f, variant);
    device_buffer<unsigned char> t(bytes);
    EXPECT_THROW(gpu::bijective_shuffle(t.get(), bytes, null_in, d_out.get(), m, f, variant), onepass::error);
    EXPECT_THROW(gpu::bijective_shuffle(t.get(), bytes, d_in.get(), null_out, m, f, variant), onepass::error);
    // Overlap: the same buffer, and a shift by one element either way.
    EXPECT_THROW(gpu::bijective_shuffle(t.get(), bytes, d_in.get(), d_in.get(), m, f, variant), onepass::error);
    EXPECT_THROW(gpu::bijective_shuffle(t.get(), bytes, d_in.get(), d_in.get() + 1, m - 1, f, variant), onepass::error);
    EXPECT_THROW(gpu::bijective_shuffle(t.get(), bytes, d_in.get() + 1, d_in.get(), m - 1, f, variant), onepass::error);
    // Too little temporary storage.
    std::size_t short_bytes = bytes - 1;
    EXPECT_THROW(gpu::bijective_shuffle(t.get(), short_bytes, d_in.get(), d_out.get(), m, f, variant), onepass::error);
  }
  EXPECT_THROW(gpu::bijective_unshuffle(temp.get(), temp_bytes, null_in, d_out.get(), m, f), onepass::error);
  EXPECT_THROW(gpu::bijective_unshuffle(temp.get(), temp_bytes, d_in.get(), d_in.get() + 3, m - 3, f), onepass::error);
  std::size_t short_bytes = temp_bytes - 1;
  EXPECT_THROW(gpu::bijective_unshuffle(temp.get(), short_bytes, d_in.get(), d_out.get(), m, f), onepass::error);
  // A domain too small for m (in the query already), m above 2^63.
  std::size_t bytes = 0;
  EXPECT_THROW(gpu::bijective_shuffle(nullptr, bytes, d_in.get(), d_out.get(), m, lcg(9, std::mt19937_64(1))),
               onepass::error);
  EXPECT_THROW(gpu::bijective_shuffle(temp.get(), temp_bytes, d_in.get(), d_out.get(), 513,
                                      variable_philox(9, std::mt19937_64(1))),
               onepass::error);
  EXPECT_THROW(gpu::bijective_shuffle(nullptr, bytes, d_in.get(), d_out.get(), (std::size_t{1} << 63) + 1,
                                      variable_philox(63, std::mt19937_64(1))),
               onepass::error);
  // rounds < 1 (and > 64) are refused when the bijection is built.
  EXPECT_THROW(variable_philox(10, std::mt19937_64(1), 0), onepass::error);
  EXPECT_THROW(variable_philox::for_length(m, 1, 0), onepass::error);
  EXPECT_THROW(variable_philox::for_length(m, 1, 65), onepass::error);
  // m == 0 needs no pointers; a shifted but disjoint pair is fine.
  EXPECT_NO_THROW(gpu::bijective_shuffle<std::uint64_t>(temp.get(), temp_bytes, nullptr, nullptr, 0, f));
  const std::size_t half = m / 2;
  const auto g = variable_philox::for_length(half, 1);
  std::size_t half_bytes = 0;
  gpu::bijective_shuffle(nullptr, half_bytes, d_in.get(), d_in.get() + half, half, g);
  device_buffer<unsigned char> half_temp(half_bytes);
  EXPECT_NO_THROW(gpu::bijective_shuffle(half_temp.get(), half_bytes, d_in.get(), d_in.get() + half, half, g));
  ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST(GpuShuffleErrors, QueryNeedsNoPointersAndGrowsWithTheVariant) {
  REQUIRE_GPU();  // CUB's own queries (Bijective0/1) look at the device
  const std::size_t m = (std::size_t{1} << 20) + 1;
  const auto f = variable_philox::for_length(m, 1);
  std::size_t b0 = 0, b1 = 0, b2 = 0, u = 0;
  const std::uint64_t* in = nullptr;
  std::uint64_t* out = nullptr;
  gpu::bijective_shuffle(nullptr, b0, in, out, m, f, fusion::bijective0);
  gpu::bijective_shuffle(nullptr, b1, in, out, m, f, fusion::bijective1);
  gpu::bijective_shuffle(nullptr, b2, in, out, m, f, fusion::bijective2);
  gpu::bijective_unshuffle(nullptr, u, in, out, m, f);
  EXPECT_GE(b0, 8 * ((std::size_t{1} << 21) + m));  // images and selected indices
  EXPECT_GT(b1, b2);
  EXPECT_LT(b2, std::size_t{1} << 20);  // descriptors only: no n-sized buffer
  EXPECT_EQ(u, b2);
}

}  // namespace
