// onepass/gaussian/float_entropy.hpp — the counter-based entropy source of the
// float-native warp Gaussian generator (warp_gaussian_float.cuh): 128 uniform bits per
// (seed, stream, block), computable in any order, using 32-bit integer arithmetic only
// (no 64-bit multiplies), so any run can be replayed on the CPU bit for bit.
//
// Article: "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022),
// section "A new algorithm": the generator "presupposes a good pseudorandom generator of
// uniform 32-bit integers"; each warp transform consumes one 32-bit word per lane.
//
// Construction: Philox4x32-R (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011), R = float_philox_rounds = 7, with
//   key     = (lo32(seed) ^ salt0, hi32(seed) ^ salt1)      (warp-uniform)
//   counter = (lo32(block), hi32(block), lo32(stream), hi32(stream))
// The round function, multipliers (0xD2511F53, 0xCD9E8D57) and Weyl key increments
// (0x9E3779B9, 0xBB67AE85) are Random123's, so with R = 10 and a zero salt the words equal
// Random123's philox4x32-10 (tests/cpu/test_gaussian_float.cpp checks its known-answer
// vector). One round is two 32x32->64-bit multiplies (one IMAD.WIDE.U32 each on the GPU)
// and two three-input xors; one call gives the four words of four warp transforms.
//
// Statistical standing (what is and is not claimed):
// - Salmon et al. (Table 2) report Philox4x32 with 7 rounds as the fewest rounds passing
//   all of TestU01's BigCrush for every counter pattern they tried ("Crush-resistant"),
//   and recommend 10 for a safety margin; we use 7 for speed (3 rounds = 12 integer ops
//   per 4 words fewer). Philox is a bijection of the counter for each key, so one
//   stream never repeats within 2^64 blocks.
// - Streams (threads) differ in the counter, not the key, as in cuRAND's
//   curand_init(seed, subsequence, offset): distinct (block, stream) pairs are distinct
//   counters, hence distinct inputs of one keyed bijection. No inter-stream correlation
//   test has been run by us beyond the generator's own statistical tests.
// - The salt separates these streams from other users of Philox with the same seed
//   (e.g. cuRAND with the same seed gives different words).
// - Not cryptographic (neither is the Gaussian transform; article, "Conclusions").
#pragma once

#include <cstdint>

#include "onepass/config.hpp"

namespace onepass::gaussian {

/// Philox rounds of the float-native generator's entropy (part of its definition:
/// changing it changes every output).
inline constexpr unsigned float_philox_rounds = 7;
/// Salt xored into the two key words (domain separation).
inline constexpr std::uint32_t float_seed_salt0 = 0x46ea7e11u;
inline constexpr std::uint32_t float_seed_salt1 = 0x6a09e667u;

/// Four uniform 32-bit words (one Philox4x32 output).
struct words4 {
  std::uint32_t w[4];
};

namespace philox {
inline constexpr std::uint32_t m0 = 0xD2511F53u;
inline constexpr std::uint32_t m1 = 0xCD9E8D57u;
inline constexpr std::uint32_t w0 = 0x9E3779B9u;
inline constexpr std::uint32_t w1 = 0xBB67AE85u;

/// High and low 32 bits of the 32x32-bit product a * b.
ONEPASS_HD inline void mul_hilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
#if defined(__CUDA_ARCH__)
  lo = a * b;
  hi = __umulhi(a, b);
#else
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  lo = static_cast<std::uint32_t>(p);
  hi = static_cast<std::uint32_t>(p >> 32);
#endif
}

/// Philox4x32 with `rounds` rounds (1..16) of counter c under key (k0, k1); Random123's
/// philox4x32_R. Pure function, host and device.
ONEPASS_HD inline words4 philox4x32(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3,
                                    std::uint32_t k0, std::uint32_t k1, unsigned rounds) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned r = 0; r < 16; ++r) {
    if (r >= rounds) break;
    std::uint32_t hi0, lo0, hi1, lo1;
    mul_hilo(m0, c0, hi0, lo0);
    mul_hilo(m1, c2, hi1, lo1);
    const std::uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += w0;
    k1 += w1;
  }
  return words4{{c0, c1, c2, c3}};
}
}  // namespace philox

/// Counter-based source of the float-native generator for one (seed, stream): 16 bytes,
/// host and device. operator()(block) is a pure function of (seed, stream, block): the
/// four 32-bit words of Philox4x32-7 (file comment). Word j of block q is the entropy of
/// warp transform 4q + j of this stream.
class float_entropy_source {
 public:
  /// Stream `stream` (any 64-bit id, e.g. the global thread index or, in gpu::generate_normal,
  /// the lane) under `seed` (any 64-bit value).
  ONEPASS_HD constexpr float_entropy_source(std::uint64_t seed, std::uint64_t stream)
      : k0_(static_cast<std::uint32_t>(seed) ^ float_seed_salt0),
        k1_(static_cast<std::uint32_t>(seed >> 32) ^ float_seed_salt1),
        s0_(static_cast<std::uint32_t>(stream)),
        s1_(static_cast<std::uint32_t>(stream >> 32)) {}

  /// The four words of block `block` (any 64-bit value).
  ONEPASS_HD inline words4 operator()(std::uint64_t block) const {
    return philox::philox4x32(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), s0_, s1_,
                              k0_, k1_, float_philox_rounds);
  }

 private:
  std::uint32_t k0_, k1_, s0_, s1_;
};

}  // namespace onepass::gaussian
