// Registers the library's own CPU bijective shuffles (VariablePhilox, LCG) and the
// shuffle through the walking permutation (cycle walking over VariablePhilox).
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/walking_permutation.hpp"

namespace {
using onepass::registry::registrar;
using onepass::registry::shuffle_entry;
using onepass::registry::shuffle_params;
constexpr onepass::registry::device cpu_device = onepass::registry::device::cpu;

shuffle_entry variable_philox_entry() {
  shuffle_entry e{"variable_philox", cpu_device};
  e.label = "VarPhilox";
  e.description = "bijective shuffle, VariablePhilox (paper §3.2), fused oneTBB scan (Algorithm 1)";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
    onepass::shuffle::cpu::variable_philox_shuffle(in, out, n, p.seed, p.rounds);
  };
  e.permutes = true;
  e.uses_rounds = true;
  e.uniform = true;
  e.deterministic = true;
  return e;
}

shuffle_entry lcg_entry() {
  shuffle_entry e{"lcg", cpu_device};
  e.label = "LCG";
  e.description = "bijective shuffle, LCG bijection (paper §3.1), fused oneTBB scan";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
    onepass::shuffle::cpu::lcg_shuffle(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = false;
  e.deterministic = true;
  return e;
}

// out[j] = in[sigma(j)] with sigma = walking_permutation::for_length(n, seed, rounds): the
// same VariablePhilox bijection as variable_philox above, cycle-walked instead of compacted
// (a different permutation for the same seed).
// uniform: the walk twists f so that its parity is random (walking_permutation.hpp, "Parity";
// without the twist every sigma was even at n = 2^b and fig06's chi-square failed at every
// round count).
shuffle_entry walking_entry() {
  shuffle_entry e{"walking", cpu_device};
  e.label = "Walking";
  e.description =
      "walking permutation: cycle walking (Black & Rogaway, CT-RSA 2002) over VariablePhilox, "
      "out[j] = in[sigma(j)], oneTBB";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
    onepass::shuffle::cpu::walking_shuffle(in, out, n,
                                      onepass::shuffle::walking_permutation::for_length(n, p.seed, p.rounds));
  };
  e.permutes = true;
  e.uses_rounds = true;
  e.uniform = true;
  e.deterministic = true;
  return e;
}

const registrar variable_philox_cpu{variable_philox_entry()};
const registrar lcg_cpu{lcg_entry()};
const registrar walking_cpu{walking_entry()};
}  // namespace
