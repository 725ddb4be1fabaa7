// onepass/gaussian/float_lane.hpp — the per-lane arithmetic of the FLOAT-NATIVE warp
// Gaussian generator as pure ONEPASS_HD functions, shared by the CUDA kernel
// (warp_gaussian_float.cuh) and the CPU twin (float_cpu_generate.hpp), so the two are
// bit-identical. A new generator with its own guarantees (not the double generator
// rounded; that one stays as method::rounded_double).
//
// Article: "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022), sections
// "A new algorithm", "Linear combination", "CUDA implementation", "Issues with small
// floats", redone for float32 output:
//
// 1. Table: 16 sub-tables of 256 magnitudes T[s][k] (the layout of table.hpp, index
//    16 k + s), integers with sum over sub-tables of 2 max_k T[s][k] <= 2^24. The default
//    (default_float_table) is the double generator's optimised table divided by 2^7 and
//    rounded (worst case 1856975026 / 128 < 2^24). Every partial sum of the butterfly is
//    then an integer of magnitude <= 2^24, EXACT in float: the butterfly is done with
//    float adds (FADD, on the FMA pipes) and is the same exact integer butterfly as the
//    article's, with no int->float conversion (I2F runs at 16/clk/SM on sm_90).
//    In shared memory the table is stored signed: 16 x 512 floats (32 KiB), entry k of
//    sub-table s at word 16 k + s, k < 256: +T[s][k], k >= 256: -T[s][k - 256], so a
//    9-bit index gives the value with its random sign (the article's first negations,
//    bits 19/18, cost nothing).
// 2. Entropy word e of lane L (one 32-bit word per lane per transform):
//      bits  6..14  index of the a lookup (bit 14: sign)
//      bits 22..30  index of the b lookup (bit 30: sign), read from rotl(e, 16)
//      bit  31      negates a after HMIX(2)      bit 15  negates a after HMIX(4)
//      bit  16      negates a after HMIX(8)      bit 17  negates a after HMIX(16)
//      bits 1..22   xor b (after HMIX(4)) -> the uniform c
//    Sign flips are xors of bit 31 (float sign): x ^ (w & 0x80000000) for a word w
//    holding the bit at 31 (e, rotl(e, 16), e << 15, e << 14).
// 3. Butterfly: HMIX(i): s = a + b; a = a - b; b = shfl_xor(s, i), i = 1, 2, 4, 8, 16,
//    then a negated by its bit (layers 2..5). One random negation per layer, of the kept
//    difference, instead of the article's two: the article's negations after HMIX(1) do
//    not change the output's law (a, b of one lane are i.i.d. symmetric, so
//    (+-(a - b), +-(a + b)) has the law of (a - b, a + b)); and one negation of one branch
//    per butterfly node already makes E[C_ik C_jk] = 0 over the random signs for every two
//    distinct outputs i != j and input k (their paths part at a node whose kept branch
//    is negated), as the article's two do. a is then a +-1 sum of the 32 lookups of its
//    half-warp, b of the other half-warp's 32.
// 4. c: c = f - 1.5 with f = as_float(((e ^ bits(b)) & 0x007FFFFE) | 0x3F800001), b the
//    register after HMIX(4) (from lanes independent of e, so e ^ b is uniform). c is
//    uniform on the odd multiples of 2^-23 in (-1/2, 1/2): c = 2^-23 sum_{i<22} +-2^i,
//    22 random bits, mean exactly 0 and exactly symmetric (the float form of the article's
//    odd int32 c; c - 1.5 is exact by Sterbenz).
// 5. Output: x = fma(c, W, fma(b, P1, fma(a, P0, mu))) in float, round to nearest,
//    P0 = float(sigma p0), P1 = float(sigma p1), W = float(sigma w), mu = float(mean)
//    (each a double product rounded once to float). Three coefficients suffice: p0, p1, w
//    are floats chosen by solve_float_coefficients so that Var = 1 and kurtosis = 3 as
//    close as float coefficients allow (a search over nearby floats; the article's
//    p0 : p1 = sqrt 5 : 2 is kept to float precision).
//
// Error and resolution (sigma = 1, mu = 0; numbers from gaussian_hermite_failure's
// float_native rows and notes):
// - a, b, c are exact; the model X = p0 A + p1 B + w c (A, B the exact sums, c the 22-bit
//   uniform) has exact Hermite moments (stats::hermite::generator_hermites_float). With
//   the default table every Hermite/moment/best-polynomial test of order <= 16 (and
//   <= 24) needs >= 2.8e24 outputs to fail at 4 sigma (limited by the sixth Hermite of the
//   /128-rounded table; the double table reaches 2.3e33); the float coefficients leave
//   |Var - 1| = 2e-14 (7.9e28 outputs) and h_4 = 4e-13 (2.6e27).
// - The float output is the model value after three roundings (one per FMA; the partial
//   sums are each rounded once): within 1.5 ulp(x) + 2 ulp of the largest partial sum
//   (|p0 a| or |p0 a + p1 b|), i.e. a relative error of a few 2^-24 for |x| >~ 1e-6 — a
//   zero-mean rounding noise at the float's own resolution, not in the model.
// - Quantum (the article's "Issues with small floats", for float): p0 a, p1 b and w c are
//   multiples of the lowest set bits of p0, p1 and w 2^-23, so every output is a multiple
//   of q = 2^float_quantum_log2 (2^-50 with the default coefficients: w's lowest bit
//   2^-27 times c's 2^-23). Below |x| < 2^23 q ~ 7.5e-9 the float's lowest mantissa bits
//   are then forced to 0; 20 such outputs take about 20 / (2^24 q phi(0)) ~ 3.4e9 outputs.
//   A float term has 24 bits, so each further 23 bits of resolution near 0 needs one more
//   uniform and FMA (a fourth term w2 c2 with w2 ~ w 2^-23: ~3e16 outputs); we keep the
//   three terms the throughput target allows (cuRAND's Box-Muller floats, from 32-bit
//   uniforms, are also on a coarse lattice near 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "onepass/config.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::gaussian {

