// onepass/gaussian/warp_batch.hpp — the CPU emulation of many warp rounds at once, for the
// CPU twins cpu::generate_normal (cpu_generate.hpp; with a float_table,
// float_cpu_generate.hpp): the same numbers, bit for bit, as warp_emulation.hpp and
// emulate_float_warp (one warp round at a time) and as the CUDA kernels (generate.cuh).
//
// Article: "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022), sections
// "A new algorithm", "Linear combination", "CUDA implementation", "Issues with small
// floats"; the float form in float_lane.hpp.
//
// Layout (structure of arrays, lanes x rounds): a batch holds R warp rounds of the 32 lanes;
// register x of lane l in round column k is x[l][k]. Every step of the warp — the entropy,
// the lookups, the negations, each HMIX layer (lane l with lane l ^ offset: two rows of the
// arrays, no shuffle), c and the final FMAs — is a loop over the R columns with the same
// operation in each, which the compiler turns into vector instructions (SSE2, AVX2 or
// AVX-512, whatever the translation unit is compiled for). The conditional negations are
// branch-free ((x ^ m) - m with m = 0 or -1: the article's random signs would mispredict half
// the time). Only the order of evaluation differs from the warp: each output is the same
// integer butterfly (exact modulo 2^32 for the double generator; exact float adds of
// integers for the float one), the same c, and the same rounded FMAs in the same order, so
// the outputs are bit-identical.
//
// Isa: a tag type that only makes the instantiations distinct (as in shuffle/cpu_walking.hpp):
// a translation unit compiled for another instruction set (the Python module's x86-64-v3 /
// v4 copies) passes a tag of internal linkage, so the linker cannot merge its
// instantiations with the default ones.
#pragma once

#include <cstdint>

#include "onepass/gaussian/entropy.hpp"
#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/lane.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::gaussian::detail {

/// Warp rounds per batch of the double generator (even: one entropy_source::pair gives a
/// lane the words of two rounds). 32 x 16 outputs; the batch's arrays take 12 KiB.
inline constexpr unsigned double_batch_rounds = 16;
/// Warp rounds per batch of the float-native generator: 8 x 128 outputs (32 warp transforms
/// per lane); the batch's arrays take 20 KiB.
inline constexpr unsigned float_batch_rounds = 8;

/// -x (modulo 2^32) when bit `bit` (0..31) of `e` is set, else x: lane::cond_negate without a
/// branch, as (x ^ m) - m with m = 0 or 0xFFFFFFFF (the bit moved to bit 31, then spread: an
/// arithmetic shift).
constexpr std::uint32_t negate_if_bit(std::uint32_t x, std::uint32_t e, unsigned bit) {
  const std::uint32_t m = 0u - ((e << (31 - bit)) >> 31);
  return (x ^ m) - m;
}

/// One batch of the double generator: lanes x rounds. Column k holds warp round r0 + k, r0
/// (even) the batch's first round, so out[32 (r0 + k) + l] = x[l][k]. The registers are kept
/// as uint32 (two's complement of the int32 registers: the butterfly wraps modulo 2^32).
struct double_batch {
  static constexpr unsigned R = double_batch_rounds;
  alignas(64) std::uint32_t e[32][R];
  alignas(64) std::uint32_t a[32][R];
  alignas(64) std::uint32_t b[32][R];
  alignas(64) std::uint32_t c[32][R];
  alignas(64) double x[32][R];
};

/// HMIX layer `Layer` (1..5) for the R columns of lanes l and p = l ^ layer_offset(Layer)
/// (rows al, bl, el of lane l; ap, bp, ep of lane p): each lane sends a + b to the other
/// and keeps a - b; then the layer's negations (lane::mix_send, lane::mix_receive).
template <unsigned Layer, unsigned R, class Isa>
inline void double_hmix_rows(std::uint32_t* __restrict al, std::uint32_t* __restrict bl, std::uint32_t* __restrict ap,
                             std::uint32_t* __restrict bp, const std::uint32_t* __restrict el,
                             const std::uint32_t* __restrict ep) {
  constexpr unsigned bit_a = lane::negate_bit_a(Layer), bit_b = lane::negate_bit_b(Layer);
  for (unsigned k = 0; k < R; ++k) {
    const std::uint32_t sl = al[k] + bl[k], sp = ap[k] + bp[k];
    const std::uint32_t dl = al[k] - bl[k], dp = ap[k] - bp[k];
    al[k] = negate_if_bit(dl, el[k], bit_a);
    ap[k] = negate_if_bit(dp, ep[k], bit_a);
    bl[k] = negate_if_bit(sp, el[k], bit_b);
    bp[k] = negate_if_bit(sl, ep[k], bit_b);
  }
}

/// HMIX layer `Layer` (1..5) of every lane pair of the batch.
template <unsigned Layer, class Isa, class Batch>
inline void double_hmix(Batch& w) {
  constexpr unsigned offset = lane::layer_offset(Layer);
  for (unsigned l = 0; l < 32; ++l) {
    if (l & offset) continue;
    const unsigned p = l | offset;
    double_hmix_rows<Layer, Batch::R, Isa>(w.a[l], w.b[l], w.a[p], w.b[p], w.e[l], w.e[p]);
  }
}

