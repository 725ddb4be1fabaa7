// onepass/random/counter_hash.hpp — a small counter-based random number generator
// (host+device) shared by the CPU baselines of the paper's Table 2.
//
// Construction. The output for (seed, stream, index) is
//
//     key    = mix64(mix64(seed ^ seed_salt) + stream * stream_gamma)
//     h(i)   = mix64(key + (i + 1) * golden_gamma)
//
// where mix64 is the SplitMix64 finaliser (Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014; the constants are Stafford's "Mix13"
// variant used by Vigna's splitmix64.c). For a fixed key, h(0), h(1), ... is exactly the
// SplitMix64 output sequence started from state `key`, so random access costs one
// finaliser (two multiplications, three shift-xors) and needs no state.
//
// Statistical standing — what is and is not claimed:
// - A single stream is SplitMix64, which passes TestU01 BigCrush (Steele et al. 2014;
//   also in Vigna's generator comparisons, prng.di.unimi.it). The finaliser is a
//   bijection of the counter, so values in one stream never repeat within 2^64 draws
//   (an irrelevant departure from i.i.d. at the sizes used here).
// - Streams are separated by hashing (seed, stream) into the key. That is a heuristic,
//   not a proof: two streams of lengths L1, L2 overlap (share a run of outputs) only if
//   their keys differ by d * golden_gamma with |d| < L1 + L2, probability about
//   2 (L1 + L2) / 2^64 for random keys — negligible for any workload in this repository.
// - It is NOT cryptographic and must not be used where an adversary sees outputs.
// The paper's own shuffle does not use this generator (it uses VariablePhilox, §3.2);
// it only supplies the random decisions of the baselines (random gather, Rao–Sandelius
// labels, MergeShuffle bits, dart-throwing targets, SortShuffle keys) so that every
// deterministic baseline's output depends on the seed alone, not on thread scheduling.
#pragma once

#include <cstdint>

#include "onepass/config.hpp"

namespace onepass::random {

/// Weyl increment of SplitMix64: 2^64 / golden ratio, rounded to odd.
inline constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ull;
/// Odd multiplier that spreads stream ids before the key finaliser (differs from golden_gamma).
inline constexpr std::uint64_t stream_gamma = 0xd1342543de82ef95ull;
/// Constant xored into the seed so that seed 0 does not start from the all-zero state.
inline constexpr std::uint64_t seed_salt = 0x6a09e667f3bcc909ull;

/// SplitMix64 finaliser: a bijection of [0, 2^64) with full avalanche (every input bit
/// flips each output bit with probability close to 1/2).
ONEPASS_HD constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// High 64 bits of the 128-bit product a * b.
ONEPASS_HD inline std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
#endif
}

/// Maps a uniform 64-bit word r to [0, range) by Lemire's multiply-shift,
/// floor(r * range / 2^64). range in [1, 2^64); range == 0 returns 0. Each value has
/// probability within range / 2^64 of 1/range (not exact; use
/// counter_stream::uniform_below for an exactly uniform draw).
ONEPASS_HD inline std::uint64_t fast_range(std::uint64_t r, std::uint64_t range) { return mul_high(r, range); }

/// Stateless counter-based generator: operator()(i) is the i-th 64-bit word of the
/// stream (seed, stream). Copyable, 8 bytes, usable on host and device. See the file
/// comment for its construction and statistical standing.
class counter_hash {
 public:
  /// Stream `stream` of seed `seed`; both any 64-bit values.
  ONEPASS_HD constexpr explicit counter_hash(std::uint64_t seed, std::uint64_t stream = 0)
      : key_(mix64(mix64(seed ^ seed_salt) + stream * stream_gamma)) {}

  /// The word at counter `index` (any 64-bit value): uniform on [0, 2^64) as far as
  /// the SplitMix64 finaliser is a good mixer.
  ONEPASS_HD constexpr std::uint64_t operator()(std::uint64_t index) const {
    return mix64(key_ + (index + 1) * golden_gamma);
  }

  /// A further stream derived from this one's key, for two-level ids (e.g. per element
  /// and per retry): same construction with this key in place of the seed.
  ONEPASS_HD constexpr counter_hash substream(std::uint64_t stream) const { return counter_hash(key_, stream); }

  /// The 64-bit key of this stream (for tests and diagnostics).
  ONEPASS_HD constexpr std::uint64_t key() const { return key_; }

 private:
  std::uint64_t key_;
};

/// Sequential view of a counter_hash: next() returns the words at counters 0, 1, 2, ...
/// Used where an algorithm consumes a variable number of random decisions (Fisher–Yates,
/// MergeShuffle's merge). Every bit it hands out is used once (no reuse of bits).
class counter_stream {
 public:
  /// Starts at counter 0 of stream (seed, stream).
  ONEPASS_HD constexpr counter_stream(std::uint64_t seed, std::uint64_t stream) : hash_(seed, stream) {}
  /// Starts at counter 0 of an existing counter_hash.
  ONEPASS_HD constexpr explicit counter_stream(const counter_hash& hash) : hash_(hash) {}

  /// Next uniform 64-bit word.
  ONEPASS_HD std::uint64_t next() { return hash_(counter_++); }

  /// Next fresh random bit (0 or 1): 64 bits are drawn at a time and each is used once.
  ONEPASS_HD unsigned bit() {
    if (bits_left_ == 0) {
      bits_ = next();
      bits_left_ = 64;
    }
    const unsigned b = static_cast<unsigned>(bits_ & 1u);
    bits_ >>= 1;
    --bits_left_;
    return b;
  }

  /// Exactly uniform integer in [0, range), range in [1, 2^64) (given uniform words):
  /// Lemire's nearly divisionless method ("Fast random integer generation in an
  /// interval", ACM TOMACS 2019) — multiply-shift with rejection of the biased low
  /// part; expected draws < 1 + range / 2^64. range == 0 returns 0.
  ONEPASS_HD std::uint64_t uniform_below(std::uint64_t range) {
    std::uint64_t x = next();
    std::uint64_t low = x * range;
    if (low < range) {
      const std::uint64_t threshold = (0 - range) % range;  // 2^64 mod range; range > 0 here
      while (low < threshold) {
        x = next();
        low = x * range;
      }
    }
    return mul_high(x, range);
  }

  /// Number of 64-bit words drawn so far.
  ONEPASS_HD constexpr std::uint64_t words_drawn() const { return counter_; }

 private:
  counter_hash hash_;
  std::uint64_t counter_ = 0;
  std::uint64_t bits_ = 0;
  unsigned bits_left_ = 0;
};

}  // namespace onepass::random
