// onepass/distributed/splitters.hpp — the exact splitters of the distributed sort, found from
// histograms level by level (what distributed/sort.cuh computes on every rank between its
// all-gathers). Pure host code: no NCCL, no CUDA; CPU-tested against plan_sort_exchange
// (exchange_plan.hpp), the key-by-key reference of the same rule.
//
// The rule (exchange_plan.hpp, "The partition"): output rank q holds the keys of global
// positions [S_q, S_{q+1}) of the stable sort of the concatenation (S_q = n_0 + ... + n_{q-1},
// the input counts, so the output is exactly balanced). In the stable sort a key is ordered by
// (its key field w, its source rank r, its position i on the rank). So boundary q is one key
// of the concatenation: the one at sorted position S_q. Its splitter is (w_q, r_q, k_q): the
// key field, and, among the keys of field w_q, the source rank and the occurrence (0-based,
// in position order on that rank) of the key at S_q. A key (w, r, i) goes to output rank
//   dest = #{q in 1..P-1 : (w, r, occurrence of i among rank r's keys equal to w) >= (w_q, r_q, k_q)}.
// On rank r that test needs only a position threshold t_q(r): keys equal to w_q are at or
// after boundary q iff i >= t_q(r), with t_q(r) = +inf for r < r_q, 0 for r > r_q, and for
// r = r_q the position of rank r_q's k_q-th key equal to w_q (0 when k_q = 0). Then
//   key (w, i) >= splitter q  <=>  w > w_q  or  (w == w_q and i >= t_q(r)),
// which is monotone in q, so dest is a binary search over the P - 1 splitters.
//
// Finding w_q from histograms (MSD refinement; RMG sort's idea, see exchange_plan.hpp): the
// key field of W bits is cut into digits from the top (the first of first_digit_bits, then
// digit_bits each). At level 0 every rank histograms its keys on the first digit; the
// all-gathered histograms give every rank the same bucket totals and offsets. A boundary that
// falls on the first key of a bucket is resolved at once: w_q is the smallest field value
// with that bucket's prefix (every key of the bucket is at or after it, every key before the
// bucket is below it; threshold 0). A boundary inside a bucket opens the bucket as a segment
// of the next level: only the keys with that prefix are histogrammed on the next digit (at
// most P - 1 segments per level). On the last digit a bucket's keys are all equal, and a
// boundary inside it is a tie: w_q is that value, and the per-rank counts e_r of the bucket
// (the histograms' row of each rank) give (r_q, k_q): the c-th key of the bucket (c = S_q -
// the bucket's first position) in (rank, position) order. Ties are split exactly, never by
// sampling.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "onepass/distributed/exchange_plan.hpp"
#include "onepass/distributed/prefix.hpp"
#include "onepass/error.hpp"

namespace onepass::distributed {

/// One boundary's splitter (file comment): the key field w_q, whether the boundary splits a
/// run of equal keys (tie), and for a tie the source rank r_q and occurrence k_q of the key
/// at the boundary.
struct splitter {
  std::uint64_t word = 0;          ///< w_q, the key field (W bits)
  bool tie = false;                ///< the boundary falls inside a run of keys equal to w_q
  std::uint32_t rank = 0;          ///< r_q (ties only)
  std::uint64_t occurrence = 0;    ///< k_q (ties only): rank r_q's keys equal to w_q before the boundary
  bool beyond_all = false;         ///< S_q == N: no key is at or after this boundary
  /// [P]: below[r] = rank r's keys before the boundary (those it sends to destinations < q),
  /// from the histograms alone; final once the search is done.
  std::vector<std::uint64_t> below;

