// lib/src/gaussian_table_cumulants.hpp — internal to the table builders (gaussian_table.cpp,
// gaussian_float_table.cpp): the variance and fourth cumulant of a register of the warp Gaussian
// generator (a = the sum over the 16 sub-tables of 2 independent symmetric lookups), in table
// units, exactly (Boost.Multiprecision), as both builders' coefficient solutions need them.
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cstdint>

#include "onepass/error.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::gaussian::detail {

using table_real = boost::multiprecision::cpp_bin_float_50;

/// Var(a) and kappa4(a) of a register over `entries` (magnitudes; the sign is a fair coin).
struct register_cumulants {
  table_real var, k4;
};

/// The cumulants of a; throws onepass::error naming `entries` (for `fn`) when every entry is 0.
inline register_cumulants register_cumulants_of(const std::int32_t (&entries)[table_entries], const char* fn) {
  register_cumulants c{0, 0};
  for (unsigned s = 0; s < subtable_count; ++s) {
    table_real m2 = 0, m4 = 0;
    for (unsigned k = 0; k < subtable_entries; ++k) {
      const table_real t = entries[table_index(s, k)];
      const table_real t2 = t * t;
      m2 += t2;
      m4 += t2 * t2;
    }
    m2 /= subtable_entries;
    m4 /= subtable_entries;
    c.var += 2 * m2;
    c.k4 += 2 * (m4 - 3 * m2 * m2);
  }
  require(c.var > 0, fn, "entries", "must not all be zero");
  return c;
}

}  // namespace onepass::gaussian::detail
