// Shared by the tests of Onesweep's float_order option (test_onesweep_float_order*.cu,
// one executable each so that they compile in parallel): our sorts through every API
// variant, cub::DeviceRadixSort in the matching form, the CPU oracle, the comparison
// with CUB's documented single-tile exception, and the fixture (GTEST_SKIP without a
// CUDA device). What the tests check: test_onesweep_float_order.cu's file comment.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "onepass/sort/key_traits.hpp"
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"
#include "onepass/sort/onesweep.cuh"
#include "gpu_test_support.hpp"

#include "../cpu/float_order_inputs.hpp"

namespace {

namespace os = onepass::sort::gpu::onesweep;
namespace s = onepass::sort;
using onepass::baselines::stable_sort_oracle;
namespace fk = onepass::testing::float_keys;
using s::float_order;
using onepass::testing::have_gpu;

#define REQUIRE_GPU()                                                                        \
  do {                                                                                       \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: onesweep float_order GPU test skipped"; \
  } while (0)

void check_cuda(cudaError_t e, const char* what) { onepass::testing::cuda_ok(e, what); }

using onepass::testing::dev;
using onepass::testing::download;
using onepass::testing::upload;

enum class api { out_of_place, double_buffer };
/// Which onepass overload: the one without Order (the default), or Order given.
enum class variant { default_overload, total_order, signed_zero_equal };

/// A sort's output: keys, and values when the input had values.
template <class F, class V>
struct sorted {
  std::vector<F> keys;
  std::vector<V> values;
};

/// The input on the device: two key buffers (and two value buffers), buffer 1 poisoned.
template <class F, class V>
struct device_input {
  std::size_t n;
  bool pairs;
  dev k0, k1, v0, v1;
  device_input(const std::vector<F>& keys, const std::vector<V>* values)
      : n(keys.size()),
        pairs(values != nullptr),
        k0(n * sizeof(F)),
        k1(n * sizeof(F)),
        v0(pairs ? n * sizeof(V) : 0),
        v1(pairs ? n * sizeof(V) : 0) {
    upload(k0.as<F>(), keys);
    if (pairs) upload(v0.as<V>(), *values);
    if (n) check_cuda(cudaMemset(k1.p, 0xA5, n * sizeof(F)), "poison");
    if (pairs && n) check_cuda(cudaMemset(v1.p, 0xA5, n * sizeof(V)), "poison");
  }
  sorted<F, V> fetch(const F* keys, const V* values) const {
    sorted<F, V> out;
    out.keys = download(keys, n);
    if (pairs) out.values = download(values, n);
    return out;
  }
};

template <variant Var, unsigned DigitBits, class... Args>
void onepass_keys(Args&&... args) {
  if constexpr (Var == variant::default_overload) {
    os::sort_keys<DigitBits>(std::forward<Args>(args)...);
  } else if constexpr (Var == variant::total_order) {
    os::sort_keys<float_order::total_order, DigitBits>(std::forward<Args>(args)...);
  } else {
    os::sort_keys<float_order::signed_zero_equal, DigitBits>(std::forward<Args>(args)...);
  }
}
template <variant Var, unsigned DigitBits, class... Args>
void onepass_pairs(Args&&... args) {
  if constexpr (Var == variant::default_overload) {
    os::sort_pairs<DigitBits>(std::forward<Args>(args)...);
  } else if constexpr (Var == variant::total_order) {
    os::sort_pairs<float_order::total_order, DigitBits>(std::forward<Args>(args)...);
  } else {
    os::sort_pairs<float_order::signed_zero_equal, DigitBits>(std::forward<Args>(args)...);
  }
}

/// Our sort through the public API (two-phase: size query, then the sort).
template <variant Var, class F, class V, unsigned DigitBits = 8>
sorted<F, V> ours(const std::vector<F>& keys, const std::vector<V>* values, unsigned begin, unsigned end, bool desc,
                  api a) {
  device_input<F, V> in(keys, values);
  const std::size_t n = in.n;
  std::size_t bytes = 0;
  if (a == api::out_of_place) {
    auto run = [&](void* temp) {
      if (in.pairs) {
        onepass_pairs<Var, DigitBits>(temp, bytes, in.k0.template as<const F>(), in.k1.template as<F>(),
                                      in.v0.template as<const V>(), in.v1.template as<V>(), n, begin, end, desc);
      } else {
        onepass_keys<Var, DigitBits>(temp, bytes, in.k0.template as<const F>(), in.k1.template as<F>(), n, begin, end,
                                     desc);
      }
    };
    run(nullptr);
    dev temp(bytes);
    run(temp.p);
    check_cuda(cudaDeviceSynchronize(), "onepass sort (out of place)");
    const auto after = download(in.k0.template as<F>(), n);
    EXPECT_EQ(0, n ? std::memcmp(after.data(), keys.data(), n * sizeof(F)) : 0) << "input keys modified";
    return in.fetch(in.k1.template as<F>(), in.v1.template as<V>());
  }
  os::double_buffer<F> kd(in.k0.template as<F>(), in.k1.template as<F>());
  os::double_buffer<V> vd(in.v0.template as<V>(), in.v1.template as<V>());
  auto run = [&](void* temp) {
    if (in.pairs) {
      onepass_pairs<Var, DigitBits>(temp, bytes, kd, vd, n, begin, end, desc);
    } else {
      onepass_keys<Var, DigitBits>(temp, bytes, kd, n, begin, end, desc);
    }
  };
  run(nullptr);
  dev temp(bytes);
  run(temp.p);
  check_cuda(cudaDeviceSynchronize(), "onepass sort (double buffer)");
  if (in.pairs) EXPECT_EQ(kd.selector, vd.selector);
  return in.fetch(kd.current(), vd.current());
}

/// cub::DeviceRadixSort, the in/out form or the DoubleBuffer form (NumItemsT = int64_t).
template <class F, class V>
sorted<F, V> cub_sort(const std::vector<F>& keys, const std::vector<V>* values, unsigned begin, unsigned end,
                      bool desc, api a) {
  device_input<F, V> in(keys, values);
  const std::int64_t n = static_cast<std::int64_t>(in.n);
  const int b = static_cast<int>(begin), e = static_cast<int>(end);
  std::size_t bytes = 0;
  using R = cub::DeviceRadixSort;
  if (a == api::out_of_place) {
    const F* ki = in.k0.template as<const F>();
    F* ko = in.k1.template as<F>();
    const V* vi = in.v0.template as<const V>();
    V* vo = in.v1.template as<V>();
    auto run = [&](void* temp) {
      if (in.pairs) {
        return desc ? R::SortPairsDescending(temp, bytes, ki, ko, vi, vo, n, b, e)
                    : R::SortPairs(temp, bytes, ki, ko, vi, vo, n, b, e);
      }
      return desc ? R::SortKeysDescending(temp, bytes, ki, ko, n, b, e) : R::SortKeys(temp, bytes, ki, ko, n, b, e);
    };
    check_cuda(run(nullptr), "cub size query");
    dev temp(bytes);
    check_cuda(run(temp.p), "cub sort");
    check_cuda(cudaDeviceSynchronize(), "cub sort (in/out)");
    return in.fetch(ko, vo);
  }
  cub::DoubleBuffer<F> kd(in.k0.template as<F>(), in.k1.template as<F>());
  cub::DoubleBuffer<V> vd(in.v0.template as<V>(), in.v1.template as<V>());
  auto run = [&](void* temp) {
    if (in.pairs) {
      return desc ? R::SortPairsDescending(temp, bytes, kd, vd, n, b, e) : R::SortPairs(temp, bytes, kd, vd, n, b, e);
    }
    return desc ? R::SortKeysDescending(temp, bytes, kd, n, b, e) : R::SortKeys(temp, bytes, kd, n, b, e);
  };
  check_cuda(run(nullptr), "cub size query");
  dev temp(bytes);
  check_cuda(run(temp.p), "cub sort");
  check_cuda(cudaDeviceSynchronize(), "cub sort (DoubleBuffer)");
  return in.fetch(kd.Current(), vd.Current());
}

/// Expected output of a stable sort by the key field of word(key): keys and values.
template <class F, class V, class Word>
sorted<F, V> stable_by(const std::vector<F>& keys, const std::vector<V>* values, unsigned begin, unsigned end,
                       Word word) {
  const std::size_t n = keys.size();
  std::vector<fk::bits_of<F>> field(n);
  for (std::size_t i = 0; i < n; ++i) field[i] = s::key_field(word(keys[i]), begin, end);
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return field[x] < field[y]; });
  sorted<F, V> out;
  out.keys.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.keys[i] = keys[idx[i]];
  if (values) {
    out.values.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.values[i] = (*values)[idx[i]];
  }
  return out;
}

