// onepass/sort/sort.cuh — onepass::sort::gpu: the GPU sort users call (sort_keys /
// sort_pairs). It runs onesweep (LSD, sort/onesweep.cuh, gpu::onesweep) or the hybrid MSD
// radix sort (sort/hybrid_msd.cuh, gpu::hybrid_msd) per call, whichever the rule below
// predicts to be faster, and returns which one it ran. (Issue 31 naming: the device as a
// namespace, the count num_items; the CPU sort is onepass::sort::cpu::sort_keys /
// sort_pairs, cpu_radix_sort.hpp. The old onepass::sort::sort_keys / sort_pairs /
// select_algorithm / choose_algorithm / choose_from_sample stay one release as deprecated
// forwarders at the end of this file; the rule's type and constants, gpu::algorithm,
// gpu::to_string, local_sort_max_keys, ..., are named in onepass::sort too, by
// using-declaration.)
//
// The rule has two stages (measured on an H100; see choose_algorithm):
//   1. From what the host knows — key width, value width, num_items and the bit range: inputs of
//      at most local_max = 6144 keys are sorted by one block in shared memory (the hybrid
//      sort's local finish, no global pass); above that only keys of more than 32 sorted
//      bits between 2^25 keys (2^22 with values) and hybrid_max_keys can go to the hybrid
//      sort; everything else takes onesweep.
//   2. For those candidates, from the keys: how fast MSD buckets shrink. The hybrid sort
//      beats onesweep only when its buckets fit the local finish after two 8-bit levels;
//      on skewed keys (Onesweep paper Fig. 11's bands q >= 2) they do not, and it ran at
//      0.32-0.68x onesweep. The expected size of the two-level bucket a random key falls
//      in is num_items * P(two keys share their top 16 sorted bits) (a size-biased mean); it is
//      estimated from sample_keys keys read at stratified pseudo-random positions (the
//      MSD analogue of onesweep's upfront digit histograms, without reading all keys):
//      their top-16-bit prefixes are counted on the device and the number of pairs that
//      share a prefix comes back to the host. The hybrid sort is taken when the estimate
//      is at most two_level_bucket_max. For uniform keys the estimate is about
//      num_items / 2^16, so this agrees with hybrid_max_keys.
//   Stage 2 costs a memset, one small kernel and one stream synchronisation (the kernel
//   writes the pair count to pinned host memory; microseconds beside sorts of
//   milliseconds), so a call in stage 2's range waits for the stream's earlier work and
//   cannot be captured in a CUDA graph; every other call is asynchronous.
//   choose_algorithm(key_bytes, value_bytes, num_items, bits) answers stage 1 alone without
//   touching the device.
// The experiments log the choice (sort_bench: meta.json "onepass_sort_choice").
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/cuda_check.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass/sort/hybrid_msd.cuh"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"
#include "onepass/sort/sort_args.hpp"

