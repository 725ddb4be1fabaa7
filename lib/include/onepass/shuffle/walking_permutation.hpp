// onepass/shuffle/walking_permutation.hpp — the cycle-walking form of the VariablePhilox
// bijection: a permutation of [0, num_items) whose image at any position is computable
// alone, in O(1) memory (host and device).
//
// Source: the bijection is the one of Mitchell et al., "Bandwidth-Optimal Random Shuffling
// for GPUs" (§3.2, VariablePhilox, with the paper's key schedule); the construction is
// cycle walking (Black & Rogaway, "Ciphers with Arbitrary Finite Domains", CT-RSA 2002, §3).
// With f a bijection of [0, 2^b) and num_items = N <= 2^b,
//
//     sigma(j) = f^k(j) for the least k >= 1 with f^k(j) < N,
//
// a permutation of [0, N): every cycle of f that meets [0, N) is walked past the indices
// outside it. It is a uniformly random permutation of [0, N) whenever f is a uniformly
// random permutation of [0, 2^b). Its inverse walks f^-1 the same way.
//
// Parity. Every VariablePhilox bijection is an even permutation of [0, 2^b) (measured: no
// odd one among 10^5 seeds at b = 4..10; Feistel rounds are even permutations), so f is
// never a uniformly random permutation, and cycle walking passes the restriction on: at
// N = 2^b, sigma = f is always even; at N = 5 sigma is odd with probability 0.54, at
// N = 1000 with 0.02 (chi-square at n = 5 fails at every round count). The walk therefore
// uses f' = tau^c o f, tau the transposition of 0 and 1 and c a bit of the key schedule
// that f never reads (bit 31 of round key 0: the round function keeps b/2 <= 31 key bits),
// so f' is even or odd with equal chance, independently of f's action.
//
// Cost. Over all j in [0, N) the walks visit every element of [0, 2^b) at most once (each
// index outside [0, N) lies on at most one walk, each index inside ends exactly one; the
// indices skipped are those on cycles of f that avoid [0, N) altogether, about one on
// average for a random f), so the mean number of evaluations of f per position is at most
// 2^b / N: below 2 when 2^(b-1) < N <= 2^b (the schedule's b = ceil(log2 N) for N >= 9;
// b = 4 below, as the bijective shuffle's schedule), about 2 at the worst case
// N = 2^(b-1) + 1, 1 at N = 2^b. One walk is never longer than 2^b - N + 1 evaluations (it
// ends at the latest when it comes back round to j); for a random f, a walk takes more than
// t evaluations with probability about (1 - N/2^b)^t <= 2^-t at the schedule's b, so the
// longest walk over all N positions grows like log2 N (measured:
// experiments/walking_evaluations).
//
// Unlike the compacting shuffle (Algorithm 1), where position j depends on how many
// domain indices below it map inside [0, N), no position here depends on any other, so
// seeking to position j costs O(1) and a range of positions splits across threads, GPUs or
// ranks of a data loader with no communication. For the same (N, seed, rounds) it is a
// different permutation from the compacting shuffle's (same bijection f, other construction).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/config.hpp"
#include "onepass/error.hpp"
#include "onepass/random/counter_hash.hpp"

namespace onepass::shuffle {

/// Largest number of items a walking permutation accepts (its domain 2^b, b <= 63).
inline constexpr std::uint64_t walking_max_items = std::uint64_t{1} << 63;

/// counter_hash stream id reserved for per-epoch seeds ("epochseed" in ASCII, truncated to
/// 8 bytes: "epochsee").
inline constexpr std::uint64_t epoch_seed_stream = 0x65706f6368736565ull;

/// The seed of epoch `epoch` of a data-loader order with base seed `seed` (the sampler of
/// onepass.data and of walking_range below): counter_hash(seed, epoch_seed_stream)(epoch),
/// a SplitMix64-based mix (onepass/random/counter_hash.hpp). Any 64-bit seed and epoch; for
/// a fixed seed, distinct epochs give distinct seeds. Host and device, constexpr.
ONEPASS_HD constexpr std::uint64_t epoch_seed(std::uint64_t seed, std::uint64_t epoch) {
  return random::counter_hash(seed, epoch_seed_stream)(epoch);
}

/// y with 0 and 1 exchanged when swap is 1 (swap in {0, 1}): the transposition tau^swap that
/// the walk applies after f (file comment, "Parity"). Host and device.
ONEPASS_HD constexpr std::uint64_t swap_zero_one(std::uint64_t y, std::uint64_t swap) {
  return y ^ (y < 2 ? swap : 0);
}

/// The cycle-walking permutation sigma of [0, num_items) over a VariablePhilox bijection f
/// of [0, 2^b) (file comment). Trivially copyable (passed by value to CUDA kernels);
/// operator() and inverse() are host and device functions.
class walking_permutation {
 public:
  /// sigma over the bijection f: num_items in [0, 2^b] with b = f.domain_bits() <= 63.
  /// Throws onepass::error naming num_items or the bijection otherwise. The mean cost is
  /// 2^b / num_items evaluations of f per position: pick b = ceil(log2 num_items).
  walking_permutation(std::uint64_t num_items, const bijection::variable_philox& f)
      : f_(f), num_items_(num_items), swap_(f.rounds() > 0 ? (f.key(0) >> 31) & 1u : 0u) {
    require(f.domain_bits() <= 63, "walking_permutation", "bijection",
            "domain must be 2^b with b in [1, 63], got b = " + std::to_string(f.domain_bits()));
    require(num_items <= (std::uint64_t{1} << f.domain_bits()), "walking_permutation", "num_items",
            "must be in [0, 2^" + std::to_string(f.domain_bits()) + "] (the bijection's domain), got " +
                std::to_string(num_items));
  }

