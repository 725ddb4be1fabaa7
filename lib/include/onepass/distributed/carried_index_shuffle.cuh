// onepass/distributed/carried_index_shuffle.cuh — the distributed bijective shuffle that carries an
// index word with each item (issue 29): the GPU form of carried_index_plan.hpp, whose file comment
// states the method and its CPU reference. Same output as distributed::shuffle with
// permutation::bijective (so gpu::bijective_shuffle of the concatenation), for every P and split;
// each rank evaluates the bijection about n_r + 2^b / P times instead of about 2^b (1 + 1/P), and
// sends 4 more bytes per item that changes rank.
//
// EXPERIMENTAL: written on 2026-11-28 without a GPU; compiled, not yet run. Its GPU test
// (tests/gpu/test_distributed_carried_index_gpu.cu) checks it against gpu::bijective_shuffle on 1-4
// ranks; until that test has passed on a GPU machine, use distributed::shuffle.
//
// Steps on rank r (file comment of carried_index_plan.hpp):
//   agreement (seed, rounds, item size; every rank's count) -> route (inverse, chunk, word) ->
//   group by chunk (CUB radix sort of the chunk ids, then a gather) -> all-gather of the P x P
//   send counts -> exchange of words and items -> walk of the own chunk (flag bitmap, prefix of
//   its word counts) -> place the received items in the chunk's window -> rebalance the windows
//   onto the input counts (plan_window_rebalance, one more exchange of contiguous pieces).
// Working memory is allocated on `stream` (cudaMallocAsync) because its size depends on what the
// other ranks send; it is freed on `stream` before the call returns. Host-synchronous at the
// agreement and at the all-gather of the counts.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/cuda_check.hpp"
#include "onepass/distributed/carried_index_plan.hpp"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"

namespace onepass::distributed {
namespace carried_detail {

/// Device memory of `count` objects of T from the stream-ordered allocator; freed on the same stream.
template <class T>
struct stream_buffer {
  T* ptr = nullptr;
  cudaStream_t stream = nullptr;
  stream_buffer(std::size_t count, cudaStream_t s) : stream(s) {
    if (count > 0) ONEPASS_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr), count * sizeof(T), s));
  }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  ~stream_buffer() {
    if (ptr) cudaFreeAsync(ptr, stream);
  }
};

/// Route: for item k of this rank (global input position first + k), the index i = f^-1(x), its
/// chunk q (the number of chunk starts c_1 .. c_{P-1} at or below i) and its word i - c_q.
__global__ void route_kernel(bijection::variable_philox f, std::uint64_t first, std::uint64_t n,
                             const std::uint64_t* __restrict__ starts, std::uint32_t num_starts,
                             std::uint32_t* __restrict__ chunk, std::uint32_t* __restrict__ word,
                             std::uint64_t* __restrict__ order) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; k < n; k += stride) {
    const std::uint64_t i = f.inverse(first + k);
    std::uint32_t lo = 0, hi = num_starts;  // first start above i
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (starts[mid] <= i) lo = mid + 1; else hi = mid;
    }
    const std::uint64_t begin = lo == 0 ? 0 : starts[lo - 1];
    chunk[k] = lo;
    word[k] = static_cast<std::uint32_t>(i - begin);
    order[k] = k;
  }
}

/// Gather into the send buffers in chunk order: send_word[m] = word[order[m]], send_item[m] = in[order[m]].
template <class T>
__global__ void gather_kernel(const std::uint64_t* __restrict__ order, const std::uint32_t* __restrict__ word,
                              const T* __restrict__ in, std::uint64_t n, std::uint32_t* __restrict__ send_word,
                              T* __restrict__ send_item) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t m = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; m < n; m += stride) {
    const std::uint64_t k = order[m];
    send_word[m] = word[k];
    send_item[m] = in[k];
  }
}

