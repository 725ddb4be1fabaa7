// onepass/distributed/carried_index_plan.hpp — the host-side plan, and a CPU reference, of a
// second way to split the compacting bijective shuffle (Algorithm 1) over P ranks: each item
// travels with its index in the bijection's domain, so that no rank walks more than its 1/P of
// the domain. Pure host code: no NCCL, no CUDA. Not yet a method of distributed::shuffle (its GPU
// kernels are not written); this file fixes the rule and tests it on the CPU (issue 29).
//
// Why. distributed::shuffle (shuffle.cuh) sends only the items' bytes, the fewest bytes that can
// cross the network; the price is that every rank evaluates the bijection over the WHOLE index
// domain D = 2^b (about D (1 + 1/P) evaluations per rank), so its compute does not shrink with
// P. Carrying one index word per item (4 bytes while a domain chunk holds at most 2^32 indices,
// else 8) costs 1.5x the bytes of a u64 item, and cuts the evaluations per rank to about
// n_r + D / P.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs" (§4, Algorithm 1): with
// f the bijection of [0, D) and N items, the j-th index i_j (increasing i) with f(i) < N gives
// out[j] = in[f(i_j)]. Here the indices, not the outputs, are split among the ranks.
//
// The method. Rank r holds the global input positions x in [P_r, P_{r+1}); after the call rank o
// holds the global output positions [S_o, S_{o+1}) (S = the output counts, by default the input
// counts). The domain is cut into P chunks of (almost) equal length, fixed by (b, P) alone:
// chunk q = [c_q, c_{q+1}), c_q = floor(q 2^b / P).
//   1. Route (sender r, no communication): for each of its items x, the index i = f^-1(x) (the
//      bijection's inverse: Feistel rounds run backwards) and its chunk q; the item goes to rank q
//      with the word i - c_q. The send counts are a P-bucket histogram.
//   2. Counts: one all-gather of the P x P send counts gives every rank M_q (the items chunk q
//      receives = the flagged indices of chunk q) and G_q = M_0 + ... + M_{q-1}: the flagged
//      indices of chunk q are the global outputs [G_q, G_q + M_q).
//   3. Exchange the (word, item) pairs (grouped ncclSend/ncclRecv).
//   4. Place (receiver q): walk chunk q once (f over its D / P indices, the flags f(i) < N as a
//      bitmap, its word-prefix counts); item with word w lands at G_q + (flags before c_q + w).
//   5. Rebalance: chunk q holds the contiguous window [G_q, G_q + M_q) of the output; rank o owns
//      [S_o, S_{o+1}). The window's parts owned by other ranks (plan_window_rebalance; O(|G_q - S_q|
//      + |M_q - m_q|) items, the random imbalance of the chunks' counts, about sqrt(N) items per
//      chunk for a random bijection) go to their owners, contiguous, so with no index.
// The result is the same global permutation as the one-GPU bijective shuffle, for every P and
// every split (simulate_carried_index_shuffle checks it; tests/cpu/test_distributed_carried_index.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "onepass/distributed/exchange_plan.hpp"  // detail::resolve_output_counts
#include "onepass/distributed/prefix.hpp"
#include "onepass/error.hpp"

