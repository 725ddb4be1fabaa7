// onepass/bijection/variable_philox.hpp — the VariablePhilox bijection on [0, 2^b).
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §3.2,
// Fig. 4 and Listing 1. A Philox-style Feistel network whose left half has
// floor(b/2) bits and right half ceil(b/2) bits; when b is odd the spare bit is
// carried through the function G of Fig. 4, so every round is invertible and the
// whole cipher is a bijection of [0, 2^b) for every b in [1, 64].
#pragma once

#include <cstdint>
#include <random>

#include "onepass/bits.hpp"
#include "onepass/config.hpp"
#include "onepass/error.hpp"

namespace onepass::bijection {

/// Number of Feistel rounds the paper recommends (§5: passes every test from 24).
inline constexpr unsigned default_rounds = 24;
/// Largest number of rounds a bijection object can hold.
inline constexpr unsigned max_rounds = 64;
/// Smallest domain the paper's key schedule uses: b = max(4, ceil(log2 m)).
inline constexpr unsigned min_schedule_bits = 4;

/// Domain exponent b of the paper's schedule for a sequence of length m:
/// b = max(4, ceil(log2 m)), m in [0, 2^64 - 1]. Matches thrust::shuffle_copy.
ONEPASS_HD constexpr unsigned schedule_domain_bits(std::uint64_t m) {
  const unsigned b = ceil_log2(m);
  return b < min_schedule_bits ? min_schedule_bits : b;
}

/// VariablePhilox: a keyed bijection of [0, 2^b), trivially copyable so it can be
/// passed by value to a CUDA kernel.
///
/// Round i maps (L, R) -> (L', R') with, for the odd multiplier M0 of Philox,
///   hi:lo = M0 * L (64-bit product split into 32-bit halves),
///   L'    = (hi ^ key_i ^ R) mod 2^floor(b/2)          (F_k(L) xor R)
///   R'    = ((lo << d) | (R >> floor(b/2))) mod 2^ceil(b/2)   (G(B_k(L), odd bit))
/// where d = ceil(b/2) - floor(b/2) is 0 or 1. For b = 1 the left half is empty and
/// the cipher is the identity (still a bijection); the paper's schedule uses b >= 4.
class variable_philox {
 public:
  static constexpr std::uint64_t multiplier = 0xD2B74407B1CE6E93ull;  ///< Philox M0.

  /// Builds the cipher for domain [0, 2^domain_bits) taking `rounds` round keys
  /// as the low 32 bits of successive outputs of `g` (the paper's key schedule).
  /// Throws onepass::error unless domain_bits in [1, 64] and rounds in [1, 64].
  template <class URBG>
  variable_philox(unsigned domain_bits, URBG&& g, unsigned rounds = default_rounds) {
    require(domain_bits >= 1 && domain_bits <= 64, "variable_philox", "domain_bits",
            "must be in [1, 64], got " + std::to_string(domain_bits));
    require(rounds >= 1 && rounds <= max_rounds, "variable_philox", "rounds",
            "must be in [1, " + std::to_string(max_rounds) + "], got " + std::to_string(rounds));
    left_bits_ = domain_bits / 2;
    right_bits_ = domain_bits - left_bits_;
    rounds_ = rounds;
    for (unsigned i = 0; i < max_rounds; ++i) key_[i] = 0;
    for (unsigned i = 0; i < rounds; ++i) key_[i] = static_cast<std::uint32_t>(g());
  }

  /// The cipher the paper's shuffle of a length-m sequence uses for `seed`: domain
  /// bits schedule_domain_bits(m), keys from std::mt19937_64(seed).
  /// m in [0, 2^64 - 1]; rounds in [1, 64].
  static variable_philox for_length(std::uint64_t m, std::uint64_t seed, unsigned rounds = default_rounds) {
    return variable_philox(schedule_domain_bits(m), std::mt19937_64(seed), rounds);
  }

  /// Exponent b of the domain [0, 2^b).
  ONEPASS_HD unsigned domain_bits() const { return left_bits_ + right_bits_; }
  /// Number of Feistel rounds.
  ONEPASS_HD unsigned rounds() const { return rounds_; }
  /// Round key i (i < rounds()).
  ONEPASS_HD std::uint32_t key(unsigned i) const { return key_[i]; }

