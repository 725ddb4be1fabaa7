// onepass/distributed/exchange_plan.hpp — the host-side planning of the distributed sort and
// shuffle (issue 29): exact splitters from per-rank digit histograms, and the exchange plans
// (who sends how many items to whom, and in which order). Pure host code: no NCCL, no CUDA.
//
// Source: the sort's partition is the idea of RMG sort (Ilic, Tolovski & Rabl, "RMG Sort:
// Radix-Partitioning-Based Multi-GPU Sorting", BTW 2023): partition the keys by their most
// significant radix digit with the global digit histogram, so that every rank learns from
// counts alone which digit buckets belong wholly to which output rank; only the buckets that
// straddle an output-rank boundary are refined on their next digit; one exchange moves every
// key to its output rank, which then sorts what arrived locally. This file restates that idea
// for exact (not approximate) balance and a stable result; it contains no code of RMG sort.
//
// The partition (sort). Rank r of P holds n_r keys; the concatenation of the ranks' keys (rank
// 0's first) has N = n_0 + ... + n_{P-1} keys. Output rank q must receive exactly the keys of
// global ranks [S_q, S_{q+1}) of the STABLE sort of the concatenation, S_q = m_0 + ... +
// m_{q-1} with m_q = n_q (the output counts; this file also accepts other output counts that
// sum to N). In that stable sort the keys of one value are ordered by (source rank, position
// on the source rank). So, for one digit place and one segment of the output (at first the
// whole of it), with counts[r][b] the number of rank r's keys in bucket b:
//   - bucket b occupies the global positions [G + O_b, G + O_b + T_b) (G the segment's first
//     position, T_b = sum_r counts[r][b], O_b = T_0 + ... + T_{b-1});
//   - a bucket that lies inside one destination's range [S_q, S_{q+1}) goes wholly to q: its
//     keys need no further look;
//   - a bucket that STRADDLES a boundary S_q is refined: its keys are histogrammed on the next
//     digit place and the same rule applied to it as a segment starting at G + O_b. At most
//     P - 1 buckets straddle per digit place (one per boundary), so the refinement costs at
//     most P - 1 histograms of 256 counts per further digit place;
//   - on the key's LAST digit place the keys of a straddling bucket are all equal, and the
//     bucket is split exactly by (source rank, position): rank r's keys of bucket b occupy
//     [G + O_b + sum_{r' < r} counts[r'][b], ... + counts[r][b]) in that order, and rank r
//     sends its first keys of the bucket (in position order) to the lowest destination that
//     range meets, and so on. Ties are thus split exactly, never by sampling, and the result
//     is the stable one-GPU sort of the concatenation, cut at S_1, ..., S_{P-1}.
// split_digit() is one such step (the send-count matrix under the (source rank, position)
// rule for every bucket, exact for the buckets that do not straddle, and for the straddling
// ones on the last digit place); plan_sort_exchange() is the whole refinement over the keys
// themselves (the CPU reference and simulation of what the ranks compute from histograms).
//
// The shuffle. With global positions (rank r's item i is global input position P_r + i, P_r =
// n_0 + ... + n_{r-1}) and output rank q holding global output positions [S_q, S_{q+1}), the
// shuffle through a permutation sigma of [0, N) is out[j] = in[sigma(j)]: input position x
// goes to output position j = sigma^-1(x). For the walking permutation
// (shuffle/walking_permutation.hpp) sigma^-1(x) is computable alone, so every rank finds the
// destination and offset of each of its items with no communication and the items move in one
// exchange of their bytes (no sort, no splitters). The global output depends only on (N,
// seed, rounds), never on P or on the split: it is onepass::shuffle::cpu::walking_shuffle over the
// concatenation.
//
// What the NCCL layer (distributed/sort.cuh, distributed/shuffle.cuh, to come) does with
// these plans. Sort: each rank histograms its keys' top digit on the GPU (onesweep's upfront
// pass); an ncclAllGather of the P x 256 histograms gives every rank the same counts (their
// column sums are the ncclAllReduce of the issue, and the per-rank rows are what splits the
// ties exactly), so every rank computes the same split_digit() locally; for each straddling
// bucket the ranks histogram its keys on the next digit and all-gather again (at most P - 1
// buckets, 4 (u32) or 8 (u64) digit places in all, usually 1 or 2). Each rank then knows, for
// every (bucket prefix, destination), its send counts: one partition pass on the GPU writes
// its keys grouped by destination in position order (the order this file assumes), one
// grouped ncclSend/ncclRecv exchanges the groups (counts from the plan: no count exchange
// needed), and each rank concatenates what arrived in source-rank order and runs the stable
// local onepass::sort. Shuffle: distributed/shuffle.cuh does NOT use the walking plans below
// (shuffle_destinations, receive_order: they send in position order and need each item's
// offset, which the GPU would compute through sigma^-1 and rank by a sort or a bitmap — the
// first NCCL version did, at 280 ms for 2^30 u64 items per GPU). It walks the index domain
// instead ("The domain walk" below, the CPU twin of what each rank's kernels compute): every
// rank emits its items in the receivers' order, so the receivers place them with counts alone.
//
// The domain walk (distributed/shuffle.cuh's file comment). A map g over [0, D) with a flag
// g(i) < N: bijective, g = f = variable_philox::for_length(N, seed, rounds), D = 2^b; walking,
// g = sigma, D = N, all flagged. Output position j is the j-th flagged index i_j, out[j] =
// in[g(i_j)]; output rank q owns the indices [i_q, i_{q+1}) (walk_index_boundaries). Rank r's
// send buffer is its items in[g(i) - P_r] for the indices i of the whole domain whose image is
// one of its positions, in index order (walk_send_order; the group for q is the part in
// [i_q, i_{q+1})); rank q's output k is the next unplaced item from the source owning
// g(i) of its k-th flagged index (walk_range_sources).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/distributed/prefix.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/walking_permutation.hpp"
#include "onepass/sort/key_traits.hpp"