/// c = (e ^ b) | 1 for the R columns of one lane (lane::uniform_c).
template <unsigned R, class Isa>
inline void double_uniform_c_rows(std::uint32_t* __restrict c, const std::uint32_t* __restrict e,
                                  const std::uint32_t* __restrict b) {
  for (unsigned k = 0; k < R; ++k) c[k] = (e[k] ^ b[k]) | 1u;
}

/// Fills w.x with the outputs of warp rounds r0 .. r0 + R - 1 (r0 even; column k = round
/// r0 + k) of the double generator: lane l uses sources[l] (entropy_source(seed, l)),
/// the 4096-entry table `tab` (layout of table.hpp), the scales sigma * p_i and the mean
/// `mu`; `f` the 3- or 4-coefficient form. w.x[l][k] equals emulate_warp's out[l] for the
/// entropy words sources[0..31](r0 + k), bit for bit (lane.hpp, in the same order).
/// No errors.
template <class Isa = void>
inline void double_batch_rounds_compute(double_batch& w, const entropy_source (&sources)[32], std::uint64_t r0,
                                        const std::int32_t* tab, const double (&scale)[4], double mu, form f) {
  constexpr unsigned R = double_batch::R;
  const std::uint64_t q0 = r0 / 2;  // entropy pair of column 0
  // Entropy and lookups, with the first negations (bits 19, 18): lane::load.
  for (unsigned l = 0; l < 32; ++l) {
    const entropy_source src = sources[l];
    std::uint32_t* __restrict e = w.e[l];
    for (unsigned k = 0; k < R / 2; ++k) {
      const std::uint64_t word = src.pair(q0 + k);
      e[2 * k] = static_cast<std::uint32_t>(word);  // round r0 + 2k: the low half (entropy_source)
      e[2 * k + 1] = static_cast<std::uint32_t>(word >> 32);
    }
    std::uint32_t* __restrict a = w.a[l];
    std::uint32_t* __restrict b = w.b[l];
    for (unsigned k = 0; k < R; ++k) {
      a[k] = negate_if_bit(static_cast<std::uint32_t>(tab[index_a(e[k], l)]), e[k], lane::negate_bit_a(0));
      b[k] = negate_if_bit(static_cast<std::uint32_t>(tab[index_b(e[k], l)]), e[k], lane::negate_bit_b(0));
    }
  }
  // HMIX(1), ..., HMIX(16), each after the previous (lane.hpp); c after HMIX(4).
  double_hmix<1, Isa>(w);
  double_hmix<2, Isa>(w);
  double_hmix<3, Isa>(w);
  for (unsigned l = 0; l < 32; ++l) double_uniform_c_rows<R, Isa>(w.c[l], w.e[l], w.b[l]);
  double_hmix<4, Isa>(w);
  double_hmix<5, Isa>(w);
  // mu + a sigma p0 + b sigma p1 + c sigma p2 [+ c sigma p3]: lane::combine3 / combine4.
  for (unsigned l = 0; l < 32; ++l) {
    const std::uint32_t* __restrict a = w.a[l];
    const std::uint32_t* __restrict b = w.b[l];
    const std::uint32_t* __restrict c = w.c[l];
    double* __restrict x = w.x[l];
    if (f == form::four) {
      for (unsigned k = 0; k < R; ++k) {
        double r = lane::fma_rn(static_cast<double>(static_cast<std::int32_t>(a[k])), scale[0], mu);
        r = lane::fma_rn(static_cast<double>(static_cast<std::int32_t>(b[k])), scale[1], r);
        const double cd = static_cast<double>(static_cast<std::int32_t>(c[k]));
        r = lane::fma_rn(cd, scale[2], r);
        x[k] = lane::fma_rn(cd, scale[3], r);
      }
    } else {
      for (unsigned k = 0; k < R; ++k) {
        double r = lane::fma_rn(static_cast<double>(static_cast<std::int32_t>(a[k])), scale[0], mu);
        r = lane::fma_rn(static_cast<double>(static_cast<std::int32_t>(b[k])), scale[1], r);
        x[k] = lane::fma_rn(static_cast<double>(static_cast<std::int32_t>(c[k])), scale[2], r);
      }
    }
  }
}

/// One batch of the float-native generator: lanes x (rounds x 4 transforms). Column
/// 4k + j holds transform j (0..3, entropy word j of the lane's Philox block) of warp round
/// r0 + k (k < R), so out[128 (r0 + k) + 4 l .. + 3] = x[l][4k .. 4k + 3] (the GPU's float4
/// of lane l). a and b are the exact integer-valued float registers (float_lane.hpp).
struct float_batch {
  static constexpr unsigned R = float_batch_rounds;
  static constexpr unsigned W = 4 * R;  // warp transforms per lane
  alignas(64) std::uint32_t e[32][W];
  alignas(64) float a[32][W];
  alignas(64) float b[32][W];
  alignas(64) float c[32][W];
  alignas(64) float x[32][W];
};

