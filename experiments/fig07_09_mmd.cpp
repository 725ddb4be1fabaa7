// fig07_09_mmd — Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs",
// §5, Figs. 7, 8 and 9: the |MMD^2| statistic with the Mallows kernel (λ = 5) of
// VariablePhilox shuffles of length n = 5, 100 and 1000 against the number of
// Feistel rounds, with the Hoeffding and the normal (eq. 5) acceptance thresholds
// at alpha = 0.01; plus rows for the LCG bijection and std::shuffle (rounds empty).
// The paper uses 1,000,000 permutations per point. The same rounds series for
// "walking" (the walking permutation: cycle walking over the same VariablePhilox
// bijection, issue 28), whose first passing round counts the report compares.
//
// Both published forms of the statistic come from one set of N samples:
//   one_sample (arXiv v1):  |(1/N) sum_k K(I, σ_k) - E_U K|,           N_eff = N
//   pairwise (journal):     |(2/N) sum_i K(σ_2i, σ_2i+1) - E_U K|,     N_eff = N/2
// Sample k of every configuration is the shuffle of 0..n-1 with seed --seed + k.
//
// Output: <out>/fig07_09_mmd.csv with columns
//   algorithm,rounds,n,samples,form,lambda,alpha,statistic,hoeffding_threshold,
//   normal_threshold,passes_hoeffding,passes_normal
#include <chrono>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/stats/mmd.hpp"
#include "onepass/stats/sampling.hpp"

