// baselines/gpu/randperm.cu — "randperm+gather": the shuffle a PyTorch user gets from
// x[torch.randperm(n, device="cuda")] (aten/src/ATen/native/cuda/Randperm.cu), rebuilt on
// CUB with onepass's counter-based generator:
// 1. random keys and the values 0..n-1 (one kernel); PyTorch's key width: 32-bit keys when
//    randperm_key_bits(n) <= 32 (n up to about 2^14.9), else 64-bit, sorted on the low
//    randperm_key_bits(n) bits only (fewer radix passes at small n);
// 2. cub::DeviceRadixSort::SortPairs (key, index) — stable;
// 3. the tie fix: a kernel finds every maximal run of equal keys ("island"; they occur with
//    probability about 0.1 by the choice of key bits) and the thread at its first position
//    shuffles the island's indices by Fisher–Yates with exactly uniform draws (PyTorch uses
//    curand() % (i + 1), slightly biased; we do not copy that);
// 4. the gather out[i] = in[perm[i]] (random_gather_indexed, gather.cu).
// Sorting on distinct keys gives a uniform order; tied keys leave their elements in index
// order, and step 3 replaces that order by an independent uniform one, so the result is
// exactly uniform (given uniform keys). Deterministic for a seed.
// Temporary storage: keys and sorted keys (2 x 4n or 2 x 8n), the values 0..n-1 (8n), the
// permutation (8n) and CUB's (about keys + values again).
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/gpu/gpu_baseline_common.cuh"
#include "onepass_baselines/gpu/random_gather.cuh"
#include "onepass_baselines/gpu/randperm.cuh"

namespace onepass::baselines::gpu {
namespace {

constexpr unsigned block_threads = 256;

/// Streams of the randperm domain: keys use stream 0, island shuffles stream 1.
random::counter_hash key_hash(std::uint64_t seed) {
  return random::counter_hash(random::counter_hash(seed, randperm_domain).key(), 0);
}
random::counter_hash island_hash(std::uint64_t seed) {
  return random::counter_hash(random::counter_hash(seed, randperm_domain).key(), 1);
}

/// keys[i] = (Key) h(i), values[i] = i.
template <class Key>
__global__ void __launch_bounds__(block_threads)
    keys_and_indices_kernel(Key* __restrict__ keys, std::uint64_t* __restrict__ values, std::uint64_t n,
                            random::counter_hash hash) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = static_cast<Key>(hash(i));
    values[i] = i;
  }
}

/// Shuffles each maximal run of equal (masked) keys of the sorted keys[0, n) in perm,
/// uniformly and independently; the thread at a run's first position does that run.
template <class Key>
__global__ void __launch_bounds__(block_threads)
    fix_ties_kernel(const Key* __restrict__ keys, std::uint64_t* __restrict__ perm, std::uint64_t n, Key mask,
                    random::counter_hash islands) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i + 1 < n; i += stride) {
    const Key k = keys[i] & mask;
    if ((keys[i + 1] & mask) != k) continue;             // not in an island
    if (i > 0 && (keys[i - 1] & mask) == k) continue;    // not the island's first position
    std::uint64_t length = 2;
    while (i + length < n && (keys[i + length] & mask) == k) ++length;
    random::counter_stream rng(islands.substream(i));
    std::uint64_t* a = perm + i;
    for (std::uint64_t j = length - 1; j > 0; --j) {  // Durstenfeld: a[j] <-> a[r], r uniform in [0, j]
      const std::uint64_t r = rng.uniform_below(j + 1);
      const std::uint64_t t = a[j];
      a[j] = a[r];
      a[r] = t;
    }
  }
}

/// cub::DeviceRadixSort::SortPairs on bits [0, end_bit), 32-bit offsets when n fits.
template <class Key>
cudaError_t sort_pairs(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out,
                       const std::uint64_t* values_in, std::uint64_t* values_out, std::size_t n, int end_bit,
                       cudaStream_t stream) {
  using value_t = unsigned long long;
  const auto* vi = reinterpret_cast<const value_t*>(values_in);
  auto* vo = reinterpret_cast<value_t*>(values_out);
  if (n <= std::numeric_limits<std::uint32_t>::max())
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vi, vo, static_cast<std::uint32_t>(n), 0,
                                           end_bit, stream);
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vi, vo, static_cast<std::uint64_t>(n), 0,
                                         end_bit, stream);
}

/// Regions of randperm_indices inside a temp_layout (which may hold more regions).
struct randperm_plan {
  int bits = 1;
  bool wide = false;  // 64-bit keys
  std::size_t keys = 0, sorted_keys = 0, values = 0, cub = 0, cub_bytes = 0;
};

randperm_plan plan_randperm(temp_layout& layout, std::size_t n, int key_bits, cudaStream_t stream) {
  randperm_plan p;
  if (n == 0) return p;
  p.bits = key_bits != 0 ? key_bits : randperm_key_bits(n);
  p.wide = p.bits > 32;
  const std::size_t key_bytes = p.wide ? sizeof(std::uint64_t) : sizeof(std::uint32_t);
  p.keys = layout.add(n * key_bytes);
  p.sorted_keys = layout.add(n * key_bytes);
  p.values = layout.add(n * sizeof(std::uint64_t));
  if (p.wide) {
    ONEPASS_CUDA_CHECK(sort_pairs<unsigned long long>(nullptr, p.cub_bytes, nullptr, nullptr, nullptr,
                                                               nullptr, n, p.bits, stream));
  } else {
    ONEPASS_CUDA_CHECK(
        sort_pairs<unsigned int>(nullptr, p.cub_bytes, nullptr, nullptr, nullptr, nullptr, n, p.bits, stream));
  }
  p.cub = layout.add(p.cub_bytes);
  return p;
}

