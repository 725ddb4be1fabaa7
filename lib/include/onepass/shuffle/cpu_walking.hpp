// onepass/shuffle/cpu_walking.hpp — the walking permutation on the CPU (oneTBB): batches of
// its images (the data-loader sampler's indices), and the shuffle through it.
//
// Public names (issue 31): onepass::shuffle::cpu::walking_indices / walking_inverse_indices
// and cpu::walking_shuffle / walking_unshuffle, with the arguments in the order of their GPU
// twins (gpu_walking.cuh: out first for the indices, in, out, num_items, sigma for the
// shuffle). The old onepass::shuffle names stay one release as deprecated forwarders; the
// old walking_indices(sigma, first, stride, count, out) keeps its old argument order.
//
// Source: the cycle-walking permutation of shuffle/walking_permutation.hpp (Black &
// Rogaway, CT-RSA 2002, over the VariablePhilox bijection of Mitchell et al., §3.2).
//
// Evaluation. A block of up to walk_block positions is walked together, structure of
// arrays: every Feistel round is applied to all walks still open in one loop over 32-bit
// halves (vectorised by the compiler), then the walks whose image fell below N are written
// out and the rest compacted to the front of the block for the next evaluation. A block
// of B positions thus costs at most B * 2^b / N evaluations in full-width loops (B + B/2 + B/4 ...
// at the worst case), with no lane waiting for another's walk. The images are
// bit-identical to walking_permutation::operator() (tests/cpu/test_walking.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "onepass/bits.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/walking_permutation.hpp"

