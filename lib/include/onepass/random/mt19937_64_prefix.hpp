// onepass/random/mt19937_64_prefix.hpp — the first outputs of std::mt19937_64(seed),
// computed without the 312-word state, on the host or the device.
//
// The bijective shuffle's key schedule (bijection/variable_philox.hpp) takes its round
// keys from the first outputs of std::mt19937_64(seed) (Matsumoto & Nishimura's MT19937
// in its 64-bit form, as specified by the C++ standard, [rand.eng.mers]). Output k < 156
// of a freshly seeded engine depends only on the seeding words x[k], x[k + 1] and
// x[k + 156] (the first twist of the state uses x[k + 156] before it is itself
// twisted), so the first `count` outputs need the seeding recurrence up to x[155 +
// count] and no 2.5 KB state: a GPU thread can compute a segment's keys in registers and
// local memory. Equal to std::mt19937_64 bit for bit (tests/cpu/test_mt19937_prefix.cpp).
#pragma once

#include <cstdint>

#include "onepass/config.hpp"

namespace onepass::random {

/// Largest `count` mt19937_64_prefix accepts (the bijections hold at most 64 round keys).
inline constexpr unsigned mt19937_64_prefix_max = 64;

/// out[k] = the k-th output (k = 0 .. count - 1) of std::mt19937_64(seed), for count in
/// [0, 64] (larger counts are clamped to 64). Host and device; no allocation.
ONEPASS_HD inline void mt19937_64_prefix(std::uint64_t seed, unsigned count, std::uint64_t* out) {
  // The std::mersenne_twister_engine parameters of std::mt19937_64.
  constexpr unsigned n = 312, m = 156;
  constexpr std::uint64_t f = 6364136223846793005ull;
  constexpr std::uint64_t a = 0xB5026F5AA96619E9ull;
  constexpr std::uint64_t upper = ~std::uint64_t{0} << 31, lower = ~upper;
  static_assert(m + mt19937_64_prefix_max < n, "outputs beyond the first twist's untouched words");
  if (count > mt19937_64_prefix_max) count = mt19937_64_prefix_max;
  if (count == 0) return;
  std::uint64_t head[mt19937_64_prefix_max + 1];  // x[0 .. count]
  std::uint64_t x = seed;
  head[0] = x;
  for (unsigned i = 1; i < m + count; ++i) {
    x = f * (x ^ (x >> 62)) + i;  // seeding recurrence, w = 64
    if (i <= count) head[i] = x;
    if (i >= m) {
      const unsigned k = i - m;  // x == x[k + 156]
      const std::uint64_t y = (head[k] & upper) | (head[k + 1] & lower);
      std::uint64_t z = x ^ (y >> 1) ^ ((y & 1u) ? a : 0u);
      z ^= (z >> 29) & 0x5555555555555555ull;  // tempering
      z ^= (z << 17) & 0x71D67FFFEDA60000ull;
      z ^= (z << 37) & 0xFFF7EEE000000000ull;
      z ^= z >> 43;
      out[k] = z;
    }
  }
}

}  // namespace onepass::random
