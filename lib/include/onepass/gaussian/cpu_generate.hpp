// onepass/gaussian/cpu_generate.hpp — cpu::generate_normal, the CPU twin of
// gpu::generate_normal (generate.cuh): the same overloads and contracts (issue 31: one name,
// one contract on both devices, the element count num_items) and the same doubles, bit for
// bit, computed by the CPU emulation of the warp. The float-native overload with a
// float_table is in float_cpu_generate.hpp. generate_normal_cpu is the deprecated old name.
//
// Output order (shared with the GPU): output i belongs to warp round r = i / 32 and
// lane l = i % 32; lane l of round r uses entropy_source(seed, l)(r) — 32 streams per
// seed, draw = round. The rounds are computed in batches (warp_batch.hpp); the last batch is
// computed in full (the butterfly needs all 32 lanes); only outputs i < num_items are written.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/gaussian/entropy.hpp"
#include "onepass/gaussian/float_cpu_generate.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/gaussian/warp_batch.hpp"
#include "onepass/gaussian/warp_emulation.hpp"

namespace onepass::gaussian {

/// Largest num_items accepted by cpu::generate_normal and gpu::generate_normal (2^62).
inline constexpr std::size_t max_generate_count = std::size_t{1} << 62;

namespace detail {
/// Argument checks shared by gpu::generate_normal and cpu::generate_normal; `fn` names the
/// caller.
inline void check_generate_args(const char* fn, const void* out, std::size_t num_items, double mean, double stddev,
                                const table& tab, form f) {
  require(num_items <= max_generate_count, fn, "num_items", "must be <= 2^62");
  if (num_items > 0) protocol::check_not_null(fn, "out", out, "when num_items > 0");
  require(std::isfinite(mean), fn, "mean", "must be finite");
  require(std::isfinite(stddev) && stddev >= 0, fn, "stddev", "must be finite and >= 0");
  require(f == form::three || f == form::four, fn, "f", "must be form::three or form::four");
  for (unsigned i = 0; i < table_entries; ++i) require(tab.entries[i] >= 0, fn, "tab", "entries must be >= 0");
  require(worst_case_register(tab.entries) <= 2147483647LL, fn, "tab",
          "entries must satisfy sum over sub-tables of 2 * max entry <= 2^31 - 1");
  for (double p : tab.coeff.p) require(std::isfinite(p), fn, "tab", "coefficients must be finite");
}

/// Batches (double_batch_rounds warp rounds each) per oneTBB task at least: 64 x 512
/// outputs (256 KiB of doubles), so a task's setup is negligible against its work.
inline constexpr std::uint64_t double_batch_grain = 64;

/// Writes the outputs i < n of batch w, whose first round is r0: out[32 (r0 + k) + l] =
/// x[l][k] converted to T (the transposition from the batch's lanes x rounds to the output's
/// rounds x lanes). A whole batch goes in 4 x 4 tiles (four rounds of four lanes: the
/// compiler moves pairs of doubles together); the last, partial one element by element.
template <class T, class Isa = void>
inline void store_double_batch(T* __restrict out, std::size_t n, std::uint64_t r0, const double_batch& w) {
  constexpr unsigned R = double_batch::R;
  T* __restrict dst = out + r0 * 32;
  const std::uint64_t left = n - r0 * 32;  // > 0: outputs from dst on
  if (left >= 32 * R) {
    for (unsigned k0 = 0; k0 < R; k0 += 4)
      for (unsigned l0 = 0; l0 < 32; l0 += 4)
        for (unsigned k = 0; k < 4; ++k)
          for (unsigned l = 0; l < 4; ++l) dst[32 * (k0 + k) + l0 + l] = static_cast<T>(w.x[l0 + l][k0 + k]);
  } else {
    for (unsigned i = 0; i < left; ++i) dst[i] = static_cast<T>(w.x[i % 32][i / 32]);
  }
}

/// cpu::generate_normal after its argument checks: out[0..n) from batches of
/// double_batch_rounds warp rounds (warp_batch.hpp; the last batch is computed in full, only
/// its outputs i < n are written), in parallel over batches with oneTBB. Isa: the
/// instantiation tag of warp_batch.hpp. Arguments as cpu::generate_normal (n = num_items),
/// already checked.
template <class T, class Isa = void>
inline void generate_normal_cpu_checked(T* out, std::size_t n, double mean, double stddev, std::uint64_t seed,
                                        const table& tab, form f) {
  if (n == 0) return;
  constexpr unsigned R = double_batch::R;
  const std::uint64_t rounds = (static_cast<std::uint64_t>(n) + 31) / 32;
  const std::uint64_t batches = (rounds + R - 1) / R;
  entropy_source sources[32] = {
      {seed, 0},  {seed, 1},  {seed, 2},  {seed, 3},  {seed, 4},  {seed, 5},  {seed, 6},  {seed, 7},
      {seed, 8},  {seed, 9},  {seed, 10}, {seed, 11}, {seed, 12}, {seed, 13}, {seed, 14}, {seed, 15},
      {seed, 16}, {seed, 17}, {seed, 18}, {seed, 19}, {seed, 20}, {seed, 21}, {seed, 22}, {seed, 23},
      {seed, 24}, {seed, 25}, {seed, 26}, {seed, 27}, {seed, 28}, {seed, 29}, {seed, 30}, {seed, 31}};
  // The scales sigma * p_i, each one rounded product as in lane::combine3 / combine4.
  const double scale[4] = {stddev * tab.coeff.p[0], stddev * tab.coeff.p[1], stddev * tab.coeff.p[2],
                           stddev * tab.coeff.p[3]};
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, batches, double_batch_grain),
                    [&](const tbb::blocked_range<std::uint64_t>& range) {
                      double_batch w;
                      for (std::uint64_t b = range.begin(); b != range.end(); ++b) {
                        double_batch_rounds_compute<Isa>(w, sources, b * R, tab.entries, scale, mean, f);
                        store_double_batch<T, Isa>(out, n, b * R, w);
                      }
                    });
}
}  // namespace detail