namespace onepass::distributed {

/// Bits per digit place of the refinement (most significant digit first).
inline constexpr unsigned plan_digit_bits = 8;
/// Buckets per digit place: 2^plan_digit_bits.
inline constexpr std::size_t plan_radix = std::size_t{1} << plan_digit_bits;

namespace detail {

/// The output counts a plan uses: `output_counts` when given (size num_ranks, same sum as the
/// input), else `input_counts` (exact balance).
inline std::vector<std::uint64_t> resolve_output_counts(const std::vector<std::uint64_t>& input_counts,
                                                        const std::vector<std::uint64_t>& output_counts,
                                                        std::uint64_t total, const char* function) {
  if (output_counts.empty()) return input_counts;
  require(output_counts.size() == input_counts.size(), function, "output_counts",
          "must have one count per rank (" + std::to_string(input_counts.size()) + "), got " +
              std::to_string(output_counts.size()));
  const auto out = exclusive_prefix(output_counts, function, "output_counts");
  require(out.back() == total, function, "output_counts",
          "must sum to the number of input items (" + std::to_string(total) + "), got " + std::to_string(out.back()));
  return output_counts;
}

/// The rank holding global position x under boundaries `offsets` (size P + 1, nondecreasing,
/// x < offsets[P]): the q with offsets[q] <= x < offsets[q + 1] (empty ranks skipped).
inline std::size_t owner(const std::vector<std::uint64_t>& offsets, std::uint64_t x) {
  return static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), x) - offsets.begin()) - 1;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// One digit place: the exact split of a histogrammed segment

/// The split of one segment of the sorted output on one digit place (split_digit).
/// P = num_ranks (sources and destinations), B = num_buckets.
struct digit_split {
  std::size_t num_ranks = 0;
  std::size_t num_buckets = 0;
  /// [B]: T_b, the keys of bucket b over all ranks.
  std::vector<std::uint64_t> bucket_totals;
  /// [B + 1]: O_b = T_0 + ... + T_{b-1}; bucket b's keys occupy the global output positions
  /// [segment_offset + O_b, segment_offset + O_{b+1}).
  std::vector<std::uint64_t> bucket_offsets;
  /// [P * B * P], index (r * B + b) * P + q: how many of rank r's keys in bucket b go to
  /// destination q, rank r's keys of the bucket taken in their stable (position) order and
  /// the bucket's keys ordered by (source rank, position). Sums over q are counts[r][b]; sums
  /// over (r, b) are the segment's overlap with destination q's range.
  std::vector<std::uint64_t> send_counts;
  /// The buckets (ascending) whose keys go to more than one destination: to be refined on the
  /// next digit place (their send counts above are final only on the key's last digit place,
  /// where their keys are equal).
  std::vector<std::size_t> straddling;

  /// send_counts[(r * B + b) * P + q] (not checked).
  std::uint64_t send(std::size_t r, std::size_t b, std::size_t q) const {
    return send_counts[(r * num_buckets + b) * num_ranks + q];
  }
  /// Whether bucket b straddles a destination boundary.
  bool straddles(std::size_t b) const {
    return std::binary_search(straddling.begin(), straddling.end(), b);
  }
};

