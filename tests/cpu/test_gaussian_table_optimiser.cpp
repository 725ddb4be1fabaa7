// The table optimiser's objective (stats::hermite::convolution_objective, its gradient
// and moment_jacobian) and the embedded optimised table (gaussian::optimised_table,
// lib/data/gaussian_table_optimised.inc written by `make gaussian-table`). Article
// "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022), "Optimising the lookup table",
// "Local search", "Choosing the coefficients".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "onepass/error.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/stats/hermite.hpp"

namespace {

namespace g = onepass::gaussian;
namespace h = onepass::stats::hermite;

std::vector<double> values_of(const g::table& t) {
  std::vector<double> v(g::table_entries);
  for (unsigned i = 0; i < g::table_entries; ++i) v[i] = t.entries[i] / g::table_scale;
  return v;
}

// A leptokurtic table: the inverse-CDF table with the largest entry of each sub-table
// stretched by 1.6 (so the barrier is finite).
std::vector<double> leptokurtic_values() {
  std::vector<double> v = values_of(g::inverse_cdf_table());
  for (unsigned s = 0; s < g::subtable_count; ++s) v[g::table_index(s, 255)] *= 1.6;
  return v;
}

TEST(TableObjective, HermitesEqualTheFiftyDigitConvolutionHermites) {
  const g::table t = g::inverse_cdf_table();
  const auto exact = h::convolution_hermites(t, 16);
  const std::vector<double> v = values_of(t);
  h::objective_options opt;
  opt.max_order = 16;
  opt.weights = h::objective_weights(16);
  opt.barrier = 0;
  std::vector<double> hv;
  const double f = h::convolution_objective(v.data(), opt, nullptr, &hv);
  EXPECT_TRUE(std::isfinite(f));
  ASSERT_EQ(hv.size(), 17u);
  for (unsigned n = 4; n <= 16; n += 2)
    EXPECT_NEAR(hv[n], static_cast<double>(exact[n]), 1e-15 + 1e-10 * std::fabs(static_cast<double>(exact[n])))
        << "order " << n;
}

TEST(TableObjective, WeightsAreTheOutputsPrecisionTimesTheConvolutionFactors) {
  const auto d = h::objective_weights(8);
  ASSERT_EQ(d.size(), 3u);
  // c_4 = 2 ((5/18)^2 + (4/18)^2) = 82/324; D_4 = c_4^2 / 24.
  EXPECT_NEAR(d[0], (82.0 / 324) * (82.0 / 324) / 24, 1e-15);
  EXPECT_THROW(h::objective_weights(7), onepass::error);
  EXPECT_THROW(h::objective_weights(26), onepass::error);
}

void expect_gradient_matches(const std::vector<double>& v0, const h::objective_options& opt) {
  std::vector<double> grad(g::table_entries);
  const double f0 = h::convolution_objective(v0.data(), opt, grad.data());
  ASSERT_TRUE(std::isfinite(f0));
  // Scale invariance (f is homogeneous of degree 0): grad . v = 0.
  double dot = 0, gnorm = 0, vnorm = 0;
  for (unsigned i = 0; i < g::table_entries; ++i) {
    dot += grad[i] * v0[i];
    gnorm += grad[i] * grad[i];
    vnorm += v0[i] * v0[i];
  }
  EXPECT_LT(std::fabs(dot), 1e-6 * std::sqrt(gnorm * vnorm));
  // Central differences on entries spread over sub-tables, bulk and tails.
  const unsigned ks[] = {0, 17, 128, 200, 254, 255};
  for (unsigned s : {0u, 5u, 15u})
    for (unsigned k : ks) {
      const unsigned i = g::table_index(s, k);
      const double step = 1e-5 * std::max(1.0, std::fabs(v0[i]));
      std::vector<double> vp = v0, vm = v0;
      vp[i] += step;
      vm[i] -= step;
      const double fd = (h::convolution_objective(vp.data(), opt) - h::convolution_objective(vm.data(), opt)) / (2 * step);
      EXPECT_NEAR(grad[i], fd, 1e-5 * std::max(1.0, std::fabs(fd))) << "s " << s << " k " << k;
    }
}

TEST(TableObjective, GradientMatchesFiniteDifferencesWithoutBarrier) {
  h::objective_options opt;
  opt.max_order = 12;
  opt.weights = h::objective_weights(12);
  opt.barrier = 0;
  expect_gradient_matches(values_of(g::inverse_cdf_table()), opt);
}

TEST(TableObjective, GradientMatchesFiniteDifferencesWithBarrierAndShift) {
  const std::vector<double> v = leptokurtic_values();
  h::objective_options opt;
  opt.max_order = 10;
  opt.weights = h::objective_weights(10);
  opt.barrier = 0.1;
  opt.kurtosis_shift = 1e-6;
  std::vector<double> hv;
  h::convolution_objective(v.data(), opt, nullptr, &hv);
  ASSERT_GT(hv[4], 0.0) << "the stretched table should be leptokurtic";
  expect_gradient_matches(v, opt);
}

TEST(TableObjective, BarrierIsInfiniteForAPlatykurticConvolution) {
  const std::vector<double> v = values_of(g::inverse_cdf_table());  // h_4 < 0
  h::objective_options opt;
  opt.weights = h::objective_weights(opt.max_order);
  std::vector<double> grad(g::table_entries, 1.0);
  EXPECT_TRUE(std::isinf(h::convolution_objective(v.data(), opt, grad.data())));
  EXPECT_EQ(grad[7], 0.0);
  opt.weights.pop_back();
  EXPECT_THROW(h::convolution_objective(v.data(), opt), onepass::error);
}

TEST(TableObjective, MomentJacobianMatchesFiniteDifferencesOfTheMoments) {
  // Moving entry k of sub-table s changes mu_{s,2j} by ((t + e)^(2j) - t^(2j)) / 256;
  // the Jacobian predicts the change of x = (h_4..h_N).
  const std::vector<double> v = leptokurtic_values();
  const unsigned N = 10, s = 3, k = 250;
  std::vector<double> x0;
  const std::vector<double> jac = h::moment_jacobian(v.data(), N, s, x0);
  ASSERT_EQ(jac.size(), 4u * 5u);
  const unsigned i = g::table_index(s, k);
  const double e = 1e-6;
  std::vector<double> v1 = v;
  v1[i] += e;
  h::objective_options opt;
  opt.max_order = N;
  opt.weights = h::objective_weights(N);
  opt.barrier = 0;
  std::vector<double> h0, h1;
  h::convolution_objective(v.data(), opt, nullptr, &h0);
  h::convolution_objective(v1.data(), opt, nullptr, &h1);
  for (unsigned q = 0; q < 4; ++q) {
    EXPECT_DOUBLE_EQ(x0[q], h0[2 * q + 4]);
    double predicted = 0;
    for (unsigned j = 1; j <= 5; ++j)
      predicted += jac[q * 5 + (j - 1)] * (std::pow(v1[i], 2.0 * j) - std::pow(v[i], 2.0 * j)) / 256;
    const double actual = h1[2 * q + 4] - h0[2 * q + 4];
    EXPECT_NEAR(predicted, actual, 1e-4 * std::fabs(actual) + 1e-18) << "order " << 2 * q + 4;
  }
  EXPECT_THROW(h::moment_jacobian(v.data(), N, 16, x0), onepass::error);
}

// ------------------------------------------------------------ the embedded table

TEST(OptimisedTable, LayoutConstraintsHold) {
  const g::table& t = g::optimised_table();
  for (unsigned i = 0; i < g::table_entries; ++i) ASSERT_GE(t.entries[i], 0) << "entry " << i;
  EXPECT_LE(g::worst_case_register(t.entries), 2147483647LL);
  for (unsigned s = 0; s < g::subtable_count; ++s) {
    bool nonzero = false;
    for (unsigned k = 0; k < g::subtable_entries; ++k) nonzero |= t.entries[g::table_index(s, k)] != 0;
    EXPECT_TRUE(nonzero) << "sub-table " << s;
  }
}

TEST(OptimisedTable, CoefficientsHaveTheRatioVarianceAndKurtosis) {
  const g::table& t = g::optimised_table();
  const g::coefficient_solution sol = g::solve_coefficients(t.entries);
  ASSERT_TRUE(sol.kurtosis_solved) << "the optimised convolution must be leptokurtic";
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t.coeff.p[i], sol.coeff.p[i]) << "p" << i << " as solve_coefficients gives";
  EXPECT_NEAR(t.coeff.p[0] / t.coeff.p[1], std::sqrt(5.0) / 2, 1e-15);
  EXPECT_LT(std::fabs(static_cast<double>(sol.excess_kurtosis)), 1e-20);
  const auto hx = h::generator_hermites(t, g::form::four, 4);
  EXPECT_NEAR(static_cast<double>(hx[2]), 0.0, 1e-15);  // Var = 1
  EXPECT_NEAR(static_cast<double>(hx[4]), 0.0, 1e-15);  // kurtosis 3
  EXPECT_GT(t.coeff.p[2], 0.0);
  EXPECT_LT(std::fabs(t.coeff.p[3]), std::fabs(t.coeff.p[2]) * 1e-15);
}