namespace onepass::sort::gpu {

/// The algorithm onepass::sort::gpu::sort_keys / sort_pairs ran.
enum class algorithm { onesweep, hybrid_msd };

/// "onesweep" or "hybrid_msd".
inline const char* to_string(algorithm a) { return a == algorithm::onesweep ? "onesweep" : "hybrid_msd"; }

/// Inputs of at most this many keys are sorted by the hybrid sort's single-block local
/// finish (hybrid_msd::detail::local_max = 6144): measured on an H100 (Figs. 9-11 runs,
/// 4603 and 5880 keys, every band) 1.03-4.9x onesweep, whose eight or four passes each
/// cost a launch and a look-back at this size; at 6288 keys (two levels) 0.20-0.49x.
inline constexpr std::uint64_t local_sort_max_keys = hybrid_msd::detail::local_max;

/// Largest expected two-level bucket (see the file comment) for which sort_keys takes
/// the hybrid MSD sort: local_max less about 6.5 standard deviations of a uniform bucket's
/// Poisson spread (512 keys).
inline constexpr std::uint64_t two_level_bucket_max = hybrid_msd::detail::local_max - 512;

/// Largest num_items for which sort_keys takes the hybrid MSD sort above
/// local_sort_max_keys: uniform keys are local-finished after two levels (2^16 buckets of
/// num_items / 2^16 keys each) while num_items / 2^16 <= two_level_bucket_max, i.e.
/// num_items <= 2^16 x 5632 = 369,098,752 (about
/// 2^28.46). Beyond, a third level whose scatter does not coalesce makes the hybrid sort
/// slower than onesweep (hybrid_msd.cuh, "Global passes").
inline constexpr std::uint64_t hybrid_max_keys = (std::uint64_t{1} << 16) * two_level_bucket_max;

/// Keys read by stage 2 of the rule, and the prefix width it counts.
inline constexpr unsigned sample_keys = 1u << 14;
inline constexpr unsigned sample_prefix_bits = 16;

/// Stage 1 of the rule (file comment): the algorithm sort_keys takes for num_items keys of
/// key_bytes bytes (4 or 8) with values of value_bytes bytes (0 for keys only, else 4 or
/// 8), sorted on `bits` bits (1..64), assuming uniformly distributed keys. For the
/// hybrid candidates (8-byte keys, bits > 32, 2^25 keys (2^22 with values) <= n <=
/// hybrid_max_keys) sort_keys / sort_pairs then sample the keys (stage 2) and may take
/// onesweep instead. Measured on an H100 (sort_headline, uniform keys, CUB in the same
/// run; ours in microseconds, onesweep / hybrid): 64-bit keys 1066 / 1129 at 2^24, 4170 /
/// 3749 at 2^26, 15276 / 12197 at 2^28; 64-bit pairs 202 / 284 at 2^20, 2120 / 1695 at
/// 2^24; and at 2^30 64-bit keys 0.82x, pairs 0.85x onesweep (a third level); 32-bit
/// keys 0.50-0.75x onesweep at every size above local_sort_max_keys (four onesweep passes
/// leave the MSD sort nothing to save).
inline algorithm choose_algorithm(std::size_t key_bytes, std::size_t value_bytes, std::uint64_t num_items,
                                  unsigned bits) {
  if (num_items <= local_sort_max_keys) return algorithm::hybrid_msd;
  if (key_bytes != 8 || bits <= 32 || num_items > hybrid_max_keys) return algorithm::onesweep;
  const std::uint64_t from = value_bytes == 0 ? std::uint64_t{1} << 25 : std::uint64_t{1} << 22;
  return num_items >= from ? algorithm::hybrid_msd : algorithm::onesweep;
}

/// Stage 2 of the rule: given stage 1's hybrid candidate with more than
/// local_sort_max_keys keys, the sample's count of pairs sharing a top-16-bit prefix
/// (`shared_pairs` of the sample_keys * (sample_keys - 1) / 2 pairs) decides: the
/// expected two-level bucket num_items * shared_pairs / pairs must be at most
/// two_level_bucket_max for the hybrid sort.
inline algorithm choose_from_sample(std::uint64_t num_items, std::uint64_t shared_pairs) {
  const double pairs = 0.5 * sample_keys * (sample_keys - 1.0);
  const double bucket = static_cast<double>(num_items) * static_cast<double>(shared_pairs) / pairs;
  return bucket <= static_cast<double>(two_level_bucket_max) ? algorithm::hybrid_msd : algorithm::onesweep;
}

namespace detail {

inline constexpr int sample_block = 1024;
inline constexpr std::uint32_t prefix_bins = 1u << sample_prefix_bits;

/// Bytes of stage 2's storage at the front of the caller's temporary storage: the prefix
/// counts, then the count of blocks done (zeroed together by one memset).
inline constexpr std::size_t sample_counts_bytes = prefix_bins * sizeof(std::uint32_t);
inline constexpr std::size_t sample_bytes = protocol::align_up(sample_counts_bytes + sizeof(unsigned));

/// Stage 2 in one launch: each of the sample_keys / sample_block blocks counts the
/// top-16-bit prefixes (bits [shift, shift + 16) of the ordered word) of its keys, key i
/// read at a pseudo-random position of stratum i (n / sample_keys positions each; n >=
/// sample_keys, so no position is read twice); the last block to finish sums c (c - 1) / 2
/// over the counts (the pairs of sampled keys sharing a prefix) and writes the sum to
/// `pairs` (host-mapped memory: no copy back). (A template so that the header can be
/// included by several translation units.)
template <class Key>
__global__ void __launch_bounds__(sample_block) sample_pairs_kernel(const Key* keys, std::uint64_t n, unsigned shift,
                                                                   std::uint32_t* counts, unsigned* blocks_done,
                                                                   unsigned long long* pairs) {
  __shared__ bool last;
  __shared__ unsigned long long partial[sample_block / 32];
  const std::uint32_t i = blockIdx.x * sample_block + threadIdx.x;
  const std::uint64_t stratum = n / sample_keys;
  const std::uint64_t pos = i * stratum + __umul64hi(random::mix64(i + random::golden_gamma), stratum);
  const auto word = radix_traits<Key>::to_bits(keys[pos]);
  atomicAdd(&counts[static_cast<std::uint32_t>(word >> shift) & (prefix_bins - 1)], 1u);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  unsigned long long sum = 0;
  for (std::uint32_t b = threadIdx.x; b < prefix_bins; b += sample_block) {
    const unsigned long long c = __ldcg(counts + b);
    if (c > 1) sum += c * (c - 1) / 2;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = partial[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0) {
      *reinterpret_cast<volatile unsigned long long*>(pairs) = sum;
      __threadfence_system();
    }
  }
}

/// This host thread's slot of pinned, device-mapped host memory for stage 2's result
/// (allocated on first use, freed when the thread ends).
inline unsigned long long* result_slot(unsigned long long** device_view) {
  thread_local struct slot {
    unsigned long long* host = nullptr;
    ~slot() {
      if (host) cudaFreeHost(host);
    }
  } s;
  if (s.host == nullptr)
    ONEPASS_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&s.host), sizeof(unsigned long long),
                                     cudaHostAllocMapped | cudaHostAllocPortable));
  ONEPASS_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(device_view), s.host, 0));
  return s.host;
}