/// Splits one segment of the stable sort's output among the destination ranks from per-rank
/// histograms of one digit place (file comment, "The partition").
///
/// histograms: [P * B] row-major, histograms[r * B + b] = counts[r][b], the number of source
///   rank r's keys of the segment whose digit is b (buckets in the sort's order, most
///   significant digit place first); B >= 1 (256 for the 8-bit digits of plan_sort_exchange).
///   This is the buffer an ncclAllGather of the ranks' histograms leaves on every rank.
/// num_ranks: P >= 1; histograms.size() must be a positive multiple of P.
/// output_counts: [P], m_q; destination q holds global output positions [S_q, S_{q+1}),
///   S_q = m_0 + ... + m_{q-1}. For the balanced sort, m_q = n_q.
/// segment_offset: G, the global output position of the segment's first key (0 for the top
///   digit place; G + O_b of a straddling bucket when refining it). G + (the histograms' sum)
///   must not exceed S_P.
/// Returns the digit_split. O(P * B * log P + P * B * (number of destinations met)).
/// Throws onepass::error naming num_ranks, histograms, output_counts or segment_offset.
inline digit_split split_digit(const std::vector<std::uint64_t>& histograms, std::size_t num_ranks,
                               const std::vector<std::uint64_t>& output_counts, std::uint64_t segment_offset = 0) {
  const char* fn = "onepass::distributed::split_digit";
  require(num_ranks >= 1, fn, "num_ranks", "must be at least 1, got 0");
  require(!histograms.empty() && histograms.size() % num_ranks == 0, fn, "histograms",
          "must hold num_ranks x num_buckets counts (a positive multiple of " + std::to_string(num_ranks) +
              "), got " + std::to_string(histograms.size()));
  require(output_counts.size() == num_ranks, fn, "output_counts",
          "must have one count per rank (" + std::to_string(num_ranks) + "), got " +
              std::to_string(output_counts.size()));
  const std::size_t P = num_ranks;
  const std::size_t B = histograms.size() / P;
  const auto S = detail::exclusive_prefix(output_counts, fn, "output_counts");

  digit_split s;
  s.num_ranks = P;
  s.num_buckets = B;
  s.bucket_totals.assign(B, 0);
  for (std::size_t r = 0; r < P; ++r)
    for (std::size_t b = 0; b < B; ++b) {
      const std::uint64_t c = histograms[r * B + b];
      require(c <= std::numeric_limits<std::uint64_t>::max() - s.bucket_totals[b], fn, "histograms",
              "must sum to less than 2^64");
      s.bucket_totals[b] += c;
    }
  s.bucket_offsets = detail::exclusive_prefix(s.bucket_totals, fn, "histograms");
  const std::uint64_t total = s.bucket_offsets.back();
  require(segment_offset <= S[P] && total <= S[P] - segment_offset, fn, "segment_offset",
          "plus the histograms' sum (" + std::to_string(total) + ") must not exceed the output counts' sum (" +
              std::to_string(S[P]) + "), got " + std::to_string(segment_offset));

  s.send_counts.assign(P * B * P, 0);
  for (std::size_t b = 0; b < B; ++b) {
    std::uint64_t pos = segment_offset + s.bucket_offsets[b];  // the next key of bucket b
    std::size_t first_q = P, last_q = 0;
    for (std::size_t r = 0; r < P; ++r) {
      std::uint64_t left = histograms[r * B + b];
      if (left == 0) continue;
      std::size_t q = detail::owner(S, pos);
      while (left > 0) {
        const std::uint64_t take = std::min(left, S[q + 1] - pos);
        if (take > 0) {
          s.send_counts[(r * B + b) * P + q] += take;
          first_q = std::min(first_q, q);
          last_q = std::max(last_q, q);
        }
        pos += take;
        left -= take;
        ++q;
      }
    }
    if (first_q < last_q) s.straddling.push_back(b);
  }
  return s;
}

/// split_digit over histograms given as rows: histograms[r][b] = counts[r][b] (P rows of equal
/// length B >= 1). Throws onepass::error naming histograms when the rows are missing or of
/// unequal length, else as the flat form.
inline digit_split split_digit(const std::vector<std::vector<std::uint64_t>>& histograms,
                               const std::vector<std::uint64_t>& output_counts, std::uint64_t segment_offset = 0) {
  const char* fn = "onepass::distributed::split_digit";
  require(!histograms.empty(), fn, "histograms", "must have one row per rank (at least 1), got 0");
  const std::size_t B = histograms[0].size();
  std::vector<std::uint64_t> flat;
  flat.reserve(histograms.size() * B);
  for (std::size_t r = 0; r < histograms.size(); ++r) {
    require(histograms[r].size() == B && B >= 1, fn, "histograms",
            "rows must have the same positive length (row 0: " + std::to_string(B) + "), row " +
                std::to_string(r) + " has " + std::to_string(histograms[r].size()));
    flat.insert(flat.end(), histograms[r].begin(), histograms[r].end());
  }
  return split_digit(flat, histograms.size(), output_counts, segment_offset);
}

// ---------------------------------------------------------------------------------------------
// The whole sort exchange plan

/// The exchange plan of the distributed stable sort (plan_sort_exchange). P = num_ranks.
struct exchange_plan {
  std::size_t num_ranks = 0;
  /// [P]: n_r, the keys each rank holds before.
  std::vector<std::uint64_t> input_counts;
  /// [P]: m_q, the keys each rank holds after (= input_counts for the balanced sort).
  std::vector<std::uint64_t> output_counts;
  /// [P * P], index r * P + q: how many keys rank r sends to rank q. Row sums n_r, column
  /// sums m_q.
  std::vector<std::uint64_t> send_counts;
  /// [P][n_r]: destinations[r][i] is the rank that key i of rank r goes to. Rank r sends its
  /// keys for q in position order; rank q concatenates what it receives in source-rank order
  /// and sorts it stably, which gives its share of the global stable sort.
  std::vector<std::vector<std::uint32_t>> destinations;
  /// Digit places examined: 1 when the top digit alone resolved every boundary, up to
  /// sizeof(key) (u32: 4, u64: 8) when a boundary falls inside a run of equal keys.
  unsigned digit_places = 0;
  /// Buckets refined on a later digit place, over all places (at most P - 1 per place).
  std::size_t refined_buckets = 0;

