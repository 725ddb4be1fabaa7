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
// Stream order: output i of generate_normal_cpu(seed) (cpu_generate.hpp): lane i % 32
// of warp round i / 32, entropy_source(seed, lane)(round). fill_cdf_words computes any
// window of rounds, so a stream can be produced in chunks of bounded memory.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "onepass/gaussian/entropy.hpp"
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

/// Serial core of fill_normals: the N(0,1) outputs of warp rounds [first_round,
/// first_round + rounds) of generate_normal_cpu(seed, tab, f) into x[0 .. 32 * rounds):
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

}  // namespace onepass::gaussian