TEST(OptimisedTable, EveryTestOfOrderUpTo24LastsTenToTheThirtyOneOutputs) {
  // Article: 1.6e30 outputs to fail a moment test at 4 sigma (up from 9.1e10). The
  // project's bar, by our analytics: every Hermite, moment and best-polynomial test of order <= 24
  // reaches >= 1e31 outputs before a 4-sigma failure, those of order <= 16 >= 1e33. The
  // tail polish solves orders <= optimised_table_max_order() (from the data file; 20)
  // and leaves 22 and 24 free: all 24 are checked here.
  const g::table& t = g::optimised_table();
  const unsigned order = 24;
  EXPECT_GE(g::optimised_table_max_order(), 20u) << "the data file's controlled order";
  const auto hx = h::generator_hermites(t, g::form::four, order);
  const auto th = h::hermite_failure_times(hx);
  const auto tm = h::moment_failure_times(hx);
  for (unsigned n = 1; n <= order; ++n)
    std::printf("order %2u: hermite %+.4Le  t_hermite %.3Le  t_moment %.3Le  t_polynomial %.3Le\n", n, hx[n], th[n],
                tm[n], h::polynomial_failure_time(hx, n));
  for (unsigned n = 1; n <= order; ++n) {
    const double bar = n <= 16 ? 1e33 : 1e31;
    EXPECT_GE(static_cast<double>(th[n]), bar) << "hermite test of order " << n;
    EXPECT_GE(static_cast<double>(tm[n]), bar) << "moment test of order " << n;
    EXPECT_GE(static_cast<double>(h::polynomial_failure_time(hx, n)), bar) << "best polynomial of degree <= " << n;
  }
}

}  // namespace