namespace onepass::shuffle {

namespace detail {

/// Positions walked together (one structure-of-arrays block).
inline constexpr std::uint64_t walk_block = 512;
/// Positions per oneTBB task.
inline constexpr std::uint64_t walk_grain = 1u << 15;

/// The open walks of one block: halves (l, r) of the current value, and the slot k in the
/// block whose image it is.
struct walk_lanes {
  std::uint32_t l[walk_block];
  std::uint32_t r[walk_block];
  std::uint32_t slot[walk_block];
  std::uint32_t done_slot[walk_block];  // walks finished by the last evaluation: slot and image
  std::uint64_t done_image[walk_block];
};

// Isa: a tag type that only makes the instantiation distinct. A translation unit compiled
// for another instruction set (e.g. the Python module's AVX2 / AVX-512 copies, picked at run
// time) passes a tag of internal linkage, so its instantiations cannot be merged with the
// default ones by the linker (one definition rule).

/// Applies f (Forward) or f^-1 to the first `count` lanes, round-major (one loop per round,
/// vectorisable). Bit-identical to variable_philox::operator() / inverse().
template <bool Forward, class Isa = void>
inline void evaluate_lanes(const bijection::variable_philox& f, walk_lanes& w, std::uint64_t count) {
  const unsigned left_bits = f.domain_bits() / 2;
  const unsigned right_bits = f.domain_bits() - left_bits;
  const unsigned d = right_bits - left_bits;
  const std::uint32_t left_mask = static_cast<std::uint32_t>(low_mask(left_bits));
  const std::uint32_t right_mask = static_cast<std::uint32_t>(low_mask(right_bits));
  constexpr std::uint64_t m0 = bijection::variable_philox::multiplier;
  std::uint32_t* __restrict l = w.l;
  std::uint32_t* __restrict r = w.r;
  const unsigned rounds = f.rounds();
  if constexpr (Forward) {
    for (unsigned i = 0; i < rounds; ++i) {
      const std::uint32_t key = f.key(i);
      for (std::uint64_t k = 0; k < count; ++k) {
        const std::uint64_t product = m0 * static_cast<std::uint64_t>(l[k]);
        // r < 2^right_bits: r >> left_bits is the odd bit when d = 1, 0 when d = 0
        // (left_bits <= 31, so the shift is defined).
        const std::uint32_t odd_bit = r[k] >> left_bits;
        const std::uint32_t new_l = (static_cast<std::uint32_t>(product >> 32) ^ key ^ r[k]) & left_mask;
        r[k] = ((static_cast<std::uint32_t>(product) << d) | odd_bit) & right_mask;
        l[k] = new_l;
      }
    }
  } else {
    constexpr std::uint64_t m0_inverse = inverse_mod_2_64(m0);
    const std::uint32_t odd_mask = (1u << d) - 1u;
    for (unsigned i = rounds; i-- > 0;) {
      const std::uint32_t key = f.key(i);
      for (std::uint64_t k = 0; k < count; ++k) {
        const std::uint32_t odd_bit = r[k] & odd_mask;
        const std::uint32_t b_of_l = (r[k] >> d) & left_mask;
        const std::uint32_t prev_l = static_cast<std::uint32_t>(m0_inverse * static_cast<std::uint64_t>(b_of_l)) & left_mask;
        const std::uint32_t hi = static_cast<std::uint32_t>((m0 * static_cast<std::uint64_t>(prev_l)) >> 32);
        r[k] = ((l[k] ^ hi ^ key) & left_mask) | (odd_bit << left_bits);
        l[k] = prev_l;
      }
    }
  }
}

/// For k < count: emit(k, image of position (first + k * stride) mod N) with image =
/// sigma (Forward) or sigma^-1; count <= walk_block, N > 0. Emits in no particular order.
template <bool Forward, class Isa = void, class Emit>
inline void walk_positions(const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride,
                           std::uint64_t count, walk_lanes& w, Emit&& emit) {
  const bijection::variable_philox& f = sigma.bijection();
  const std::uint64_t n = sigma.num_items();
  const unsigned right_bits = f.domain_bits() - f.domain_bits() / 2;
  const std::uint32_t right_mask = static_cast<std::uint32_t>(low_mask(right_bits));
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t x = strided_position(first, stride, k, n);
    w.l[k] = static_cast<std::uint32_t>(x >> right_bits);
    w.r[k] = static_cast<std::uint32_t>(x) & right_mask;
    w.slot[k] = static_cast<std::uint32_t>(k);
  }
  // The walked bijection is twist(f(y)) (walking_permutation, "Parity"): y < 2 means l = 0
  // and r < 2, where the twist flips r's low bit when sigma.swap01() is 1.
  const std::uint32_t swap = static_cast<std::uint32_t>(sigma.swap01());
  std::uint64_t open = count;
  while (open > 0) {
    if constexpr (!Forward) {  // f^-1(twist(y))
      for (std::uint64_t k = 0; k < open; ++k)
        w.r[k] ^= swap & static_cast<std::uint32_t>((w.l[k] | (w.r[k] >> 1)) == 0);
    }
    evaluate_lanes<Forward, Isa>(f, w, open);
    // Branch-free split (the test is a coin flip at the worst-case sizes): finished walks
    // to the done list, open ones compacted to the front.
    std::uint64_t kept = 0, done = 0;
    for (std::uint64_t k = 0; k < open; ++k) {
      if constexpr (Forward) {  // twist(f(y))
        w.r[k] ^= swap & static_cast<std::uint32_t>((w.l[k] | (w.r[k] >> 1)) == 0);
      }
      const std::uint64_t y = (static_cast<std::uint64_t>(w.l[k]) << right_bits) | w.r[k];
      const std::uint64_t finished = y < n ? 1 : 0;
      w.done_slot[done] = w.slot[k];
      w.done_image[done] = y;
      done += finished;
      w.l[kept] = w.l[k];
      w.r[kept] = w.r[k];
      w.slot[kept] = w.slot[k];
      kept += 1 - finished;
    }
    for (std::uint64_t k = 0; k < done; ++k) emit(w.done_slot[k], w.done_image[k]);
    open = kept;
  }
}

/// Runs walk_positions over [0, count) in blocks, in parallel (oneTBB); emit(k, image).
template <bool Forward, class Isa = void, class Emit>
void walk_all(const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride, std::uint64_t count,
              const Emit& emit) {
  if (count == 0) return;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, walk_grain),
                    [&](const tbb::blocked_range<std::uint64_t>& range) {
                      walk_lanes w;
                      for (std::uint64_t b = range.begin(); b < range.end(); b += walk_block) {
                        const std::uint64_t c = range.end() - b < walk_block ? range.end() - b : walk_block;
                        walk_positions<Forward, Isa>(sigma, first + b * stride, stride, c, w,
                                                [&](std::uint64_t k, std::uint64_t y) { emit(b + k, y); });
                      }
                    });
}

inline void check_strided(const char* function, const walking_permutation& sigma, std::uint64_t first,
                          std::uint64_t stride, std::uint64_t count, const void* out) {
  check_strided_range(function, sigma, first, stride, count);
  if (count > 0) protocol::check_not_null(function, "out", out, "when count > 0");
}

template <class T>
void check_walking_shuffle(const char* function, const T* in, const T* out, std::uint64_t num_items,
                           const walking_permutation& sigma) {
  check_items_of(function, sigma, num_items);
  if (num_items == 0) return;
  protocol::check_not_null(function, "in", in, "when num_items > 0");
  protocol::check_not_null(function, "out", out, "when num_items > 0");
  protocol::check_disjoint(function, "out", out, "in", in, num_items, sizeof(T), " (out-of-place operation)");
}

}  // namespace detail