  /// send_counts[r * P + q] (not checked).
  std::uint64_t send(std::size_t r, std::size_t q) const { return send_counts[r * num_ranks + q]; }
  /// [P + 1]: where rank r's group for destination q starts in its send buffer (grouped by
  /// destination): the exclusive prefix of row r. r < P, else onepass::error naming rank.
  std::vector<std::uint64_t> send_offsets(std::size_t r) const {
    require(r < num_ranks, "onepass::distributed::exchange_plan::send_offsets", "rank",
            "must be below num_ranks (" + std::to_string(num_ranks) + "), got " + std::to_string(r));
    std::vector<std::uint64_t> o(num_ranks + 1, 0);
    for (std::size_t q = 0; q < num_ranks; ++q) o[q + 1] = o[q] + send(r, q);
    return o;
  }
  /// [P + 1]: where source r's keys start in rank q's receive buffer (sources in rank order):
  /// the exclusive prefix of column q. q < P, else onepass::error naming rank.
  std::vector<std::uint64_t> receive_offsets(std::size_t q) const {
    require(q < num_ranks, "onepass::distributed::exchange_plan::receive_offsets", "rank",
            "must be below num_ranks (" + std::to_string(num_ranks) + "), got " + std::to_string(q));
    std::vector<std::uint64_t> o(num_ranks + 1, 0);
    for (std::size_t r = 0; r < num_ranks; ++r) o[r + 1] = o[r] + send(r, q);
    return o;
  }
};

namespace detail {

/// The refinement of one segment: `members[r]` are the positions (ascending) of rank r's keys
/// in the segment, `words` the keys' ordered words, `shift` the digit place's lowest bit,
/// `segment_offset` the segment's first global output position.
template <class Word>
void refine_segment(const std::vector<std::vector<Word>>& words, std::vector<std::vector<std::uint64_t>> members,
                    const std::vector<std::uint64_t>& output_counts, std::uint64_t segment_offset, int shift,
                    unsigned place, exchange_plan& plan) {
  const std::size_t P = words.size();
  const std::size_t B = plan_radix;
  plan.digit_places = std::max(plan.digit_places, place);
  // Histogram and bucket (stably) the members of every rank on this digit place.
  std::vector<std::uint64_t> histograms(P * B, 0);
  for (std::size_t r = 0; r < P; ++r)
    for (std::uint64_t i : members[r]) ++histograms[r * B + ((words[r][i] >> shift) & (B - 1))];
  std::vector<std::vector<std::vector<std::uint64_t>>> buckets(P, std::vector<std::vector<std::uint64_t>>(B));
  for (std::size_t r = 0; r < P; ++r) {
    for (std::size_t b = 0; b < B; ++b) buckets[r][b].reserve(histograms[r * B + b]);
    for (std::uint64_t i : members[r]) buckets[r][(words[r][i] >> shift) & (B - 1)].push_back(i);
    std::vector<std::uint64_t>().swap(members[r]);
  }
  const digit_split s = split_digit(histograms, P, output_counts, segment_offset);
  const bool last_place = shift == 0;
  for (std::size_t b = 0; b < B; ++b) {
    if (s.bucket_totals[b] == 0) continue;
    if (!last_place && s.straddles(b)) {
      ++plan.refined_buckets;
      std::vector<std::vector<std::uint64_t>> sub(P);
      for (std::size_t r = 0; r < P; ++r) sub[r] = std::move(buckets[r][b]);
      refine_segment(words, std::move(sub), output_counts, segment_offset + s.bucket_offsets[b],
                     shift - static_cast<int>(plan_digit_bits), place + 1, plan);
      continue;
    }
    // Final: rank r's keys of bucket b, in position order, to the destinations in order.
    for (std::size_t r = 0; r < P; ++r) {
      std::size_t k = 0;
      const auto& idx = buckets[r][b];
      for (std::size_t q = 0; q < P; ++q) {
        const std::uint64_t c = s.send(r, b, q);
        plan.send_counts[r * P + q] += c;
        for (std::uint64_t t = 0; t < c; ++t) plan.destinations[r][idx[k++]] = static_cast<std::uint32_t>(q);
      }
    }
  }
}

}  // namespace detail

