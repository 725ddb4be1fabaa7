// onepass/gaussian/entropy.hpp — the counter-based entropy source of the warp Gaussian
// generator: one uniform 32-bit word per (seed, thread, draw), computable in any order,
// so any run can be replayed (the article "Training a random Gaussian generator",
// section "A new algorithm", presupposes "a good pseudorandom generator of uniform 32-bit
// integers").
//
// Construction: entropy(seed, thread, draw) = 32-bit half (draw & 1: 0 low, 1 high) of
// counter_hash(seed ^ gaussian_seed_salt, thread)(draw >> 1), i.e. word draw/2 of the
// SplitMix64 stream keyed by (seed, thread) (onepass/random/counter_hash.hpp).
//
// Statistical standing (what is and is not claimed):
// - Within one (seed, thread) the words are the two halves of consecutive SplitMix64
//   outputs; SplitMix64 passes TestU01 BigCrush (Steele, Lea & Flood, OOPSLA 2014) and
//   splitting a 64-bit output into its halves is the usual way 32-bit outputs are taken.
// - Threads are separated by hashing (seed, thread) into the key; two streams overlap
//   only if their keys differ by d * golden_gamma with |d| below the sum of their
//   lengths — probability about 2 (L1 + L2) / 2^64 for random keys. This is a
//   heuristic argument, not a proof; no inter-stream correlation test has been run
//   by us beyond the generator's own statistical tests.
// - The salt separates these streams from counter_hash streams used elsewhere in the
//   library with the same seed.
// - Not cryptographic (neither is the Gaussian transform; article, "Conclusions").
#pragma once

#include <cstdint>

#include "onepass/config.hpp"
#include "onepass/random/counter_hash.hpp"

namespace onepass::gaussian {

/// Salt xored into the user's seed (domain separation from other counter_hash users).
inline constexpr std::uint64_t gaussian_seed_salt = 0x4761757373e1a2c5ull;

/// Counter-based source of uniform 32-bit words for one (seed, thread); 8 bytes,
/// host and device. operator()(draw) is a pure function of (seed, thread, draw).
class entropy_source {
 public:
  /// Stream of `thread` (any 64-bit id) under `seed` (any 64-bit value).
  ONEPASS_HD constexpr entropy_source(std::uint64_t seed, std::uint64_t thread)
      : hash_(seed ^ gaussian_seed_salt, thread) {}

  /// The 64-bit word holding draws 2*pair (low half) and 2*pair + 1 (high half).
  ONEPASS_HD constexpr std::uint64_t pair(std::uint64_t pair_index) const { return hash_(pair_index); }

  /// Draw number `draw` (any 64-bit value): uniform 32-bit word.
  ONEPASS_HD constexpr std::uint32_t operator()(std::uint64_t draw) const {
    return static_cast<std::uint32_t>(pair(draw >> 1) >> (32u * static_cast<unsigned>(draw & 1u)));
  }

 private:
  random::counter_hash hash_;
};

}  // namespace onepass::gaussian