  /// The walking permutation of a length-num_items sequence for `seed`: f =
  /// variable_philox::for_length(num_items, seed, rounds), i.e. b = max(4, ceil(log2
  /// num_items)) and round keys from std::mt19937_64(seed) — the bijection the compacting
  /// shuffle of the same (num_items, seed, rounds) uses. num_items in [0, 2^63]; rounds in
  /// [1, 64] (default 24, the paper's §5). Throws onepass::error naming the argument.
  static walking_permutation for_length(std::uint64_t num_items, std::uint64_t seed,
                                        unsigned rounds = bijection::default_rounds) {
    require(num_items <= walking_max_items, "walking_permutation::for_length", "num_items",
            "must be in [0, 2^63], got " + std::to_string(num_items));
    return walking_permutation(num_items, bijection::variable_philox::for_length(num_items, seed, rounds));
  }

  /// N: the permutation is of [0, N).
  ONEPASS_HD std::uint64_t num_items() const { return num_items_; }
  /// The bijection f walked.
  ONEPASS_HD const bijection::variable_philox& bijection() const { return f_; }
  /// b: f is a bijection of [0, 2^b).
  ONEPASS_HD unsigned domain_bits() const { return f_.domain_bits(); }

  /// sigma(j), j in [0, num_items()) (not checked: a j outside walks on until it meets an
  /// index below num_items(), which is then returned; with num_items() == 0 it never ends).
  ONEPASS_HD std::uint64_t operator()(std::uint64_t j) const {
    std::uint64_t evaluations = 0;
    return walk(j, evaluations);
  }

  /// sigma^-1(y), y in [0, num_items()): inverse(operator()(j)) == j. Walks f^-1.
  ONEPASS_HD std::uint64_t inverse(std::uint64_t y) const {
    std::uint64_t j = y;
    do {
      j = f_.inverse(twist(j));
    } while (j >= num_items_);
    return j;
  }

  /// sigma(j) and, in `evaluations`, the number k >= 1 of evaluations of f it took (for the
  /// walk statistics; j as operator()).
  ONEPASS_HD std::uint64_t walk(std::uint64_t j, std::uint64_t& evaluations) const {
    std::uint64_t y = j;
    evaluations = 0;
    do {
      y = twist(f_(y));
      ++evaluations;
    } while (y >= num_items_);
    return y;
  }

  /// 1 when the walked bijection is tau o f (0 and 1 swapped after f), else 0 (file comment,
  /// "Parity").
  ONEPASS_HD std::uint64_t swap01() const { return swap_; }
  /// tau^c(y): y with 0 and 1 swapped when swap01() is 1 (swap_zero_one). The walked
  /// bijection is twist(f(y)); its inverse f^-1(twist(y)).
  ONEPASS_HD std::uint64_t twist(std::uint64_t y) const { return swap_zero_one(y, swap_); }

