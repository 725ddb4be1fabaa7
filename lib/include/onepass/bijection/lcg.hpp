// onepass/bijection/lcg.hpp — the linear congruential bijection on [0, 2^b).
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §3.1,
// Eq. 1: y = (a x + c) mod n, a bijection when gcd(a, n) = 1; with n = 2^b any odd
// a works. At most n^2/2 distinct permutations, so it fails the §5 tests.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "onepass/bijection/variable_philox.hpp"  // schedule_domain_bits
#include "onepass/bits.hpp"
#include "onepass/config.hpp"
#include "onepass/error.hpp"

namespace onepass::bijection {

/// LCG bijection x -> (a x + c) mod 2^b with odd a; trivially copyable.
class lcg {
 public:
  /// Builds the bijection on [0, 2^domain_bits): a = (g() | 1) mod 2^b, then
  /// c = g() mod 2^b (two draws from g). Throws onepass::error unless
  /// domain_bits in [1, 64].
  template <class URBG>
  lcg(unsigned domain_bits, URBG&& g) {
    require(domain_bits >= 1 && domain_bits <= 64, "lcg", "domain_bits",
            "must be in [1, 64], got " + std::to_string(domain_bits));
    bits_ = domain_bits;
    const std::uint64_t mask = low_mask(bits_);
    a_ = (static_cast<std::uint64_t>(g()) | 1u) & mask;
    c_ = static_cast<std::uint64_t>(g()) & mask;
    a_inverse_ = inverse_mod_2_64(a_) & mask;
  }

  /// The LCG the shuffle of a length-m sequence uses for `seed`: domain bits
  /// schedule_domain_bits(m), a and c from std::mt19937_64(seed). m in [0, 2^64-1].
  static lcg for_length(std::uint64_t m, std::uint64_t seed) {
    return lcg(schedule_domain_bits(m), std::mt19937_64(seed));
  }

  ONEPASS_HD unsigned domain_bits() const { return bits_; }
  ONEPASS_HD std::uint64_t multiplier() const { return a_; }
  ONEPASS_HD std::uint64_t increment() const { return c_; }

  /// Image of x < 2^domain_bits().
  ONEPASS_HD std::uint64_t operator()(std::uint64_t x) const { return (a_ * x + c_) & low_mask(bits_); }
  /// Preimage of y < 2^domain_bits(): a^-1 (y - c) mod 2^b.
  ONEPASS_HD std::uint64_t inverse(std::uint64_t y) const { return (a_inverse_ * (y - c_)) & low_mask(bits_); }

 private:
  unsigned bits_ = 0;
  std::uint64_t a_ = 1;
  std::uint64_t c_ = 0;
  std::uint64_t a_inverse_ = 1;
};

}  // namespace onepass::bijection
