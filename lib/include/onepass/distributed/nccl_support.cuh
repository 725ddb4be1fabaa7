// onepass/distributed/nccl_support.cuh — what the distributed calls (distributed/sort.cuh,
// distributed/shuffle.cuh) share on top of NCCL: error checks, the rank and size of the
// caller's communicator, the agreement step (every rank's arguments all-gathered in one
// small collective, so that a rank whose arguments were rejected, or ranks that disagree,
// make every rank throw instead of leaving the others waiting in a collective), all-gathers
// of small count arrays, and the grouped send/receive exchange.
//
// The caller owns the communicator (ncclComm_t, one rank per GPU, any way of creating it:
// MPI, torchrun's store, a file) and the stream. Every call here is enqueued on that stream;
// the ones that return host data wait for it.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "onepass/cuda_check.hpp"
#include "onepass/distributed/exchange_plan.hpp"
#include "onepass/distributed/prefix.hpp"
#include "onepass/error.hpp"

namespace onepass::distributed {

namespace detail {

/// Throws onepass::runtime_failure "<function>: <call> failed: <ncclGetErrorString>" unless
/// `result` is ncclSuccess.
inline void check_nccl(ncclResult_t result, const char* function, const char* call) {
  if (result == ncclSuccess) return;
  std::string message = std::string(function) + ": " + call + " failed: " + ncclGetErrorString(result);
  throw runtime_failure(message);
}

/// Rank and size of a communicator.
struct rank_view {
  int rank = 0;
  int size = 1;
};

/// The caller's rank and the number of ranks of `comm`. Throws onepass::error naming comm
/// when it is null; onepass::runtime_failure when NCCL fails.
inline rank_view ranks_of(ncclComm_t comm, const char* function) {
  require(comm != nullptr, function, "comm", "must be an initialised NCCL communicator, got null");
  rank_view v;
  check_nccl(ncclCommUserRank(comm, &v.rank), function, "ncclCommUserRank");
  check_nccl(ncclCommCount(comm, &v.size), function, "ncclCommCount");
  return v;
}

/// ncclAllGather of `count` 64-bit words per rank from d_own into d_all ([P * count], rank
/// order), enqueued on `stream`.
inline void all_gather_words(const std::uint64_t* d_own, std::uint64_t* d_all, std::size_t count, ncclComm_t comm,
                             cudaStream_t stream, const char* function) {
  check_nccl(ncclAllGather(d_own, d_all, count, ncclUint64, comm, stream), function, "ncclAllGather");
}

/// All-gathers `words` (the same number on every rank) through the device scratch d_scratch
/// ((P + 1) * words.size() 64-bit words) and returns the P * words.size() words on the host,
/// rank order. Waits for the stream.
inline std::vector<std::uint64_t> all_gather_to_host(const std::vector<std::uint64_t>& words,
                                                     std::uint64_t* d_scratch, int num_ranks, ncclComm_t comm,
                                                     cudaStream_t stream, const char* function) {
  const std::size_t w = words.size();
  std::vector<std::uint64_t> all(w * static_cast<std::size_t>(num_ranks));
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(d_scratch, words.data(), w * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream));
  all_gather_words(d_scratch, d_scratch + w, w, comm, stream, function);
  ONEPASS_CUDA_CHECK(cudaMemcpyAsync(all.data(), d_scratch + w, all.size() * sizeof(std::uint64_t),
                                     cudaMemcpyDeviceToHost, stream));
  ONEPASS_CUDA_CHECK(cudaStreamSynchronize(stream));
  return all;
}

/// The words every rank contributes to the agreement step: word 0 is the status (0: this
/// rank's arguments passed its checks; 1: they were rejected), then the call's arguments
/// that must agree (`agreed`, with their names) and the per-rank ones (`own`, e.g. the item
/// count). Number of words: 1 + agreed.size() + own.size(), the same on every rank.
struct agreement_words {
  std::vector<std::uint64_t> agreed;
  std::vector<const char*> agreed_names;
  std::vector<std::uint64_t> own;
};

/// Scratch words of the agreement step for P ranks and a record of `record_words` words.
inline std::size_t agreement_scratch_words(int num_ranks, std::size_t record_words) {
  return (static_cast<std::size_t>(num_ranks) + 1) * record_words;
}

/// The agreement step: every rank all-gathers its record (status, agreed arguments, own
/// words). If this rank's checks failed (`local_error` non-empty) it throws onepass::error
/// with that message after the collective; if another rank's failed, or an agreed argument
/// differs between ranks, every rank throws onepass::error naming it. Returns the records
/// [P][own.size()] of the own words. d_scratch: agreement_scratch_words() words of device
/// memory. Waits for the stream.
inline std::vector<std::vector<std::uint64_t>> agree(const char* function, const std::string& local_error,
                                                     const agreement_words& words, std::uint64_t* d_scratch,
                                                     rank_view ranks, ncclComm_t comm, cudaStream_t stream) {
  std::vector<std::uint64_t> record;
  record.push_back(local_error.empty() ? 0 : 1);
  record.insert(record.end(), words.agreed.begin(), words.agreed.end());
  record.insert(record.end(), words.own.begin(), words.own.end());
  const std::size_t w = record.size();
  const auto all = all_gather_to_host(record, d_scratch, ranks.size, comm, stream, function);
  if (!local_error.empty()) throw error(local_error);
  for (int r = 0; r < ranks.size; ++r)
    if (all[r * w] != 0)
      throw error(std::string(function) + ": rank " + std::to_string(r) + " of " + std::to_string(ranks.size) +
                  " rejected its arguments (its error says which); no rank ran the call");
  for (std::size_t k = 0; k < words.agreed.size(); ++k)
    for (int r = 0; r < ranks.size; ++r)
      if (all[r * w + 1 + k] != words.agreed[k])
        throw error(std::string(function) + ": " + words.agreed_names[k] +
                    " must be the same on every rank: rank " + std::to_string(ranks.rank) + " has " +
                    std::to_string(words.agreed[k]) + ", rank " + std::to_string(r) + " has " +
                    std::to_string(all[r * w + 1 + k]));
  std::vector<std::vector<std::uint64_t>> own(ranks.size);
  const std::size_t first = 1 + words.agreed.size();
  for (int r = 0; r < ranks.size; ++r)
    own[r].assign(all.begin() + r * w + first, all.begin() + (r + 1) * w);
  return own;
}

/// The exclusive prefix of `counts` (size counts.size() + 1).
inline std::vector<std::uint64_t> offsets_of(const std::vector<std::uint64_t>& counts) {
  return exclusive_prefix(counts, "onepass::distributed", "counts");
}

/// One array taking part in an exchange: items of item_bytes bytes sent from `send` (grouped
/// by destination) and received into `recv` (grouped by source). pieces (optional): where each
/// piece starts and how many items it has on both sides (exchange_plan.hpp's
/// plan_aligned_pieces), instead of the counts given to exchange() packed in order.
struct exchange_array {
  const void* send;
  void* recv;
  std::size_t item_bytes;
  const aligned_pieces* pieces = nullptr;
};

/// One exchange: this rank sends send_counts[q] items of every array from its send buffer
/// (at the item offset send_offsets[q], destinations in order) to rank q and receives
/// recv_counts[r] items from rank r into the receive buffer (at recv_offsets[r], sources in
/// order), all arrays in one ncclGroupStart/ncclGroupEnd of ncclSend/ncclRecv on `stream` (so
/// NCCL moves the keys and the values of a sort together); this rank's own part is a
/// cudaMemcpyAsync on a side stream forked from and joined back to `stream` (copy_own: false —
/// left where it is in the send buffer, for a caller that reads it from there). Counts of every
/// size (bytes as ncclUint8, 64-bit counts). An array with `pieces` uses its own first items and
/// counts instead (send_counts / recv_counts may then be empty when every array has them).
/// Enqueued, not waited for.
inline void exchange(const std::vector<exchange_array>& arrays, const std::vector<std::uint64_t>& send_counts,
                     const std::vector<std::uint64_t>& recv_counts, rank_view ranks, ncclComm_t comm,
                     cudaStream_t stream, const char* function, bool copy_own = true) {
  const auto packed_so = offsets_of(send_counts);
  const auto packed_ro = offsets_of(recv_counts);
  // Per array: the first item and the count of every piece, sent and received.
  struct layout {
    const std::vector<std::uint64_t>&so, &sc, &ro, &rc;
  };
  const auto layout_of = [&](const exchange_array& a) {
    return a.pieces ? layout{a.pieces->send_first, a.pieces->send_count, a.pieces->recv_first, a.pieces->recv_count}
                    : layout{packed_so, send_counts, packed_ro, recv_counts};
  };
  const int me = ranks.rank;
  // This rank's own part: copied on a side stream forked from `stream` (and joined back after
  // the group), so that it overlaps NCCL's transfers instead of preceding them.
  cudaStream_t side = stream;
  cudaEvent_t fork = nullptr, join = nullptr;
  bool copy = false;
  for (const auto& a : arrays) copy = copy || (copy_own && layout_of(a).sc[me] > 0);
  if (copy && ranks.size > 1) {
    ONEPASS_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    ONEPASS_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    ONEPASS_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    ONEPASS_CUDA_CHECK(cudaEventRecord(fork, stream));
    ONEPASS_CUDA_CHECK(cudaStreamWaitEvent(side, fork, 0));
  }
  for (const auto& a : arrays) {
    const layout l = layout_of(a);
    if (copy && l.sc[me] > 0)
      ONEPASS_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(a.recv) + l.ro[me] * a.item_bytes,
                                         static_cast<const unsigned char*>(a.send) + l.so[me] * a.item_bytes,
                                         l.sc[me] * a.item_bytes, cudaMemcpyDeviceToDevice, side));
  }
  if (side != stream) {
    ONEPASS_CUDA_CHECK(cudaEventRecord(join, side));
    // Released once their work is done (CUDA defers the destruction of busy streams and events).
    ONEPASS_CUDA_CHECK(cudaStreamDestroy(side));
    ONEPASS_CUDA_CHECK(cudaEventDestroy(fork));
  }
  struct join_back {  // the stream waits for the side copy however the group ends
    cudaStream_t stream;
    cudaEvent_t join;
    ~join_back() {
      if (join) {
        cudaStreamWaitEvent(stream, join, 0);
        cudaEventDestroy(join);
      }
    }
  } joined{stream, join};
  if (ranks.size == 1) return;
  check_nccl(ncclGroupStart(), function, "ncclGroupStart");
  for (int step = 1; step < ranks.size; ++step) {
    // Pair ranks so that every step is a permutation (rank me sends to me + step, receives
    // from me - step): NCCL runs the whole group at once, the order only spreads the load.
    const int to = (me + step) % ranks.size;
    const int from = (me - step + ranks.size) % ranks.size;
    for (const auto& a : arrays) {
      const layout l = layout_of(a);
      const auto* send = static_cast<const unsigned char*>(a.send);
      auto* recv = static_cast<unsigned char*>(a.recv);
      if (l.sc[to] > 0)
        check_nccl(ncclSend(send + l.so[to] * a.item_bytes, l.sc[to] * a.item_bytes, ncclUint8, to, comm, stream),
                   function, "ncclSend");
      if (l.rc[from] > 0)
        check_nccl(ncclRecv(recv + l.ro[from] * a.item_bytes, l.rc[from] * a.item_bytes, ncclUint8, from, comm, stream),
                   function, "ncclRecv");
    }
  }
  check_nccl(ncclGroupEnd(), function, "ncclGroupEnd");
}