  /// The position threshold t_q(r) on rank `rank_r` (file comment); `position` is rank r_q's
  /// position of its occurrence-th key equal to word, used only when needs_position(rank_r).
  std::uint64_t threshold(std::uint32_t rank_r, std::uint64_t position = 0) const {
    if (beyond_all) return std::numeric_limits<std::uint64_t>::max();
    if (!tie || rank_r > rank) return 0;
    if (rank_r < rank) return std::numeric_limits<std::uint64_t>::max();
    return occurrence == 0 ? 0 : position;
  }
  /// Whether rank_r must find the position of its occurrence-th key equal to word.
  bool needs_position(std::uint32_t rank_r) const { return !beyond_all && tie && rank_r == rank && occurrence > 0; }
};

/// The level-by-level search for the splitters of P - 1 boundaries (file comment).
class splitter_search {
 public:
  /// input_counts: [P] n_r (P >= 1, any n_r, summing to less than 2^64); the output counts are
  /// the same (exact balance). field_bits: W in [1, 64], the width of the key field
  /// (end_bit - begin_bit). first_digit_bits, digit_bits: in [1, 16], the widths of level 0's
  /// digit and of later levels'. Throws onepass::error naming the argument.
  splitter_search(const std::vector<std::uint64_t>& input_counts, unsigned field_bits, unsigned first_digit_bits = 12,
                  unsigned digit_bits = 8)
      : counts_(input_counts), field_bits_(field_bits), digit_bits_(digit_bits) {
    const char* fn = "onepass::distributed::splitter_search";
    require(!counts_.empty(), fn, "input_counts", "must have one count per rank (at least 1), got 0");
    require(field_bits >= 1 && field_bits <= 64, fn, "field_bits", "must be in [1, 64], got " + std::to_string(field_bits));
    require(first_digit_bits >= 1 && first_digit_bits <= 16, fn, "first_digit_bits",
            "must be in [1, 16], got " + std::to_string(first_digit_bits));
    require(digit_bits >= 1 && digit_bits <= 16, fn, "digit_bits", "must be in [1, 16], got " + std::to_string(digit_bits));
    bounds_ = detail::exclusive_prefix(counts_, fn, "input_counts");
    const std::size_t P = counts_.size();
    const std::uint64_t N = bounds_[P];
    splitters_.assign(P > 0 ? P - 1 : 0, splitter{});
    width_ = std::min(first_digit_bits, field_bits);
    shift_ = field_bits - width_;
    segment root;
    root.rank_below.assign(P, 0);
    for (std::size_t q = 1; q < P; ++q) {
      const std::uint64_t s = bounds_[q];
      if (s == 0) {
        splitters_[q - 1] = splitter{};  // every key is at or after it
        splitters_[q - 1].below.assign(P, 0);
      } else if (s >= N) {
        splitters_[q - 1].beyond_all = true;
        splitters_[q - 1].word = field_mask();
        splitters_[q - 1].below = counts_;
      } else {
        root.boundaries.push_back(q);
      }
    }
    if (!root.boundaries.empty()) open_.push_back(root);
  }

  /// Whether every splitter is known (no open segment is left).
  bool done() const { return open_.empty(); }
  /// The current level (0 first).
  unsigned level() const { return level_; }
  /// Width of the current level's digit (bits) and its shift in the key field: digit =
  /// (w >> digit_shift()) & (2^digit_width() - 1).
  unsigned digit_width() const { return width_; }
  unsigned digit_shift() const { return shift_; }
  /// Buckets per segment at the current level: 2^digit_width().
  std::size_t num_buckets() const { return std::size_t{1} << width_; }
  /// The open segments' prefixes, ascending: a key of field w belongs to segment s iff
  /// (w >> (digit_shift() + digit_width())) == open_prefixes()[s] (at level 0 the single
  /// segment has prefix 0 and every key belongs to it).
  std::vector<std::uint64_t> open_prefixes() const {
    std::vector<std::uint64_t> p;
    for (const auto& s : open_) p.push_back(s.prefix);
    return p;
  }
  std::size_t num_open() const { return open_.size(); }