/// Entries of the signed float table in shared memory: 16 sub-tables x 512 (32 KiB).
inline constexpr unsigned float_smem_entries = 8192;
/// Largest worst-case register of a float table: 2^24, so the float butterfly is exact.
inline constexpr std::int64_t float_table_max_register = std::int64_t{1} << 24;

/// Coefficients of the float-native output x = mu + sigma (p0 a + p1 b + w c); floats.
struct float_coefficients {
  float p0;  ///< weight of a (integer-valued, |a| <= 2^24)
  float p1;  ///< weight of b
  float w;   ///< weight of c (uniform in (-1/2, 1/2), 22 bits)
};

/// The float-native generator's parameters: 4096 integer magnitudes (layout of
/// table.hpp: entry k of sub-table s at 16 k + s; 0 <= entry, worst_case_register <= 2^24)
/// and the float coefficients.
struct float_table {
  std::int32_t entries[table_entries];
  float_coefficients coeff;
};

/// Coefficients scaled by sigma and the mean, as the lanes use them (all float).
struct float_scaled {
  float p0, p1, w, mu;
};

namespace float_lane {

/// Bit casts (host: memcpy; device: intrinsics).
ONEPASS_HD inline float as_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
ONEPASS_HD inline std::uint32_t as_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

/// Rotate left by 16 (the b index and the bit-15 sign come from it; one PRMT on the GPU).
ONEPASS_HD inline std::uint32_t rotl16(std::uint32_t e) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(e, 0u, 0x1032u);
#else
  return (e << 16) | (e >> 16);
#endif
}

/// Byte offset of sub-table lane & 15 within a row of the signed table: (lane & 15) * 4.
/// Computed once per thread and passed to the lookups.
ONEPASS_HD constexpr std::uint32_t lane_offset(unsigned lane) { return (lane & 15u) << 2; }

/// Byte offset into the signed table (word 16 k + s, 4 bytes) of the a lookup of the lane
/// with lane_offset `lane_off`: k = bits 6..14 of e.
ONEPASS_HD constexpr std::uint32_t offset_a(std::uint32_t e, std::uint32_t lane_off) { return (e & 0x7FC0u) | lane_off; }
/// Byte offset of the b lookup: k = bits 22..30 of e (bits 6..14 of rotl16(e)).
ONEPASS_HD inline std::uint32_t offset_b(std::uint32_t e, std::uint32_t lane_off) {
  return (rotl16(e) & 0x7FC0u) | lane_off;
}

/// Word holding, at bit 31, the sign flip of a after HMIX layer `layer` (2..5):
/// e bit 31, 15, 16, 17.
ONEPASS_HD inline std::uint32_t flip_word(std::uint32_t e, unsigned layer) {
  return layer == 2 ? e : layer == 3 ? rotl16(e) : layer == 4 ? (e << 15) : (e << 14);
}

/// x with its sign flipped when bit 31 of w is set.
ONEPASS_HD inline float flip(float x, std::uint32_t w) { return as_float(as_bits(x) ^ (w & 0x80000000u)); }

/// Value of the signed table at word `i` (0..8191): k = i >> 4 (0..511), s = i & 15;
/// +T[s][k] for k < 256, -T[s][k - 256] otherwise (T = entries, integers <= 2^24).
ONEPASS_HD inline float signed_entry(const std::int32_t* entries, unsigned i) {
  const unsigned k = (i >> 4) & 511u, s = i & 15u;
  const float m = static_cast<float>(entries[table_index(s, k & 255u)]);
  return (k & 256u) ? -m : m;
}

/// Register pair of one lane.
struct registers {
  float a;
  float b;
};

/// The two lookups of the lane with lane_offset `lane_off` (lane_offset(lane), lane
/// 0..31) from the signed table `tab` (8192 floats, shared memory on the GPU).
ONEPASS_HD inline registers load(std::uint32_t e, std::uint32_t lane_off, const float* tab) {
  const char* base = reinterpret_cast<const char*>(tab);
  return registers{*reinterpret_cast<const float*>(base + offset_a(e, lane_off)),
                   *reinterpret_cast<const float*>(base + offset_b(e, lane_off))};
}

