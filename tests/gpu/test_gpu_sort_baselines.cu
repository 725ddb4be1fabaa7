// Every registered GPU sort (registry::sorts(), device gpu: the library's onesweep and
// onesweep_db, the baselines cub_onesweep_n32/_n64/_db_n32/_db_n64, cub_reduce_then_scan,
// thrust_sort, vren), for every shape it registers (of registry::all_sort_shapes: keys_u32,
// pairs_u32_u32, keys_u64, pairs_u64_u64, keys_f32, keys_i64), equals the CPU oracle
// "std_stable_sort" (std::stable_sort of the transformed key field) bit for bit — keys and, for pairs, values (so pairs are
// stable) — on: sizes 0, 1, 31, 32, 33, 4097 and
// 300007 with every entropy band (key = AND of q uniform words, q = 1, 2, 3, 4, 8, 16),
// all-equal, sorted and reversed inputs, both orders, and sub-ranges of key bits (a sort
// that does not support a bit range must say so with onepass::error). Outputs are
// poisoned before the call and the inputs are checked unchanged; in-place entries
// (registry::sort_entry::in_place) get the input in the output buffer and are called with
// in == out. Float keys: the entries whose sort_entry::float_zeros_equal is set (CUB,
// thrust) are compared with the oracle in CUB's order (-0.0 == +0.0), the others in
// the total order (-0.0 < +0.0). Bad arguments throw onepass::error. Label `gpu`: skipped, and reported as skipped, without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/sort/key_traits.hpp"
#include "onepass_baselines/cpu/stable_sort_oracle.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace reg = onepass::registry;

using onepass::testing::have_gpu;

#define SKIP_WITHOUT_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped"

using onepass::testing::cuda_ok;