namespace cpu {

/// out[k] = sigma((first + k * stride) mod N) for k in [0, count), N = sigma.num_items():
/// a batch of the global order sigma, read with a stride (a data-loader rank r of P reads
/// first = g + r, stride = P). Parallel over oneTBB; the values equal walking_permutation's
/// operator() (and gpu::walking_indices, whose arguments come in the same order) bit for bit.
///
/// out: count uint64 (host memory). stride >= 1; first + (count - 1) * stride < 2^64.
/// Throws onepass::error naming count, stride or out (null with count > 0) — out untouched.
inline void walking_indices(std::uint64_t* out, std::uint64_t first, std::uint64_t stride, std::uint64_t count,
                            const walking_permutation& sigma) {
  detail::check_strided("onepass::shuffle::cpu::walking_indices", sigma, first, stride, count, out);
  detail::walk_all<true>(sigma, first, stride, count, [out](std::uint64_t k, std::uint64_t y) { out[k] = y; });
}

/// out[k] = sigma^-1((first + k * stride) mod N): the positions at which the indices
/// first, first + stride, ... stand in the global order. Arguments and errors as
/// walking_indices.
inline void walking_inverse_indices(std::uint64_t* out, std::uint64_t first, std::uint64_t stride,
                                    std::uint64_t count, const walking_permutation& sigma) {
  detail::check_strided("onepass::shuffle::cpu::walking_inverse_indices", sigma, first, stride, count, out);
  detail::walk_all<false>(sigma, first, stride, count, [out](std::uint64_t k, std::uint64_t y) { out[k] = y; });
}

/// Out-of-place shuffle through the walking permutation: out[j] = in[sigma(j)] for j in
/// [0, num_items) — the contract of gpu::walking_shuffle, without its temporary storage and
/// stream. T: trivially copyable. in, out: num_items elements, not overlapping.
/// num_items must equal sigma.num_items() (<= 2^63). Throws onepass::error naming the
/// argument (null pointers, overlap, a num_items that is not sigma's) — out untouched.
template <class T>
void walking_shuffle(const T* in, T* out, std::uint64_t num_items, const walking_permutation& sigma) {
  static_assert(std::is_trivially_copyable_v<T>, "cpu::walking_shuffle: T must be trivially copyable");
  detail::check_walking_shuffle("onepass::shuffle::cpu::walking_shuffle", in, out, num_items, sigma);
  detail::walk_all<true>(sigma, 0, 1, num_items, [in, out](std::uint64_t j, std::uint64_t y) { out[j] = in[y]; });
}

/// Inverse of walking_shuffle for the same sigma: out[sigma(j)] = in[j], so
/// walking_unshuffle(walking_shuffle(x)) == x. Computed as out[i] = in[sigma^-1(i)] (a
/// gather through the inverse walk). Arguments and errors as walking_shuffle.
template <class T>
void walking_unshuffle(const T* in, T* out, std::uint64_t num_items, const walking_permutation& sigma) {
  static_assert(std::is_trivially_copyable_v<T>, "cpu::walking_unshuffle: T must be trivially copyable");
  detail::check_walking_shuffle("onepass::shuffle::cpu::walking_unshuffle", in, out, num_items, sigma);
  detail::walk_all<false>(sigma, 0, 1, num_items, [in, out](std::uint64_t i, std::uint64_t j) { out[i] = in[j]; });
}

}  // namespace cpu

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::walking_indices(out, first, stride, count, sigma) — note the new argument order.
[[deprecated("use onepass::shuffle::cpu::walking_indices (out first)")]] inline void walking_indices(
    const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride, std::uint64_t count,
    std::uint64_t* out) {
  cpu::walking_indices(out, first, stride, count, sigma);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::walking_inverse_indices(out, first, stride, count, sigma) — note the new argument order.
[[deprecated("use onepass::shuffle::cpu::walking_inverse_indices (out first)")]] inline void walking_inverse_indices(
    const walking_permutation& sigma, std::uint64_t first, std::uint64_t stride, std::uint64_t count,
    std::uint64_t* out) {
  cpu::walking_inverse_indices(out, first, stride, count, sigma);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::walking_shuffle(in, out, num_items, sigma).
template <class T>
[[deprecated("use onepass::shuffle::cpu::walking_shuffle")]] void walking_shuffle(
    const T* in, T* out, std::uint64_t num_items, const walking_permutation& sigma) {
  cpu::walking_shuffle(in, out, num_items, sigma);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::walking_unshuffle(in, out, num_items, sigma).
template <class T>
[[deprecated("use onepass::shuffle::cpu::walking_unshuffle")]] void walking_unshuffle(
    const T* in, T* out, std::uint64_t num_items, const walking_permutation& sigma) {
  cpu::walking_unshuffle(in, out, num_items, sigma);
}

}  // namespace onepass::shuffle