/// Exact float add/sub (the operands are integers with |sum| <= 2^24).
ONEPASS_HD inline float add_rn(float x, float y) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(x, y);
#else
  return x + y;
#endif
}
ONEPASS_HD inline float sub_rn(float x, float y) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(x, y);
#else
  return x - y;
#endif
}

/// First half of HMIX: returns s = a + b (sent to lane ^ offset) and sets a = a - b.
ONEPASS_HD inline float mix_send(registers& r) {
  const float s = add_rn(r.a, r.b);
  r.a = sub_rn(r.a, r.b);
  return s;
}

/// Second half of HMIX layer `layer` (1..5): b = the s received from lane ^ offset;
/// for layers 2..5, a negated by its bit (flip_word).
ONEPASS_HD inline void mix_receive(registers& r, float received, std::uint32_t e, unsigned layer) {
  r.b = received;
  if (layer >= 2) r.a = flip(r.a, flip_word(e, layer));
}

/// c is formed after this layer (HMIX(4)).
inline constexpr unsigned c_after_layer = 3;

/// The uniform c = as_float(((e ^ bits(b)) & 0x007FFFFE) | 0x3F800001) - 1.5 (exact).
ONEPASS_HD inline float uniform_c(std::uint32_t e, float b) {
  return sub_rn(as_float(((e ^ as_bits(b)) & 0x007FFFFEu) | 0x3F800001u), 1.5f);
}

/// Correctly rounded float FMA on host and device.
ONEPASS_HD inline float fmaf_rn(float x, float y, float z) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(x, y, z);
#else
  return std::fmaf(x, y, z);
#endif
}

/// Final combination: x = fma(c, W, fma(b, P1, fma(a, P0, mu))).
ONEPASS_HD inline float combine(float a, float b, float c, const float_scaled& k) {
  return fmaf_rn(c, k.w, fmaf_rn(b, k.p1, fmaf_rn(a, k.p0, k.mu)));
}

/// The scaled coefficients: P = float(double(stddev) * double(p)) (one rounding after
/// an exact double product), mu = float(mean). stddev = 1 gives P = p exactly.
ONEPASS_HD inline float_scaled scale(const float_coefficients& k, double mean, double stddev) {
  return float_scaled{static_cast<float>(stddev * static_cast<double>(k.p0)),
                      static_cast<float>(stddev * static_cast<double>(k.p1)),
                      static_cast<float>(stddev * static_cast<double>(k.w)), static_cast<float>(mean)};
}

}  // namespace float_lane

/// Float-native table builders (host only; lib/src/gaussian_float_table.cpp).

/// How solve_float_coefficients chose the coefficients (for reports and tests).
struct float_coefficient_solution {
  float_coefficients coeff;
  long double var_a;           ///< Var(a): a = sum of 32 independent +-lookups (2 per sub-table)
  long double kappa4_a;        ///< its fourth cumulant
  long double variance;        ///< Var(x) of the model with the float coefficients
  long double excess_kurtosis; ///< kurtosis(x) - 3 of the model with the float coefficients
  bool kurtosis_solved;        ///< false: a platykurtic, w fixed to a small smoothing weight
};

/// Solves float p0, p1, w for the magnitudes `entries` (layout of table.hpp; integers,
/// worst_case_register <= 2^24): first the exact reals of the article ("Choosing the
/// coefficients": p0 : p1 = sqrt 5 : 2, Var = 1, kurtosis = 3, with c the 22-bit uniform
/// of float_lane.hpp, C = sum_{i<22} +-2^i, weight w 2^-23), then a search over the
/// floats within 256 ulps of p0 and p1 (w: the floats nearest the Var = 1 solution) minimising
/// h_2^2 / 2 + h_4^2 / 24 (the variance and kurtosis Hermite terms). Computed in 50-digit
/// arithmetic for the cumulants, long double for the search. If the table is platykurtic
/// (no real solution) w is fixed so that c's standard deviation is 2^-12 and only Var = 1
/// is solved. Throws onepass::error ("solve_float_coefficients: entries ...") for a
/// negative entry, a worst-case register > 2^24 (the float butterfly would round) or an
/// all-zero table.
float_coefficient_solution solve_float_coefficients(const std::int32_t (&entries)[table_entries]);

/// A float table from a double-generator table: entries round(T / 2^shift) with the
/// smallest shift >= 0 giving worst_case_register <= 2^24, and solve_float_coefficients.
/// Host only; throws as solve_float_coefficients.
float_table make_float_table(const table& tab);

/// The float-native generator's default table: make_float_table(default_table()) (the
/// optimised table divided by 2^7, rounded). Computed once, thread-safe; host only.
const float_table& default_float_table();

/// log2 of the quantum of the float-native output for sigma = 1 (file comment): the
/// largest power of two dividing p0 a + p1 b + w c for all integers a, b and c in
/// 2^-23 Z, i.e. min(lowest set bit of p0, of p1, of w - 23).
int float_quantum_log2(const float_coefficients& k);

}  // namespace onepass::gaussian
