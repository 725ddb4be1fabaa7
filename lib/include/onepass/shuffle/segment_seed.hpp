// onepass/shuffle/segment_seed.hpp — the seed of each segment of a segmented shuffle
// (shuffle/cpu_segmented_shuffle.hpp, shuffle/gpu_segmented_shuffle.cuh): one rule, host
// and device, so that segment s of either is the single shuffle with segment_seed(seed, s);
// and the argument check both uniform-length overloads share.
#pragma once

#include <cstdint>
#include <string>

#include "onepass/config.hpp"
#include "onepass/error.hpp"
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

/// The uniform-length overloads' shape check (CPU and GPU): segment_length in [0, 2^63]
/// and num_segments * segment_length <= 2^63. Returns num_segments * segment_length;
/// throws onepass::error naming `function` and the argument otherwise.
inline std::uint64_t checked_uniform_items(const char* function, std::uint64_t num_segments,
                                           std::uint64_t segment_length) {
  constexpr std::uint64_t limit = std::uint64_t{1} << 63;
  require(segment_length <= limit, function, "segment_length",
          "must be in [0, 2^63], got " + std::to_string(segment_length));
  require(segment_length == 0 || num_segments <= limit / segment_length, function, "num_segments",
          "must be in [0, 2^63 / segment_length] = [0, " +
              std::to_string(segment_length == 0 ? limit : limit / segment_length) + "], got " +
              std::to_string(num_segments));
  return num_segments * segment_length;
}

}  // namespace onepass::shuffle