namespace cpu {

/// Fills out[0..num_items) with N(mean, stddev^2) samples of the warp Gaussian generator on
/// the CPU (article: whole generator; output order in the file comment). Bit-identical to
/// gpu::generate_normal(out, num_items, mean, stddev, seed, tab, f, stream) on the GPU and to
/// emulate_warp round by round (the rounds are computed in batches, warp_batch.hpp).
/// Parallel over batches of rounds with oneTBB; deterministic (independent of the thread
/// count).
/// out: num_items doubles, or num_items floats — each float is the double sample rounded to
/// nearest (so the float output keeps the double generator's distribution up to float
/// rounding) — caller-owned; num_items in [0, 2^62]; mean finite; stddev finite >= 0; seed
/// any; tab: entries >= 0 without int32 overflow (see solve_coefficients), finite
/// coefficients; f: form::three or form::four.
/// Throws onepass::error naming the argument (out, num_items, mean, stddev, f, tab) before
/// writing anything.
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
inline void generate_normal(T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            const table& tab, form f = form::four) {
  detail::check_generate_args("gaussian::cpu::generate_normal", out, num_items, mean, stddev, tab, f);
  detail::generate_normal_cpu_checked(out, num_items, mean, stddev, seed, tab, f);
}

/// Default generator of the dtype: doubles as above with the library's default_table()
/// and the 4-coefficient form; floats from the float-native generator (method::float_native,
/// the default since it passed its GPU statistics, issue 30; the overload with a `method`
/// gives the double generator rounded to nearest, method::rounded_double). Bit-identical to
/// gpu::generate_normal(out, num_items, mean, stddev, seed, stream). Arguments and errors as
/// the calls it makes.
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
inline void generate_normal(T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed);

/// Floats by `m` (default method::float_native, as on the GPU): method::float_native =
/// generate_normal(out, num_items, mean, stddev, seed, default_float_table())
/// (float_cpu_generate.hpp, float_lane.hpp); method::rounded_double = the double generator
/// (default_table(), form::four) rounded to nearest, as generate_normal<float> with that table
/// and form. Bit-identical to gpu::generate_normal(out, num_items, mean, stddev, seed, m,
/// stream). out: num_items floats, caller-owned; num_items in [0, 2^62]; mean finite (float
/// range for float_native); stddev finite >= 0 (<= 1e30 for float_native); seed any.
/// Throws onepass::error naming the argument (out, num_items, mean, stddev, m) before writing.
inline void generate_normal(float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            method m = method::float_native) {
  require(m == method::float_native || m == method::rounded_double, "gaussian::cpu::generate_normal", "m",
          "must be method::float_native or method::rounded_double");
  if (m == method::float_native) {
    cpu::generate_normal(out, num_items, mean, stddev, seed, default_float_table());
  } else {
    cpu::generate_normal(out, num_items, mean, stddev, seed, default_table(), form::four);
  }
}

template <class T, class>
inline void generate_normal(T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::generate_normal(out, num_items, mean, stddev, seed, method::float_native);
  } else {
    cpu::generate_normal(out, num_items, mean, stddev, seed, default_table(), form::four);
  }
}

/// A null `out` (argument checks: num_items must then be 0) reads as a null double pointer.
inline void generate_normal(std::nullptr_t, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
                            const table& tab = default_table(), form f = form::four) {
  cpu::generate_normal(static_cast<double*>(nullptr), num_items, mean, stddev, seed, tab, f);
}

}  // namespace cpu

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::generate_normal(out, num_items, mean, stddev, seed, tab, f).
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
[[deprecated("use onepass::gaussian::cpu::generate_normal")]] inline void generate_normal_cpu(
    T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed, const table& tab,
    form f = form::four) {
  cpu::generate_normal(out, num_items, mean, stddev, seed, tab, f);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::generate_normal(out, num_items, mean, stddev, seed) (floats: method::float_native).
template <class T, class = std::enable_if_t<std::is_same_v<T, double> || std::is_same_v<T, float>>>
[[deprecated("use onepass::gaussian::cpu::generate_normal")]] inline void generate_normal_cpu(
    T* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed) {
  cpu::generate_normal(out, num_items, mean, stddev, seed);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::generate_normal(out, num_items, mean, stddev, seed, m).
[[deprecated("use onepass::gaussian::cpu::generate_normal")]] inline void generate_normal_cpu(
    float* out, std::size_t num_items, double mean, double stddev, std::uint64_t seed, method m) {
  cpu::generate_normal(out, num_items, mean, stddev, seed, m);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::generate_normal(nullptr, num_items, mean, stddev, seed, tab, f).
[[deprecated("use onepass::gaussian::cpu::generate_normal")]] inline void generate_normal_cpu(
    std::nullptr_t, std::size_t num_items, double mean, double stddev, std::uint64_t seed,
    const table& tab = default_table(), form f = form::four) {
  cpu::generate_normal(nullptr, num_items, mean, stddev, seed, tab, f);
}

}  // namespace onepass::gaussian
