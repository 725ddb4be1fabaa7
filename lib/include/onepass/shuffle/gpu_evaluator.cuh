// onepass/shuffle/gpu_evaluator.cuh — the device forms of the shuffle's bijections
// and the byte-moving unit of the GPU shuffles.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §3.2 (the
// VariablePhilox bijection, Fig. 4) and §3.1 (LCG). An evaluator is trivially copyable
// and passed to kernels as a __grid_constant__ parameter; images<Items>(first, stride,
// w) sets w[k] = f((first + k * stride) mod 2^b). Host+device, so that the host tests
// compare them with the bijections without a GPU.
//
// VariablePhilox is evaluated by a device twin of its operator() (bit-identical,
// tests/gpu/test_gpu_shuffle.cu): 32-bit halves with the 64-bit multiplier split
// into two 32-bit words (hi = umulhi(M0lo, L) + M0hi * L, lo = M0lo * L), the odd
// bit of odd domains resolved at compile time, and for the default 24 rounds the
// round loop unrolled with the keys read as kernel-parameter constants; other
// round counts run the same code with a run-time loop. Other bijections (LCG) are
// evaluated through their own operator().
#pragma once

#include <vector_types.h>  // uint4 (CUDA toolkit; host compilers too)

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/config.hpp"

namespace onepass::shuffle::gpu::detail {
// ----------------------------------------------------------------------------
// Moving elements of any trivially copyable type: as the widest unsigned words
// that its size and alignment allow (u64 elements move as one 8-byte access).

template <std::size_t Size, std::size_t Align>
struct move_unit {
  using type = std::conditional_t<
      (Align >= 16 && Size % 16 == 0), uint4,
      std::conditional_t<(Align >= 8 && Size % 8 == 0), std::uint64_t,
                         std::conditional_t<(Align >= 4 && Size % 4 == 0), std::uint32_t,
                                            std::conditional_t<(Align >= 2 && Size % 2 == 0), std::uint16_t,
                                                               std::uint8_t>>>>;
};

/// The bytes of one T, as sizeof(T) / sizeof(unit) words of the widest fitting unit.
template <class T>
struct element_bits {
  using unit = typename move_unit<sizeof(T), alignof(T)>::type;
  static constexpr std::size_t parts = sizeof(T) / sizeof(unit);
  unit part[parts];
};


// ----------------------------------------------------------------------------
// Evaluators: a bijection's device form, trivially copyable, passed to kernels
// as a __grid_constant__ parameter. images<Items>(first, stride, w) sets
// w[k] = f((first + k * stride) mod 2^b). Host+device, so that the host tests
// compare them with the bijections without a GPU.

// #pragma unroll in host+device code: for the device pass only (a host compiler
// warns about the unknown pragma).
#if defined(__CUDA_ARCH__)
#define ONEPASS_UNROLL _Pragma("unroll")
#define ONEPASS_UNROLL_NONE _Pragma("unroll 1")
#else
#define ONEPASS_UNROLL
#define ONEPASS_UNROLL_NONE
#endif

/// High word of the 64-bit product a * b (__umulhi on the device).
ONEPASS_HD inline std::uint32_t mul_hi32(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
}

/// Any bijection with a host+device operator() (LCG; VariablePhilox falls back to
/// philox_evaluator below).
template <class Bijection>
struct generic_evaluator {
  Bijection f;
  std::uint64_t mask;  // 2^b - 1

  template <int Items>
  ONEPASS_HD void images(std::uint64_t first, std::uint64_t stride, std::uint64_t (&w)[Items]) const {
ONEPASS_UNROLL
    for (int k = 0; k < Items; ++k) w[k] = f((first + static_cast<std::uint64_t>(k) * stride) & mask);
  }
};

/// Device twin of bijection::variable_philox::operator(), bit-identical to it for
/// domains up to 2^63. Rounds > 0: that many rounds, unrolled (must equal the
/// bijection's round count); Rounds == 0: the bijection's count, run-time loop.
/// Odd: the domain has an odd number of bits (right half one bit wider).
template <int Rounds, bool Odd>
struct philox_evaluator {
  std::uint32_t key[bijection::max_rounds];
  std::uint32_t left_mask;
  std::uint32_t right_mask;
  unsigned left_bits;
  unsigned right_bits;
  unsigned rounds;