/// The exchange plan of the distributed stable sort over the keys of P ranks (the CPU reference
/// of what the ranks compute from all-gathered histograms; file comment, "The partition"):
/// MSD refinement with 8-bit digits of the keys' ordered words (sort/key_traits.hpp:
/// ordered_bits, so every key type of onepass::sort, ascending or descending, with floats in
/// its total order), refining only the straddling buckets.
///
/// Key: std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t or double.
/// keys: [P][n_r], P >= 1 ranks, any n_r >= 0 (empty ranks allowed), rank 0's keys first in the
///   global order.
/// descending: sort order (the complemented words, still stable).
/// output_counts: [P] counts after the exchange, summing to N; empty (default) = the input
///   counts (exact balance).
/// Returns the exchange_plan: after rank r sends key i to destinations[r][i] (in position order)
/// and every rank stably sorts what it received (in source-rank order), the concatenation over
/// the ranks equals std::stable_sort of the concatenation of the input, each rank holding
/// output_counts[q] keys. O(N * digit_places) time (the top place over all N keys, later ones
/// over the straddling buckets' keys only), O(N) memory.
/// Throws onepass::error naming keys (no ranks, more than 2^32 - 1 ranks) or output_counts.
template <class Key>
exchange_plan plan_sort_exchange(const std::vector<std::vector<Key>>& keys, bool descending = false,
                                 const std::vector<std::uint64_t>& output_counts = {}) {
  using Word = typename sort::radix_traits<Key>::bits_type;
  const char* fn = "onepass::distributed::plan_sort_exchange";
  require(!keys.empty(), fn, "keys", "must hold one key vector per rank (at least 1), got 0");
  require(keys.size() <= std::numeric_limits<std::uint32_t>::max(), fn, "keys",
          "must hold fewer than 2^32 ranks, got " + std::to_string(keys.size()));
  const std::size_t P = keys.size();
  exchange_plan plan;
  plan.num_ranks = P;
  plan.input_counts.resize(P);
  for (std::size_t r = 0; r < P; ++r) plan.input_counts[r] = keys[r].size();
  const std::uint64_t total = detail::exclusive_prefix(plan.input_counts, fn, "keys").back();
  plan.output_counts = detail::resolve_output_counts(plan.input_counts, output_counts, total, fn);
  plan.send_counts.assign(P * P, 0);
  plan.destinations.resize(P);
  std::vector<std::vector<Word>> words(P);
  std::vector<std::vector<std::uint64_t>> members(P);
  for (std::size_t r = 0; r < P; ++r) {
    plan.destinations[r].assign(keys[r].size(), 0);
    words[r].resize(keys[r].size());
    members[r].resize(keys[r].size());
    for (std::size_t i = 0; i < keys[r].size(); ++i) {
      words[r][i] = sort::ordered_bits(keys[r][i], descending);
      members[r][i] = i;
    }
  }
  if (total == 0) return plan;
  constexpr int top_shift = static_cast<int>(sizeof(Word) * 8 - plan_digit_bits);
  detail::refine_segment(words, std::move(members), plan.output_counts, 0, top_shift, 1, plan);
  return plan;
}

// ---------------------------------------------------------------------------------------------
// The shuffle through the walking permutation

/// One source rank's part of a distributed shuffle (shuffle_destinations).
struct shuffle_rank_plan {
  std::size_t rank = 0;
  /// [P]: how many of this rank's items go to each destination.
  std::vector<std::uint64_t> send_counts;
  /// [n_rank]: destination rank of item i.
  std::vector<std::uint32_t> destinations;
  /// [n_rank]: the output position of item i on its destination, in [0, m_destination).
  std::vector<std::uint64_t> offsets;
};

namespace detail {

struct shuffle_layout {
  std::vector<std::uint64_t> in_offsets, out_offsets;
};

inline shuffle_layout check_shuffle(const char* fn, const shuffle::walking_permutation& sigma,
                                    const std::vector<std::uint64_t>& input_counts, std::size_t rank,
                                    const std::vector<std::uint64_t>& output_counts) {
  require(!input_counts.empty(), fn, "input_counts", "must have one count per rank (at least 1), got 0");
  require(input_counts.size() <= std::numeric_limits<std::uint32_t>::max(), fn, "input_counts",
          "must have fewer than 2^32 ranks, got " + std::to_string(input_counts.size()));
  require(rank < input_counts.size(), fn, "rank",
          "must be below the number of ranks (" + std::to_string(input_counts.size()) + "), got " +
              std::to_string(rank));
  shuffle_layout l;
  l.in_offsets = exclusive_prefix(input_counts, fn, "input_counts");
  require(sigma.num_items() == l.in_offsets.back(), fn, "sigma",
          "must permute the input's N = " + std::to_string(l.in_offsets.back()) + " items, got num_items " +
              std::to_string(sigma.num_items()));
  l.out_offsets = exclusive_prefix(resolve_output_counts(input_counts, output_counts, l.in_offsets.back(), fn), fn,
                                   "output_counts");
  return l;
}

inline shuffle_rank_plan rank_destinations(const char* fn, bool forward, const shuffle::walking_permutation& sigma,
                                           const std::vector<std::uint64_t>& input_counts, std::size_t rank,
                                           const std::vector<std::uint64_t>& output_counts) {
  const shuffle_layout l = check_shuffle(fn, sigma, input_counts, rank, output_counts);
  shuffle_rank_plan p;
  p.rank = rank;
  p.send_counts.assign(input_counts.size(), 0);
  const std::uint64_t n = input_counts[rank];
  p.destinations.resize(n);
  p.offsets.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t x = l.in_offsets[rank] + i;
    const std::uint64_t j = forward ? sigma.inverse(x) : sigma(x);
    const std::size_t q = owner(l.out_offsets, j);
    p.destinations[i] = static_cast<std::uint32_t>(q);
    p.offsets[i] = j - l.out_offsets[q];
    ++p.send_counts[q];
  }
  return p;
}