/// Stage 2 on the device (a memset and one kernel enqueued on `stream`, then waited for):
/// the sample's shared pairs of keys[0, n) on bits [end_bit - 16, end_bit). `storage`:
/// sample_bytes bytes, 256-byte aligned.
template <class Key>
std::uint64_t sample_shared_pairs(const Key* keys, std::uint64_t n, unsigned end_bit, unsigned char* storage,
                                  cudaStream_t stream) {
  auto* counts = reinterpret_cast<std::uint32_t*>(storage);
  auto* blocks_done = reinterpret_cast<unsigned*>(storage + sample_counts_bytes);
  unsigned long long* device_view = nullptr;
  volatile unsigned long long* host = result_slot(&device_view);
  *host = ~0ull;
  ONEPASS_CUDA_CHECK(cudaMemsetAsync(storage, 0, sample_counts_bytes + sizeof(unsigned), stream));
  sample_pairs_kernel<Key><<<sample_keys / sample_block, sample_block, 0, stream>>>(
      keys, n, end_bit - sample_prefix_bits, counts, blocks_done, device_view);
  ONEPASS_CUDA_CHECK(cudaGetLastError());
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  return *host;
}

}  // namespace detail

/// Bytes of device storage select_algorithm may use (any alignment).
inline constexpr std::size_t sample_storage_bytes = detail::sample_bytes + protocol::temp_alignment;

