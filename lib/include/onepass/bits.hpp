// onepass/bits.hpp — small integer helpers used by the bijections (host+device).
#pragma once

#include <cstdint>

#include "onepass/config.hpp"

namespace onepass {

/// Smallest b with 2^b >= x, for x in [0, 2^64 - 1]; ceil_log2(0) == ceil_log2(1) == 0.
ONEPASS_HD constexpr unsigned ceil_log2(std::uint64_t x) {
  unsigned b = 0;
  if (x <= 1) return 0;
  x -= 1;
  while (x != 0) {
    ++b;
    x >>= 1;
  }
  return b;
}

/// Mask of the low `bits` bits, bits in [0, 64].
ONEPASS_HD constexpr std::uint64_t low_mask(unsigned bits) {
  return bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
}

/// Multiplicative inverse of an odd `a` modulo 2^64 (Newton iteration; each step
/// doubles the number of correct low bits). Reduce modulo 2^b for smaller rings.
ONEPASS_HD constexpr std::uint64_t inverse_mod_2_64(std::uint64_t a) {
  std::uint64_t x = a;  // correct to 3 bits for odd a
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

}  // namespace onepass
