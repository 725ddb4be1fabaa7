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

/// A CPU entry with the given uses_rounds and uniform; like every entry of this file it permutes and
/// is deterministic (shuffle_entry's defaults).
shuffle_entry cpu_entry(const char* name, const char* label, const char* description,
                        onepass::registry::shuffle_fn run, bool uses_rounds, bool uniform) {
  shuffle_entry e{name, cpu_device, label, description};
  e.run = std::move(run);
  e.uses_rounds = uses_rounds;
  e.uniform = uniform;
  return e;
}

shuffle_entry variable_philox_entry() {
  return cpu_entry("variable_philox", "VarPhilox",
                   "bijective shuffle, VariablePhilox (paper §3.2), fused oneTBB scan (Algorithm 1)",
                   [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
                     onepass::shuffle::cpu::variable_philox_shuffle(in, out, n, p.seed, p.rounds);
                   },
                   /*uses_rounds=*/true, /*uniform=*/true);
}

shuffle_entry lcg_entry() {
  return cpu_entry("lcg", "LCG", "bijective shuffle, LCG bijection (paper §3.1), fused oneTBB scan",
                   [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
                     onepass::shuffle::cpu::lcg_shuffle(in, out, n, p.seed);
                   },
                   /*uses_rounds=*/false, /*uniform=*/false);
}

// out[j] = in[sigma(j)] with sigma = walking_permutation::for_length(n, seed, rounds): the
// same VariablePhilox bijection as variable_philox above, cycle-walked instead of compacted
// (a different permutation for the same seed).
// uniform: the walk twists f so that its parity is random (walking_permutation.hpp, "Parity";
// without the twist every sigma was even at n = 2^b and fig06's chi-square failed at every
// round count).
shuffle_entry walking_entry() {
  return cpu_entry("walking", "Walking",
                   "walking permutation: cycle walking (Black & Rogaway, CT-RSA 2002) over VariablePhilox, "
                   "out[j] = in[sigma(j)], oneTBB",
                   [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
                     onepass::shuffle::cpu::walking_shuffle(
                         in, out, n, onepass::shuffle::walking_permutation::for_length(n, p.seed, p.rounds));
                   },
                   /*uses_rounds=*/true, /*uniform=*/true);
}

const registrar variable_philox_cpu{variable_philox_entry()};
const registrar lcg_cpu{lcg_entry()};
const registrar walking_cpu{walking_entry()};
}  // namespace
