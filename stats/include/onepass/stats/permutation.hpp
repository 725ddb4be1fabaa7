// onepass/stats/permutation.hpp — combinatorics of permutations used by the
// statistical tests of Mitchell et al., "Bandwidth-Optimal Random Shuffling for
// GPUs", §5: inversion counts, discordant pairs n_dis (the distance inside the
// Mallows kernel), and the Lehmer-code rank that indexes the n! cells of the
// chi-square test.
//
// Convention: a permutation of length n is held in one-line notation, an array
// p[0, n) holding each of 0, 1, ..., n-1 exactly once, with sigma(i) = p[i].
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onepass::stats {

/// Largest n whose n! fits the Lehmer rank type (20! < 2^64 < 21!).
inline constexpr std::size_t max_rank_length = 20;

/// n! for n in [0, 20]. Throws onepass::error for n > 20 (the value would not fit
/// in 64 bits).
std::uint64_t factorial(std::size_t n);

/// Binomial coefficient C(n, 2) = n(n-1)/2, the number of pairs i < j; the
/// normaliser of the Mallows kernel (§5). n in [0, 2^32).
std::uint64_t pair_count(std::size_t n);

/// True when values[0, n) holds each of 0, 1, ..., n-1 exactly once. O(n) time,
/// O(n) bits of scratch. values may be null only when n == 0.
bool is_permutation(const std::uint64_t* values, std::size_t n);
/// Overload for a whole vector.
bool is_permutation(const std::vector<std::uint64_t>& values);

/// Number of inversions of values[0, n): pairs i < j with values[i] > values[j].
/// Any values are accepted (equal values are not an inversion); for a permutation
/// this is n_dis(I, sigma), the Kendall tau distance to the identity, in
/// [0, C(n, 2)]. O(n log n) time, O(n) scratch: a Fenwick tree when values is a
/// permutation of 0..n-1, a bottom-up merge sort otherwise.
/// values may be null only when n == 0.
std::uint64_t inversion_count(const std::uint64_t* values, std::size_t n);
/// Overload for a whole vector.
std::uint64_t inversion_count(const std::vector<std::uint64_t>& values);

/// Number of discordant pairs of two permutations of length n (§5):
///   n_dis(sigma, tau) = sum_{i<j} [sigma(i)<sigma(j)][tau(i)>tau(j)]
///                              + [sigma(i)>sigma(j)][tau(i)<tau(j)],
/// computed in O(n log n) as the inversion count of tau o sigma^-1. Symmetric,
/// n_dis(sigma, sigma) = 0, in [0, C(n, 2)]. Throws onepass::error unless both
/// sigma[0, n) and tau[0, n) are permutations of 0..n-1.
std::uint64_t discordant_pairs(const std::uint64_t* sigma, const std::uint64_t* tau, std::size_t n);
/// Overload for two vectors of equal length (throws onepass::error otherwise).
std::uint64_t discordant_pairs(const std::vector<std::uint64_t>& sigma, const std::vector<std::uint64_t>& tau);

/// Reusable scratch for the counts above, for hot loops that evaluate millions of
/// permutations without allocating. Not thread-safe: one object per thread.
class permutation_workspace {
 public:
  /// inversion_count(values, n), reusing this object's buffers.
  std::uint64_t inversions(const std::uint64_t* values, std::size_t n);
  /// discordant_pairs(sigma, tau, n), reusing this object's buffers; same errors.
  std::uint64_t discordant(const std::uint64_t* sigma, const std::uint64_t* tau, std::size_t n);
  /// is_permutation(values, n), reusing this object's buffers.
  bool check(const std::uint64_t* values, std::size_t n);

 private:
  std::vector<std::uint64_t> a_, b_;
  std::vector<std::uint32_t> tree_;
  std::vector<unsigned char> seen_;
};

/// Lehmer-code rank of a permutation of length n <= 20: the position of
/// sigma in the lexicographic order of all n! permutations, in [0, n!).
/// rank = sum_i d_i (n-1-i)!, d_i = #{j > i : sigma(j) < sigma(i)}. O(n^2).
/// Throws onepass::error if n > 20 or sigma is not a permutation of 0..n-1.
std::uint64_t lehmer_rank(const std::uint64_t* sigma, std::size_t n);
/// Overload for a whole vector.
std::uint64_t lehmer_rank(const std::vector<std::uint64_t>& sigma);

/// Inverse of lehmer_rank: the permutation of length n <= 20 with the given rank.
/// Throws onepass::error if n > 20 or rank >= n!.
std::vector<std::uint64_t> permutation_from_rank(std::uint64_t rank, std::size_t n);

}  // namespace onepass::stats