/// Send counts from the sorted chunk ids: bounds[q] = the first m with chunk[m] >= q (q = 0 .. P).
__global__ void bounds_kernel(const std::uint32_t* __restrict__ sorted_chunk, std::uint64_t n, std::uint32_t P,
                              std::uint64_t* __restrict__ bounds) {
  const std::uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q > P) return;
  std::uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (sorted_chunk[mid] < q) lo = mid + 1; else hi = mid;
  }
  bounds[q] = lo;
}

/// Walk of the own chunk [begin, begin + length): bit b of word w is set when f(begin + 32 w + b) < N;
/// counts[w] = its number of set bits.
__global__ void flag_kernel(bijection::variable_philox f, std::uint64_t N, std::uint64_t begin, std::uint64_t length,
                            std::uint32_t* __restrict__ bits, std::uint64_t* __restrict__ counts, std::uint64_t words) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t w = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; w < words; w += stride) {
    std::uint32_t v = 0;
    for (unsigned b = 0; b < 32; ++b) {
      const std::uint64_t off = 32 * w + b;
      if (off < length && f(begin + off) < N) v |= 1u << b;
    }
    bits[w] = v;
    counts[w] = static_cast<std::uint64_t>(__popc(v));
  }
}

/// Place: the item with word o lands at window[prefix[o / 32] + (flags below o in its word)].
template <class T>
__global__ void place_kernel(const std::uint32_t* __restrict__ recv_word, const T* __restrict__ recv_item,
                             std::uint64_t m, const std::uint32_t* __restrict__ bits,
                             const std::uint64_t* __restrict__ prefix, T* __restrict__ window) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; k < m; k += stride) {
    const std::uint32_t o = recv_word[k];
    const std::uint32_t below = bits[o >> 5] & ((1u << (o & 31)) - 1u);
    window[prefix[o >> 5] + static_cast<std::uint64_t>(__popc(below))] = recv_item[k];
  }
}

}  // namespace carried_detail

