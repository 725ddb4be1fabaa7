// onepass/stats/hermite.hpp — exact Hermite moments ("hermites") of the warp Gaussian
// generator and the expected number of outputs until a moment / Hermite test fails.
//
// Article: "Training a random Gaussian generator" (A. P. Goucher, cp4space 2022;
// paper/references.bib: goucher2022gaussian), section "Optimising the lookup table": hermites E[He_n(X)] of the
// probabilists' Hermite polynomials (He_0 = 1, He_1 = x, He_{n+1} = x He_n - n He_{n-1}),
// orthogonal under N(0,1) with E[He_m He_n] = n! [m = n]; and the Proposition:
// for independent X_i and reals a_i with sum a_i^2 = 1,
//   E[He_n(sum a_i X_i)] = n! [t^n] prod_i sum_m E[He_m(X_i)] (a_i t)^m / m!,
// i.e. the exponential generating function sum_n He_n(x) t^n/n! = exp(x t - t^2/2)
// factorises. Internally everything is computed with 50 significant decimal digits
// (Boost.Multiprecision cpp_bin_float_50), because the output's hermites are tiny
// differences of O(1) terms; results are returned as long double.
//
// Failure times ("expected time to reach a 4-sigma statistic"): a test that averages
// a statistic g over N outputs has, under a true N(0,1), mean E_G[g] and standard error
// sqrt(Var_G[g] / N); its expected z-score reaches z when
//   N = z^2 Var_G[g] / (E[g] - E_G[g])^2.
// For g = He_n: N = z^2 n! / h_n^2. For g = x^n (the article's moment test):
// Var_G = (2n-1)!! - ((n-1)!!)^2 (n even) or (2n-1)!! (n odd). For the best polynomial
// of degree <= d (article's log(x^T P x) loss, P = diag(1/n!)): by Cauchy–Schwarz
// N = z^2 / sum_{n=1..d} h_n^2 / n!.
#pragma once

#include <cstdint>
#include <vector>

#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"

