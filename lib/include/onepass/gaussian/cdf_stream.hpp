// onepass/gaussian/cdf_stream.hpp — the warp Gaussian generator's output mapped to
// uniform 32-bit words through the normal CDF, for uniformity test suites (PractRand,
// TestU01, dieharder): `onepass gaussian-stream`, experiments/gaussian_dieharder.
//
// Article ("Testing with PractRand"): u = erf(x / sqrt(2)) in (-1, 1), then
// word = (uint32) ((1 + u) * 2^31). A true N(0,1) x gives a uniform word. We clamp
// (1 + u) * 2^31 to at most 2^32 - 1 (u = 1 exactly for x > about 8.3 would overflow the
// cast, which is undefined behaviour in C++; the article's code relies on the
// hardware's saturation) — a value of probability about 1e-16.
//
// Stream order: output i of cpu::generate_normal(seed) (cpu_generate.hpp): lane i % 32
// of warp round i / 32, entropy_source(seed, lane)(round). fill_cdf_words computes any
// window of rounds, so a stream can be produced in chunks of bounded memory.
//
// The float-native generator (float_cpu_generate.hpp) gets its own mapping, two outputs
// per word: word k = (normal_to_uint16(x[2k]) << 16) | normal_to_uint16(x[2k + 1]), the
// top 16 bits of Phi(x) of output 2k in the HIGH half and of output 2k + 1 in the low
// half (normal_pair_to_uint32; Phi computed in double from the float). Why 16 bits and
// not 32 of one output: a float has a 24-bit significand, so Phi(float x) moves in steps
// of phi(x) ulp(x), up to about 2^-25 (x just above 1: 0.242 * 2^-23), and the output
// itself carries the generator's rounding noise of a few ulp (float_lane.hpp, "Error and
// resolution"): the bits of Phi below about 2^-22 are the float's lattice and rounding,
// not the generator's law, and a 32-bit word would show them to any test that looks at
// its low bits (the same for every float generator). With 16 bits a cell of Phi (width
// 2^-16) holds at least about 2^9 floats, so the lattice moves a cell's probability by
// at most about 2^-9 of itself (part of a float's mass at each edge, of either sign;
// computed for N(0,1) rounded to nearest float: max 1.8e-3, and a chi-square over all
// 2^16 cells would need about 6e9 outputs to reach 3 sigma), beyond a dieharder run's words.
// Packing two outputs keeps 32 random bits per word, which dieharder's tests expect.
// fill_float_cdf_words computes any window of the float generator's rounds (128
// outputs, 64 words each) in the output order of the float-native cpu::generate_normal
// (float_cpu_generate.hpp).
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <vector>

#include "onepass/gaussian/entropy.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/gaussian/warp_emulation.hpp"

namespace onepass::gaussian {

/// The article's erf mapping of a double to a 32-bit word (see the file comment).
/// NaN maps to 0 (never produced by the generator).
inline std::uint32_t normal_to_uint32(double x) {
  const double u = std::erf(x * 0.7071067811865476);
  const double scaled = (1.0 + u) * 2147483648.0;
  if (!(scaled > 0.0)) return 0u;
  if (scaled >= 4294967295.0) return 0xFFFFFFFFu;
  return static_cast<std::uint32_t>(scaled);
}

/// Top 16 bits of the normal CDF of a float: floor(Phi(x) 2^16) in [0, 65535], Phi(x)
/// computed in double from the float (the top half of normal_to_uint32(double(x)), so
/// x > about 8.3 gives 65535 and NaN 0). Only bits the float determines (file comment).
inline std::uint16_t normal_to_uint16(float x) {
  return static_cast<std::uint16_t>(normal_to_uint32(static_cast<double>(x)) >> 16);
}

/// One 32-bit word from two consecutive float outputs (file comment): the first output's
/// normal_to_uint16 in bits 16..31, the second's in bits 0..15. A pair of N(0,1) floats
/// gives a uniform word up to the float's resolution.
inline std::uint32_t normal_pair_to_uint32(float first, float second) {
  return (static_cast<std::uint32_t>(normal_to_uint16(first)) << 16) | normal_to_uint16(second);
}

/// Serial core of fill_normals: the N(0,1) outputs of warp rounds [first_round,
/// first_round + rounds) of cpu::generate_normal(seed, tab, f) into x[0 .. 32 * rounds):
/// x[32 (r - first_round) + l] is lane l of round r. No errors (tab must be valid).
inline void fill_normals_serial(double* x, std::uint64_t first_round, std::uint64_t rounds, std::uint64_t seed,
                                const table& tab, form f = form::four) {
  if (rounds == 0) return;
  const entropy_source sources[32] = {
      {seed, 0},  {seed, 1},  {seed, 2},  {seed, 3},  {seed, 4},  {seed, 5},  {seed, 6},  {seed, 7},
      {seed, 8},  {seed, 9},  {seed, 10}, {seed, 11}, {seed, 12}, {seed, 13}, {seed, 14}, {seed, 15},
      {seed, 16}, {seed, 17}, {seed, 18}, {seed, 19}, {seed, 20}, {seed, 21}, {seed, 22}, {seed, 23},
      {seed, 24}, {seed, 25}, {seed, 26}, {seed, 27}, {seed, 28}, {seed, 29}, {seed, 30}, {seed, 31}};
  for (std::uint64_t k = 0; k < rounds; ++k) {
    std::uint32_t entropy[32];
    for (unsigned l = 0; l < 32; ++l) entropy[l] = sources[l](first_round + k);
    double out[32];
    emulate_warp(entropy, tab.entries, tab.coeff, out, 0.0, 1.0, f);
    for (unsigned l = 0; l < 32; ++l) x[32 * k + l] = out[l];
  }
}

/// fill_normals_serial, parallel over rounds with oneTBB (deterministic).
inline void fill_normals(double* x, std::uint64_t first_round, std::uint64_t rounds, std::uint64_t seed,
                         const table& tab, form f = form::four) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, rounds, 256), [&](const tbb::blocked_range<std::uint64_t>& rr) {
    fill_normals_serial(x + 32 * rr.begin(), first_round + rr.begin(), rr.end() - rr.begin(), seed, tab, f);
  });
}