  /// Takes the all-gathered histograms of the current level, [P][num_open()][num_buckets()]
  /// row-major (rank r's counts of segment s's keys by digit), and moves to the next level.
  /// Throws onepass::error naming histograms when the size is wrong or a segment's totals
  /// disagree with what the previous level counted (the ranks histogrammed different keys).
  void add_level(const std::vector<std::uint64_t>& histograms) {
    const char* fn = "onepass::distributed::splitter_search::add_level";
    const std::size_t P = counts_.size(), S = open_.size(), B = num_buckets();
    require(histograms.size() == P * S * B, fn, "histograms",
            "must hold P x segments x buckets = " + std::to_string(P * S * B) + " counts, got " +
                std::to_string(histograms.size()));
    std::vector<segment> next;
    const bool last = shift_ == 0;
    for (std::size_t s = 0; s < S; ++s) {
      const segment& seg = open_[s];
      std::vector<std::uint64_t> total(B, 0), offset(B + 1, 0);
      for (std::size_t r = 0; r < P; ++r)
        for (std::size_t b = 0; b < B; ++b) total[b] += histograms[(r * S + s) * B + b];
      for (std::size_t b = 0; b < B; ++b) offset[b + 1] = offset[b] + total[b];
      if (level_ > 0)
        require(offset[B] == seg.size, fn, "histograms",
                "count " + std::to_string(offset[B]) + " keys in segment " + std::to_string(s) + " where the level above counted " +
                    std::to_string(seg.size) + " (the ranks' keys changed between levels)");
      std::size_t open_bucket = B;  // the bucket opened as a segment of the next level, if any
      // running[r]: rank r's keys below bucket `cursor` (the boundaries' buckets ascend).
      std::vector<std::uint64_t> running = seg.rank_below;
      std::size_t cursor = 0;
      for (std::size_t q : seg.boundaries) {
        const std::uint64_t pos = bounds_[q] - seg.offset;
        require(pos < offset[B], fn, "histograms", "count fewer keys than the output counts need");
        const std::size_t b = static_cast<std::size_t>(std::upper_bound(offset.begin(), offset.end(), pos) - offset.begin()) - 1;
        for (; cursor < b; ++cursor)
          for (std::size_t r = 0; r < P; ++r) running[r] += histograms[(r * S + s) * B + cursor];
        const std::uint64_t word = ((seg.prefix << width_) | b) << shift_;
        splitter& sp = splitters_[q - 1];
        if (pos == offset[b]) {
          sp = splitter{};
          sp.word = word;
          sp.below = running;
        } else if (last) {
          sp = splitter{};
          sp.word = word;
          sp.tie = true;
          std::uint64_t c = pos - offset[b];
          std::size_t r = 0;
          while (c >= histograms[(r * S + s) * B + b]) c -= histograms[(r * S + s) * B + b], ++r;
          sp.rank = static_cast<std::uint32_t>(r);
          sp.occurrence = c;
          sp.below = running;  // and the equal keys of the ranks before r_q, and k_q of r_q's
          for (std::size_t e = 0; e < r; ++e) sp.below[e] += histograms[(e * S + s) * B + b];
          sp.below[r] += c;
        } else {
          if (open_bucket != b) {
            segment child;
            child.prefix = (seg.prefix << width_) | b;
            child.offset = seg.offset + offset[b];
            child.size = total[b];
            child.rank_below = running;
            next.push_back(child);
            open_bucket = b;
          }
          next.back().boundaries.push_back(q);
        }
      }
    }
    open_ = std::move(next);  // ascending: segments ascend and buckets ascend within each
    ++level_;
    if (!open_.empty()) {
      width_ = std::min(digit_bits_, shift_);
      shift_ -= width_;
    }
  }

  /// The P - 1 splitters (boundary q = 1..P-1 at index q - 1); final once done().
  const std::vector<splitter>& splitters() const { return splitters_; }

  /// [P]: the keys rank `rank` sends to each destination q (its keys of global sorted positions
  /// [S_q, S_{q+1}), counted from the histograms: no pass over the keys). Exactly what the
  /// splitters' rule sends. Throws onepass::error unless done() and rank < P.
  std::vector<std::uint64_t> send_counts(std::size_t rank) const {
    const char* fn = "onepass::distributed::splitter_search::send_counts";
    const std::size_t P = counts_.size();
    require(done(), fn, "this", "must have finished the search (done()), " + std::to_string(open_.size()) +
                                     " segments are still open");
    require(rank < P, fn, "rank", "must be below the number of ranks " + std::to_string(P) + ", got " + std::to_string(rank));
    std::vector<std::uint64_t> send(P);
    std::uint64_t before = 0;
    for (std::size_t q = 0; q < P; ++q) {
      const std::uint64_t upto = q + 1 < P ? splitters_[q].below[rank] : counts_[rank];
      send[q] = upto - before;
      before = upto;
    }
    return send;
  }

 private:
  struct segment {
    std::uint64_t prefix = 0;  ///< the digits above the current one
    std::uint64_t offset = 0;  ///< global sorted position of the segment's first key
    std::uint64_t size = 0;    ///< its keys (checked against the next level's histograms)
    std::vector<std::uint64_t> rank_below;  ///< [P]: each rank's keys below the segment
    std::vector<std::size_t> boundaries;  ///< q with S_q strictly inside the segment
  };
  std::uint64_t field_mask() const {
    return field_bits_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << field_bits_) - 1;
  }

  std::vector<std::uint64_t> counts_, bounds_;
  unsigned field_bits_, digit_bits_;
  unsigned width_ = 0, shift_ = 0, level_ = 0;
  std::vector<segment> open_;
  std::vector<splitter> splitters_;
};

/// Whether a key of field `word` at position `position` on its rank is at or after a splitter
/// of field `splitter_word` and position threshold `threshold` (file comment).
inline bool at_or_after(std::uint64_t word, std::uint64_t position, std::uint64_t splitter_word, std::uint64_t threshold) {
  return word > splitter_word || (word == splitter_word && position >= threshold);
}

}  // namespace onepass::distributed