  static philox_evaluator from(const bijection::variable_philox& f) {
    philox_evaluator e{};
    for (unsigned i = 0; i < bijection::max_rounds; ++i) e.key[i] = i < f.rounds() ? f.key(i) : 0u;
    e.left_bits = f.domain_bits() / 2;
    e.right_bits = f.domain_bits() - e.left_bits;
    e.left_mask = static_cast<std::uint32_t>(low_mask(e.left_bits));
    e.right_mask = static_cast<std::uint32_t>(low_mask(e.right_bits));
    e.rounds = f.rounds();
    return e;
  }

  // One Feistel round. M0 * L mod 2^64 = M0lo * L + 2^32 * (M0hi * L mod 2^32), so
  // its high word is umulhi(M0lo, L) + M0hi * L and its low word M0lo * L (mod 2^32).
  //
  // Even domains (left_bits == right_bits, one mask): r is carried unmasked, as the
  // raw low word of the previous round; the host's R' = lo & mask only ever enters
  // (hi ^ key ^ R') & mask, where masking r first changes nothing, and the final R
  // is masked once after the last round. 3 IMAD + 2 LOP3 per round.
  // Odd domains: r masked, so r >> left_bits (left_bits <= 31) is the spare bit G
  // carries (r < 2^(left+1)), and (lo << 1) | bit == lo * 2 + bit. (Carrying r
  // unmasked with the shift folded into the multiplier saves one instruction per
  // round but measured 1.5 % slower at 2^26 + 1 uint64 on the H100, 0.897-0.900 x
  // the gather against 0.912-0.917 x, and no faster at 2^20 + 1.)
  ONEPASS_HD void round(std::uint32_t& l, std::uint32_t& r, std::uint32_t round_key) const {
    constexpr std::uint32_t m_lo = static_cast<std::uint32_t>(bijection::variable_philox::multiplier);
    constexpr std::uint32_t m_hi = static_cast<std::uint32_t>(bijection::variable_philox::multiplier >> 32);
    const std::uint32_t lo = m_lo * l;
    const std::uint32_t hi = mul_hi32(m_lo, l) + m_hi * l;
    const std::uint32_t new_l = (hi ^ round_key ^ r) & left_mask;
    if constexpr (Odd) {
      r = (lo * 2u + (r >> left_bits)) & right_mask;
    } else {
      r = lo;  // unmasked; see above
    }
    l = new_l;
  }

  template <int Items>
  ONEPASS_HD void images(std::uint64_t first, std::uint64_t stride, std::uint64_t (&w)[Items]) const {
    std::uint32_t l[Items], r[Items];
ONEPASS_UNROLL
    for (int k = 0; k < Items; ++k) {
      const std::uint64_t x = first + static_cast<std::uint64_t>(k) * stride;
      l[k] = static_cast<std::uint32_t>(x >> right_bits) & left_mask;
      r[k] = static_cast<std::uint32_t>(x) & right_mask;
    }
    if constexpr (Rounds > 0) {
ONEPASS_UNROLL
      for (int i = 0; i < Rounds; ++i) {
ONEPASS_UNROLL
        for (int k = 0; k < Items; ++k) round(l[k], r[k], key[i]);
      }
    } else {
ONEPASS_UNROLL_NONE
      for (unsigned i = 0; i < rounds; ++i) {
        const std::uint32_t round_key = key[i];
ONEPASS_UNROLL
        for (int k = 0; k < Items; ++k) round(l[k], r[k], round_key);
      }
    }
ONEPASS_UNROLL
    for (int k = 0; k < Items; ++k) w[k] = (static_cast<std::uint64_t>(l[k]) << right_bits) | (r[k] & right_mask);
  }
};

/// Calls fn(evaluator) with the fastest device form of f.
template <class Bijection, class Fn>
void with_evaluator(const Bijection& f, Fn&& fn) {
  if constexpr (std::is_same_v<Bijection, bijection::variable_philox>) {
    constexpr int unrolled = static_cast<int>(bijection::default_rounds);
    const bool odd = (f.domain_bits() & 1u) != 0;
    if (f.rounds() == bijection::default_rounds) {
      if (odd) {
        fn(philox_evaluator<unrolled, true>::from(f));
      } else {
        fn(philox_evaluator<unrolled, false>::from(f));
      }
    } else if (odd) {
      fn(philox_evaluator<0, true>::from(f));
    } else {
      fn(philox_evaluator<0, false>::from(f));
    }
  } else {
    fn(generic_evaluator<Bijection>{f, low_mask(f.domain_bits())});
  }
}

}  // namespace onepass::shuffle::gpu::detail
