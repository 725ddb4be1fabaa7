// tests/cpu/normal_sample_checks.hpp — the standard-normal checks shared by the Gaussian
// generators' CPU tests (test_gaussian.cpp: the double generator; test_gaussian_float.cpp: the
// float-native one): mean, variance, skew and kurtosis of n draws within 5 standard errors of
// N(0, 1)'s, the fraction of positive draws, and the tails |x| > 3 and |x| > 4 within 5 binomial
// standard errors; and, for draws of N(mean, stddev^2), the sample mean and variance within 5
// standard errors of mean and stddev^2.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace onepass::testing {

template <class T>
void expect_standard_normal_sample(const std::vector<T>& x) {
  const std::size_t n = x.size();
  long double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  std::size_t positive = 0, tail3 = 0, tail4 = 0;
  for (const T v : x) {
    const long double u = v;
    m1 += u;
    m2 += u * u;
    m3 += u * u * u;
    m4 += u * u * u * u;
    positive += v > 0;
    tail3 += std::fabs(v) > 3;
    tail4 += std::fabs(v) > 4;
  }
  m1 /= n;
  m2 /= n;
  m3 /= n;
  m4 /= n;
  const double se = 1 / std::sqrt(static_cast<double>(n));
  const double mean = static_cast<double>(m1), var = static_cast<double>(m2 - m1 * m1);
  const double skew = static_cast<double>(m3), kurt = static_cast<double>(m4);
  EXPECT_LT(std::fabs(mean), 5 * se) << mean;
  EXPECT_LT(std::fabs(var - 1), 5 * std::sqrt(2.0) * se) << var;
  EXPECT_LT(std::fabs(skew), 5 * std::sqrt(15.0) * se) << skew;
  EXPECT_LT(std::fabs(kurt - 3), 5 * std::sqrt(96.0) * se) << kurt;
  EXPECT_LT(std::fabs(static_cast<double>(positive) / n - 0.5), 5 * 0.5 * se);
  const double p3 = 0.0026997960632601866, p4 = 6.334248366623996e-05;  // P(|Z| > 3), > 4
  EXPECT_LT(std::fabs(static_cast<double>(tail3) / n - p3), 5 * std::sqrt(p3 / n));
  EXPECT_LT(std::fabs(static_cast<double>(tail4) / n - p4), 5 * std::sqrt(p4 / n));
}

/// The sample mean of x within 5 standard errors (stddev / sqrt(n)) of `mean`, and its sample
/// variance (n - 1 denominator) within 5 standard errors (stddev^2 sqrt(2 / n)) of stddev^2.
template <class T>
void expect_sample_mean_and_variance(const std::vector<T>& x, double mean, double stddev) {
  const std::size_t n = x.size();
  long double m = 0, v = 0;
  for (const T u : x) m += u;
  m /= n;
  for (const T u : x) v += (u - m) * (u - m);
  v /= n - 1;
  EXPECT_NEAR(static_cast<double>(m), mean, 5 * stddev / std::sqrt(static_cast<double>(n)));
  EXPECT_NEAR(static_cast<double>(v), stddev * stddev, 5 * stddev * stddev * std::sqrt(2.0 / n));
}

}  // namespace onepass::testing