namespace onepass::stats::hermite {

/// Hermites E[He_n(X)], n = 0..order, of the discrete distribution P(X = values[i]) =
/// probabilities[i] (probabilities empty: uniform). values: any finite reals;
/// probabilities: >= 0, same length as values, summing to 1 within 1e-12.
/// Throws onepass::error ("discrete_hermites: ...") on empty values, length mismatch,
/// negative probabilities or a sum off 1.
std::vector<long double> discrete_hermites(const std::vector<long double>& values,
                                           const std::vector<long double>& probabilities, unsigned order);

/// The Proposition: hermites (n = 0..order) of sum_i a_i X_i for independent X_i with
/// hermites `hermites[i]` (index n = 0..order at least) and weights a_i = weights[i],
/// sum a_i^2 = 1 (within 1e-12). Throws onepass::error naming the argument when the
/// sizes disagree, a hermite vector is shorter than order + 1, or sum a_i^2 != 1.
std::vector<long double> linear_combination_hermites(const std::vector<std::vector<long double>>& hermites,
                                                     const std::vector<long double>& weights, unsigned order);

/// Hermites (n = 0..order) of sub-table s (0..15) as a base distribution: the symmetric
/// law of ±T_s[k] (k uniform on 0..255, sign fair) divided by its standard deviation
/// (unit variance, so h_1 = h_2 = 0 and h_4 = excess kurtosis). Throws onepass::error
/// for s > 15 or an all-zero sub-table.
std::vector<long double> subtable_hermites(const gaussian::table& tab, unsigned s, unsigned order);

/// Hermites (n = 0..order) of the standardised simple convolution of the 16 base
/// distributions, (sum_s V_s) / sd — the quantity the article's optimiser uses as a
/// conservative proxy. Throws onepass::error for an all-zero table.
std::vector<long double> convolution_hermites(const gaussian::table& tab, unsigned order);

/// Hermites (n = 0..order) of the generator's output model (mu = 0, sigma = 1)
///   X = p0 A + p1 B + w C,   w = p2 (form::three) or p2 + p3 exactly (form::four),
/// A, B i.i.d. = sum of 32 independent symmetric lookups (2 from each sub-table),
/// C uniform on the odd int32s = sum_{k=0}^{30} ±2^k, all independent (the article's
/// model; the weak a–c dependence it argues away is ignored). X's variance need not be
/// exactly 1: h_2 = Var(X) - 1. Throws onepass::error for an all-zero table.
std::vector<long double> generator_hermites(const gaussian::table& tab, gaussian::form f, unsigned order);

/// Hermites (n = 0..order) of the FLOAT-NATIVE generator's output model (mu = 0,
/// sigma = 1; onepass/gaussian/float_lane.hpp):
///   X = p0 A + p1 B + w c,   c = 2^-23 C,   C = sum_{i=0}^{21} +-2^i (the 22-bit uniform),
/// with p0, p1, w the float coefficients of `tab` (exactly, as reals), A, B i.i.d. sums of
/// 32 independent symmetric lookups of tab.entries (2 per sub-table), all independent (the
/// article's model, as generator_hermites). The float roundings of the three FMAs are not
/// in the model (float_lane.hpp bounds them: < 2 ulp of the output). Throws onepass::error
/// for an all-zero table.
std::vector<long double> generator_hermites_float(const gaussian::float_table& tab, unsigned order);

/// Expected number of N(0,1) outputs until `count` (default 20) fall in [-q 2^m, q 2^m],
/// where a quantum q = 2^quantum_log2 forces the lowest of m = mantissa_bits stored
/// mantissa bits to zero: count / (2 q 2^m phi(0)). quantisation_detection_outputs is the
/// double case (m = 52); floats have m = 23. quantum_log2 in [-1074, 0], m in [1, 52].
long double quantisation_detection_outputs_bits(int quantum_log2, unsigned mantissa_bits, long double count = 20.0L);

/// Expected number of outputs until the He_n test reaches a z-sigma statistic, for
/// n = 0..h.size()-1: z^2 n! / h_n^2 (+inf where h_n = 0; entry 0 is +inf).
std::vector<long double> hermite_failure_times(const std::vector<long double>& h, long double z = 4.0L);

/// Raw-moment discrepancies E[X^n] - E_G[X^n] for n = 0..h.size()-1, from hermites via
/// x^n = sum_k n! / (k! ((n-k)/2)! 2^((n-k)/2)) He_k(x) (n - k even).
std::vector<long double> moment_discrepancies(const std::vector<long double>& h);

/// Expected number of outputs until the moment test of order n (mean of x^n) reaches a
/// z-sigma statistic, n = 0..h.size()-1 (+inf where the discrepancy is 0).
std::vector<long double> moment_failure_times(const std::vector<long double>& h, long double z = 4.0L);

/// Expected number of outputs until the best test polynomial of degree <= max_degree
/// reaches z sigma: z^2 / sum_{n=1}^{max_degree} h_n^2 / n!. Throws onepass::error when
/// max_degree is 0 or >= h.size().
long double polynomial_failure_time(const std::vector<long double>& h, unsigned max_degree, long double z = 4.0L);

/// Quantum of the output for sigma = 1 (article, "Issues with small floats"): the
/// largest power of two q such that every coefficient used by form f (p0, p1, p2 and,
/// for form::four, p3) is a multiple of q; the exact value of a p0 + b p1 + c w is then a
/// multiple of q. Returns log2(q) (e.g. -95). Throws onepass::error if all are zero.
int quantum_log2(const gaussian::coefficients& k, gaussian::form f);

/// Expected number of N(0,1) outputs until `count` (default 20, the article's) fall in
/// [-q 2^52, q 2^52], where a quantum q forces the lowest mantissa bit to zero:
/// count / (2 q 2^52 phi(0)) with phi(0) = 1/sqrt(2 pi). quantum_log2 in [-1074, 0].
long double quantisation_detection_outputs(int quantum_log2, long double count = 20.0L);

// ---------------------------------------------------------------------------------
// The table optimiser's objective (article, "Optimising the lookup table").
//
// x = (h_4, h_6, ..., h_N): the even hermites of the standardised simple convolution
// S of the 16 base distributions (the same quantity as convolution_hermites), and
//   f = log(x^T D x) - mu * log(h_4),
// D = diag(D_4, D_6, ..., D_N) from objective_weights, the log barrier keeping the
// convolution leptokurtic (h_4 = excess kurtosis of S > 0) so solve_coefficients can
// reach kurtosis 3. Evaluated in double through cumulants (S's cumulants are sums of
// the sub-tables' cumulants divided by Var^(n/2), its hermites the complete Bell
// polynomials of its excess cumulants), with an exact gradient; tests check it
// against the 50-digit convolution_hermites and finite differences.

/// Options of convolution_objective. max_order: even, 4..24 (N above); weights: D_n for
/// n = 4, 6, ..., max_order (max_order/2 - 1 values, all > 0); barrier: mu >= 0.
/// kurtosis_shift: the h_4 entry of x is h_4 - kurtosis_shift (0 normally; > 0 with
/// barrier 0 lets a platykurtic start, e.g. the inverse-CDF table, be pushed over
/// to leptokurtic before the barrier is switched on).
struct objective_options {
  unsigned max_order = 12;
  std::vector<double> weights;
  double barrier = 0.1;
  double kurtosis_shift = 0.0;
};

/// D derived from the analytics (article's "D specifies the relative importance"):
/// the output is X = sum of four copies of S with weights a_i^2 = 5/18, 5/18, 4/18,
/// 4/18 (two lookups per sub-table in a and in b, p0 : p1 = sqrt 5 : 2) plus c, so by
/// the Proposition kappa_n(X) = c_n kappa_n(S) + (c's part), c_n = sum_i a_i^n; with
/// kappa_4(X) cancelled by c, h_n(X) = c_n h_n(S) to leading order and the output's
/// best-polynomial failure rate z^2 / T = sum_n h_n(X)^2 / n! = x^T D x with
///   D_n = c_n^2 / n!,   n = 4, 6, ..., max_order.
/// D_4 is kept (h_4(X) itself is cancelled) so that h_4(S), hence c's weight and its
/// sixth cumulant, stay small. Throws onepass::error unless max_order is even in [4, 24].
std::vector<double> objective_weights(unsigned max_order);

/// f(values) as above. values: 4096 reals in the table layout (index 16 k + s), any
/// scale (f is scale invariant, so the gradient is orthogonal to values), magnitudes
/// (the sign is the generator's), not all zero. gradient: null, or 4096 doubles receiving df/dvalues. hermites: null, or
/// receives (h_0, ..., h_max_order) of S (odd entries 0). Returns +inf (gradient
/// zeroed) when h_4 <= 0 and barrier > 0, or when x^T D x == 0.
/// Throws onepass::error naming the argument for bad options or all-zero values.
double convolution_objective(const double* values, const objective_options& options, double* gradient = nullptr,
                             std::vector<double>* hermites = nullptr);

/// Jacobian of x = (h_4, ..., h_N) of S with respect to the raw even moments
/// mu_{s,2j} = mean_k values[16 k + s]^(2j), j = 1..N/2, of sub-table s (0..15): a
/// (N/2 - 1) x (N/2) row-major matrix, also returning x. Used by the local search,
/// where flipping entries changes the moments additively (x is linear in each base
/// distribution's measure up to the standardisation). Throws onepass::error for s > 15.
std::vector<double> moment_jacobian(const double* values, unsigned max_order, unsigned s, std::vector<double>& x);

}  // namespace onepass::stats::hermite
