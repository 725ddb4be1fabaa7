// onepass/gaussian/float_cpu_generate.hpp — the CPU twin of the float-native warp
// Gaussian generator (float_lane.hpp, warp_gaussian_float.cuh, generate.cuh's
// gpu::generate_normal(float*, ..., float_table / method::float_native)): the same floats,
// bit for bit, as cpu::generate_normal(float*, num_items, mean, stddev, seed, float_table)
// (issue 31 naming; generate_normal_float_cpu is the deprecated old name).
//
// Output order (shared with the GPU): outputs come in rounds of 128; round r, lane l
// (0..31) and transform j (0..3) give output 128 r + 4 l + j (one float4 per lane and
// round on the GPU). Lane l uses the stream float_entropy_source(seed, l), block r: word j
// of that block is lane l's entropy for transform j of round r. Transform j of a round is
// one warp transform (float_lane.hpp) over the 32 lanes' words j. The rounds are computed in
// batches (warp_batch.hpp); the last batch is computed in full (the butterfly needs all 32
// lanes); only outputs i < num_items are written.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/gaussian/float_entropy.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/gaussian/warp_batch.hpp"

namespace onepass::gaussian {

/// How gpu::generate_normal / cpu::generate_normal make floats.
/// float_native: the float-native generator (float_lane.hpp; default_float_table()).
/// rounded_double: the double generator's output rounded to nearest (default_table(),
/// form::four) — the double's guarantees up to float rounding, at the double's cost.
enum class method : int { float_native = 0, rounded_double = 1 };

/// Largest num_items accepted by the float-native generator (2^62, as max_generate_count).
inline constexpr std::size_t max_float_generate_count = std::size_t{1} << 62;

namespace detail {
/// Argument checks of the float-native generator (CPU and GPU); `fn` names the caller.
inline void check_float_generate_args(const char* fn, const void* out, std::size_t num_items, double mean,
                                      double stddev, const float_table& tab) {
  require(num_items <= max_float_generate_count, fn, "num_items", "must be <= 2^62");
  if (num_items > 0) protocol::check_not_null(fn, "out", out, "when num_items > 0");
  require(std::isfinite(mean) && std::fabs(mean) <= 3.4e38, fn, "mean", "must be finite and within float range");
  require(std::isfinite(stddev) && stddev >= 0 && stddev <= 1e30, fn, "stddev", "must be finite, >= 0 and <= 1e30");
  for (unsigned i = 0; i < table_entries; ++i) require(tab.entries[i] >= 0, fn, "tab", "entries must be >= 0");
  require(worst_case_register(tab.entries) <= float_table_max_register, fn, "tab",
          "entries must satisfy sum over sub-tables of 2 * max entry <= 2^24 (exact float butterfly)");
  require(std::isfinite(tab.coeff.p0) && std::isfinite(tab.coeff.p1) && std::isfinite(tab.coeff.w), fn, "tab",
          "coefficients must be finite");
}
}  // namespace detail

/// The signed 8192-entry table (float_lane.hpp, item 1) of `tab`, as the GPU holds it in
/// shared memory: word 16 k + s = float_lane::signed_entry(tab.entries, 16 k + s).
inline std::vector<float> signed_float_table(const float_table& tab) {
  std::vector<float> out(float_smem_entries);
  for (unsigned i = 0; i < float_smem_entries; ++i) out[i] = float_lane::signed_entry(tab.entries, i);
  return out;
}

/// Integer-valued registers of one warp transform at the end of the butterfly, and c
/// (for tests and analysis).
struct float_warp_registers {
  float a[32];
  float b[32];
  float c[32];
};

/// CPU emulation of the integer part of one float-native warp transform: lane L uses
/// entropy[L] and the signed table `signed_tab` (8192 floats, signed_float_table).
inline float_warp_registers emulate_float_warp_registers(const std::uint32_t (&entropy)[32], const float* signed_tab) {
  float_lane::registers r[32];
  float_warp_registers out{};
  for (unsigned l = 0; l < 32; ++l) r[l] = float_lane::load(entropy[l], float_lane::lane_offset(l), signed_tab);
  for (unsigned layer = 1; layer <= 5; ++layer) {
    float sent[32];
    for (unsigned l = 0; l < 32; ++l) sent[l] = float_lane::mix_send(r[l]);
    const unsigned offset = 1u << (layer - 1);
    for (unsigned l = 0; l < 32; ++l) float_lane::mix_receive(r[l], sent[l ^ offset], entropy[l], layer);
    if (layer == float_lane::c_after_layer)
      for (unsigned l = 0; l < 32; ++l) out.c[l] = float_lane::uniform_c(entropy[l], r[l].b);
  }
  for (unsigned l = 0; l < 32; ++l) {
    out.a[l] = r[l].a;
    out.b[l] = r[l].b;
  }
  return out;
}

/// CPU emulation of one float-native warp transform (warp_gaussian_float on the GPU):
/// out[L] = lane L's output for entropy words entropy[0..31], signed table `signed_tab`
/// and scaled coefficients `k` (float_lane::scale). Bit-identical to the device. No errors.
inline void emulate_float_warp(const std::uint32_t (&entropy)[32], const float* signed_tab, const float_scaled& k,
                               float (&out)[32]) {
  const float_warp_registers w = emulate_float_warp_registers(entropy, signed_tab);
  for (unsigned l = 0; l < 32; ++l) out[l] = float_lane::combine(w.a[l], w.b[l], w.c[l], k);
}

namespace detail {
/// Batches (float_batch_rounds warp rounds each) per oneTBB task at least: 32 x 1024
/// outputs (128 KiB of floats).
inline constexpr std::uint64_t float_batch_grain = 32;

/// Writes the outputs i < n of batch w, whose first round is r0: out[128 (r0 + q) + 4 l + j]
/// = x[l][4 q + j] (lane l's four floats of round q, the GPU's float4, are contiguous in
/// both). A whole batch goes as 16-byte copies; the last, partial one element by element.
template <class Isa = void>
inline void store_float_batch(float* __restrict out, std::size_t n, std::uint64_t r0, const float_batch& w) {
  constexpr unsigned R = float_batch::R;
  float* __restrict dst = out + r0 * 128;
  const std::uint64_t left = n - r0 * 128;  // > 0: outputs from dst on
  if (left >= 128 * R) {
    for (unsigned q = 0; q < R; ++q)
      for (unsigned l = 0; l < 32; ++l) std::memcpy(dst + 128 * q + 4 * l, &w.x[l][4 * q], 4 * sizeof(float));
  } else {
    for (unsigned i = 0; i < left; ++i) dst[i] = w.x[(i / 4) % 32][4 * (i / 128) + i % 4];
  }
}

/// cpu::generate_normal(float*, ..., float_table) after its argument checks: out[0..n) from batches of
/// float_batch_rounds warp rounds (warp_batch.hpp; the last batch is computed in full, only
/// its outputs i < n are written), in parallel over batches with oneTBB. Isa: the
/// instantiation tag of warp_batch.hpp. Arguments as cpu::generate_normal(float*, ...,
/// float_table) (n = num_items), already checked.
template <class Isa = void>
inline void generate_normal_float_cpu_checked(float* out, std::size_t n, double mean, double stddev,
                                              std::uint64_t seed, const float_table& tab) {
  if (n == 0) return;
  constexpr unsigned R = float_batch::R;
  const std::vector<float> signed_tab = signed_float_table(tab);
  const float_scaled k = float_lane::scale(tab.coeff, mean, stddev);
  const std::uint64_t rounds = (static_cast<std::uint64_t>(n) + 127) / 128;
  const std::uint64_t batches = (rounds + R - 1) / R;
  float_entropy_source sources[32] = {
      {seed, 0},  {seed, 1},  {seed, 2},  {seed, 3},  {seed, 4},  {seed, 5},  {seed, 6},  {seed, 7},
      {seed, 8},  {seed, 9},  {seed, 10}, {seed, 11}, {seed, 12}, {seed, 13}, {seed, 14}, {seed, 15},
      {seed, 16}, {seed, 17}, {seed, 18}, {seed, 19}, {seed, 20}, {seed, 21}, {seed, 22}, {seed, 23},
      {seed, 24}, {seed, 25}, {seed, 26}, {seed, 27}, {seed, 28}, {seed, 29}, {seed, 30}, {seed, 31}};
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, batches, float_batch_grain),
                    [&](const tbb::blocked_range<std::uint64_t>& range) {
                      float_batch w;
                      for (std::uint64_t b = range.begin(); b != range.end(); ++b) {
                        float_batch_rounds_compute<Isa>(w, sources, b * R, signed_tab.data(), k);
                        store_float_batch<Isa>(out, n, b * R, w);
                      }
                    });
}
}  // namespace detail