/// As fill_normals, mapped by normal_to_uint32: words[32 (r - first_round) + l].
inline void fill_cdf_words(std::uint32_t* words, std::uint64_t first_round, std::uint64_t rounds, std::uint64_t seed,
                           const table& tab, form f = form::four) {
  constexpr std::uint64_t block = 256;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, rounds, block), [&](const tbb::blocked_range<std::uint64_t>& rr) {
    double x[32 * block];
    for (std::uint64_t k0 = rr.begin(); k0 < rr.end(); k0 += block) {
      const std::uint64_t count = rr.end() - k0 < block ? rr.end() - k0 : block;
      fill_normals_serial(x, first_round + k0, count, seed, tab, f);
      for (std::uint64_t i = 0; i < 32 * count; ++i) words[32 * k0 + i] = normal_to_uint32(x[i]);
    }
  });
}

/// Serial core of fill_float_cdf_words: the N(0,1) outputs of rounds [first_round,
/// first_round + rounds) of cpu::generate_normal(seed, float tab) into x[0 .. 128 rounds):
/// x[128 (r - first_round) + 4 l + j] is lane l, transform j of round r (as output
/// 128 r + 4 l + j of that cpu::generate_normal). signed_tab = signed_float_table(tab)
/// (8192 floats), k = float_lane::scale(tab.coeff, 0, 1). No errors (tab must be valid).
inline void fill_float_normals_serial(float* x, std::uint64_t first_round, std::uint64_t rounds, std::uint64_t seed,
                                      const float* signed_tab, const float_scaled& k) {
  for (std::uint64_t q = 0; q < rounds; ++q) {
    words4 w[32];
    for (unsigned l = 0; l < 32; ++l) w[l] = float_entropy_source(seed, l)(first_round + q);
    for (unsigned j = 0; j < 4; ++j) {
      std::uint32_t e[32];
      for (unsigned l = 0; l < 32; ++l) e[l] = w[l].w[j];
      float out[32];
      emulate_float_warp(e, signed_tab, k, out);
      for (unsigned l = 0; l < 32; ++l) x[128 * q + 4 * l + j] = out[l];
    }
  }
}

/// The float-native generator's stream mapped by normal_pair_to_uint32: words[64 (r -
/// first_round) + m] = normal_pair_to_uint32(x[128 r + 2 m], x[128 r + 2 m + 1]), x the
/// output of cpu::generate_normal(seed, float tab) (mean 0, stddev 1), for the rounds
/// [first_round, first_round + rounds); words holds 64 rounds words. Parallel over rounds
/// with oneTBB (deterministic). tab: a valid float_table (default_float_table()); no errors.
inline void fill_float_cdf_words(std::uint32_t* words, std::uint64_t first_round, std::uint64_t rounds,
                                 std::uint64_t seed, const float_table& tab) {
  if (rounds == 0) return;
  const std::vector<float> signed_tab = signed_float_table(tab);
  const float_scaled k = float_lane::scale(tab.coeff, 0.0, 1.0);
  constexpr std::uint64_t block = 64;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, rounds, block), [&](const tbb::blocked_range<std::uint64_t>& rr) {
    float x[128 * block];
    for (std::uint64_t k0 = rr.begin(); k0 < rr.end(); k0 += block) {
      const std::uint64_t count = rr.end() - k0 < block ? rr.end() - k0 : block;
      fill_float_normals_serial(x, first_round + k0, count, seed, signed_tab.data(), k);
      for (std::uint64_t i = 0; i < 64 * count; ++i) words[64 * k0 + i] = normal_pair_to_uint32(x[2 * i], x[2 * i + 1]);
    }
  });
}

}  // namespace onepass::gaussian
