// Exact hermites of the warp Gaussian generator (see onepass/stats/hermite.hpp).
#include "onepass/stats/hermite.hpp"

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "onepass/error.hpp"

namespace onepass::stats::hermite {

namespace {

using real = boost::multiprecision::cpp_bin_float_50;
using series = std::vector<real>;  // e_n = E[He_n^{[v]}(Z)], n = 0..order

std::vector<long double> to_ld(const series& s) {
  std::vector<long double> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = static_cast<long double>(s[i]);
  return out;
}

// Binomial coefficients C(n, k) for n <= order.
std::vector<std::vector<real>> binomials(unsigned order) {
  std::vector<std::vector<real>> c(order + 1);
  for (unsigned n = 0; n <= order; ++n) {
    c[n].assign(n + 1, real(1));
    for (unsigned k = 1; k < n; ++k) c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
  }
  return c;
}

// Product of exponential generating functions: (f g)_n = sum_k C(n,k) f_k g_{n-k}.
series egf_product(const series& f, const series& g, const std::vector<std::vector<real>>& binom) {
  const std::size_t order = f.size() - 1;
  series out(order + 1, real(0));
  for (std::size_t n = 0; n <= order; ++n)
    for (std::size_t k = 0; k <= n; ++k) out[n] += binom[n][k] * f[k] * g[n - k];
  return out;
}

// E[He_n^{[v]}(Z)] for Z = w * V, V taking values x_i with probabilities p_i:
// He_0 = 1, He_1 = z, He_{n+1} = z He_n - n v He_{n-1} (Hermite polynomials of variance v:
// sum_n He_n^{[v]}(z) t^n / n! = exp(z t - v t^2 / 2)).
series discrete_series(const std::vector<real>& x, const std::vector<real>& p, const real& w, const real& v,
                       unsigned order) {
  series e(order + 1, real(0));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const real z = w * x[i];
    real prev = 1, cur = z;
    e[0] += p[i];
    if (order >= 1) e[1] += p[i] * z;
    for (unsigned n = 1; n < order; ++n) {
      const real next = z * cur - real(n) * v * prev;
      prev = cur;
      cur = next;
      e[n + 1] += p[i] * cur;
    }
  }
  return e;
}

// Symmetric version: V = ±x_i, each sign with probability 1/2 (odd terms vanish).
series symmetric_series(const std::vector<real>& x, const std::vector<real>& p, const real& w, const real& v,
                        unsigned order) {
  series e = discrete_series(x, p, w, v, order);
  for (unsigned n = 1; n <= order; n += 2) e[n] = 0;
  return e;
}

struct subtables {
  std::vector<real> values[gaussian::subtable_count];
  std::vector<real> probs;
  real var[gaussian::subtable_count];  // E[T_s^2] (symmetric: variance)
};

subtables read_subtables(const gaussian::table& tab, const char* fn) {
  subtables st;
  st.probs.assign(gaussian::subtable_entries, real(1) / gaussian::subtable_entries);
  real total = 0;
  for (unsigned s = 0; s < gaussian::subtable_count; ++s) {
    st.values[s].resize(gaussian::subtable_entries);
    real m2 = 0;
    for (unsigned k = 0; k < gaussian::subtable_entries; ++k) {
      st.values[s][k] = real(tab.entries[gaussian::table_index(s, k)]);
      m2 += st.values[s][k] * st.values[s][k];
    }
    st.var[s] = m2 / gaussian::subtable_entries;
    total += st.var[s];
  }
  require(total > 0, fn, "tab", "must have a nonzero entry");
  return st;
}

series power(series f, unsigned e, const std::vector<std::vector<real>>& binom) {
  series out(f.size(), real(0));
  out[0] = 1;
  while (e) {
    if (e & 1u) out = egf_product(out, f, binom);
    e >>= 1;
    if (e) f = egf_product(f, f, binom);
  }
  return out;
}

real factorial(unsigned n) {
  real f = 1;
  for (unsigned i = 2; i <= n; ++i) f *= i;
  return f;
}

real double_factorial_odd(unsigned n) {  // (n)!! for odd n, 1 for n <= 0
  real f = 1;
  for (unsigned i = n; i >= 3 && i % 2 == 1; i -= 2) f *= i;
  return f;
}

}  // namespace

std::vector<long double> discrete_hermites(const std::vector<long double>& values,
                                           const std::vector<long double>& probabilities, unsigned order) {
  static const char* fn = "discrete_hermites";
  require(!values.empty(), fn, "values", "must not be empty");
  require(probabilities.empty() || probabilities.size() == values.size(), fn, "probabilities",
          "must be empty (uniform) or have the length of values");
  std::vector<real> x(values.begin(), values.end()), p(values.size());
  real total = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (probabilities.empty()) {
      p[i] = real(1) / values.size();
    } else {
      require(probabilities[i] >= 0, fn, "probabilities", "must be >= 0");
      p[i] = probabilities[i];
    }
    total += p[i];
  }
  require(abs(total - 1) <= 1e-12, fn, "probabilities", "must sum to 1 (within 1e-12)");
  return to_ld(discrete_series(x, p, real(1), real(1), order));
}