/// Owning device allocation of `bytes` bytes (0: none).
class device_bytes {
 public:
  explicit device_bytes(std::size_t bytes) : bytes_(bytes) {
    if (bytes) cuda_ok(cudaMalloc(&p_, bytes), "cudaMalloc");
  }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;
  ~device_bytes() {
    if (p_) cudaFree(p_);
  }
  void* get() const { return p_; }
  void upload(const std::vector<unsigned char>& h) {
    if (!h.empty()) cuda_ok(cudaMemcpy(p_, h.data(), h.size(), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> h(bytes_);
    if (bytes_) cuda_ok(cudaMemcpy(h.data(), p_, bytes_, cudaMemcpyDeviceToHost), "download");
    return h;
  }
  void poison() {
    if (bytes_) cuda_ok(cudaMemset(p_, 0xA5, bytes_), "poison");
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

std::size_t key_size(reg::sort_shape s) { return reg::key_bytes(s); }
bool has_values(reg::sort_shape s) { return reg::value_bytes(s) != 0; }

/// One input: keys as raw bytes (key_size each) and, for pairs, values 0..n-1 (in the
/// shape's value width, little endian).
struct input {
  std::string name;
  std::vector<unsigned char> keys;
  std::vector<unsigned char> values;
  std::size_t n = 0;
};

input make_input(reg::sort_shape shape, std::size_t n, const std::string& kind, unsigned q, std::uint64_t seed) {
  input in;
  in.n = n;
  in.name = kind + (kind == "band" ? " q=" + std::to_string(q) : "") + " n=" + std::to_string(n);
  const std::size_t ks = key_size(shape);
  std::mt19937_64 g(seed);
  std::vector<std::uint64_t> words(n);
  for (auto& w : words) {
    w = ~std::uint64_t{0};
    for (unsigned j = 0; j < q; ++j) w &= g();
  }
  if (kind == "equal") std::fill(words.begin(), words.end(), n ? words[0] : 0);
  if (ks == 4)
    for (auto& w : words) w &= 0xffffffffu;
  if (kind == "sorted") std::sort(words.begin(), words.end());
  if (kind == "reversed") std::sort(words.begin(), words.end(), std::greater<>());
  in.keys.resize(n * ks);
  for (std::size_t i = 0; i < n; ++i) {
    if (ks == 4) {
      const auto k = static_cast<std::uint32_t>(words[i]);
      std::memcpy(&in.keys[i * 4], &k, 4);
    } else {
      std::memcpy(&in.keys[i * 8], &words[i], 8);
    }
  }
  if (has_values(shape)) {
    const std::size_t vs = reg::value_bytes(shape);
    in.values.resize(n * vs);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t v = i;
      std::memcpy(&in.values[i * vs], &v, vs);  // little endian: the low vs bytes
    }
  }
  return in;
}

/// The CPU oracle's answer for entry e: std_stable_sort, in CUB's float order (-0.0 ==
/// +0.0) for float keys of entries with float_zeros_equal.
void oracle_run(const reg::sort_entry& e, const void* ki, void* ko, const void* vi, void* vo, std::size_t n,
                const reg::sort_params& p) {
  if (e.shape == reg::sort_shape::keys_f32 && e.float_zeros_equal) {
    onepass::baselines::stable_sort_oracle<onepass::sort::float_order::signed_zero_equal>(
        static_cast<const float*>(ki), static_cast<float*>(ko), n, p.begin_bit, p.end_bit, p.descending);
    return;
  }
  reg::find_sort("std_stable_sort", e.shape, reg::device::cpu).run(ki, ko, vi, vo, n, p);
}

/// Runs GPU sort `e` on `in` with params `p` and compares with the CPU oracle. Returns false
/// (and records nothing) when the sort rejects the params with onepass::error in its size
/// query — allowed only for bit sub-ranges (the caller decides).
bool check_against_oracle(const reg::sort_entry& e, const input& in, const reg::sort_params& p) {
  const std::string what = e.name + " " + reg::to_string(e.shape) + " " + in.name + " bits [" +
                           std::to_string(p.begin_bit) + "," + std::to_string(p.end_bit) + ") " +
                           (p.descending ? "descending" : "ascending");
  const bool pairs = has_values(e.shape);
  const std::size_t kb = in.keys.size(), vb = in.values.size();
  device_bytes keys_in(kb), keys_out(kb), values_in(vb), values_out(vb);
  keys_in.upload(in.keys);
  values_in.upload(in.values);
  keys_out.poison();
  values_out.poison();
  if (e.in_place) {  // the input goes in the output buffer; the call passes in == out
    keys_out.upload(in.keys);
    values_out.upload(in.values);
  }
  const void* ki = e.in_place ? keys_out.get() : keys_in.get();
  const void* vi = pairs ? (e.in_place ? values_out.get() : values_in.get()) : nullptr;
  void* vo = pairs ? values_out.get() : nullptr;
  std::size_t temp_bytes = 0;
  try {
    e.gpu_run(nullptr, temp_bytes, ki, keys_out.get(), vi, vo, in.n, p, nullptr);
  } catch (const onepass::error&) {
    return false;
  }
  EXPECT_GT(temp_bytes, 0u) << what << ": the size query must answer >= 1 byte";
  device_bytes temp(std::max<std::size_t>(temp_bytes, 1));
  // The uploads and the poison ran on the legacy default stream, which a non-blocking
  // stream does not wait for (cudaMemset, and cudaMemcpy from pageable memory, may return
  // before the device has them): wait here, or the sort may read the buffers early.
  cuda_ok(cudaDeviceSynchronize(), (what + ": uploads").c_str());
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  std::size_t bytes = temp_bytes;
  e.gpu_run(temp.get(), bytes, ki, keys_out.get(), vi, vo, in.n, p, stream);
  cuda_ok(cudaStreamSynchronize(stream), (what + ": sort").c_str());
  cudaStreamDestroy(stream);

  std::vector<unsigned char> expect_keys(kb), expect_values(vb);
  oracle_run(e, in.keys.data(), expect_keys.data(), pairs ? in.values.data() : nullptr,
             pairs ? expect_values.data() : nullptr, in.n, p);
  EXPECT_TRUE(keys_out.download() == expect_keys) << what << ": keys differ from std::stable_sort";
  if (pairs) EXPECT_TRUE(values_out.download() == expect_values) << what << ": values differ (not stable?)";
  EXPECT_TRUE(keys_in.download() == in.keys) << what << ": the input keys were modified";
  if (pairs) EXPECT_TRUE(values_in.download() == in.values) << what << ": the input values were modified";
  return true;
}

std::vector<reg::sort_entry> gpu_sorts() {
  std::vector<reg::sort_entry> out;
  for (const auto& e : reg::sorts())
    if (e.where == reg::device::gpu) out.push_back(e);
  return out;
}

// Every sort for every shape, except that thrust::sort and VREN declare (supports) the
// shapes of the recorded experiments only: not keys_i64.
TEST(GpuSorts, TheBaselinesAreRegisteredForEveryShape) {
  for (const char* name : {"onesweep", "onesweep_db", "cub_onesweep_n32", "cub_onesweep_n64", "cub_onesweep_db_n32",
                           "cub_onesweep_db_n64", "cub_reduce_then_scan", "thrust_sort", "vren"})
    for (auto shape : reg::all_sort_shapes) {
      const bool declared =
          shape != reg::sort_shape::keys_i64 || (std::string(name) != "thrust_sort" && std::string(name) != "vren");
      EXPECT_EQ(reg::contains_sort(name, shape, reg::device::gpu), declared) << name << " " << reg::to_string(shape);
    }
  for (auto shape : reg::all_sort_shapes) {
    EXPECT_TRUE(reg::find_sort("onesweep_db", shape).in_place);
    EXPECT_TRUE(reg::find_sort("cub_onesweep_db_n64", shape).in_place);
    if (shape != reg::sort_shape::keys_i64) EXPECT_TRUE(reg::find_sort("thrust_sort", shape).in_place);
    EXPECT_FALSE(reg::find_sort("onesweep", shape).in_place);
    EXPECT_FALSE(reg::find_sort("cub_onesweep_n32", shape).in_place);
  }
}

TEST(GpuSorts, EveryRegisteredSortEqualsStableSortOnEntropyBands) {
  SKIP_WITHOUT_GPU();
  const auto sorts = gpu_sorts();
  ASSERT_FALSE(sorts.empty());
  for (const auto& e : sorts) {
    SCOPED_TRACE(e.name + " " + reg::to_string(e.shape));
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                          std::size_t{4097}, std::size_t{300007}})
      for (unsigned q : {1u, 2u, 3u, 4u, 8u, 16u})
        for (bool desc : {false, true}) {
          if (n < 4097 && q != 1 && q != 16) continue;  // small sizes: two bands are enough
          reg::sort_params p;
          p.descending = desc;
          EXPECT_TRUE(check_against_oracle(e, make_input(e.shape, n, "band", q, 17 * n + q), p))
              << e.name << " rejected the full key range";
        }
  }
}

TEST(GpuSorts, EveryRegisteredSortHandlesSpecialInputs) {
  SKIP_WITHOUT_GPU();
  for (const auto& e : gpu_sorts()) {
    SCOPED_TRACE(e.name + " " + reg::to_string(e.shape));
    for (const char* kind : {"equal", "sorted", "reversed"})
      for (bool desc : {false, true}) {
        reg::sort_params p;
        p.descending = desc;
        EXPECT_TRUE(check_against_oracle(e, make_input(e.shape, 100003, kind, 1, 5), p));
      }
    // A large input crossing many tiles with few distinct keys (many ties: stability).
    reg::sort_params p;
    EXPECT_TRUE(check_against_oracle(e, make_input(e.shape, (1u << 21) + 5, "band", 16, 9), p));
  }
}

TEST(GpuSorts, BitRangesAreHonouredOrRefused) {
  SKIP_WITHOUT_GPU();
  for (const auto& e : gpu_sorts()) {
    SCOPED_TRACE(e.name + " " + reg::to_string(e.shape));
    const unsigned width = static_cast<unsigned>(key_size(e.shape) * 8);
    const unsigned ranges[][2] = {{0, width}, {0, 0}, {4, 12}, {3, width - 5}, {width - 1, width}, {0, 1}};
    const input in = make_input(e.shape, 50001, "band", 1, 77);
    for (const auto& r : ranges)
      for (bool desc : {false, true}) {
        reg::sort_params p;
        p.begin_bit = r[0];
        p.end_bit = r[1];
        p.descending = desc;
        const bool full = r[0] == 0 && (r[1] == 0 || r[1] == width);
        const bool ran = check_against_oracle(e, in, p);
        if (full) {
          EXPECT_TRUE(ran) << "the full key range must be supported";
        } else if (!ran) {
          std::cout << "[ note ] " << e.name << " " << reg::to_string(e.shape) << " refuses bits [" << r[0] << ","
                    << r[1] << ") with onepass::error (unsupported parameter)\n";
        }
      }
  }
}

TEST(GpuSorts, BadArgumentsThrow) {
  SKIP_WITHOUT_GPU();
  for (const auto& e : gpu_sorts()) {
    SCOPED_TRACE(e.name + " " + reg::to_string(e.shape));
    const bool pairs = has_values(e.shape);
    const std::size_t n = 1000, kb = n * key_size(e.shape), vbytes = n * reg::value_bytes(e.shape);
    device_bytes a(kb), b(kb), va(vbytes), vb(vbytes);
    reg::sort_params p;
    std::size_t temp_bytes = 0;
    e.gpu_run(nullptr, temp_bytes, a.get(), b.get(), pairs ? va.get() : nullptr, pairs ? vb.get() : nullptr, n, p,
              nullptr);
    device_bytes temp(temp_bytes);
    auto call = [&](const void* ki, void* ko, const void* vi, void* vo, std::size_t bytes, reg::sort_params q) {
      std::size_t tb = bytes;
      e.gpu_run(temp.get(), tb, ki, ko, vi, vo, n, q, nullptr);
    };
    if (e.in_place) {
      // In place: in == out; distinct pointers, null pointers and a short temp throw.
      const void* vi = pairs ? vb.get() : nullptr;
      void* vo = pairs ? vb.get() : nullptr;
      EXPECT_THROW(call(a.get(), b.get(), vi, vo, temp_bytes, p), onepass::error) << "keys_in != keys_out";
      EXPECT_THROW(call(nullptr, nullptr, vi, vo, temp_bytes, p), onepass::error) << "null keys";
      EXPECT_THROW(call(b.get(), b.get(), vi, vo, temp_bytes - 1, p), onepass::error) << "temp_bytes too small";
      if (pairs) {
        EXPECT_THROW(call(b.get(), b.get(), va.get(), vo, temp_bytes, p), onepass::error) << "values_in != values_out";
        EXPECT_THROW(call(b.get(), b.get(), nullptr, nullptr, temp_bytes, p), onepass::error) << "null values";
      }
      reg::sort_params bad;
      bad.begin_bit = 8;
      bad.end_bit = 8;
      EXPECT_THROW(call(b.get(), b.get(), vi, vo, temp_bytes, bad), onepass::error) << "begin_bit == end_bit";
      bad.begin_bit = 0;
      bad.end_bit = static_cast<unsigned>(key_size(e.shape) * 8 + 1);
      EXPECT_THROW(call(b.get(), b.get(), vi, vo, temp_bytes, bad), onepass::error) << "end_bit beyond the key";
      cuda_ok(cudaDeviceSynchronize(), "after the bad calls");
      continue;
    }
    const void* vi = pairs ? va.get() : nullptr;
    void* vo = pairs ? vb.get() : nullptr;
    EXPECT_THROW(call(nullptr, b.get(), vi, vo, temp_bytes, p), onepass::error) << "null keys_in";
    EXPECT_THROW(call(a.get(), nullptr, vi, vo, temp_bytes, p), onepass::error) << "null keys_out";
    EXPECT_THROW(call(a.get(), a.get(), vi, vo, temp_bytes, p), onepass::error) << "keys_out == keys_in";
    EXPECT_THROW(call(a.get(), b.get(), vi, vo, temp_bytes - 1, p), onepass::error) << "temp_bytes too small";
    if (pairs) {
      EXPECT_THROW(call(a.get(), b.get(), nullptr, vo, temp_bytes, p), onepass::error) << "null values_in";
      EXPECT_THROW(call(a.get(), b.get(), vi, nullptr, temp_bytes, p), onepass::error) << "null values_out";
    }
    reg::sort_params bad;
    bad.begin_bit = 8;
    bad.end_bit = 8;
    EXPECT_THROW(call(a.get(), b.get(), vi, vo, temp_bytes, bad), onepass::error) << "begin_bit == end_bit";
    bad.begin_bit = 0;
    bad.end_bit = static_cast<unsigned>(key_size(e.shape) * 8 + 1);
    EXPECT_THROW(call(a.get(), b.get(), vi, vo, temp_bytes, bad), onepass::error) << "end_bit beyond the key";
    cuda_ok(cudaDeviceSynchronize(), "after the bad calls");
  }
}

}  // namespace