template <class Key>
void enqueue_randperm(const randperm_plan& p, void* temp, std::uint64_t* perm, std::size_t n, std::uint64_t seed,
                      cudaStream_t stream) {
  Key* keys = temp_layout::at<Key>(temp, p.keys);
  Key* sorted = temp_layout::at<Key>(temp, p.sorted_keys);
  auto* values = temp_layout::at<std::uint64_t>(temp, p.values);
  const unsigned grid = grid_blocks(n, block_threads);
  keys_and_indices_kernel<Key><<<grid, block_threads, 0, stream>>>(keys, values, n, key_hash(seed));
  ONEPASS_CUDA_CHECK_LAUNCH();
  std::size_t cub_bytes = p.cub_bytes;
  ONEPASS_CUDA_CHECK(sort_pairs<Key>(temp_layout::at<void>(temp, p.cub), cub_bytes, keys, sorted, values,
                                              perm, n, p.bits, stream));
  const Key mask = p.bits >= static_cast<int>(8 * sizeof(Key)) ? static_cast<Key>(~Key{0})
                                                                : static_cast<Key>((Key{1} << p.bits) - 1);
  fix_ties_kernel<Key><<<grid, block_threads, 0, stream>>>(sorted, perm, n, mask, island_hash(seed));
  ONEPASS_CUDA_CHECK_LAUNCH();
}

void enqueue_randperm(const randperm_plan& p, void* temp, std::uint64_t* perm, std::size_t n, std::uint64_t seed,
                      cudaStream_t stream) {
  if (n == 0) return;
  if (p.wide) {
    enqueue_randperm<unsigned long long>(p, temp, perm, n, seed, stream);
  } else {
    enqueue_randperm<unsigned int>(p, temp, perm, n, seed, stream);
  }
}

void check_key_bits(const char* fn, int key_bits) {
  require(key_bits >= 0 && key_bits <= 64, fn, "key_bits",
          "must be in [1, 64], or 0 for PyTorch's choice, got " + std::to_string(key_bits));
}

}  // namespace

int randperm_key_bits(std::size_t n) {
  require(n >= 1, "randperm_key_bits", "n", "must be at least 1");
  const double nd = static_cast<double>(n);
  const double log_threshold_12 = std::log(0.9) * 12;
  const double bits = std::ceil(std::log2(nd - (6 * nd * nd + 1) / log_threshold_12));
  return bits >= 64 ? 64 : (bits < 1 ? 1 : static_cast<int>(bits));
}

void randperm_indices(void* temp, std::size_t& temp_bytes, std::uint64_t* d_perm, std::size_t n, std::uint64_t seed,
                      cudaStream_t stream, int key_bits) {
  const char* fn = "randperm_indices";
  check_length(fn, n);
  check_key_bits(fn, key_bits);
  temp_layout layout;
  const randperm_plan p = plan_randperm(layout, n, key_bits, stream);
  if (protocol::answer_query(temp, temp_bytes, layout.total())) return;
  if (n > 0) protocol::check_not_null(fn, "d_perm", d_perm, "when n > 0");
  protocol::check_temp_bytes(fn, temp_bytes, layout.total(), "n", n);
  enqueue_randperm(p, temp, d_perm, n, seed, stream);
}

void fill_random_permutation(void* temp, std::size_t& temp_bytes, std::uint64_t* d_idx, std::size_t n,
                             std::uint64_t seed, cudaStream_t stream) {
  randperm_indices(temp, temp_bytes, d_idx, n, seed, stream, 0);
}

namespace {

/// randperm + gather of d_in[0, n) into d_out[0, n); two-phase temporary storage.
void randperm_gpu_run(void* temp, std::size_t& temp_bytes, const std::uint64_t* d_in, std::uint64_t* d_out,
                      std::size_t n, const registry::shuffle_params& params, void* stream_handle) {
  const char* fn = "randperm (gpu)";
  check_length(fn, n);
  const cudaStream_t stream = as_stream(stream_handle);
  temp_layout layout;
  const std::size_t perm_offset = layout.add(n * sizeof(std::uint64_t));
  const randperm_plan p = plan_randperm(layout, n, 0, stream);
  if (size_query(fn, temp, temp_bytes, layout.total(), d_in, d_out, n)) return;
  if (n == 0) return;
  auto* perm = temp_layout::at<std::uint64_t>(temp, perm_offset);
  enqueue_randperm(p, temp, perm, n, params.seed, stream);
  random_gather_indexed(perm, d_in, d_out, n, stream);
}

const registry::registrar randperm_gpu_registration{[] {
  registry::shuffle_entry e{"randperm", registry::device::gpu};
  e.label = "randperm+gather";
  e.description =
      "x[torch.randperm(n)] as PyTorch does it: random keys, cub::DeviceRadixSort::SortPairs (key, index), shuffle "
      "runs of tied keys, then gather in[perm[i]], CUDA";
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  e.gpu_run = randperm_gpu_run;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines::gpu
