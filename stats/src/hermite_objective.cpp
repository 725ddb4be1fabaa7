// The table optimiser's objective and its exact gradient (see onepass/stats/hermite.hpp,
// "The table optimiser's objective"). Double precision through cumulants: the
// convolution's hermites needed by the optimiser are ~1e-12 while the rounding error of
// this route is ~1e-16 (each sub-table's cumulants are O(1); dividing by Var^(n/2)
// shrinks the high orders), which tests/cpu/test_gaussian_table_optimiser.cpp checks
// against the 50-digit convolution_hermites. Derivatives with respect to the raw
// moments of one sub-table come from forward-mode dual numbers (at most 12 moments).
#include <array>
#include <cmath>
#include <limits>

#include "onepass/error.hpp"
#include "onepass/stats/hermite.hpp"

namespace onepass::stats::hermite {

namespace {

constexpr unsigned max_supported_order = 24;
constexpr unsigned max_moments = max_supported_order / 2;  // mu_2 .. mu_24
constexpr unsigned S = gaussian::subtable_count;
constexpr unsigned K = gaussian::subtable_entries;

// A value with derivatives with respect to up to max_moments seeds.
struct dual {
  double v = 0;
  std::array<double, max_moments> d{};
};
dual operator+(dual a, const dual& b) {
  a.v += b.v;
  for (unsigned i = 0; i < max_moments; ++i) a.d[i] += b.d[i];
  return a;
}
dual operator-(dual a, const dual& b) {
  a.v -= b.v;
  for (unsigned i = 0; i < max_moments; ++i) a.d[i] -= b.d[i];
  return a;
}
dual operator*(const dual& a, const dual& b) {
  dual r;
  r.v = a.v * b.v;
  for (unsigned i = 0; i < max_moments; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
dual operator*(double c, dual a) {
  a.v *= c;
  for (unsigned i = 0; i < max_moments; ++i) a.d[i] *= c;
  return a;
}
dual inverse(const dual& a) {
  dual r;
  r.v = 1 / a.v;
  const double g = -r.v * r.v;
  for (unsigned i = 0; i < max_moments; ++i) r.d[i] = g * a.d[i];
  return r;
}

double binom(unsigned n, unsigned k) {
  double c = 1;
  for (unsigned i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

void check_order(unsigned max_order, const char* fn) {
  require(max_order >= 4 && max_order <= max_supported_order && max_order % 2 == 0, fn, "max_order",
          "must be even and in [4, 24]");
}

// Raw even moments mu[s][j] = mean_k t^(2j), j = 1..J (index 0 unused, = 1).
std::vector<std::array<double, max_moments + 1>> raw_moments(const double* values, unsigned J) {
  std::vector<std::array<double, max_moments + 1>> mu(S);
  for (unsigned s = 0; s < S; ++s) {
    mu[s].fill(0);
    for (unsigned k = 0; k < K; ++k) {
      const double t2 = values[gaussian::table_index(s, k)] * values[gaussian::table_index(s, k)];
      double p = 1;
      for (unsigned j = 1; j <= J; ++j) {
        p *= t2;
        mu[s][j] += p;
      }
    }
    for (unsigned j = 1; j <= J; ++j) mu[s][j] /= K;
    mu[s][0] = 1;
  }
  return mu;
}

// Hermites h_0..h_N of S (odd zero) from the moments; sub-table `seeded` (or none, S)
// carries derivative seeds d/dmu[seeded][j] in slot j - 1.
std::vector<dual> chain(const std::vector<std::array<double, max_moments + 1>>& mu, unsigned N, unsigned seeded) {
  const unsigned J = N / 2;
  // Cumulants of each sub-table (even orders): kappa_n = mu_n - sum_m C(n-1, m-1) kappa_m mu_{n-m}.
  std::vector<std::vector<dual>> kappa(S, std::vector<dual>(J + 1));
  dual total;
  for (unsigned s = 0; s < S; ++s) {
    std::vector<dual> m(J + 1);
    for (unsigned j = 0; j <= J; ++j) {
      m[j].v = mu[s][j];
      if (s == seeded && j >= 1) m[j].d[j - 1] = 1;
    }
    for (unsigned j = 1; j <= J; ++j) {
      dual k = m[j];
      for (unsigned i = 1; i < j; ++i) k = k - binom(2 * j - 1, 2 * i - 1) * (kappa[s][i] * m[j - i]);
      kappa[s][j] = k;
    }
    total = total + m[1];
  }
  // Cumulants of S = sum_s V_s / sqrt(total): K_n = sum_s kappa_n / total^(n/2).
  const dual inv_total = inverse(total);
  std::vector<dual> excess(J + 1);  // excess[j]: excess cumulant of order 2j (K_2 excess = 0)
  dual scale = inv_total;
  for (unsigned j = 2; j <= J; ++j) {
    scale = scale * inv_total;
    dual sum;
    for (unsigned s = 0; s < S; ++s) sum = sum + kappa[s][j];
    excess[j] = sum * scale;
  }
  // Hermites = complete Bell polynomials of the excess cumulants:
  // h_n = sum_m C(n-1, m-1) K~_m h_{n-m} (only even m, n).
  std::vector<dual> h(N + 1);
  h[0].v = 1;
  for (unsigned j = 2; j <= J; ++j) {
    dual sum;
    for (unsigned i = 2; i <= j; ++i) sum = sum + binom(2 * j - 1, 2 * i - 1) * (excess[i] * h[2 * (j - i)]);
    h[2 * j] = sum;
  }
  return h;
}

}  // namespace

std::vector<double> objective_weights(unsigned max_order) {
  check_order(max_order, "objective_weights");
  std::vector<double> d;
  for (unsigned n = 4; n <= max_order; n += 2) {
    const double c = 2 * (std::pow(5.0 / 18.0, n / 2.0) + std::pow(4.0 / 18.0, n / 2.0));
    double fact = 1;
    for (unsigned i = 2; i <= n; ++i) fact *= i;
    d.push_back(c * c / fact);
  }
  return d;
}

double convolution_objective(const double* values, const objective_options& options, double* gradient,
                             std::vector<double>* hermites) {
  static const char* fn = "convolution_objective";
  const unsigned N = options.max_order;
  check_order(N, fn);
  require(options.weights.size() == N / 2 - 1, fn, "options.weights", "must hold max_order/2 - 1 values (n = 4..N)");
  for (double w : options.weights) require(w > 0 && std::isfinite(w), fn, "options.weights", "must be finite and > 0");
  require(options.barrier >= 0 && std::isfinite(options.barrier), fn, "options.barrier", "must be finite and >= 0");
  require(values != nullptr, fn, "values", "must point to 4096 doubles");
  const unsigned J = N / 2;
  const auto mu = raw_moments(values, J);
  double total = 0;
  for (unsigned s = 0; s < S; ++s) total += mu[s][1];
  require(total > 0 && std::isfinite(total), fn, "values", "must be finite and not all zero");

  const std::vector<dual> h0 = chain(mu, N, S);
  if (hermites) {
    hermites->assign(N + 1, 0.0);
    for (unsigned n = 0; n <= N; ++n) (*hermites)[n] = h0[n].v;
  }
  std::vector<double> xv(N + 1, 0.0);  // x entries by order (h_4 shifted)
  for (unsigned j = 2; j <= J; ++j) xv[2 * j] = h0[2 * j].v - (j == 2 ? options.kurtosis_shift : 0.0);
  double Q = 0;
  for (unsigned j = 2; j <= J; ++j) Q += options.weights[j - 2] * xv[2 * j] * xv[2 * j];
  const double h4 = h0[4].v;
  const double inf = std::numeric_limits<double>::infinity();
  if (Q <= 0 || (options.barrier > 0 && h4 <= 0)) {
    if (gradient)
      for (unsigned i = 0; i < gaussian::table_entries; ++i) gradient[i] = 0;
    return inf;
  }
  const double f = std::log(Q) - (options.barrier > 0 ? options.barrier * std::log(h4) : 0.0);
  if (!gradient) return f;
  // df/dh_n.
  std::vector<double> dfdh(N + 1, 0.0);
  for (unsigned j = 2; j <= J; ++j) dfdh[2 * j] = 2 * options.weights[j - 2] * xv[2 * j] / Q;
  if (options.barrier > 0) dfdh[4] -= options.barrier / h4;
  for (unsigned s = 0; s < S; ++s) {
    const std::vector<dual> h = chain(mu, N, s);
    std::array<double, max_moments + 1> dfdmu{};
    for (unsigned j = 1; j <= J; ++j)
      for (unsigned n = 4; n <= N; n += 2) dfdmu[j] += dfdh[n] * h[n].d[j - 1];
    for (unsigned k = 0; k < K; ++k) {
      const unsigned idx = gaussian::table_index(s, k);
      const double t = values[idx], t2 = t * t;
      // d mu_j / dt = 2 j t^(2j-1) / K
      double g = 0, p = t;  // p = t^(2j-1)
      for (unsigned j = 1; j <= J; ++j) {
        g += dfdmu[j] * 2.0 * j * p;
        p *= t2;
      }
      gradient[idx] = g / K;
    }
  }
  return f;
}

std::vector<double> moment_jacobian(const double* values, unsigned max_order, unsigned s, std::vector<double>& x) {
  static const char* fn = "moment_jacobian";
  check_order(max_order, fn);
  require(s < S, fn, "s", "must be in [0, 15]");
  const unsigned N = max_order, J = N / 2;
  const auto mu = raw_moments(values, J);
  const std::vector<dual> h = chain(mu, N, s);
  x.assign(J - 1, 0.0);
  std::vector<double> jac((J - 1) * J);
  for (unsigned r = 0; r + 1 < J; ++r) {
    x[r] = h[2 * (r + 2)].v;
    for (unsigned j = 1; j <= J; ++j) jac[r * J + (j - 1)] = h[2 * (r + 2)].d[j - 1];
  }
  return jac;
}

}  // namespace onepass::stats::hermite