/// The distributed bijective shuffle with carried indices (file comment; EXPERIMENTAL, not yet run on
/// a GPU). Collective over `comm`: rank r passes its n_r = num_items items; afterwards it holds n_r
/// items of the global output, which equals gpu::bijective_shuffle (thrust's shuffle_copy) of the
/// concatenation of the ranks' inputs (rank 0's first) with
/// bijection::variable_philox::for_length(N, seed, rounds), N = sum of the n_r — the same output as
/// distributed::shuffle(..., permutation::bijective, rounds).
/// T: trivially copyable. d_in, d_out: device pointers to num_items items (not overlapping; may be
/// null when num_items is 0). seed, rounds (1 .. bijection::max_rounds): must agree on every rank.
/// Domain: every chunk of the bijection's domain 2^b must hold at most 2^32 indices (2^b / P <= 2^32,
/// so N up to 2^32 P), the words being 4 bytes. Enqueued on `stream`; host-synchronous at its two
/// all-gathers; returns with the exchanges and the placement enqueued.
/// Throws onepass::error naming d_in, d_out, rounds or num_items (on every rank when one rank's
/// arguments fail, or when seed, rounds or the item size differ between ranks); onepass::runtime_failure
/// when CUDA or NCCL fails.
/// Source: Mitchell et al. (§4, Algorithm 1), split over ranks as carried_index_plan.hpp states.
template <class T>
void shuffle_carried_index(const T* d_in, T* d_out, std::size_t num_items, std::uint64_t seed, ncclComm_t comm,
                           cudaStream_t stream, unsigned rounds = bijection::default_rounds) {
  static_assert(std::is_trivially_copyable_v<T>, "onepass::distributed::shuffle_carried_index: T must be trivially copyable");
  constexpr const char* fn = "onepass::distributed::shuffle_carried_index";
  using namespace carried_detail;
  const detail::rank_view ranks = detail::ranks_of(comm, fn);
  const auto P = static_cast<std::size_t>(ranks.size);
  const auto me = static_cast<std::size_t>(ranks.rank);
  std::string local_error;
  try {
    require(rounds >= 1 && rounds <= bijection::max_rounds, fn, "rounds",
            "must be in [1, " + std::to_string(bijection::max_rounds) + "], got " + std::to_string(rounds));
    require(num_items == 0 || d_in != nullptr, fn, "d_in", "must not be null when num_items > 0");
    require(num_items == 0 || d_out != nullptr, fn, "d_out", "must not be null when num_items > 0");
  } catch (const error& e) {
    local_error = e.what();
  }
  detail::agreement_words words;
  words.agreed = {seed, rounds, sizeof(T)};
  words.agreed_names = {"seed", "rounds", "the item size (sizeof(T))"};
  words.own = {num_items};
  stream_buffer<std::uint64_t> scratch(detail::agreement_scratch_words(ranks.size, 1 + 3 + 1), stream);
  const auto own = detail::agree(fn, local_error, words, scratch.ptr, ranks, comm, stream);
  std::vector<std::uint64_t> counts(P);
  for (std::size_t r = 0; r < P; ++r) counts[r] = own[r][0];
  const auto offsets = detail::offsets_of(counts);
  const std::uint64_t N = offsets[P];
  if (N == 0) return;
  const auto f = bijection::variable_philox::for_length(N, seed, rounds);
  const unsigned b = f.domain_bits();
  require(carried_index_bytes(b, P) == 4, fn, "num_items",
          "must sum over the ranks to at most 2^32 per rank (each chunk of the domain 2^" + std::to_string(b) +
              " must hold at most 2^32 indices for 4-byte words)");
  const std::uint64_t n = num_items;
  constexpr unsigned block = 256;

  // Route and group by chunk.
  std::vector<std::uint64_t> starts(P > 1 ? P - 1 : 0);
  for (std::size_t q = 1; q < P; ++q) starts[q - 1] = domain_chunk_begin(b, P, q);
  stream_buffer<std::uint64_t> d_starts(starts.size(), stream);
  if (!starts.empty())
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_starts.ptr, starts.data(), starts.size() * sizeof(std::uint64_t),
                                       cudaMemcpyHostToDevice, stream));
  stream_buffer<std::uint32_t> chunk(n, stream), chunk_sorted(n, stream), word(n, stream), send_word(n, stream);
  stream_buffer<std::uint64_t> order(n, stream), order_sorted(n, stream), bounds(P + 1, stream);
  stream_buffer<T> send_item(n, stream);
  if (n > 0) {
    route_kernel<<<device::stride_grid(n, block), block, 0, stream>>>(f, offsets[me], n, d_starts.ptr,
                                                          static_cast<std::uint32_t>(starts.size()), chunk.ptr,
                                                          word.ptr, order.ptr);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
    int end_bit = 1;
    while ((std::size_t{1} << end_bit) < P) ++end_bit;
    std::size_t sort_bytes = 0;
    ONEPASS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, chunk.ptr, chunk_sorted.ptr, order.ptr,
                                                       order_sorted.ptr, static_cast<std::int64_t>(n), 0, end_bit,
                                                       stream));
    stream_buffer<unsigned char> sort_temp(sort_bytes, stream);
    ONEPASS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_temp.ptr, sort_bytes, chunk.ptr, chunk_sorted.ptr,
                                                       order.ptr, order_sorted.ptr, static_cast<std::int64_t>(n), 0,
                                                       end_bit, stream));
    gather_kernel<T><<<device::stride_grid(n, block), block, 0, stream>>>(order_sorted.ptr, word.ptr, d_in, n,
                                                                          send_word.ptr, send_item.ptr);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
  }
  std::vector<std::uint64_t> send_bounds(P + 1, 0);
  if (n > 0) {
    bounds_kernel<<<static_cast<unsigned>((P + 1 + block - 1) / block), block, 0, stream>>>(
        chunk_sorted.ptr, n, static_cast<std::uint32_t>(P), bounds.ptr);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
    ONEPASS_CUDA_CHECK(cudaMemcpyAsync(send_bounds.data(), bounds.ptr, (P + 1) * sizeof(std::uint64_t),
                                       cudaMemcpyDeviceToHost, stream));
    ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::vector<std::uint64_t> send_counts(P);
  for (std::size_t q = 0; q < P; ++q) send_counts[q] = send_bounds[q + 1] - send_bounds[q];

  // All-gather the P x P send counts: what this rank receives, and every chunk's window.
  stream_buffer<std::uint64_t> count_scratch((P + 1) * P, stream);
  const auto matrix = detail::all_gather_to_host(send_counts, count_scratch.ptr, ranks.size, comm, stream, fn);
  std::vector<std::uint64_t> recv_counts(P), window_counts(P, 0);
  for (std::size_t r = 0; r < P; ++r) {
    recv_counts[r] = matrix[r * P + me];
    for (std::size_t q = 0; q < P; ++q) window_counts[q] += matrix[r * P + q];
  }
  const std::uint64_t m = window_counts[me];

  // Exchange the words and the items.
  stream_buffer<std::uint32_t> recv_word(m, stream);
  stream_buffer<T> recv_item(m, stream);
  detail::exchange({detail::exchange_array{send_word.ptr, recv_word.ptr, sizeof(std::uint32_t)},
                    detail::exchange_array{send_item.ptr, recv_item.ptr, sizeof(T)}},
                   send_counts, recv_counts, ranks, comm, stream, fn);

  // Walk the own chunk and place what arrived in its window.
  const std::uint64_t begin = domain_chunk_begin(b, P, me);
  const std::uint64_t length = domain_chunk_begin(b, P, me + 1) - begin;  // b < 64: 4-byte words (checked above)
  const std::uint64_t flag_words = (length + 31) / 32;
  stream_buffer<std::uint32_t> bits(flag_words, stream);
  stream_buffer<std::uint64_t> word_counts(flag_words, stream), prefix(flag_words, stream);
  stream_buffer<T> window(m, stream);
  if (m > 0) {
    flag_kernel<<<device::stride_grid(flag_words, block), block, 0, stream>>>(f, N, begin, length, bits.ptr,
                                                                              word_counts.ptr, flag_words);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
    std::size_t scan_bytes = 0;
    ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, word_counts.ptr, prefix.ptr,
                                                     static_cast<std::int64_t>(flag_words), stream));
    stream_buffer<unsigned char> scan_temp(scan_bytes, stream);
    ONEPASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.ptr, scan_bytes, word_counts.ptr, prefix.ptr,
                                                     static_cast<std::int64_t>(flag_words), stream));
    place_kernel<T><<<device::stride_grid(m, block), block, 0, stream>>>(recv_word.ptr, recv_item.ptr, m, bits.ptr,
                                                                         prefix.ptr, window.ptr);
    ONEPASS_CUDA_CHECK(cudaGetLastError());
  }

  // Rebalance the windows onto the input counts: contiguous pieces, no index.
  aligned_pieces pieces;
  pieces.send_first.assign(P, 0);
  pieces.send_count.assign(P, 0);
  pieces.recv_first.assign(P, 0);
  pieces.recv_count.assign(P, 0);
  for (const auto& piece : plan_window_rebalance(window_counts, counts)) {
    if (piece.source == me) {
      pieces.send_first[piece.destination] = piece.source_offset;
      pieces.send_count[piece.destination] = piece.count;
    }
    if (piece.destination == me) {
      pieces.recv_first[piece.source] = piece.destination_offset;
      pieces.recv_count[piece.source] = piece.count;
    }
  }
  detail::exchange_array rebalance{window.ptr, d_out, sizeof(T)};
  rebalance.pieces = &pieces;
  detail::exchange({rebalance}, {}, {}, ranks, comm, stream, fn);
}

}  // namespace onepass::distributed