namespace {

namespace st = onepass::stats;
namespace ex = onepass::experiments;


double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string join(const std::vector<unsigned>& v) {
  std::ostringstream s;
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Figs. 7-9: |MMD^2| (Mallows kernel) of shuffles of length 5, 100, 1000 vs VariablePhilox rounds"};
  ex::run r("fig07_09_mmd", app);
  double alpha = 0.01;
  double lambda = st::default_mallows_lambda;
  unsigned max_rounds = 32;
  std::vector<std::size_t> lengths{5, 100, 1000};
  std::uint64_t samples_option = 0;
  app.add_option("--alpha", alpha, "significance level of both thresholds (default 0.01)")
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--lambda", lambda, "Mallows kernel parameter λ > 0 (default 5, the paper's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-rounds", max_rounds, "VariablePhilox rounds 1..max-rounds (default 32)")
      ->check(CLI::Range(1u, onepass::bijection::max_rounds));
  app.add_option("--lengths", lengths, "permutation lengths n (default 5 100 1000)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 24));
  app.add_option("--samples", samples_option,
                 "permutations per configuration for every n (default by scale, see meta samples_per_n)");
  r.parse(argc, argv);

  // Samples per configuration: smoke 2000 (500 at n > 100, where one sample costs
  // ~40 us), default 1000000 (100000 at n = 1000, to keep make figures near 20
  // minutes on 2 cores), paper 1000000.
  auto samples_for = [&](std::size_t n) -> std::uint64_t {
    if (samples_option) return samples_option;
    if (n <= 100) return r.pick<std::uint64_t>(2000, 1000000, 1000000);
    return r.pick<std::uint64_t>(500, 100000, 1000000);
  };
  std::vector<unsigned> rounds_list;
  for (unsigned k = 1; k <= max_rounds; ++k) rounds_list.push_back(k);

  std::ostringstream samples_note;
  for (std::size_t n : lengths) samples_note << (samples_note.tellp() ? " " : "") << "n=" << n << ":" << samples_for(n);
  r.note("samples_per_n", samples_note.str());
  r.note("alpha", std::to_string(alpha));
  r.note("lambda", std::to_string(lambda));
  r.note("rounds", "variable_philox and walking " + join(rounds_list));
  r.note("forms",
         "one_sample = |mean_k K(I, s_k) - E_U K| over N samples (arXiv v1); pairwise = |mean_i K(s_2i, s_2i+1) - "
         "E_U K| over N/2 pairs (journal); both from the same N samples");
  r.note("thresholds", "hoeffding sqrt(ln(2/alpha)/(2 N_eff)); normal sqrt(2 Var K / N_eff) erf^-1(1 - alpha)");
  r.note("sampling", "sample k: shuffle of 0..n-1 with seed = base seed + k");

  r.open_csv({"algorithm", "rounds", "n", "samples", "form", "lambda", "alpha", "statistic", "hoeffding_threshold",
              "normal_threshold", "passes_hoeffding", "passes_normal"});
  auto emit = [&](const std::string& algorithm, const std::string& rounds, std::size_t n, std::uint64_t samples,
                  const st::mmd_results& m) {
    for (const st::mmd_result* t : {&m.one_sample, &m.pairwise}) {
      r.row(algorithm, rounds, n, samples, st::to_string(t->form), lambda, alpha, t->statistic,
            t->hoeffding_threshold, t->normal_threshold, t->passes_hoeffding ? 1 : 0, t->passes_normal ? 1 : 0);
    }
    auto verdict = [](const st::mmd_result& t) {
      return std::string(t.passes_normal ? "pass" : "FAIL") + "/" + (t.passes_hoeffding ? "pass" : "FAIL");
    };
    ex::progress(r.name(), algorithm + (rounds.empty() ? "" : " rounds " + rounds) + " n=" + std::to_string(n) +
                               ": one_sample " + std::to_string(m.one_sample.statistic) + " (normal " +
                               std::to_string(m.one_sample.normal_threshold) + ") " + verdict(m.one_sample) +
                               ", pairwise " + std::to_string(m.pairwise.statistic) + " (normal " +
                               std::to_string(m.pairwise.normal_threshold) + ") " + verdict(m.pairwise));
  };

  for (std::size_t n : lengths) {
    const std::uint64_t samples = samples_for(n);
    const auto start = std::chrono::steady_clock::now();
    // The rounds series: VariablePhilox (the paper's) and the walking permutation over it.
    // meta: per n, the first round count from which every larger count passes both
    // normal-threshold tests (VariablePhilox's key without a prefix, as before).
    for (const char* name : {"variable_philox", "walking"}) {
      const std::string algorithm = name;
      if (!ex::registered_or_skipped(r, algorithm, onepass::registry::contains_shuffle(algorithm))) continue;
      const auto& entry = onepass::registry::find_shuffle(algorithm);
      unsigned last_failing = 0;  // largest round count that fails either normal-threshold test
      for (unsigned rounds : rounds_list) {
        const auto m = st::mmd_shuffle(entry, st::sampling_plan{n, samples, r.seed(), rounds}, lambda, alpha);
        emit(algorithm, std::to_string(rounds), n, samples, m);
        if (!m.one_sample.passes_normal || !m.pairwise.passes_normal) last_failing = rounds;
      }
      r.note((algorithm == "variable_philox" ? std::string() : algorithm + "_") + "n" + std::to_string(n) +
                 "_first_round_count_from_which_all_pass_normal",
             last_failing == rounds_list.back() ? "none" : std::to_string(last_failing + 1));
    }
    for (const char* name : {"lcg", "std_shuffle"}) {
      if (!ex::registered_or_skipped(r, name, onepass::registry::contains_shuffle(name))) continue;
      const auto m = st::mmd_shuffle(onepass::registry::find_shuffle(name),
                                     st::sampling_plan{n, samples, r.seed(), onepass::bijection::default_rounds},
                                     lambda, alpha);
      emit(name, "", n, samples, m);
    }
    const double seconds = seconds_since(start);
    r.note("n" + std::to_string(n) + "_seconds", std::to_string(seconds));
    ex::progress(r.name(), "n=" + std::to_string(n) + " done in " + std::to_string(seconds) + " s");
  }
  r.finish();
  return 0;
}
