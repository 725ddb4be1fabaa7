// onepass/shuffle/cpu_segmented_shuffle.hpp — many independent bijective shuffles in
// one call on the CPU (oneTBB): the segmented (batched) shuffle,
// onepass::shuffle::cpu::segmented_shuffle / segmented_unshuffle (issue 31 names; the old
// onepass::shuffle::segmented_shuffle / segmented_unshuffle stay one release as deprecated
// forwarders). Its GPU twin is shuffle/gpu_segmented_shuffle.cuh (gpu::segmented_shuffle).
//
// Definition — one permutation for everyone (CPU and GPU):
//
//   Segment s = [segment_offsets[s], segment_offsets[s + 1]) of length
//   m_s = segment_offsets[s + 1] - segment_offsets[s] is shuffled exactly as
//
//       cpu::variable_philox_shuffle(in + segment_offsets[s], out + segment_offsets[s],
//                                    m_s, segment_seed(seed, s), rounds)
//
//   (cpu_shuffle.hpp: VariablePhilox on [0, 2^b), b = max(4, ceil(log2 m_s)), round keys
//   the low 32 bits of successive std::mt19937_64(segment_seed(seed, s)) outputs, the
//   thrust::shuffle_copy-equal permutation), bit for bit, whatever path runs.
//   Items in [segment_offsets[num_segments], num_items) belong to no segment and are
//   copied to out unchanged. segmented_unshuffle applies the inverse, segment by segment.
//
// The seed rule (segment_seed, shuffle/segment_seed.hpp) is a counter-based hash (random/counter_hash.hpp)
// of (seed, s) on a stream reserved for segments:
//
//   segment_seed(seed, s) = counter_hash(seed, segment_seed_stream)(s)
//                         = mix64(key + (s + 1) * golden_gamma),
//   key                   = mix64(mix64(seed ^ seed_salt) + segment_seed_stream * stream_gamma)
//
// with mix64 the SplitMix64 finaliser and the constants of counter_hash.hpp. For a fixed
// seed, s -> segment_seed(seed, s) is a bijection of [0, 2^64) (an odd-multiplier Weyl
// step followed by the bijective finaliser), so the 2^64 possible segments of one call
// get pairwise distinct seeds; neighbouring s differ in about half of their 64 bits. It
// is ONEPASS_HD constexpr so the future GPU path calls this very function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/config.hpp"
#include "onepass/error.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/segment_seed.hpp"

namespace onepass::shuffle {

namespace detail {

/// Segments per oneTBB task when all segments are short; long segments parallelise
/// inside (the single shuffle's parallel_scan nests in the parallel_for).
inline constexpr std::uint64_t segment_grain = 1;
/// Offsets checked per oneTBB task.
inline constexpr std::uint64_t offset_check_grain = std::uint64_t{1} << 16;

/// Checks shared by both layouts: num_items range, pointers, overlap, rounds.
inline void check_buffers(const char* function, const void* in, const void* out, std::uint64_t num_items,
                          std::size_t element_bytes, unsigned rounds) {
  protocol::check_at_most(function, "num_items", num_items, max_length, "in [0, 2^63]");
  protocol::check_in_range(function, "rounds", rounds, 1, bijection::max_rounds);
  if (num_items == 0) return;
  protocol::check_not_null(function, "in", in, "when num_items > 0");
  protocol::check_not_null(function, "out", out, "when num_items > 0");
  protocol::check_disjoint(function, "out", out, "in", in, num_items, element_bytes,
                           " over [0, num_items) (out-of-place operation)");
}

/// Smallest s in [0, num_segments) with offsets[s] > offsets[s + 1], or num_segments if none.
template <class Offset>
std::uint64_t first_decrease(const Offset* offsets, std::uint64_t num_segments) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(0, num_segments, offset_check_grain), num_segments,
      [offsets](const tbb::blocked_range<std::uint64_t>& r, std::uint64_t found) {
        for (std::uint64_t s = r.begin(); s != r.end() && s < found; ++s)
          if (offsets[s] > offsets[s + 1]) return s;
        return found;
      },
      [](std::uint64_t a, std::uint64_t b) { return a < b ? a : b; });
}

template <class Offset>
std::string offset_string(Offset v) {
  return std::to_string(v);
}

