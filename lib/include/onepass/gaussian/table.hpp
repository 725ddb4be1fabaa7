// onepass/gaussian/table.hpp — the lookup table and output coefficients of the
// warp-parallel Gaussian generator (article: A. P. Goucher, "Training a random
// Gaussian generator", cp4space 2022-01-09; paper/references.bib: goucher2022gaussian).
//
// Layout (article, "A new algorithm"): 4096 int32 entries = 16 interleaved
// sub-tables of 256 entries. Entry k (0..255) of sub-table s (0..15) lives at index
// 16*k + s, so lane L of a warp only ever reads indices congruent to L & 15 (mod 16):
// the 16 lanes of a half-warp hit 16 distinct 4-byte banks and the two half-warps
// read the same bank only for the same sub-table — no bank conflicts. A lane draws
// two entries per output, k_a = entropy bits 4..11 and k_b = bits 20..27
// (index_a = (entropy & 0xFF0) | (lane & 15), index_b = ((entropy >> 16) & 0xFF0) | (lane & 15)).
// The entries are magnitudes scaled by 2^24; the sign comes from separate entropy bits,
// so sub-table s defines the symmetric base distribution "±T_s[k], k uniform".
//
// Output (article, "Linear combination" and "Issues with small floats"):
//   x = mu + sigma * (a*p0 + b*p1 + c*p2)            (3-coefficient form)
//   x = mu + sigma * (a*p0 + b*p1 + c*p2 + c*p3)     (4-coefficient form)
// with a, b the int32 registers after the butterfly and c the uniform odd int32.
// p2 + p3 is the c weight in double-double (p2 = the double nearest it, p3 the rest).
//
// Host-only builders (inverse_cdf_table, solve_coefficients) are defined in
// lib/src/gaussian_table.cpp; everything else here is ONEPASS_HD.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "onepass/config.hpp"