/// The CPU oracle (stable_sort_oracle<Order>, the std_stable_sort baseline's), keys or pairs.
template <float_order Order, class F, class V>
sorted<F, V> oracle(const std::vector<F>& keys, const std::vector<V>* values, unsigned begin, unsigned end,
                    bool desc) {
  sorted<F, V> out;
  out.keys.resize(keys.size());
  if (values) {
    out.values.resize(keys.size());
    stable_sort_oracle<Order>(keys.data(), out.keys.data(), values->data(), out.values.data(), keys.size(), begin,
                                 end, desc);
  } else {
    stable_sort_oracle<Order>(keys.data(), out.keys.data(), keys.size(), begin, end, desc);
  }
  return out;
}

/// Empty when a and b are equal bit for bit; else where and how they first differ.
template <class F, class V>
std::string difference(const sorted<F, V>& a, const sorted<F, V>& b) {
  if (a.keys.size() != b.keys.size()) return "key counts differ";
  for (std::size_t i = 0; i < a.keys.size(); ++i) {
    if (fk::raw_bits(a.keys[i]) != fk::raw_bits(b.keys[i])) {
      return "key " + std::to_string(i) + ": bits " + std::to_string(fk::raw_bits(a.keys[i])) + " vs " +
             std::to_string(fk::raw_bits(b.keys[i]));
    }
  }
  if (a.values.size() != b.values.size()) return "value counts differ";
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i] != b.values[i]) {
      return "value " + std::to_string(i) + ": " + std::to_string(a.values[i]) + " vs " +
             std::to_string(b.values[i]);
    }
  }
  return {};
}