/// Checks of the offsets: non-null when num_segments > 0, offsets[0] == 0, non-decreasing,
/// offsets[num_segments] <= num_items. Reads offsets[0, num_segments] only.
template <class Offset>
void check_offsets(const char* function, const Offset* offsets, std::uint64_t num_segments, std::uint64_t num_items) {
  protocol::check_at_most(function, "num_segments", num_segments, max_length - 1, "in [0, 2^63)");
  if (num_segments == 0) return;
  protocol::check_not_null(function, "segment_offsets", offsets,
                           "when num_segments > 0 (it holds num_segments + 1 offsets)");
  require(offsets[0] == Offset{0}, function, "segment_offsets",
          "[0] must be 0, got " + offset_string(offsets[0]));
  const std::uint64_t bad = first_decrease(offsets, num_segments);
  require(bad == num_segments, function, "segment_offsets",
          "must be non-decreasing (segment_offsets[s] <= segment_offsets[s + 1] for s in [0, num_segments)), got "
          "segment_offsets[" + std::to_string(bad) + "] = " + (bad < num_segments ? offset_string(offsets[bad]) : "") +
              " > segment_offsets[" + std::to_string(bad + 1) +
              "] = " + (bad < num_segments ? offset_string(offsets[bad + 1]) : ""));
  // Non-decreasing from 0: the last offset is >= 0, so the unsigned comparison is exact.
  const auto last = static_cast<std::uint64_t>(offsets[num_segments]);
  require(last <= num_items, function, "segment_offsets",
          "[num_segments] must be in [0, num_items] = [0, " + std::to_string(num_items) + "], got " +
              offset_string(offsets[num_segments]));
}

/// Segment s (length items from begin) of in into out: the single shuffle, or its
/// inverse, with segment_seed(seed, s) (the definition in the file comment).
template <bool Inverse, class T>
void shuffle_segment(const T* in, T* out, std::uint64_t begin, std::uint64_t length, std::uint64_t seed,
                     std::uint64_t s, unsigned rounds) {
  if constexpr (Inverse) {
    cpu::variable_philox_unshuffle(in + begin, out + begin, length, segment_seed(seed, s), rounds);
  } else {
    cpu::variable_philox_shuffle(in + begin, out + begin, length, segment_seed(seed, s), rounds);
  }
}

/// Copies the items of [first, num_items), which belong to no segment.
template <class T>
void copy_tail(const T* in, T* out, std::uint64_t first, std::uint64_t num_items) {
  if (first < num_items) std::memcpy(out + first, in + first, (num_items - first) * sizeof(T));
}

/// Runs segment(s, begin, length) for s in [0, num_segments), in parallel.
template <class Begin, class Segment>
void for_each_segment(std::uint64_t num_segments, Begin begin_of, Segment segment) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, num_segments, segment_grain),
                    [&](const tbb::blocked_range<std::uint64_t>& r) {
                      for (std::uint64_t s = r.begin(); s != r.end(); ++s) {
                        const std::uint64_t begin = begin_of(s);
                        segment(s, begin, begin_of(s + 1) - begin);
                      }
                    });
}

template <bool Inverse, class T, class Offset>
void segmented_offsets(const char* function, const T* in, T* out, std::uint64_t num_items,
                       const Offset* segment_offsets, std::uint64_t num_segments, std::uint64_t seed,
                       unsigned rounds) {
  static_assert(std::is_trivially_copyable_v<T>, "segmented shuffle: T must be trivially copyable");
  static_assert(std::is_integral_v<Offset> && !std::is_same_v<Offset, bool>,
                "segmented shuffle: segment offsets must be of an integral type");
  check_buffers(function, in, out, num_items, sizeof(T), rounds);
  check_offsets(function, segment_offsets, num_segments, num_items);
  // Everything is checked: from here on nothing throws for the caller's arguments.
  const std::uint64_t covered = num_segments == 0 ? 0 : static_cast<std::uint64_t>(segment_offsets[num_segments]);
  for_each_segment(
      num_segments, [segment_offsets](std::uint64_t s) { return static_cast<std::uint64_t>(segment_offsets[s]); },
      [&](std::uint64_t s, std::uint64_t begin, std::uint64_t length) {
        if (length != 0) shuffle_segment<Inverse>(in, out, begin, length, seed, s, rounds);
      });
  copy_tail(in, out, covered, num_items);
}

template <bool Inverse, class T>
void segmented_uniform(const char* function, const T* in, T* out, std::uint64_t num_segments,
                       std::uint64_t segment_length, std::uint64_t seed, unsigned rounds) {
  static_assert(std::is_trivially_copyable_v<T>, "segmented shuffle: T must be trivially copyable");
  checked_uniform_items(function, num_segments, segment_length);
  const std::uint64_t num_items = num_segments * segment_length;
  check_buffers(function, in, out, num_items, sizeof(T), rounds);
  if (segment_length == 0) return;
  for_each_segment(
      num_segments, [segment_length](std::uint64_t s) { return s * segment_length; },
      [&](std::uint64_t s, std::uint64_t begin, std::uint64_t length) {
        shuffle_segment<Inverse>(in, out, begin, length, seed, s, rounds);
      });
}

}  // namespace detail

