// onepass/gaussian/lane.hpp — the per-lane arithmetic of the warp Gaussian generator
// as pure ONEPASS_HD functions, shared by the CUDA kernel (warp_gaussian.cuh) and the
// CPU emulation of the warp (warp_emulation.hpp), so the two are bit-identical.
//
// The article's code ("CUDA implementation"), entropy bits of one lane:
//   bits  4..11  index of the a lookup        bits 20..27  index of the b lookup
//   bits 19,18   first negations of a, b      (before HMIX(1))
//   bits 17,16   after HMIX(1)                bits 15,14   after HMIX(2)
//   bits 13,12   after HMIX(4), then c = (entropy ^ b) | 1
//   bits  3, 2   after HMIX(8)                bits  0, 1   after HMIX(16)  (a, b)
// HMIX(i): s = a + b; a = a - b; b = shfl_xor(s, i).
// Integer arithmetic wraps modulo 2^32 (done in uint32, so no signed-overflow UB);
// solve_coefficients checks that a valid table never wraps.
#pragma once

#include <cmath>
#include <cstdint>

#include "onepass/config.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::gaussian::lane {

/// Butterfly distance of HMIX layer `layer` (1..5): 1, 2, 4, 8, 16.
ONEPASS_HD constexpr unsigned layer_offset(unsigned layer) { return 1u << (layer - 1); }
/// Entropy bit that negates a before layer 1 (i = 0) and after layer i (1..5):
/// 19, 17, 15, 13, 3, 0.
ONEPASS_HD constexpr unsigned negate_bit_a(unsigned i) {
  return i == 0 ? 19u : i == 1 ? 17u : i == 2 ? 15u : i == 3 ? 13u : i == 4 ? 3u : 0u;
}
/// Entropy bit that negates b before layer 1 (i = 0) and after layer i (1..5):
/// 18, 16, 14, 12, 2, 1.
ONEPASS_HD constexpr unsigned negate_bit_b(unsigned i) {
  return i == 0 ? 18u : i == 1 ? 16u : i == 2 ? 14u : i == 3 ? 12u : i == 4 ? 2u : 1u;
}
/// c is formed after the negations that follow this layer (1-based: after HMIX(4)).
inline constexpr unsigned c_after_layer = 3;

/// Two's-complement wrapping add/subtract/negate on int32 (no UB).
ONEPASS_HD constexpr std::int32_t wrap_add(std::int32_t x, std::int32_t y) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) + static_cast<std::uint32_t>(y));
}
ONEPASS_HD constexpr std::int32_t wrap_sub(std::int32_t x, std::int32_t y) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) - static_cast<std::uint32_t>(y));
}

/// COND_NEGATE(bit, x): -x when bit `bit` (0..31) of entropy is set, else x.
ONEPASS_HD constexpr std::int32_t cond_negate(std::uint32_t entropy, unsigned bit, std::int32_t x) {
  return ((entropy >> bit) & 1u) ? wrap_sub(0, x) : x;
}

/// Register pair of one lane.
struct registers {
  std::int32_t a;
  std::int32_t b;
};

/// Lookups and the first negations (bits 19, 18) of lane `lane` (0..31; & 15 picks the
/// sub-table). `tab` points to the 4096-entry table (shared memory on the GPU).
ONEPASS_HD inline registers load(std::uint32_t entropy, unsigned lane, const std::int32_t* tab) {
  registers r{tab[index_a(entropy, lane)], tab[index_b(entropy, lane)]};
  r.a = cond_negate(entropy, negate_bit_a(0), r.a);
  r.b = cond_negate(entropy, negate_bit_b(0), r.b);
  return r;
}

/// First half of HMIX: returns s = a + b (to be sent to lane ^ offset) and sets a = a - b.
ONEPASS_HD inline std::int32_t mix_send(registers& r) {
  const std::int32_t s = wrap_add(r.a, r.b);
  r.a = wrap_sub(r.a, r.b);
  return s;
}

/// Second half of HMIX layer `layer` (1..5): b = the s received from lane ^ offset,
/// then the negations of that layer (bits negate_bit_a/b(layer)).
ONEPASS_HD inline void mix_receive(registers& r, std::int32_t received, std::uint32_t entropy, unsigned layer) {
  r.b = received;
  r.a = cond_negate(entropy, negate_bit_a(layer), r.a);
  r.b = cond_negate(entropy, negate_bit_b(layer), r.b);
}

/// The uniform odd c = (entropy ^ b) | 1, with b the register after layer 3.
ONEPASS_HD constexpr std::int32_t uniform_c(std::uint32_t entropy, std::int32_t b) {
  return static_cast<std::int32_t>((entropy ^ static_cast<std::uint32_t>(b)) | 1u);
}

/// Correctly rounded fused multiply-add on host and device (so both round alike).
ONEPASS_HD inline double fma_rn(double x, double y, double z) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(x, y, z);
#else
  return std::fma(x, y, z);
#endif
}

/// Final linear combination, 3-coefficient form (article, "CUDA implementation"):
///   r = mu; r = fma(a, sigma*p0, r); r = fma(b, sigma*p1, r); r = fma(c, sigma*p2, r).
/// Each scale is one rounded product, each step one rounded FMA (the order is fixed).
ONEPASS_HD inline double combine3(std::int32_t a, std::int32_t b, std::int32_t c, const coefficients& k, double mu,
                                  double sigma) {
  const double a_scale = sigma * k.p[0];
  const double b_scale = sigma * k.p[1];
  const double c_scale = sigma * k.p[2];
  double r = mu;
  r = fma_rn(static_cast<double>(a), a_scale, r);
  r = fma_rn(static_cast<double>(b), b_scale, r);
  r = fma_rn(static_cast<double>(c), c_scale, r);
  return r;
}

/// Final linear combination, 4-coefficient form (article, "Issues with small floats"):
/// combine3 followed by r = fma(c, sigma*p3, r) (c's weight split into hi p2 and lo p3).
ONEPASS_HD inline double combine4(std::int32_t a, std::int32_t b, std::int32_t c, const coefficients& k, double mu,
                                  double sigma) {
  const double c_scale_lo = sigma * k.p[3];
  return fma_rn(static_cast<double>(c), c_scale_lo, combine3(a, b, c, k, mu, sigma));
}

}  // namespace onepass::gaussian::lane