 private:
  bijection::variable_philox f_;
  std::uint64_t num_items_;
  std::uint64_t swap_;
};

/// Position of the k-th index a strided reader takes: (first + k * stride) mod num_items,
/// computed without overflow for first, stride < 2^64 as long as first + k * stride < 2^64
/// (callers keep it so). num_items > 0.
ONEPASS_HD inline std::uint64_t strided_position(std::uint64_t first, std::uint64_t stride, std::uint64_t k,
                                                 std::uint64_t num_items) {
  const std::uint64_t p = first + k * stride;
  return p < num_items ? p : p % num_items;
}

namespace detail {

/// The checks every strided read of a walking permutation makes (walking_range, the CPU and
/// GPU walking_indices): nothing to check for count == 0; else sigma not empty, stride >= 1
/// and first + (count - 1) * stride below 2^64. Throws onepass::error from `function`
/// naming count or stride.
inline void check_strided_range(const char* function, const walking_permutation& sigma, std::uint64_t first,
                                std::uint64_t stride, std::uint64_t count) {
  if (count == 0) return;
  require(sigma.num_items() > 0, function, "count",
          "must be 0 for an empty permutation (num_items = 0), got " + std::to_string(count));
  require(stride >= 1, function, "stride", "must be at least 1, got 0");
  require(count - 1 <= (~std::uint64_t{0} - first) / stride, function, "count",
          "first + (count - 1) * stride must be below 2^64, got first " + std::to_string(first) + ", stride " +
              std::to_string(stride) + ", count " + std::to_string(count));
}

/// The shuffles through sigma (CPU and GPU) take num_items == sigma.num_items(); throws
/// onepass::error from `function` naming num_items otherwise.
inline void check_items_of(const char* function, const walking_permutation& sigma, std::uint64_t num_items) {
  require(sigma.num_items() == num_items, function, "num_items",
          "must equal the permutation's num_items (" + std::to_string(sigma.num_items()) + "), got " +
              std::to_string(num_items));
}

}  // namespace detail

/// The positions first, first + stride, ..., first + (count - 1) * stride of a global order
/// sigma (positions taken mod num_items, which is how a padded distributed sampler repeats
/// the first indices), as a random-access range of sigma's images: element k is
/// sigma((first + k * stride) mod N). O(1) memory; each dereference walks once. This is the
/// C++ form of a data-loader rank's share of an epoch: rank r of P from global position g
/// reads walking_range(sigma, g + r, P, count).
class walking_range {
 public:
  /// sigma: the permutation (copied); stride >= 1; count such that first + (count - 1) *
  /// stride < 2^64. Throws onepass::error naming the argument otherwise, or when count > 0
  /// and sigma is empty.
  walking_range(const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride, std::uint64_t count)
      : sigma_(sigma), first_(first), stride_(stride), count_(count) {
    // stride is checked for an empty range too (its iterators' arithmetic assumes it).
    require(stride >= 1, "walking_range", "stride", "must be at least 1, got 0");
    detail::check_strided_range("walking_range", sigma, first, stride, count);
  }

  class iterator {
   public:
    using value_type = std::uint64_t;
    using difference_type = std::int64_t;
    using reference = std::uint64_t;
    using pointer = void;
    using iterator_category = std::random_access_iterator_tag;

    iterator() = default;
    std::uint64_t operator*() const { return (*range_)[k_]; }
    std::uint64_t operator[](difference_type d) const { return (*range_)[k_ + static_cast<std::uint64_t>(d)]; }
    iterator& operator++() { ++k_; return *this; }
    iterator operator++(int) { iterator t = *this; ++k_; return t; }
    iterator& operator--() { --k_; return *this; }
    iterator operator--(int) { iterator t = *this; --k_; return t; }
    iterator& operator+=(difference_type d) { k_ += static_cast<std::uint64_t>(d); return *this; }
    iterator& operator-=(difference_type d) { k_ -= static_cast<std::uint64_t>(d); return *this; }
    friend iterator operator+(iterator a, difference_type d) { return a += d; }
    friend iterator operator+(difference_type d, iterator a) { return a += d; }
    friend iterator operator-(iterator a, difference_type d) { return a -= d; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return static_cast<difference_type>(a.k_ - b.k_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.k_ == b.k_; }
    friend bool operator!=(const iterator& a, const iterator& b) { return a.k_ != b.k_; }
    friend bool operator<(const iterator& a, const iterator& b) { return a.k_ < b.k_; }
    friend bool operator>(const iterator& a, const iterator& b) { return a.k_ > b.k_; }
    friend bool operator<=(const iterator& a, const iterator& b) { return a.k_ <= b.k_; }
    friend bool operator>=(const iterator& a, const iterator& b) { return a.k_ >= b.k_; }

   private:
    friend class walking_range;
    iterator(const walking_range* range, std::uint64_t k) : range_(range), k_(k) {}
    const walking_range* range_ = nullptr;
    std::uint64_t k_ = 0;
  };

  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, count_); }
  std::uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// sigma((first + k * stride) mod N), k < size().
  std::uint64_t operator[](std::uint64_t k) const {
    return sigma_(strided_position(first_, stride_, k, sigma_.num_items()));
  }
  const walking_permutation& permutation() const { return sigma_; }
  std::uint64_t first() const { return first_; }
  std::uint64_t stride() const { return stride_; }

 private:
  walking_permutation sigma_;
  std::uint64_t first_, stride_, count_;
};

}  // namespace onepass::shuffle