/// Descending sorts on a narrowed bit range below this size may take CUB's single-tile
/// path (at most 4864 keys on sm_90 in CCCL 3.0; the margin covers other tunings).
constexpr std::size_t cub_small_path_bound = 65536;

/// Cases where CUB's single-tile path placed the zeros by +0.0's field (reported, not an error).
int cub_single_tile_cases = 0;

/// One configuration: ours (signed_zero_equal) vs CUB vs the oracle; ours (default
/// overload and total_order) vs the total-order oracle. Value = void: keys only.
template <class F, class Value>
void check_case(const std::vector<F>& keys, unsigned begin, unsigned end, bool desc, api a, const std::string& what) {
  constexpr bool pairs = !std::is_void_v<Value>;
  using V = std::conditional_t<pairs, Value, std::uint32_t>;
  const std::size_t n = keys.size();
  std::vector<V> values;
  if constexpr (pairs) {
    values.resize(n);
    // Input indices (8-byte values: with a high bit set, so that all 8 bytes must move).
    V high = 0;
    if constexpr (sizeof(V) == 8) high = V{1} << 40;
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<V>(i) + high;
  }
  const std::vector<V>* vp = pairs ? &values : nullptr;
  const unsigned width = s::radix_traits<F>::bits;
  const bool narrowed = begin != 0 || end != width;
  const std::string where = what + " n=" + std::to_string(n) + " bits [" + std::to_string(begin) + "," +
                            std::to_string(end) + ") " + (desc ? "descending" : "ascending") +
                            (a == api::out_of_place ? " out-of-place" : " double-buffer") +
                            (pairs ? (sizeof(V) == 8 ? " pairs u64" : " pairs u32") : " keys");

  // signed_zero_equal: the oracle, then CUB.
  const auto zero_equal = ours<variant::signed_zero_equal, F, V>(keys, vp, begin, end, desc, a);
  if (::testing::Test::HasFailure()) return;
  const auto expected = oracle<float_order::signed_zero_equal, F, V>(keys, vp, begin, end, desc);
  const std::string vs_oracle = difference(zero_equal, expected);
  ASSERT_TRUE(vs_oracle.empty()) << where << ": signed_zero_equal vs stable_sort_oracle: " << vs_oracle;
  const auto cub = cub_sort<F, V>(keys, vp, begin, end, desc, a);
  const std::string vs_cub = difference(zero_equal, cub);
  if (!vs_cub.empty() && desc && narrowed && n < cub_small_path_bound) {
    const auto single_tile = stable_by<F, V>(keys, vp, begin, end, [&](F k) { return fk::cub_single_tile_word(k, desc); });
    const std::string vs_model = difference(cub, single_tile);
    ASSERT_TRUE(vs_model.empty()) << where << ": CUB matches neither ours (" << vs_cub
                                  << ") nor its single-tile model (" << vs_model << ")";
    ++cub_single_tile_cases;
  } else {
    ASSERT_TRUE(vs_cub.empty()) << where << ": signed_zero_equal vs cub::DeviceRadixSort: " << vs_cub;
  }

  // The default order: the overload without Order and total_order, vs the oracle.
  const auto total_expected = oracle<float_order::total_order, F, V>(keys, vp, begin, end, desc);
  const auto by_default = ours<variant::default_overload, F, V>(keys, vp, begin, end, desc, a);
  const std::string d1 = difference(by_default, total_expected);
  ASSERT_TRUE(d1.empty()) << where << ": default overload vs stable_sort_oracle (totalOrder): " << d1;
  const auto total = ours<variant::total_order, F, V>(keys, vp, begin, end, desc, a);
  const std::string d2 = difference(total, total_expected);
  ASSERT_TRUE(d2.empty()) << where << ": total_order vs stable_sort_oracle (totalOrder): " << d2;
}

