// Host-side builders of the float-native warp Gaussian generator's table and coefficients
// (declarations and documentation in onepass/gaussian/float_lane.hpp).
//
// Derivation (article "Choosing the coefficients", redone for float):
//   x = p0 A + p1 B + w c,  c = 2^-23 C,  C = sum_{i=0}^{21} +-2^i  (uniform odd, 22 bits)
//   Var(x)   = (p0^2 + p1^2) V_a + (w 2^-23)^2 V_C,        V_C = (4^22 - 1) / 3
//   kappa4(x) = (p0^4 + p1^4) K_a + (w 2^-23)^4 K_C,       K_C = -2 (16^22 - 1) / 15
// with A, B i.i.d. sums of 32 independent symmetric lookups (2 per sub-table; V_a, K_a
// their variance and fourth cumulant). Exact reals: p0 = sqrt5 s, p1 = 2 s,
// 9 s^2 V_a + w'^2 V_C = 1, 41 s^4 K_a + w'^4 K_C = 0 (w' = w 2^-23). Floats: each of p0,
// p1, w is then a float, so Var and kurtosis cannot be hit exactly: the float grid
// moves Var by about 2 p0^2 V_a 2^-24 ~ 1e-7 per ulp of p0, but w's ulp only by ~1e-11.
// A search over (p0 + i ulp, p1 + j ulp), |i|, |j| <= 256, with w the floats nearest the
// Var = 1 solution for that (p0, p1), scores h_2^2/2 + h_4^2/24; the kurtosis follows
// the nearby real solution (a relative change of w^2 of ~1e-5 moves h_4 by ~1e-14).
// The reached h_2, h_4 are in gaussian_hermite_failure's float_native rows.
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "onepass/error.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"
#include "gaussian_table_cumulants.hpp"