namespace cpu {

/// Fills out[0..num_items) with N(mean, stddev^2) floats of the float-native generator on
/// the CPU (output order in the file comment; article: whole generator, float form in
/// float_lane.hpp). Bit-identical to gpu::generate_normal(out, num_items, mean, stddev, seed,
/// tab, stream) on the GPU and to emulate_float_warp transform by transform (the rounds are
/// computed in batches, warp_batch.hpp). Parallel over batches of rounds with oneTBB;
/// deterministic. With default_float_table() it is cpu::generate_normal(out, num_items, mean,
/// stddev, seed, method::float_native) (cpu_generate.hpp).
/// out: num_items floats, caller-owned; num_items in [0, 2^62]; mean finite, |mean| <= 3.4e38
/// (rounded to float); stddev finite in [0, 1e30]; seed any; tab: a float_table (entries >= 0,
/// worst_case_register <= 2^24, finite coefficients; default_float_table()).
/// Throws onepass::error naming the argument (out, num_items, mean, stddev, tab) before
/// writing.
inline void generate_normal(float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            const float_table& tab) {
  detail::check_float_generate_args("gaussian::cpu::generate_normal", out, num_items, mean, stddev, tab);
  detail::generate_normal_float_cpu_checked(out, num_items, mean, stddev, seed, tab);
}

}  // namespace cpu

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::generate_normal(out, num_items, mean, stddev, seed, tab).
[[deprecated("use onepass::gaussian::cpu::generate_normal")]] inline void generate_normal_float_cpu(
    float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed, const float_table& tab) {
  cpu::generate_normal(out, num_items, mean, stddev, seed, tab);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::generate_normal(out, num_items, mean, stddev, seed, default_float_table()), i.e.
/// cpu::generate_normal(out, num_items, mean, stddev, seed, method::float_native).
[[deprecated("use onepass::gaussian::cpu::generate_normal")]] inline void generate_normal_float_cpu(
    float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed) {
  cpu::generate_normal(out, num_items, mean, stddev, seed, default_float_table());
}

}  // namespace onepass::gaussian