template <class F>
std::vector<std::pair<unsigned, unsigned>> narrowed_ranges() {
  constexpr unsigned w = s::radix_traits<F>::bits;
  constexpr unsigned fraction = fk::layout<F>::fraction_bits;
  return {{0, w - 1}, {8, w}, {fraction, w}, {w - 1, w}, {3, w - 5}};
}

/// Every input kind at size n: full width always; the narrowed ranges when `all_ranges`
/// (else one of them). Shapes: keys out-of-place, u32 pairs out-of-place, keys
/// double-buffer, u64 pairs double-buffer.
template <class F>
void check_size(std::size_t n, bool all_ranges, const std::vector<fk::input>& inputs) {
  constexpr unsigned w = s::radix_traits<F>::bits;
  const char* type = sizeof(F) == 4 ? "float" : "double";
  std::vector<std::pair<unsigned, unsigned>> ranges = {{0, w}};
  const auto narrowed = narrowed_ranges<F>();
  if (all_ranges) {
    ranges.insert(ranges.end(), narrowed.begin(), narrowed.end());
  } else {
    ranges.push_back(narrowed[1]);
  }
  std::uint64_t seed = 1000 + n;
  for (fk::input in : inputs) {
    const auto keys = fk::make_keys<F>(in, n, ++seed);
    const std::string what = std::string(type) + " " + fk::to_string(in);
    for (const auto& r : ranges)
      for (bool desc : {false, true}) {
        check_case<F, void>(keys, r.first, r.second, desc, api::out_of_place, what);
        check_case<F, std::uint32_t>(keys, r.first, r.second, desc, api::out_of_place, what);
        check_case<F, void>(keys, r.first, r.second, desc, api::double_buffer, what);
        check_case<F, std::uint64_t>(keys, r.first, r.second, desc, api::double_buffer, what);
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

std::vector<fk::input> every_input() { return {std::begin(fk::all_inputs), std::end(fk::all_inputs)}; }

class OnesweepFloatOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_GPU();
    cub_single_tile_cases = 0;
  }
  void TearDown() override {
    if (cub_single_tile_cases > 0) {
      std::cout << "note: in " << cub_single_tile_cases
                << " descending narrowed-range case(s) below one CUB tile, CUB's single-tile path gave the zeros "
                   "+0.0's key field (its onesweep path and ours: -0.0's); see key_traits.hpp\n";
    }
  }
};

}  // namespace
