// fig06_chi2_rounds — Mitchell et al., "Bandwidth-Optimal Random Shuffling for
// GPUs", §5, Fig. 6: the chi-square statistic of VariablePhilox shuffles of
// length n = 5 (5! = 120 cells) against the number of Feistel rounds, with the
// alpha = 0.01 acceptance threshold; plus one row each for the LCG bijection and
// std::shuffle (rounds empty). The paper uses 1,000,000 permutations per point.
// The same rounds series for "walking" (the walking permutation: cycle walking over
// the same VariablePhilox bijection, issue 28), whose first passing round count is
// compared with VariablePhilox's in the report.
//
// Output: <out>/fig06_chi2_rounds.csv with columns
//   algorithm,rounds,n,samples,alpha,statistic,critical_value,p_value,passes
// Sample k of every configuration is the shuffle of 0..n-1 with seed --seed + k.
#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/stats/sampling.hpp"

namespace {

namespace st = onepass::stats;
namespace ex = onepass::experiments;


}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fig. 6: chi-square statistic of n = 5 shuffles vs VariablePhilox rounds"};
  ex::run r("fig06_chi2_rounds", app);
  double alpha = 0.01;
  unsigned max_rounds = 32;
  std::uint64_t samples_option = 0;
  app.add_option("--alpha", alpha, "significance level of the acceptance threshold (default 0.01)")
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--max-rounds", max_rounds, "VariablePhilox rounds 1..max-rounds (default 32)")
      ->check(CLI::Range(1u, onepass::bijection::max_rounds));
  app.add_option("--samples", samples_option,
                 "permutations per configuration (default by scale: smoke 2000, default 1000000, paper 1000000)");
  r.parse(argc, argv);

  const std::size_t n = 5;
  const std::uint64_t samples =
      samples_option ? samples_option : r.pick<std::uint64_t>(2000, 1000000, 1000000);
  r.note("samples_per_configuration", std::to_string(samples));
  r.note("alpha", std::to_string(alpha));
  r.note("n", std::to_string(n));
  r.note("cells", "120 (every permutation of length 5, empty cells included)");
  r.note("sampling", "sample k: shuffle of 0..4 with seed = base seed + k; Pearson chi-square vs uniform, df 119");
  r.note("rounds", "variable_philox and walking 1.." + std::to_string(max_rounds));

  r.open_csv({"algorithm", "rounds", "n", "samples", "alpha", "statistic", "critical_value", "p_value", "passes"});
  auto emit = [&](const std::string& algorithm, const std::string& rounds, const st::chi_square_result& c) {
    r.row(algorithm, rounds, n, c.samples, alpha, c.statistic, c.critical_value, c.p_value, c.passes ? 1 : 0);
    ex::progress(r.name(), algorithm + (rounds.empty() ? "" : " rounds " + rounds) + ": X^2 = " +
                               std::to_string(c.statistic) + " (critical " + std::to_string(c.critical_value) +
                               ", p = " + std::to_string(c.p_value) + ")" + (c.passes ? " pass" : " FAIL"));
  };

  // The rounds series: VariablePhilox (the paper's) and the walking permutation over it.
  // meta: the first round count from which every larger tested count passes, per series
  // (VariablePhilox's under the key without a prefix, as before).
  for (const char* name : {"variable_philox", "walking"}) {
    const std::string algorithm = name;
    if (!ex::registered_or_skipped(r, algorithm, onepass::registry::contains_shuffle(algorithm))) continue;
    const auto& entry = onepass::registry::find_shuffle(algorithm);
    std::vector<bool> passed;
    for (unsigned rounds = 1; rounds <= max_rounds; ++rounds) {
      const auto c = st::chi_square_shuffle(entry, st::sampling_plan{n, samples, r.seed(), rounds}, alpha);
      emit(algorithm, std::to_string(rounds), c);
      passed.push_back(c.passes);
    }
    std::size_t first = passed.size();
    while (first > 0 && passed[first - 1]) --first;
    const std::string first_text = first == passed.size() ? "none" : std::to_string(first + 1);
    r.note(algorithm == "variable_philox" ? std::string("first_round_count_from_which_all_pass")
                                          : algorithm + "_first_round_count_from_which_all_pass",
           first_text);
    ex::progress(r.name(), algorithm + ": every round count from " + first_text + " to " +
                               std::to_string(max_rounds) + " passes");
  }

  for (const char* name : {"lcg", "std_shuffle"}) {
    if (!ex::registered_or_skipped(r, name, onepass::registry::contains_shuffle(name))) continue;
    const auto c = st::chi_square_shuffle(onepass::registry::find_shuffle(name),
                                          st::sampling_plan{n, samples, r.seed(), onepass::bijection::default_rounds},
                                          alpha);
    emit(name, "", c);
  }
  r.finish();
  return 0;
}
