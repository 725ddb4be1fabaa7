// onepass/shuffle/segment_seed.hpp — the seed of each segment of a segmented shuffle
// (shuffle/cpu_segmented_shuffle.hpp, shuffle/gpu_segmented_shuffle.cuh): one rule, host
// and device, so that segment s of either is the single shuffle with segment_seed(seed, s).
#pragma once

#include <cstdint>

#include "onepass/config.hpp"
#include "onepass/random/counter_hash.hpp"

namespace onepass::shuffle {

/// counter_hash stream id reserved for per-segment seeds ("segments" in ASCII); differs
/// from the small stream ids the baselines use, so segment seeds share no stream with them.
inline constexpr std::uint64_t segment_seed_stream = 0x7365676d656e7473ull;

/// The seed of segment s of a segmented shuffle with `seed` (the rule of
/// shuffle/cpu_segmented_shuffle.hpp's file comment):
/// counter_hash(seed, segment_seed_stream)(s). Any 64-bit seed and s; for a fixed seed,
/// distinct s give distinct seeds. Host and device (ONEPASS_HD), constexpr.
ONEPASS_HD constexpr std::uint64_t segment_seed(std::uint64_t seed, std::uint64_t s) {
  return random::counter_hash(seed, segment_seed_stream)(s);
}

}  // namespace onepass::shuffle