/// The exchange of one array of items of `item_bytes` bytes (as above).
inline void exchange(const void* d_send, const std::vector<std::uint64_t>& send_counts, void* d_recv,
                     const std::vector<std::uint64_t>& recv_counts, std::size_t item_bytes, rank_view ranks,
                     ncclComm_t comm, cudaStream_t stream, const char* function) {
  exchange({exchange_array{d_send, d_recv, item_bytes}}, send_counts, recv_counts, ranks, comm, stream, function);
}

}  // namespace detail

/// The exchange the distributed sort and shuffle use, on its own (an all-to-all with counts of
/// every size): this rank sends send_counts[q] items of item_bytes bytes each, grouped by
/// destination in d_send (destination 0's first), to every rank q of `comm`, and receives
/// recv_counts[r] items from every rank r into d_recv, grouped by source. Grouped
/// ncclSend/ncclRecv of bytes (64-bit counts: any size), this rank's own part a device copy on
/// a side stream forked from and joined back to `stream`; enqueued on `stream`, not waited for.
/// Collective: every rank of comm calls it, and recv_counts[r] on this rank must equal rank r's
/// send_counts[this rank] (not checked: a mismatch hangs or corrupts, as in NCCL).
///
/// send_counts, recv_counts: one count per rank of comm (size = ncclCommCount). d_send: device
/// memory of sum(send_counts) items; d_recv: device memory of sum(recv_counts) items, not
/// overlapping d_send; either may be null when its sum is 0. item_bytes >= 1. Throws
/// onepass::error naming comm (null), item_bytes (0), send_counts / recv_counts (wrong size),
/// d_send / d_recv (null with items); onepass::runtime_failure when NCCL or CUDA fails.
/// Source: the exchange phase of the distributed sort (issue 29; README "More than one GPU").
inline void all_to_all(const void* d_send, const std::vector<std::uint64_t>& send_counts, void* d_recv,
                       const std::vector<std::uint64_t>& recv_counts, std::size_t item_bytes, ncclComm_t comm,
                       cudaStream_t stream) {
  constexpr const char* function = "onepass::distributed::all_to_all";
  const detail::rank_view ranks = detail::ranks_of(comm, function);
  require(item_bytes >= 1, function, "item_bytes", "must be at least 1, got 0");
  const auto P = static_cast<std::size_t>(ranks.size);
  require(send_counts.size() == P, function, "send_counts",
          "must hold one count per rank (" + std::to_string(P) + "), got " + std::to_string(send_counts.size()));
  require(recv_counts.size() == P, function, "recv_counts",
          "must hold one count per rank (" + std::to_string(P) + "), got " + std::to_string(recv_counts.size()));
  std::uint64_t sent = 0, received = 0;
  for (std::size_t q = 0; q < P; ++q) {
    sent += send_counts[q];
    received += recv_counts[q];
  }
  require(sent == 0 || d_send != nullptr, function, "d_send", "must not be null when send_counts sum above 0");
  require(received == 0 || d_recv != nullptr, function, "d_recv", "must not be null when recv_counts sum above 0");
  detail::exchange(d_send, send_counts, d_recv, recv_counts, item_bytes, ranks, comm, stream, function);
}

}  // namespace onepass::distributed