/// The algorithm sort_keys / sort_pairs run on num_items keys d_keys[0, num_items) sorted on bits
/// [begin_bit, end_bit) with values of value_bytes bytes (0: keys only): stage 1 of the
/// rule (file comment), then, for the hybrid candidates above local_sort_max_keys, stage 2
/// on the keys, which enqueues a memset and one small kernel on `stream` using d_sample (device
/// storage of at least sample_storage_bytes bytes, any alignment) and waits for the
/// stream. Elsewhere nothing is enqueued and d_sample may be null. Throws onepass::error
/// naming "onepass::sort::gpu::select_algorithm" and the argument for end_bit > 8 *
/// sizeof(Key), begin_bit >= end_bit, and, where stage 2 applies, a null or misaligned
/// d_keys or a null d_sample; onepass::runtime_failure when a CUDA call fails.
template <class Key>
algorithm select_algorithm(const Key* d_keys, std::size_t num_items, std::size_t value_bytes, unsigned begin_bit,
                           unsigned end_bit, void* d_sample, cudaStream_t stream = 0) {
  constexpr const char* function = "onepass::sort::gpu::select_algorithm";
  const bit_range range = resolve_bit_range(function, radix_traits<Key>::bits, begin_bit, end_bit);
  const algorithm first = choose_algorithm(sizeof(Key), value_bytes, num_items, range.end - range.begin);
  if (first != algorithm::hybrid_msd || num_items <= local_sort_max_keys) return first;
  protocol::check_not_null(function, "d_keys", d_keys, "when num_items > 0");
  protocol::check_aligned(function, "d_keys", d_keys, alignof(Key));
  if (d_sample == nullptr)
    protocol::fail(function, "d_sample",
                   "must not be null (sample_storage_bytes = " + std::to_string(sample_storage_bytes) +
                       " bytes of device storage)");
  return choose_from_sample(num_items, detail::sample_shared_pairs(d_keys, num_items, range.end,
                                                                   protocol::aligned_start(d_sample), stream));
}

namespace detail {

/// The two-phase protocol around select_algorithm: `run(a, temp, bytes)` runs (or, with
/// temp == nullptr, sizes) algorithm a. Where stage 2 applies, the storage is the sample's
/// followed by the larger of the two algorithms' (the choice is made in the run phase).
template <class Key, class Run>
algorithm run_selected(const char* function, void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in,
                       std::size_t n, std::size_t value_bytes, unsigned begin_bit, unsigned end_bit,
                       cudaStream_t stream, Run run) {
  const bit_range range = resolve_bit_range(function, radix_traits<Key>::bits, begin_bit, end_bit);
  const algorithm first = choose_algorithm(sizeof(Key), value_bytes, n, range.end - range.begin);
  if (first != algorithm::hybrid_msd || n <= local_sort_max_keys) {
    run(first, d_temp, temp_bytes);
    return first;
  }
  std::size_t hybrid_bytes = 0, onesweep_bytes = 0;
  run(algorithm::hybrid_msd, nullptr, hybrid_bytes);
  run(algorithm::onesweep, nullptr, onesweep_bytes);
  const std::size_t required =
      sample_storage_bytes + (hybrid_bytes > onesweep_bytes ? hybrid_bytes : onesweep_bytes);
  if (protocol::answer_query(d_temp, temp_bytes, required)) return first;
  protocol::check_temp_bytes(function, temp_bytes, required);
  const algorithm a = select_algorithm(d_keys_in, n, value_bytes, begin_bit, end_bit, d_temp, stream);
  std::size_t rest_bytes = temp_bytes - sample_storage_bytes;
  run(a, static_cast<unsigned char*>(d_temp) + sample_storage_bytes, rest_bytes);
  return a;
}

}  // namespace detail

/// Sorts num_items keys on the GPU: the output of onesweep::sort_keys and
/// hybrid_msd::sort_keys (they are equal: both stable, same key order), by whichever the rule
/// (file comment, select_algorithm) picks. Arguments, accepted ranges and errors as
/// onesweep::sort_keys (sort/onesweep.cuh); the messages name
/// "onepass::sort::gpu::sort_keys" or, for a pointer checked by the algorithm run, that
/// algorithm's sort_keys. Temporary storage: CUB's two-phase protocol (d_temp == nullptr:
/// size query, nothing enqueued); where stage 2 applies the size covers the sample and the
/// larger of the two sorts, and the run phase waits for the stream once (the sample's pair
/// count). Returns the algorithm run (for a size query: stage 1's answer).
template <class Key>
algorithm sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                    std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
                    bool descending = false, cudaStream_t stream = 0) {
  return detail::run_selected(
      "onepass::sort::gpu::sort_keys", d_temp, temp_bytes, d_keys_in, num_items, 0, begin_bit, end_bit, stream,
      [&](algorithm a, void* temp, std::size_t& bytes) {
        if (a == algorithm::hybrid_msd) {
          hybrid_msd::sort_keys(temp, bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit, descending,
                                stream);
        } else {
          onesweep::sort_keys(temp, bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit, descending, stream);
        }
      });
}