namespace onepass::distributed {

namespace detail {
__extension__ typedef unsigned __int128 uint128;  // 2^64 domains (GCC and Clang; __extension__: no -Wpedantic note)

/// The argument checks the domain-chunk functions share: domain_bits in [1, 64], num_ranks >= 1.
inline void check_domain_chunks(const char* fn, unsigned domain_bits, std::size_t num_ranks) {
  require(domain_bits >= 1 && domain_bits <= 64, fn, "domain_bits", "must be in [1, 64]");
  require(num_ranks >= 1, fn, "num_ranks", "must be at least 1");
}
}  // namespace detail

/// First index of domain chunk q of P over the domain [0, 2^domain_bits): floor(q 2^domain_bits / P)
/// (file comment, "The method"); chunk q is [domain_chunk_begin(q), domain_chunk_begin(q + 1)).
/// domain_bits in [1, 64]; num_ranks P >= 1; q in [0, P) (q = P gives 2^domain_bits only while
/// domain_bits < 64). Throws onepass::error naming the argument out of range.
inline std::uint64_t domain_chunk_begin(unsigned domain_bits, std::size_t num_ranks, std::size_t q) {
  const char* fn = "onepass::distributed::domain_chunk_begin";
  detail::check_domain_chunks(fn, domain_bits, num_ranks);
  require(q < num_ranks || (q == num_ranks && domain_bits < 64), fn, "q",
          "must be in [0, num_ranks) (num_ranks itself only for a domain below 2^64)");
  const detail::uint128 d = static_cast<detail::uint128>(1) << domain_bits;
  return static_cast<std::uint64_t>(d * q / num_ranks);
}

/// The domain chunk holding index i: the q with domain_chunk_begin(q) <= i < domain_chunk_begin(q + 1),
/// that is ceil((i + 1) P / 2^domain_bits) - 1. i must be below 2^domain_bits; arguments as
/// domain_chunk_begin. Throws onepass::error naming the argument out of range.
inline std::size_t domain_chunk_of(unsigned domain_bits, std::size_t num_ranks, std::uint64_t i) {
  const char* fn = "onepass::distributed::domain_chunk_of";
  detail::check_domain_chunks(fn, domain_bits, num_ranks);
  require(domain_bits == 64 || i < (std::uint64_t{1} << domain_bits), fn, "i", "must be below 2^domain_bits");
  const detail::uint128 scaled = (static_cast<detail::uint128>(i) + 1) * num_ranks;
  const detail::uint128 d = static_cast<detail::uint128>(1) << domain_bits;
  return static_cast<std::size_t>((scaled + d - 1) / d - 1);
}

/// Bytes of the index word an item carries: 4 while every chunk holds at most 2^32 indices
/// (ceil(2^domain_bits / P) <= 2^32), else 8. Arguments as domain_chunk_begin.
inline unsigned carried_index_bytes(unsigned domain_bits, std::size_t num_ranks) {
  const char* fn = "onepass::distributed::carried_index_bytes";
  detail::check_domain_chunks(fn, domain_bits, num_ranks);
  const detail::uint128 d = static_cast<detail::uint128>(1) << domain_bits;
  const detail::uint128 longest = (d + num_ranks - 1) / num_ranks;
  return longest <= (static_cast<detail::uint128>(1) << 32) ? 4u : 8u;
}

/// One contiguous piece of a window rebalance: `count` items from position `source_offset` of
/// the source rank's window go to position `destination_offset` of the destination's output.
struct window_piece {
  std::size_t source = 0;
  std::size_t destination = 0;
  std::uint64_t source_offset = 0;
  std::uint64_t destination_offset = 0;
  std::uint64_t count = 0;
};

/// The pieces that move a partition of the output into windows onto its owners (step 5 of the
/// file comment): rank q holds the global positions [G_q, G_q + M_q) (G = the exclusive prefix of
/// window_counts), rank o must hold [S_o, S_{o+1}) (S = the exclusive prefix of output_counts).
/// window_counts, output_counts: [P] each, P >= 1, with equal sums (empty ranks allowed).
/// Returns the nonempty pieces, by source and then destination; a piece with source ==
/// destination stays on its rank. Their counts sum to the total; O(P) pieces in all.
/// Throws onepass::error naming window_counts or output_counts (sizes differ, no ranks, sums
/// differ or overflow 64 bits).
inline std::vector<window_piece> plan_window_rebalance(const std::vector<std::uint64_t>& window_counts,
                                                       const std::vector<std::uint64_t>& output_counts) {
  const char* fn = "onepass::distributed::plan_window_rebalance";
  require(!window_counts.empty(), fn, "window_counts", "must hold one count per rank (got none)");
  require(output_counts.size() == window_counts.size(), fn, "output_counts",
          "must hold one count per rank (" + std::to_string(window_counts.size()) + "), got " +
              std::to_string(output_counts.size()));
  const auto g = detail::exclusive_prefix(window_counts, fn, "window_counts");
  const auto s = detail::exclusive_prefix(output_counts, fn, "output_counts");
  require(g.back() == s.back(), fn, "output_counts",
          "must sum to the window counts' sum (" + std::to_string(g.back()) + "), got " + std::to_string(s.back()));
  std::vector<window_piece> pieces;
  const std::size_t p = window_counts.size();
  std::size_t o = 0;
  for (std::size_t q = 0; q < p; ++q) {
    std::uint64_t at = g[q];
    const std::uint64_t end = g[q + 1];
    while (at < end) {
      while (s[o + 1] <= at) ++o;  // the owner of position `at` (empty owners skipped)
      const std::uint64_t stop = std::min(end, s[o + 1]);
      pieces.push_back({q, o, at - g[q], at - s[o], stop - at});
      at = stop;
    }
  }
  return pieces;
}

/// What simulate_carried_index_shuffle returns: the ranks' outputs and the traffic of its two
/// exchanges.
template <class T>
struct carried_index_result {
  std::vector<std::vector<T>> outputs;      ///< [P][output count of rank o]
  std::vector<std::uint64_t> send_counts;   ///< [P * P], send_counts[r * P + q]: items rank r routes to chunk q
  std::uint64_t routed_elsewhere = 0;       ///< items of step 3 that change rank (r != q)
  std::uint64_t rebalanced = 0;             ///< items of step 5 that change rank
  unsigned index_bytes = 0;                 ///< bytes of the index word each routed item carries
};

/// CPU reference of the carried-index split of the bijective shuffle (file comment, "The method"),
/// every rank simulated in turn.
/// inputs: [P][n_r] items, P >= 1, rank 0's first in the global order (empty ranks allowed).
/// f: the bijection of the one-GPU shuffle over N = sum n_r items, e.g.
///   bijection::variable_philox::for_length(N, seed, rounds); it needs domain_bits(), operator()
///   and inverse(), and its domain must hold N (2^domain_bits() >= N).
/// output_counts: [P], the items each rank holds afterwards, summing to N; empty (default) = the
///   input counts.
/// Returns the outputs, equal to shuffle::cpu::bijective_shuffle of the concatenation cut into
/// output_counts, and the exchanges' counts. O(N + 2^domain_bits()) time: meant for tests.
/// Throws onepass::error naming inputs, f or output_counts.
template <class T, class Bijection>
carried_index_result<T> simulate_carried_index_shuffle(const std::vector<std::vector<T>>& inputs, const Bijection& f,
                                                       const std::vector<std::uint64_t>& output_counts = {}) {
  const char* fn = "onepass::distributed::simulate_carried_index_shuffle";
  const std::size_t p = inputs.size();
  require(p >= 1, fn, "inputs", "must hold at least one rank");
  std::vector<std::uint64_t> in_counts(p);
  for (std::size_t r = 0; r < p; ++r) in_counts[r] = inputs[r].size();
  const auto in_offsets = detail::exclusive_prefix(in_counts, fn, "inputs");
  const std::uint64_t n = in_offsets.back();
  const unsigned b = f.domain_bits();
  require(b >= 1 && b <= 63, fn, "f", "must have a domain of 2^1 .. 2^63 indices for the simulation");
  require(n <= (std::uint64_t{1} << b), fn, "f", "must have a domain holding every item (2^domain_bits >= N)");
  const auto out_counts = detail::resolve_output_counts(in_counts, output_counts, n, fn);

  carried_index_result<T> result;
  result.index_bytes = carried_index_bytes(b, p);
  result.send_counts.assign(p * p, 0);
  // 1. Route: (word, item) pairs per (source, chunk), in the source's item order.
  std::vector<std::vector<std::vector<std::pair<std::uint64_t, T>>>> sent(p, std::vector<std::vector<std::pair<std::uint64_t, T>>>(p));
  for (std::size_t r = 0; r < p; ++r) {
    for (std::uint64_t k = 0; k < in_counts[r]; ++k) {
      const std::uint64_t i = f.inverse(in_offsets[r] + k);
      const std::size_t q = domain_chunk_of(b, p, i);
      sent[r][q].emplace_back(i - domain_chunk_begin(b, p, q), inputs[r][k]);
      ++result.send_counts[r * p + q];
      if (q != r) ++result.routed_elsewhere;
    }
  }
  // 2. Counts: M_q from the all-gathered send counts.
  std::vector<std::uint64_t> window_counts(p, 0);
  for (std::size_t r = 0; r < p; ++r)
    for (std::size_t q = 0; q < p; ++q) window_counts[q] += result.send_counts[r * p + q];
  // 3 and 4. Receive and place: walk chunk q, rank of each flagged index among the chunk's.
  std::vector<std::vector<T>> windows(p);
  for (std::size_t q = 0; q < p; ++q) {
    const std::uint64_t c0 = domain_chunk_begin(b, p, q), c1 = domain_chunk_begin(b, p, q + 1);
    std::vector<std::uint64_t> place(c1 - c0, ~std::uint64_t{0});
    std::uint64_t flagged = 0;
    for (std::uint64_t i = c0; i < c1; ++i)
      if (f(i) < n) place[i - c0] = flagged++;
    require(flagged == window_counts[q], fn, "f", "must be a bijection whose inverse matches it (a chunk's flags "
            "disagree with the items routed to it)");
    windows[q].resize(flagged);
    for (std::size_t r = 0; r < p; ++r) {
      for (const auto& [w, item] : sent[r][q]) {
        require(place[w] != ~std::uint64_t{0}, fn, "f", "must be a bijection whose inverse matches it (an item was "
                "routed to an index whose image is not below N)");
        windows[q][place[w]] = item;
      }
    }
  }
  // 5. Rebalance the windows onto the output counts.
  result.outputs.assign(p, {});
  for (std::size_t o = 0; o < p; ++o) result.outputs[o].resize(out_counts[o]);
  for (const auto& piece : plan_window_rebalance(window_counts, out_counts)) {
    std::copy_n(windows[piece.source].begin() + static_cast<std::ptrdiff_t>(piece.source_offset), piece.count,
                result.outputs[piece.destination].begin() + static_cast<std::ptrdiff_t>(piece.destination_offset));
    if (piece.source != piece.destination) result.rebalanced += piece.count;
  }
  return result;
}

}  // namespace onepass::distributed