namespace cpu {

/// Segmented shuffle: for s in [0, num_segments), segment s = [segment_offsets[s],
/// segment_offsets[s + 1]) of in is shuffled into the same range of out exactly as
/// cpu::variable_philox_shuffle(in + offsets[s], out + offsets[s], m_s,
/// segment_seed(seed, s), rounds) (the file comment has the definition); items in
/// [segment_offsets[num_segments], num_items) are copied unchanged. Parallel over segments
/// and, through the single shuffle's parallel_scan, inside long segments. The same name,
/// arguments (in, out, num_items, segment_offsets, num_segments, seed, rounds) and output,
/// bit for bit, as gpu::segmented_shuffle without its temporary storage and stream.
///
/// T: any trivially copyable type. in, out: num_items elements each, not overlapping
/// (may be null when num_items == 0). num_items in [0, 2^63].
/// segment_offsets: num_segments + 1 CUB-style begin offsets of any integral type,
/// segment_offsets[0] == 0, non-decreasing, segment_offsets[num_segments] <= num_items;
/// not read (may be null) when num_segments == 0. num_segments in [0, 2^63).
/// rounds in [1, 64] (default 24), as the single shuffle.
/// Throws onepass::error naming the argument and its allowed range when any of this does
/// not hold; every check runs before anything is written, so out is untouched then.
template <class T, class Offset>
void segmented_shuffle(const T* in, T* out, std::uint64_t num_items, const Offset* segment_offsets,
                       std::uint64_t num_segments, std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  detail::segmented_offsets<false>("onepass::shuffle::cpu::segmented_shuffle", in, out, num_items, segment_offsets,
                                   num_segments, seed, rounds);
}

/// Inverse of segmented_shuffle for the same offsets, seed and rounds:
/// segmented_unshuffle(segmented_shuffle(x)) == x. Segment s is
/// cpu::variable_philox_unshuffle(..., segment_seed(seed, s), rounds); the tail past the
/// last offset is copied unchanged. Arguments and errors as segmented_shuffle.
template <class T, class Offset>
void segmented_unshuffle(const T* in, T* out, std::uint64_t num_items, const Offset* segment_offsets,
                         std::uint64_t num_segments, std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  detail::segmented_offsets<true>("onepass::shuffle::cpu::segmented_unshuffle", in, out, num_items, segment_offsets,
                                  num_segments, seed, rounds);
}

/// Uniform-length overload: num_segments rows of segment_length items each, row s =
/// [s * segment_length, (s + 1) * segment_length); identical to segmented_shuffle with
/// segment_offsets[s] = s * segment_length and num_items = num_segments * segment_length.
/// segment_length in [0, 2^63], num_segments * segment_length <= 2^63; in, out as above
/// (may be null when the product is 0); rounds in [1, 64]. Throws onepass::error as
/// segmented_shuffle, before anything is written.
template <class T>
void segmented_shuffle(const T* in, T* out, std::uint64_t num_segments, std::uint64_t segment_length,
                       std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  detail::segmented_uniform<false>("onepass::shuffle::cpu::segmented_shuffle", in, out, num_segments, segment_length,
                                   seed, rounds);
}

/// Inverse of the uniform-length segmented_shuffle for the same shape, seed and rounds.
template <class T>
void segmented_unshuffle(const T* in, T* out, std::uint64_t num_segments, std::uint64_t segment_length,
                         std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  detail::segmented_uniform<true>("onepass::shuffle::cpu::segmented_unshuffle", in, out, num_segments, segment_length,
                                  seed, rounds);
}

}  // namespace cpu

// Deprecated aliases (issue 31 naming convention), removed after one release: the old
// onepass::shuffle names of the four overloads above. Call the new names qualified.

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::segmented_shuffle(in, out, num_items, segment_offsets, num_segments, seed, rounds).
template <class T, class Offset>
[[deprecated("use onepass::shuffle::cpu::segmented_shuffle")]] void segmented_shuffle(
    const T* in, T* out, std::uint64_t num_items, const Offset* segment_offsets, std::uint64_t num_segments,
    std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  cpu::segmented_shuffle(in, out, num_items, segment_offsets, num_segments, seed, rounds);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::segmented_unshuffle(in, out, num_items, segment_offsets, num_segments, seed, rounds).
template <class T, class Offset>
[[deprecated("use onepass::shuffle::cpu::segmented_unshuffle")]] void segmented_unshuffle(
    const T* in, T* out, std::uint64_t num_items, const Offset* segment_offsets, std::uint64_t num_segments,
    std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  cpu::segmented_unshuffle(in, out, num_items, segment_offsets, num_segments, seed, rounds);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::segmented_shuffle(in, out, num_segments, segment_length, seed, rounds).
template <class T>
[[deprecated("use onepass::shuffle::cpu::segmented_shuffle")]] void segmented_shuffle(
    const T* in, T* out, std::uint64_t num_segments, std::uint64_t segment_length, std::uint64_t seed,
    unsigned rounds = bijection::default_rounds) {
  cpu::segmented_shuffle(in, out, num_segments, segment_length, seed, rounds);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::segmented_unshuffle(in, out, num_segments, segment_length, seed, rounds).
template <class T>
[[deprecated("use onepass::shuffle::cpu::segmented_unshuffle")]] void segmented_unshuffle(
    const T* in, T* out, std::uint64_t num_segments, std::uint64_t segment_length, std::uint64_t seed,
    unsigned rounds = bijection::default_rounds) {
  cpu::segmented_unshuffle(in, out, num_segments, segment_length, seed, rounds);
}

}  // namespace onepass::shuffle