std::vector<long double> linear_combination_hermites(const std::vector<std::vector<long double>>& hermites,
                                                     const std::vector<long double>& weights, unsigned order) {
  static const char* fn = "linear_combination_hermites";
  require(hermites.size() == weights.size(), fn, "weights", "must have one weight per hermite vector");
  require(!weights.empty(), fn, "weights", "must not be empty");
  real sum_sq = 0;
  for (long double w : weights) sum_sq += real(w) * real(w);
  require(abs(sum_sq - 1) <= 1e-12, fn, "weights", "must have sum of squares 1 (within 1e-12)");
  const auto binom = binomials(order);
  series out(order + 1, real(0));
  out[0] = 1;
  for (std::size_t i = 0; i < hermites.size(); ++i) {
    require(hermites[i].size() >= order + 1, fn, "hermites", "each vector needs entries 0..order");
    series f(order + 1);
    real wn = 1;
    for (unsigned n = 0; n <= order; ++n, wn *= real(weights[i])) f[n] = real(hermites[i][n]) * wn;
    out = egf_product(out, f, binom);
  }
  return to_ld(out);
}

std::vector<long double> subtable_hermites(const gaussian::table& tab, unsigned s, unsigned order) {
  static const char* fn = "subtable_hermites";
  require(s < gaussian::subtable_count, fn, "s", "must be in [0, 15]");
  const subtables st = read_subtables(tab, fn);
  require(st.var[s] > 0, fn, "tab", "sub-table s must have a nonzero entry");
  return to_ld(symmetric_series(st.values[s], st.probs, 1 / sqrt(st.var[s]), real(1), order));
}

std::vector<long double> convolution_hermites(const gaussian::table& tab, unsigned order) {
  static const char* fn = "convolution_hermites";
  const subtables st = read_subtables(tab, fn);
  const auto binom = binomials(order);
  real total = 0;
  for (unsigned s = 0; s < gaussian::subtable_count; ++s) total += st.var[s];
  const real w = 1 / sqrt(total);
  series out(order + 1, real(0));
  out[0] = 1;
  for (unsigned s = 0; s < gaussian::subtable_count; ++s)
    out = egf_product(out, symmetric_series(st.values[s], st.probs, w, st.var[s] / total, order), binom);
  return to_ld(out);
}

/// The Hermite series of X = p0 A + p1 B + w C: A and B each a sum of 2 independent lookups per
/// sub-table (weights p0, p1), C = sum_{k < c_terms} +-2^k with independent signs (weight w): the
/// model of both generators (the double one: 31 bits of c; the float-native one: 22).
static series linear_model_hermites(const subtables& st, real p0, real p1, real w, unsigned c_terms, unsigned order,
                             const char* fn) {
  const auto binom = binomials(order);
  // Variance split: each independent component Z gets v = Var(Z) / Var(X), sum v = 1.
  real var_x = 0;
  for (unsigned s = 0; s < gaussian::subtable_count; ++s) var_x += 2 * (p0 * p0 + p1 * p1) * st.var[s];
  std::vector<real> c_var(c_terms);
  for (unsigned k = 0; k < c_terms; ++k) {
    c_var[k] = w * w * pow(real(4), k);
    var_x += c_var[k];
  }
  require(var_x > 0, fn, "tab", "must give the output a nonzero variance");
  series out(order + 1, real(0));
  out[0] = 1;
  for (unsigned s = 0; s < gaussian::subtable_count; ++s) {
    // 2 copies in a (weight p0) and 2 in b (weight p1). E[He^{[w^2 u]}(w v)] = w^n E[He^{[u]}(v)].
    const series g = symmetric_series(st.values[s], st.probs, real(1), st.var[s] / var_x, order);
    series ga(order + 1), gb(order + 1);
    real pa = 1, pb = 1;
    for (unsigned n = 0; n <= order; ++n, pa *= p0, pb *= p1) {
      ga[n] = g[n] * pa;
      gb[n] = g[n] * pb;
    }
    out = egf_product(out, power(ga, 2, binom), binom);
    out = egf_product(out, power(gb, 2, binom), binom);
  }
  const std::vector<real> one_value{real(1)}, one_prob{real(1)};
  for (unsigned k = 0; k < c_terms; ++k)
    out = egf_product(out, symmetric_series(one_value, one_prob, w * pow(real(2), k), c_var[k] / var_x, order),
                      binom);
  return out;
}

std::vector<long double> generator_hermites(const gaussian::table& tab, gaussian::form f, unsigned order) {
  static const char* fn = "generator_hermites";
  const subtables st = read_subtables(tab, fn);
  const real p0 = tab.coeff.p[0], p1 = tab.coeff.p[1];
  const real w = f == gaussian::form::four ? real(tab.coeff.p[2]) + real(tab.coeff.p[3]) : real(tab.coeff.p[2]);
  return to_ld(linear_model_hermites(st, p0, p1, w, 31, order, fn));
}