inline std::vector<std::uint64_t> receive_order(const char* fn, bool forward, const shuffle::walking_permutation& sigma,
                                                const std::vector<std::uint64_t>& input_counts, std::size_t rank,
                                                const std::vector<std::uint64_t>& output_counts) {
  const shuffle_layout l = check_shuffle(fn, sigma, input_counts, rank, output_counts);
  const std::uint64_t first = l.out_offsets[rank], m = l.out_offsets[rank + 1] - first;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> source(m);  // (input position, output offset)
  for (std::uint64_t k = 0; k < m; ++k) {
    const std::uint64_t j = first + k;
    source[k] = {forward ? sigma(j) : sigma.inverse(j), k};
  }
  std::sort(source.begin(), source.end());
  std::vector<std::uint64_t> order(m);
  for (std::uint64_t k = 0; k < m; ++k) order[k] = source[k].second;
  return order;
}

}  // namespace detail

/// Where each item of source rank `rank` goes in the distributed shuffle out[j] = in[sigma(j)]
/// (file comment, "The shuffle"): item i (global input position x = P_rank + i) goes to
/// output position j = sigma.inverse(x), i.e. to the destination q with S_q <= j < S_{q+1}, at
/// offset j - S_q. Computed by this rank alone.
///
/// sigma: the walking permutation of [0, N), N = sum of input_counts (for_length(N, seed,
///   rounds) for the global order of (N, seed, rounds)).
/// input_counts: [P], n_r for every rank (P >= 1, empty ranks allowed).
/// rank: the source rank, < P.
/// output_counts: [P] counts after, summing to N; empty (default) = input_counts.
/// Returns the shuffle_rank_plan. O(n_rank * (2^b / N + log P)) evaluations.
/// Throws onepass::error naming input_counts, rank, sigma or output_counts.
inline shuffle_rank_plan shuffle_destinations(const shuffle::walking_permutation& sigma,
                                              const std::vector<std::uint64_t>& input_counts, std::size_t rank,
                                              const std::vector<std::uint64_t>& output_counts = {}) {
  return detail::rank_destinations("onepass::distributed::shuffle_destinations", true, sigma, input_counts, rank,
                                   output_counts);
}

/// shuffle_destinations for the permutation of (N = sum of input_counts, seed, rounds):
/// sigma = walking_permutation::for_length(N, seed, rounds), rounds in [1, 64].
inline shuffle_rank_plan shuffle_destinations(std::uint64_t seed, const std::vector<std::uint64_t>& input_counts,
                                              std::size_t rank, const std::vector<std::uint64_t>& output_counts = {},
                                              unsigned rounds = bijection::default_rounds) {
  const char* fn = "onepass::distributed::shuffle_destinations";
  const auto in = detail::exclusive_prefix(input_counts, fn, "input_counts");
  return shuffle_destinations(shuffle::walking_permutation::for_length(in.back(), seed, rounds), input_counts, rank,
                              output_counts);
}

/// The inverse exchange (unshuffle: out[sigma(j)] = in[j]): item i of `rank` (global position
/// x) goes to output position sigma(x). Arguments, result and errors as shuffle_destinations;
/// the unshuffle of the shuffle (same sigma, the shuffle's output counts as its input counts)
/// restores every item to its place.
inline shuffle_rank_plan unshuffle_destinations(const shuffle::walking_permutation& sigma,
                                                const std::vector<std::uint64_t>& input_counts, std::size_t rank,
                                                const std::vector<std::uint64_t>& output_counts = {}) {
  return detail::rank_destinations("onepass::distributed::unshuffle_destinations", false, sigma, input_counts, rank,
                                   output_counts);
}

/// The receiving side of the shuffle on destination `rank`: its receive buffer holds the items
/// from sources 0, 1, ..., P - 1 in that order, each source's items in position order (the order
/// shuffle_destinations' senders use), which is ascending global input position; element k of
/// it goes to output offset order[k] (in [0, m_rank)). Computed by the receiver alone from
/// sigma of its own output positions (x = sigma(j) for j in [S_rank, S_rank+1), sorted), so no
/// offsets need to travel with the items. Returns [m_rank]. Arguments and errors as
/// shuffle_destinations. O(m_rank log m_rank).
inline std::vector<std::uint64_t> shuffle_receive_order(const shuffle::walking_permutation& sigma,
                                                        const std::vector<std::uint64_t>& input_counts,
                                                        std::size_t rank,
                                                        const std::vector<std::uint64_t>& output_counts = {}) {
  return detail::receive_order("onepass::distributed::shuffle_receive_order", true, sigma, input_counts, rank,
                               output_counts);
}

/// The receiving side of the unshuffle (unshuffle_destinations): as shuffle_receive_order with
/// x = sigma^-1(j).
inline std::vector<std::uint64_t> unshuffle_receive_order(const shuffle::walking_permutation& sigma,
                                                          const std::vector<std::uint64_t>& input_counts,
                                                          std::size_t rank,
                                                          const std::vector<std::uint64_t>& output_counts = {}) {
  return detail::receive_order("onepass::distributed::unshuffle_receive_order", false, sigma, input_counts, rank,
                               output_counts);
}