/// Sorts num_items (key, value) pairs on the GPU, stable, by whichever algorithm the rule picks;
/// as onesweep::sort_pairs otherwise, and temporary storage and return value as sort_keys.
template <class Key, class Value>
algorithm sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                     const Value* d_values_in, Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0,
                     unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  return detail::run_selected(
      "onepass::sort::gpu::sort_pairs", d_temp, temp_bytes, d_keys_in, num_items, sizeof(Value), begin_bit, end_bit,
      stream, [&](algorithm a, void* temp, std::size_t& bytes) {
        if (a == algorithm::hybrid_msd) {
          hybrid_msd::sort_pairs(temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, begin_bit,
                                 end_bit, descending, stream);
        } else {
          onesweep::sort_pairs(temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, begin_bit,
                               end_bit, descending, stream);
        }
      });
}

}  // namespace onepass::sort::gpu

// ============================================================================
// Deprecated names (issue 31 naming convention: the device as a namespace, the count
// num_items), removed after one release. onepass::sort::sort_keys / sort_pairs /
// select_algorithm / choose_algorithm / choose_from_sample are now in onepass::sort::gpu;
// each forwarder calls the gpu:: function with the same arguments (same output, same
// algorithm, same errors, which name the new function). The rule's type, to_string and
// constants are the same entities in both namespaces (using-declarations: a
// using-declaration cannot carry [[deprecated]]; they go with the forwarders). Call the new
// names qualified (gpu::sort_keys); onesweep.cuh and hybrid_msd.cuh end with the old
// onepass::sort::onesweep:: and onepass::sort::hybrid_msd:: names.
namespace onepass::sort {

using gpu::algorithm;
using gpu::hybrid_max_keys;
using gpu::local_sort_max_keys;
using gpu::sample_keys;
using gpu::sample_prefix_bits;
using gpu::sample_storage_bytes;
using gpu::to_string;
using gpu::two_level_bucket_max;

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::choose_algorithm(key_bytes, value_bytes, num_items, bits).
[[deprecated("use onepass::sort::gpu::choose_algorithm")]] inline gpu::algorithm choose_algorithm(
    std::size_t key_bytes, std::size_t value_bytes, std::uint64_t num_items, unsigned bits) {
  return gpu::choose_algorithm(key_bytes, value_bytes, num_items, bits);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::choose_from_sample(num_items, shared_pairs).
[[deprecated("use onepass::sort::gpu::choose_from_sample")]] inline gpu::algorithm choose_from_sample(
    std::uint64_t num_items, std::uint64_t shared_pairs) {
  return gpu::choose_from_sample(num_items, shared_pairs);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::select_algorithm(d_keys, num_items, value_bytes, begin_bit, end_bit, d_sample, stream).
template <class Key>
[[deprecated("use onepass::sort::gpu::select_algorithm")]] gpu::algorithm select_algorithm(
    const Key* d_keys, std::size_t num_items, std::size_t value_bytes, unsigned begin_bit, unsigned end_bit,
    void* d_sample, cudaStream_t stream = 0) {
  return gpu::select_algorithm<Key>(d_keys, num_items, value_bytes, begin_bit, end_bit, d_sample, stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::sort_keys(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit,
/// descending, stream).
template <class Key>
[[deprecated("use onepass::sort::gpu::sort_keys")]] gpu::algorithm sort_keys(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t num_items,
    unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
    cudaStream_t stream = 0) {
  return gpu::sort_keys<Key>(d_temp, temp_bytes, d_keys_in, d_keys_out, num_items, begin_bit, end_bit, descending,
                             stream);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// gpu::sort_pairs(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
/// num_items, begin_bit, end_bit, descending, stream).
template <class Key, class Value>
[[deprecated("use onepass::sort::gpu::sort_pairs")]] gpu::algorithm sort_pairs(
    void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
    Value* d_values_out, std::size_t num_items, unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits,
    bool descending = false, cudaStream_t stream = 0) {
  return gpu::sort_pairs<Key, Value>(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, num_items,
                                     begin_bit, end_bit, descending, stream);
}

}  // namespace onepass::sort