  /// Image of x; x must be < 2^domain_bits() (higher bits are ignored).
  ONEPASS_HD std::uint64_t operator()(std::uint64_t x) const {
    const std::uint32_t left_mask = static_cast<std::uint32_t>(low_mask(left_bits_));
    const std::uint32_t right_mask = static_cast<std::uint32_t>(low_mask(right_bits_));
    const unsigned d = right_bits_ - left_bits_;
    std::uint32_t l = static_cast<std::uint32_t>((x >> right_bits_) & left_mask);
    std::uint32_t r = static_cast<std::uint32_t>(x) & right_mask;
    for (unsigned i = 0; i < rounds_; ++i) {
      const std::uint64_t product = multiplier * static_cast<std::uint64_t>(l);
      const std::uint32_t hi = static_cast<std::uint32_t>(product >> 32);
      const std::uint32_t lo = static_cast<std::uint32_t>(product);
      const std::uint32_t odd_bit = d ? (r >> left_bits_) : 0u;
      l = (hi ^ key_[i] ^ r) & left_mask;
      r = ((lo << d) | odd_bit) & right_mask;
    }
    return (static_cast<std::uint64_t>(l) << right_bits_) | r;
  }

  /// Images of the K consecutive inputs first, first+1, ..., first+K-1 (each below
  /// 2^domain_bits()) into out[0, K): equal to K calls of operator(), but the rounds
  /// of the K inputs are interleaved, so a CPU overlaps their multiply latencies.
  template <int K>
  ONEPASS_HD void images_of_run(std::uint64_t first, std::uint64_t* out) const {
    const std::uint32_t left_mask = static_cast<std::uint32_t>(low_mask(left_bits_));
    const std::uint32_t right_mask = static_cast<std::uint32_t>(low_mask(right_bits_));
    const unsigned d = right_bits_ - left_bits_;
    std::uint32_t l[K], r[K];
    for (int k = 0; k < K; ++k) {
      const std::uint64_t x = first + static_cast<std::uint64_t>(k);
      l[k] = static_cast<std::uint32_t>((x >> right_bits_) & left_mask);
      r[k] = static_cast<std::uint32_t>(x) & right_mask;
    }
    for (unsigned i = 0; i < rounds_; ++i) {
      const std::uint32_t key = key_[i];
      for (int k = 0; k < K; ++k) {
        const std::uint64_t product = multiplier * static_cast<std::uint64_t>(l[k]);
        // r < 2^right, so this is the odd bit when d = 1 and 0 when d = 0 (64-bit
        // shift: left_bits_ may be 32).
        const std::uint32_t odd_bit = static_cast<std::uint32_t>(static_cast<std::uint64_t>(r[k]) >> left_bits_);
        const std::uint32_t new_l = (static_cast<std::uint32_t>(product >> 32) ^ key ^ r[k]) & left_mask;
        r[k] = ((static_cast<std::uint32_t>(product) << d) | odd_bit) & right_mask;
        l[k] = new_l;
      }
    }
    for (int k = 0; k < K; ++k) out[k] = (static_cast<std::uint64_t>(l[k]) << right_bits_) | r[k];
  }

  /// Preimage of y: inverse(operator()(x)) == x for every x < 2^domain_bits().
  ONEPASS_HD std::uint64_t inverse(std::uint64_t y) const {
    const std::uint32_t left_mask = static_cast<std::uint32_t>(low_mask(left_bits_));
    const std::uint32_t right_mask = static_cast<std::uint32_t>(low_mask(right_bits_));
    const unsigned d = right_bits_ - left_bits_;
    constexpr std::uint64_t multiplier_inverse = inverse_mod_2_64(multiplier);
    std::uint32_t l = static_cast<std::uint32_t>((y >> right_bits_) & left_mask);
    std::uint32_t r = static_cast<std::uint32_t>(y) & right_mask;
    for (unsigned i = rounds_; i-- > 0;) {
      // Undo G: the low d bits of R' are the odd bit, the rest is B_k(L) mod 2^left.
      const std::uint32_t odd_bit = r & ((1u << d) - 1u);
      const std::uint32_t b_of_l = (r >> d) & left_mask;
      // Undo B_k: L = B_k(L) * M0^-1 mod 2^left.
      const std::uint32_t prev_l =
          static_cast<std::uint32_t>(multiplier_inverse * static_cast<std::uint64_t>(b_of_l)) & left_mask;
      // Undo F_k: low bits of R = L' ^ hi(M0 * L) ^ key.
      const std::uint32_t hi = static_cast<std::uint32_t>((multiplier * static_cast<std::uint64_t>(prev_l)) >> 32);
      const std::uint32_t r_low = (l ^ hi ^ key_[i]) & left_mask;
      r = d ? (r_low | (odd_bit << left_bits_)) : r_low;
      l = prev_l;
    }
    return (static_cast<std::uint64_t>(l) << right_bits_) | r;
  }

 private:
  unsigned left_bits_ = 0;
  unsigned right_bits_ = 0;
  unsigned rounds_ = 0;
  std::uint32_t key_[max_rounds];
};

}  // namespace onepass::bijection