// ---------------------------------------------------------------------------------------------
// The domain walk (file comment): the host twin of distributed/shuffle.cuh's per-rank passes

/// The index boundaries i_0 = 0 <= ... <= i_P = domain of the output ranks: i_q is the smallest
/// index with offsets[q] flagged indices (g(i) < num_items) below it. g: any callable
/// uint64 -> uint64 over [0, domain); offsets: [P + 1] output position offsets (offsets[P] =
/// num_items = the flagged count). O(domain) evaluations. Throws onepass::error naming offsets
/// when they do not end at the flagged count.
template <class Map>
std::vector<std::uint64_t> walk_index_boundaries(const Map& g, std::uint64_t domain, std::uint64_t num_items,
                                                 const std::vector<std::uint64_t>& offsets) {
  require(!offsets.empty() && offsets.front() == 0 && offsets.back() == num_items, "walk_index_boundaries",
          "offsets", "must run from 0 to num_items");
  const std::size_t P = offsets.size() - 1;
  std::vector<std::uint64_t> bounds(P + 1, domain);
  bounds[0] = 0;
  std::uint64_t flagged = 0;  // flagged indices below i
  std::size_t q = 1;
  for (std::uint64_t i = 0;; ++i) {
    while (q < P && flagged >= offsets[q]) bounds[q++] = i;  // the count grows by at most 1 per index
    if (i == domain) break;
    if (g(i) < num_items) ++flagged;
  }
  require(flagged == num_items, "walk_index_boundaries", "offsets",
          "must end at the number of flagged indices (" + std::to_string(flagged) + "), got " +
              std::to_string(num_items));
  return bounds;
}

/// Rank `rank`'s send order in the domain walk: the own positions g(i) - offsets[rank] of the
/// indices i of [0, domain) (increasing) whose image lies in [offsets[rank], offsets[rank + 1]),
/// and send_counts[q] = how many of them lie in [bounds[q], bounds[q + 1]). offsets: [P + 1]
/// input position offsets; bounds: walk_index_boundaries'. O(domain) evaluations.
struct walk_send {
  std::vector<std::uint64_t> order;        ///< own positions, in the send buffer's order
  std::vector<std::uint64_t> send_counts;  ///< [P] per destination, in destination order
};
template <class Map>
walk_send walk_send_order(const Map& g, std::uint64_t domain, const std::vector<std::uint64_t>& offsets,
                          const std::vector<std::uint64_t>& bounds, std::size_t rank) {
  const std::size_t P = offsets.size() - 1;
  require(rank < P, "walk_send_order", "rank", "must be below the number of ranks");
  walk_send w;
  w.send_counts.assign(P, 0);
  std::size_t q = 0;
  for (std::uint64_t i = 0; i < domain; ++i) {
    while (q + 1 < P && i >= bounds[q + 1]) ++q;
    const std::uint64_t x = g(i);
    if (x >= offsets[rank] && x < offsets[rank + 1]) {
      w.order.push_back(x - offsets[rank]);
      ++w.send_counts[q];
    }
  }
  return w;
}

/// The sources of output rank q's positions in output order: for each flagged index of
/// [bounds[q], bounds[q + 1]) (increasing), the rank s with offsets[s] <= g(i) < offsets[s + 1]
/// (the last such s when ranks are empty). O(range) evaluations.
template <class Map>
std::vector<std::uint32_t> walk_range_sources(const Map& g, std::uint64_t num_items,
                                              const std::vector<std::uint64_t>& offsets,
                                              const std::vector<std::uint64_t>& bounds, std::size_t q) {
  std::vector<std::uint32_t> sources;
  for (std::uint64_t i = bounds[q]; i < bounds[q + 1]; ++i) {
    const std::uint64_t x = g(i);
    if (x >= num_items) continue;
    sources.push_back(static_cast<std::uint32_t>(detail::owner(offsets, x)));
  }
  return sources;
}

// ---------------------------------------------------------------------------------------------
// Aligned pieces: an exchange whose every piece starts at an aligned address on both sides

/// One rank's pieces of one array in an exchange (plan_aligned_pieces). Items, not bytes.
struct aligned_pieces {
  /// [P]: as sender, the first item (in this rank's send array) and the item count of the
  /// piece it sends to each rank; the piece to itself included (a device copy, not NCCL).
  std::vector<std::uint64_t> send_first, send_count;
  /// [P]: as receiver, where the piece from each rank is placed in the receive array and its
  /// item count (the same count its sender computed).
  std::vector<std::uint64_t> recv_first, recv_count;
  /// [P]: where the counts[r][me] items that rank r means for this rank start in the receive
  /// array (inside the piece from r: after the items it carries for alignment only).
  std::vector<std::uint64_t> run_first;
  /// True when this rank receives from at most one rank: its piece then comes unpadded, at
  /// item 0, so the receive array holds exactly its counts[.][me] items in order.
  bool direct = false;
  /// Items of the receive array that the pieces use (at most aligned_receive_capacity).
  std::uint64_t recv_items = 0;
};