namespace onepass::gaussian {

/// Number of int32 entries in the shared-memory table (16 KiB).
inline constexpr unsigned table_entries = 4096;
/// Number of interleaved sub-tables (one per residue of the lane id mod 16).
inline constexpr unsigned subtable_count = 16;
/// Entries per sub-table (indexed by 8 entropy bits).
inline constexpr unsigned subtable_entries = 256;
/// Scale of the integer entries: entry = round(value * 2^24) (article, "Local search").
inline constexpr double table_scale = 16777216.0;

/// Index into the 4096-entry table of entry k (0..255) of sub-table s (0..15):
/// 16*k + s. Inputs outside the ranges are masked (k & 255, s & 15).
ONEPASS_HD constexpr unsigned table_index(unsigned subtable, unsigned k) {
  return ((k & 255u) << 4) | (subtable & 15u);
}

/// Table index of lane `lane`'s first lookup ("a"): entropy bits 4..11 select the
/// entry, lane & 15 the sub-table. Equal to table_index(lane & 15, (entropy >> 4) & 255).
ONEPASS_HD constexpr unsigned index_a(std::uint32_t entropy, unsigned lane) {
  return (entropy & 4080u) | (lane & 15u);
}

/// Table index of lane `lane`'s second lookup ("b"): entropy bits 20..27.
ONEPASS_HD constexpr unsigned index_b(std::uint32_t entropy, unsigned lane) {
  return ((entropy >> 16) & 4080u) | (lane & 15u);
}

/// Output coefficients p0..p3 (dimensionless; they multiply int32 registers).
/// p0: weight of a, p1: weight of b, p2: weight of c (the double nearest the exact
/// weight), p3: the exact weight minus p2 (used by the 4-coefficient form only).
struct coefficients {
  double p[4];
};

/// Which final combination to use: 3 coefficients (x a multiple of about 2^-95 for
/// sigma = 1) or 4 (c's weight in double-double; about 2^-150). Article, "Issues with
/// small floats".
enum class form : int { three = 3, four = 4 };

/// The generator's parameters: 4096 table entries (layout above) and coefficients.
struct table {
  std::int32_t entries[table_entries];
  coefficients coeff;
};

/// Description of how the coefficients were solved (for reports and tests).
struct coefficient_solution {
  coefficients coeff;
  long double var_a;      ///< Var(a) in table units (a = sum of 32 independent ±entries, 2 per sub-table)
  long double kappa4_a;   ///< fourth cumulant of a in table units
  long double var_c;      ///< Var(c) = (4^31 - 1) / 3
  long double kappa4_c;   ///< fourth cumulant of c = -2 (16^31 - 1) / 15
  long double c_weight;   ///< exact weight of c (p2 + p3 up to long double)
  bool kurtosis_solved;   ///< false: a is platykurtic, kurtosis 3 unreachable, fallback weight of c used
  long double excess_kurtosis;  ///< kurtosis(x) - 3 of the model output (0 when solved)
};

/// The article's initial ("How not to populate the lookup tables") table:
/// the inverse normal CDF at 4096 equally spaced points of [1/2, 1], the midpoints
/// u_j = 1/2 + (j + 1/2) / 8192, j = 0..4095, scaled by 2^24 and rounded to nearest:
///   entries[j] = round(2^24 * Phi^{-1}(u_j)),
/// stored in increasing order in the flat array, so sub-table s = {entries[16k + s]}
/// holds every 16th quantile (each row of the article's plot is one sub-table).
/// Phi^{-1} is boost::math::quantile(normal). Coefficients from solve_coefficients.
/// Host only. Never throws (except std::bad_alloc).
table inverse_cdf_table();

/// Our optimised table (article "Training a random Gaussian generator", sections "Optimising
/// the lookup table", "Local search", "Choosing the coefficients"): BFGS on log(x^T D x)
/// from inverse_cdf_table(), scaled by 2^24, rounded, integer local search, coefficients from solve_coefficients
/// (p0 : p1 = sqrt 5 : 2, Var 1, kurtosis 3). Embedded from
/// lib/data/gaussian_table_optimised.inc, written by `make gaussian-table`
/// (stats/table_optimiser), whose header holds the command, seed and the failure times
/// per Hermite order. Computed once, thread-safe; host only. Throws
/// onepass::runtime_failure if the embedded file is the placeholder (never generated).
const table& optimised_table();

/// Highest Hermite order the optimiser controlled for optimised_table() (the higher of
/// its --max-order and, when the tail polish ran, --polish-order; recorded in the data
/// file). By our analytics every Hermite, moment and best-polynomial test of order <= 24
/// reaches >= 1e31 outputs before a 4-sigma failure, those of order <= 16 >= 1e33
/// (tests/cpu/test_gaussian_table_optimiser.cpp); the data file's header lists
/// each order 1..24. 0 when the embedded file is the placeholder.
unsigned optimised_table_max_order();

/// The default table of the library: optimised_table() (lib/data/
/// gaussian_table_optimised.inc, made by `make gaussian-table`), or inverse_cdf_table()
/// if the embedded file is the placeholder. Computed once, thread-safe; host only.
const table& default_table();

/// Solves p0..p3 for the given entries (article, "Choosing the coefficients"):
///   p0 : p1 = sqrt(5) : 2,   Var(x) = 1,   kurtosis(x) = 3,
/// where x = p0*a + p1*b + w*c with a, b i.i.d. sums of 32 independent symmetric
/// lookups (2 from each sub-table) and c uniform on the odd int32s, treated as
/// independent (the article ignores the weak a–c dependence). With s = p1/2:
///   Var:  9 s^2 V_a + w^2 V_c = 1,   kappa4: 41 s^4 K_a + w^4 K_c = 0,
/// so w^2 = s^2 * sqrt(41 K_a / -K_c) and s^2 = 1 / (9 V_a + sqrt(41 K_a / -K_c) V_c).
/// When K_a <= 0 (platykurtic base, e.g. the inverse-CDF table) there is no
/// solution; the closest kurtosis is then reached with w = 0, but to keep c's
/// smoothing we fix w = 2^-43 (std of w*c about 1.5e-4) and solve only Var = 1
/// (kurtosis_solved = false). Computed in long double; p2 = (double)w,
/// p3 = (double)(w - p2). Host only.
/// Throws onepass::error ("solve_coefficients: entries ...") when an entry is
/// negative or the worst-case |a| could overflow int32 (sum over sub-tables of
/// 2 * max entry > 2^31 - 1), or all entries are zero.
coefficient_solution solve_coefficients(const std::int32_t (&entries)[table_entries]);

/// Worst-case |a| (and |b|) after the butterfly: sum over sub-tables of twice the
/// largest magnitude. The butterfly cannot overflow int32 iff this is <= 2^31 - 1.
std::int64_t worst_case_register(const std::int32_t (&entries)[table_entries]);

}  // namespace onepass::gaussian