namespace onepass::gaussian {

namespace {
using real = boost::multiprecision::cpp_bin_float_50;

// n-th float after x (n may be negative); x finite and positive.
float float_step(float x, int n) {
  while (n > 0) {
    x = std::nextafter(x, std::numeric_limits<float>::infinity());
    --n;
  }
  while (n < 0) {
    x = std::nextafter(x, 0.0f);
    ++n;
  }
  return x;
}

int lowest_bit_log2(float p) {
  if (p == 0) return std::numeric_limits<int>::max();
  int e = 0;
  const float m = std::frexp(std::fabs(p), &e);  // |p| = m 2^e, m in [0.5, 1)
  auto mant = static_cast<std::uint32_t>(std::ldexp(m, 24));
  int tz = 0;
  while ((mant & 1u) == 0) {
    mant >>= 1;
    ++tz;
  }
  return e - 24 + tz;
}
}  // namespace

float_coefficient_solution solve_float_coefficients(const std::int32_t (&entries)[table_entries]) {
  static const char* fn = "solve_float_coefficients";
  for (unsigned i = 0; i < table_entries; ++i) require(entries[i] >= 0, fn, "entries", "must be >= 0 (magnitudes)");
  require(worst_case_register(entries) <= float_table_max_register, fn, "entries",
          "must satisfy sum over sub-tables of 2 * max entry <= 2^24 (else the float butterfly rounds)");
  // Cumulants of a = sum over 16 sub-tables of 2 independent symmetric lookups.
  const detail::register_cumulants a = detail::register_cumulants_of(entries, fn);
  const real var_a = a.var, k4_a = a.k4;
  const real two23 = ldexp(real(1), 23);
  const real var_c = (pow(real(4), 22) - 1) / 3 / (two23 * two23);  // of c = 2^-23 C
  const real k4_c = -2 * (pow(real(16), 22) - 1) / 15 / (two23 * two23 * two23 * two23);
  float_coefficient_solution sol{};
  real s2, w2;
  if (k4_a > 0) {
    const real ratio = sqrt(41 * k4_a / -k4_c);
    s2 = 1 / (9 * var_a + ratio * var_c);
    w2 = ratio * s2;
    sol.kurtosis_solved = true;
  } else {
    w2 = ldexp(real(1), -24) / var_c;  // sd(w c) = 2^-12
    s2 = (1 - w2 * var_c) / (9 * var_a);
    sol.kurtosis_solved = false;
  }
  const real s = sqrt(s2);
  const float p0_0 = static_cast<float>(sqrt(real(5)) * s), p1_0 = static_cast<float>(2 * s);
  const float w_0 = static_cast<float>(sqrt(w2));
  // Search in long double (cumulants converted once).
  const long double va = static_cast<long double>(var_a), ka = static_cast<long double>(k4_a);
  const long double vc = static_cast<long double>(var_c), kc = static_cast<long double>(k4_c);
  auto score = [&](long double p0, long double p1, long double w, long double& var, long double& ex) {
    var = (p0 * p0 + p1 * p1) * va + w * w * vc;
    const long double k4 = (p0 * p0 * p0 * p0 + p1 * p1 * p1 * p1) * ka + w * w * w * w * kc;
    const long double h2 = var - 1, h4 = k4 + 3 * h2 * h2;
    ex = k4 / (var * var);
    return h2 * h2 / 2 + (sol.kurtosis_solved ? h4 * h4 / 24 : 0.0L);
  };
  long double best = std::numeric_limits<long double>::infinity();
  constexpr int radius = 256;
  float p0 = float_step(p0_0, -radius);
  for (int i = -radius; i <= radius; ++i, p0 = float_step(p0, 1)) {
    float p1 = float_step(p1_0, -radius);
    for (int j = -radius; j <= radius; ++j, p1 = float_step(p1, 1)) {
      const long double q0 = p0, q1 = p1;
      // w from Var = 1 (w's grid is finer in Var than p0's and p1's: ~1e-11 per ulp);
      // the kurtosis then moves only by ~1e-14 (table's excess kurtosis times the relative
      // change of w^2), so both Hermite terms stay small.
      const long double w2v = (1 - (q0 * q0 + q1 * q1) * va) / vc;
      if (!(w2v > 0)) continue;
      const float wf = sol.kurtosis_solved ? static_cast<float>(std::sqrt(w2v)) : w_0;
      for (int d = -2; d <= 2; ++d) {
        const float w = float_step(wf, d);
        long double var, ex;
        const long double sc = score(q0, q1, w, var, ex);
        if (sc < best) {
          best = sc;
          sol.coeff = float_coefficients{p0, p1, w};
          sol.variance = var;
          sol.excess_kurtosis = ex;
        }
      }
    }
  }
  sol.var_a = va;
  sol.kappa4_a = ka;
  return sol;
}

float_table make_float_table(const table& tab) {
  for (unsigned i = 0; i < table_entries; ++i)
    require(tab.entries[i] >= 0, "make_float_table", "tab", "entries must be >= 0");
  float_table out{};
  for (int shift = 0; shift < 31; ++shift) {
    for (unsigned i = 0; i < table_entries; ++i)
      out.entries[i] = static_cast<std::int32_t>(std::llround(std::ldexp(static_cast<double>(tab.entries[i]), -shift)));
    if (worst_case_register(out.entries) <= float_table_max_register) break;
  }
  out.coeff = solve_float_coefficients(out.entries).coeff;
  return out;
}

const float_table& default_float_table() {
  static const float_table t = make_float_table(default_table());
  return t;
}

int float_quantum_log2(const float_coefficients& k) {
  const int q = std::min({lowest_bit_log2(k.p0), lowest_bit_log2(k.p1),
                          k.w == 0 ? std::numeric_limits<int>::max() : lowest_bit_log2(k.w) - 23});
  require(q != std::numeric_limits<int>::max(), "float_quantum_log2", "k", "must have a nonzero coefficient");
  return q;
}

}  // namespace onepass::gaussian