/// Items of item_bytes bytes per alignment unit of `alignment` bytes, at least 1 (the align_items
/// of plan_aligned_pieces for pieces that start on `alignment`-byte boundaries). item_bytes > 0.
inline std::uint64_t items_per_alignment(std::size_t item_bytes, std::size_t alignment = 16) {
  return item_bytes >= alignment ? 1 : alignment / item_bytes;
}

/// Items of the receive array that plan_aligned_pieces may use on a rank that receives n
/// items from P ranks: n + 3 * align_items * P (each piece adds less than one alignment unit
/// before its items, less than one after, and less than one of gap before the next piece).
inline std::uint64_t aligned_receive_capacity(std::uint64_t n, std::size_t num_ranks, std::uint64_t align_items) {
  return n + 3 * align_items * static_cast<std::uint64_t>(num_ranks);
}

/// The pieces of an exchange in which every piece starts on an alignment unit of
/// `align_items` items on both sides, for rank `me` (NCCL's grouped send/receive ran 1.2 to
/// 1.4x slower when the pieces started 4 bytes off a 16-byte boundary on one or both sides:
/// scripts/bench_alltoall_alignment.cu on 4 x H100, results/recorded/nvidia-h100-x4/).
///
/// counts: [P][P], counts[r][q] the items rank r means for rank q; rank r's send array holds
/// them grouped by destination in order, rank r's items for q at item offset
/// o(r, q) = counts[r][0] + ... + counts[r][q - 1] of an array of n_r = sum_q counts[r][q]
/// items whose first item is on a unit boundary. A rank q that receives from two or more ranks
/// gets from each rank r the piece [floor(o(r, q)), min(n_r, ceil(o(r, q) + counts[r][q])))
/// (floor and ceil to multiples of align_items; the extra items are rank r's neighbouring keys,
/// carried only for alignment), placed at the next unit boundary of its receive array, the
/// sources in rank order; its items from r then start at run_first[r]. A rank that receives
/// from at most one rank gets that piece unpadded at item 0 (direct). Every rank computes the
/// pieces of every pair from the same counts, so senders and receivers agree.
/// Errors: onepass::error naming counts (not P x P, P = 0), me (not below P) or align_items (0).
inline aligned_pieces plan_aligned_pieces(const std::vector<std::vector<std::uint64_t>>& counts, std::size_t me,
                                          std::uint64_t align_items) {
  const char* fn = "onepass::distributed::plan_aligned_pieces";
  const std::size_t P = counts.size();
  require(P > 0, fn, "counts", "must hold one row per rank (at least one), got none");
  for (std::size_t r = 0; r < P; ++r)
    require(counts[r].size() == P, fn, "counts",
            "must be P x P (P = " + std::to_string(P) + "), row " + std::to_string(r) + " has " +
                std::to_string(counts[r].size()) + " counts");
  require(me < P, fn, "me", "must be below the number of ranks (" + std::to_string(P) + "), got " + std::to_string(me));
  require(align_items > 0, fn, "align_items", "must be at least 1, got 0");
  const auto down = [&](std::uint64_t x) { return x - x % align_items; };
  const auto up = [&](std::uint64_t x) { return down(x + align_items - 1); };
  // Whether rank q receives from at most one rank (then unpadded).
  const auto direct = [&](std::size_t q) {
    std::size_t sources = 0;
    for (std::size_t r = 0; r < P; ++r) sources += counts[r][q] > 0 ? 1 : 0;
    return sources <= 1;
  };
  // The piece rank r sends to rank q: [first, first + count) of r's send array, and where
  // r's items for q start in it.
  struct piece {
    std::uint64_t first, count, lead;
  };
  const auto piece_of = [&](std::size_t r, std::size_t q) {
    std::uint64_t o = 0, n = 0;
    for (std::size_t k = 0; k < P; ++k) {
      if (k < q) o += counts[r][k];
      n += counts[r][k];
    }
    const std::uint64_t c = counts[r][q];
    if (c == 0) return piece{o, 0, 0};
    if (direct(q)) return piece{o, c, 0};
    const std::uint64_t first = down(o), last = std::min(n, up(o + c));
    return piece{first, last - first, o - first};
  };
  aligned_pieces a;
  a.send_first.resize(P);
  a.send_count.resize(P);
  a.recv_first.resize(P);
  a.recv_count.resize(P);
  a.run_first.resize(P);
  for (std::size_t q = 0; q < P; ++q) {
    const piece s = piece_of(me, q);
    a.send_first[q] = s.first;
    a.send_count[q] = s.count;
  }
  a.direct = direct(me);
  std::uint64_t at = 0;
  for (std::size_t r = 0; r < P; ++r) {
    const piece p = piece_of(r, me);
    if (!a.direct) at = up(at);
    a.recv_first[r] = at;
    a.recv_count[r] = p.count;
    a.run_first[r] = at + p.lead;
    at += p.count;
  }
  a.recv_items = at;
  return a;
}

}  // namespace onepass::distributed