std::vector<long double> generator_hermites_float(const gaussian::float_table& tab, unsigned order) {
  static const char* fn = "generator_hermites_float";
  gaussian::table as_table{};
  for (unsigned i = 0; i < gaussian::table_entries; ++i) as_table.entries[i] = tab.entries[i];
  const subtables st = read_subtables(as_table, fn);
  const real w = real(tab.coeff.w) * ldexp(real(1), -23);  // weight of C: 22 bits of 2^-23
  return to_ld(linear_model_hermites(st, real(tab.coeff.p0), real(tab.coeff.p1), w, 22, order, fn));
}

long double quantisation_detection_outputs_bits(int q_log2, unsigned mantissa_bits, long double count) {
  require(q_log2 >= -1074 && q_log2 <= 0, "quantisation_detection_outputs_bits", "quantum_log2",
          "must be in [-1074, 0]");
  require(mantissa_bits >= 1 && mantissa_bits <= 52, "quantisation_detection_outputs_bits", "mantissa_bits",
          "must be in [1, 52]");
  const long double phi0 = 0.398942280401432677939946059934381868L;
  return count / (2.0L * std::ldexp(1.0L, q_log2 + static_cast<int>(mantissa_bits)) * phi0);
}

std::vector<long double> hermite_failure_times(const std::vector<long double>& h, long double z) {
  std::vector<long double> t(h.size(), std::numeric_limits<long double>::infinity());
  for (std::size_t n = 1; n < h.size(); ++n)
    if (h[n] != 0) t[n] = static_cast<long double>(real(z) * z * factorial(n) / (real(h[n]) * real(h[n])));
  return t;
}

std::vector<long double> moment_discrepancies(const std::vector<long double>& h) {
  std::vector<long double> d(h.size(), 0.0L);
  for (std::size_t n = 1; n < h.size(); ++n) {
    real sum = 0;
    for (std::size_t k = (n % 2 == 0 ? 2 : 1); k <= n; k += 2) {
      const unsigned j = static_cast<unsigned>((n - k) / 2);
      sum += factorial(n) / (factorial(k) * factorial(j) * pow(real(2), j)) * real(h[k]);
    }
    d[n] = static_cast<long double>(sum);
  }
  return d;
}

std::vector<long double> moment_failure_times(const std::vector<long double>& h, long double z) {
  const std::vector<long double> d = moment_discrepancies(h);
  std::vector<long double> t(h.size(), std::numeric_limits<long double>::infinity());
  for (std::size_t n = 1; n < h.size(); ++n) {
    const unsigned nn = static_cast<unsigned>(n);
    real var = double_factorial_odd(2 * nn - 1);
    if (n % 2 == 0) {
      const real m = double_factorial_odd(nn - 1);
      var -= m * m;
    }
    if (d[n] != 0) t[n] = static_cast<long double>(real(z) * z * var / (real(d[n]) * real(d[n])));
  }
  return t;
}

long double polynomial_failure_time(const std::vector<long double>& h, unsigned max_degree, long double z) {
  static const char* fn = "polynomial_failure_time";
  require(max_degree >= 1 && max_degree < h.size(), fn, "max_degree",
          "must be in [1, h.size() - 1] = [1, " + std::to_string(h.size() == 0 ? 0 : h.size() - 1) + "]");
  real s = 0;
  for (unsigned n = 1; n <= max_degree; ++n) s += real(h[n]) * real(h[n]) / factorial(n);
  if (s == 0) return std::numeric_limits<long double>::infinity();
  return static_cast<long double>(real(z) * z / s);
}

int quantum_log2(const gaussian::coefficients& k, gaussian::form f) {
  const int used = f == gaussian::form::four ? 4 : 3;
  int lowest = std::numeric_limits<int>::max();
  for (int i = 0; i < used; ++i) {
    const double p = k.p[i];
    if (p == 0) continue;
    int e = 0;
    double m = std::frexp(std::fabs(p), &e);  // |p| = m 2^e, m in [0.5, 1)
    // lowest set bit of the 53-bit mantissa
    auto mant = static_cast<std::uint64_t>(std::ldexp(m, 53));
    int tz = 0;
    while ((mant & 1u) == 0) {
      mant >>= 1;
      ++tz;
    }
    lowest = std::min(lowest, e - 53 + tz);
  }
  require(lowest != std::numeric_limits<int>::max(), "quantum_log2", "k", "must have a nonzero coefficient");
  return lowest;
}

long double quantisation_detection_outputs(int q_log2, long double count) {
  require(q_log2 >= -1074 && q_log2 <= 0, "quantisation_detection_outputs", "quantum_log2", "must be in [-1074, 0]");
  const long double phi0 = 0.398942280401432677939946059934381868L;
  return count / (2.0L * std::ldexp(1.0L, q_log2 + 52) * phi0);
}

}  // namespace onepass::stats::hermite
