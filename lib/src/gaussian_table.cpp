// Host-side builders of the warp Gaussian generator's table and coefficients
// (declarations and documentation in onepass/gaussian/table.hpp).
#include <boost/math/distributions/normal.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "onepass/error.hpp"
#include "onepass/gaussian/table.hpp"
#include "gaussian_table_cumulants.hpp"

namespace onepass::gaussian {

namespace {
using real = boost::multiprecision::cpp_bin_float_50;
// optimised_table_entries[4096], optimised_table_coefficients[4] and their provenance,
// written by `make gaussian-table` (stats/table_optimiser).
#include "../data/gaussian_table_optimised.inc"
}

std::int64_t worst_case_register(const std::int32_t (&entries)[table_entries]) {
  std::int64_t total = 0;
  for (unsigned s = 0; s < subtable_count; ++s) {
    std::int64_t m = 0;
    for (unsigned k = 0; k < subtable_entries; ++k)
      m = std::max<std::int64_t>(m, std::llabs(static_cast<long long>(entries[table_index(s, k)])));
    total += 2 * m;
  }
  return total;
}

coefficient_solution solve_coefficients(const std::int32_t (&entries)[table_entries]) {
  static const char* fn = "solve_coefficients";
  for (unsigned i = 0; i < table_entries; ++i) require(entries[i] >= 0, fn, "entries", "must be >= 0 (magnitudes)");
  require(worst_case_register(entries) <= 2147483647LL, fn, "entries",
          "must satisfy sum over sub-tables of 2 * max entry <= 2^31 - 1 (else the butterfly overflows int32)");
  // Cumulants of a = sum over 16 sub-tables of 2 independent symmetric lookups.
  const detail::register_cumulants a = detail::register_cumulants_of(entries, fn);
  const real var_a = a.var, k4_a = a.k4;
  // c = sum_{k=0}^{30} (+-2^k): Var = (4^31 - 1)/3, kappa4 = -2 (16^31 - 1)/15.
  const real var_c = (pow(real(4), 31) - 1) / 3;
  const real k4_c = -2 * (pow(real(16), 31) - 1) / 15;
  coefficient_solution sol{};
  real s2, w2;
  if (k4_a > 0) {
    const real ratio = sqrt(41 * k4_a / -k4_c);  // w^2 / s^2
    s2 = 1 / (9 * var_a + ratio * var_c);
    w2 = ratio * s2;
    sol.kurtosis_solved = true;
  } else {
    const real w = ldexp(real(1), -43) / sqrt(real(3));
    w2 = w * w;
    s2 = (1 - w2 * var_c) / (9 * var_a);
    sol.kurtosis_solved = false;
  }
  const real s = sqrt(s2), w = sqrt(w2);
  const real p0 = sqrt(real(5)) * s, p1 = 2 * s;
  sol.coeff.p[0] = static_cast<double>(p0);
  sol.coeff.p[1] = static_cast<double>(p1);
  sol.coeff.p[2] = static_cast<double>(w);
  sol.coeff.p[3] = static_cast<double>(w - real(sol.coeff.p[2]));
  sol.var_a = static_cast<long double>(var_a);
  sol.kappa4_a = static_cast<long double>(k4_a);
  sol.var_c = static_cast<long double>(var_c);
  sol.kappa4_c = static_cast<long double>(k4_c);
  sol.c_weight = static_cast<long double>(w);
  const real k4_x = 41 * s2 * s2 * k4_a + w2 * w2 * k4_c;
  const real var_x = 9 * s2 * var_a + w2 * var_c;
  sol.excess_kurtosis = static_cast<long double>(k4_x / (var_x * var_x));
  return sol;
}

table inverse_cdf_table() {
  table t{};
  const boost::math::normal_distribution<double> normal;
  for (unsigned j = 0; j < table_entries; ++j) {
    const double u = 0.5 + (j + 0.5) / 8192.0;  // exact in double
    t.entries[j] = static_cast<std::int32_t>(std::llround(std::ldexp(boost::math::quantile(normal, u), 24)));
  }
  t.coeff = solve_coefficients(t.entries).coeff;
  return t;
}

const table& optimised_table() {
  static const table t = [] {
    if (!ONEPASS_OPTIMISED_TABLE_GENERATED)
      throw runtime_failure("optimised_table: lib/data/gaussian_table_optimised.inc is a placeholder; run make gaussian-table");
    table out{};
    for (unsigned i = 0; i < table_entries; ++i) out.entries[i] = optimised_table_entries[i];
    for (unsigned i = 0; i < 4; ++i) out.coeff.p[i] = optimised_table_coefficients[i];
    return out;
  }();
  return t;
}

unsigned optimised_table_max_order() { return optimised_table_controlled_order; }

namespace {
const table& inverse_cdf_table_once() {
  static const table t = inverse_cdf_table();
  return t;
}
}  // namespace

const table& default_table() {
  static const table& t = ONEPASS_OPTIMISED_TABLE_GENERATED ? optimised_table() : inverse_cdf_table_once();
  return t;
}

}  // namespace onepass::gaussian