/// x with its sign flipped when bit 31 of `word` is set (float_lane::flip in a form that
/// vectorises: a multiplication by +-1, exact, the same bits for every x including +-0).
inline float flip_by_sign(float x, std::uint32_t word) {
  return x * float_lane::as_float((word & 0x80000000u) | 0x3F800000u);
}

/// HMIX layer `Layer` (1..5) of the float-native generator for the W columns of lanes l
/// and p = l ^ 2^(Layer - 1): each lane sends a + b to the other and keeps a - b, negated
/// for layers 2..5 by bit 31 of float_lane::flip_word (float_lane::mix_send, mix_receive).
template <unsigned Layer, unsigned W, class Isa>
inline void float_hmix_rows(float* __restrict al, float* __restrict bl, float* __restrict ap, float* __restrict bp,
                            const std::uint32_t* __restrict el, const std::uint32_t* __restrict ep) {
  for (unsigned t = 0; t < W; ++t) {
    const float sl = float_lane::add_rn(al[t], bl[t]), sp = float_lane::add_rn(ap[t], bp[t]);
    const float dl = float_lane::sub_rn(al[t], bl[t]), dp = float_lane::sub_rn(ap[t], bp[t]);
    if constexpr (Layer >= 2) {
      al[t] = flip_by_sign(dl, float_lane::flip_word(el[t], Layer));
      ap[t] = flip_by_sign(dp, float_lane::flip_word(ep[t], Layer));
    } else {
      al[t] = dl;
      ap[t] = dp;
    }
    bl[t] = sp;
    bp[t] = sl;
  }
}

/// HMIX layer `Layer` (1..5) of every lane pair of the float batch.
template <unsigned Layer, class Isa, class Batch>
inline void float_hmix(Batch& w) {
  constexpr unsigned offset = 1u << (Layer - 1);
  for (unsigned l = 0; l < 32; ++l) {
    if (l & offset) continue;
    const unsigned p = l | offset;
    float_hmix_rows<Layer, Batch::W, Isa>(w.a[l], w.b[l], w.a[p], w.b[p], w.e[l], w.e[p]);
  }
}

/// The uniform c of float_lane::uniform_c for the W columns of one lane.
template <unsigned W, class Isa>
inline void float_uniform_c_rows(float* __restrict c, const std::uint32_t* __restrict e, const float* __restrict b) {
  for (unsigned t = 0; t < W; ++t) c[t] = float_lane::uniform_c(e[t], b[t]);
}

/// Fills w.x with the outputs of warp rounds r0 .. r0 + R - 1 of the float-native generator
/// (column order of float_batch): lane l uses sources[l] (float_entropy_source(seed, l)),
/// the signed 8192-float table `signed_tab` (signed_float_table) and the scaled coefficients
/// `k` (float_lane::scale). w.x[l][4 q + j] equals emulate_float_warp's out[l] for the words j
/// of the lanes' blocks r0 + q, bit for bit (float_lane.hpp, in the same order). No errors.
template <class Isa = void>
inline void float_batch_rounds_compute(float_batch& w, const float_entropy_source (&sources)[32], std::uint64_t r0,
                                       const float* signed_tab, const float_scaled& k) {
  constexpr unsigned R = float_batch::R, W = float_batch::W;
  // Entropy (one Philox4x32-7 block per lane and round) and the two lookups of the signed
  // table (float_lane::load: the first random signs come with the index).
  for (unsigned l = 0; l < 32; ++l) {
    const float_entropy_source src = sources[l];
    std::uint32_t* __restrict e = w.e[l];
    for (unsigned q = 0; q < R; ++q) {
      const words4 block = src(r0 + q);
      for (unsigned j = 0; j < 4; ++j) e[4 * q + j] = block.w[j];
    }
    const std::uint32_t lane_off = float_lane::lane_offset(l);
    float* __restrict a = w.a[l];
    float* __restrict b = w.b[l];
    for (unsigned t = 0; t < W; ++t) {  // byte offsets / 4: word indices
      a[t] = signed_tab[float_lane::offset_a(e[t], lane_off) / 4];
      b[t] = signed_tab[float_lane::offset_b(e[t], lane_off) / 4];
    }
  }
  // HMIX(1), ..., HMIX(16) with exact float adds (float_lane.hpp); c after HMIX(4).
  float_hmix<1, Isa>(w);
  float_hmix<2, Isa>(w);
  float_hmix<3, Isa>(w);
  for (unsigned l = 0; l < 32; ++l) float_uniform_c_rows<W, Isa>(w.c[l], w.e[l], w.b[l]);
  float_hmix<4, Isa>(w);
  float_hmix<5, Isa>(w);
  // x = fma(c, W, fma(b, P1, fma(a, P0, mu))): float_lane::combine.
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned t = 0; t < W; ++t) w.x[l][t] = float_lane::combine(w.a[l][t], w.b[l][t], w.c[l][t], k);
}

}  // namespace onepass::gaussian::detail
