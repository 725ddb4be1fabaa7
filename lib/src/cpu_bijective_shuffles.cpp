// Registers the library's own CPU bijective shuffles (VariablePhilox, LCG) and the
// shuffle through the walking permutation (cycle walking over VariablePhilox).
#include "onepass/registry.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/walking_permutation.hpp"

namespace {
using onepass::registry::registrar;
using onepass::registry::shuffle_entry;
using onepass::registry::shuffle_params;

const registrar variable_philox_cpu{shuffle_entry{
    "variable_philox", onepass::registry::device::cpu, "VarPhilox",
    "bijective shuffle, VariablePhilox (paper §3.2), fused oneTBB scan (Algorithm 1)",
    [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
      onepass::shuffle::variable_philox_shuffle_copy(in, out, n, p.seed, p.rounds);
    },
    /*permutes=*/true, /*uses_rounds=*/true, /*uniform=*/true, /*deterministic=*/true, /*gpu_run=*/{}}};

const registrar lcg_cpu{shuffle_entry{
    "lcg", onepass::registry::device::cpu, "LCG", "bijective shuffle, LCG bijection (paper §3.1), fused oneTBB scan",
    [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
      onepass::shuffle::lcg_shuffle_copy(in, out, n, p.seed);
    },
    /*permutes=*/true, /*uses_rounds=*/false, /*uniform=*/false, /*deterministic=*/true, /*gpu_run=*/{}}};

// out[j] = in[sigma(j)] with sigma = walking_permutation::for_length(n, seed, rounds): the
// same VariablePhilox bijection as variable_philox above, cycle-walked instead of compacted
// (a different permutation for the same seed).
// uniform: the walk twists f so that its parity is random (walking_permutation.hpp, "Parity";
// without the twist every sigma was even at n = 2^b and fig06's chi-square failed at every
// round count).
const registrar walking_cpu{shuffle_entry{
    "walking", onepass::registry::device::cpu, "Walking",
    "walking permutation: cycle walking (Black & Rogaway, CT-RSA 2002) over VariablePhilox, "
    "out[j] = in[sigma(j)], oneTBB",
    [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const shuffle_params& p) {
      onepass::shuffle::walking_shuffle(in, out, n,
                                        onepass::shuffle::walking_permutation::for_length(n, p.seed, p.rounds));
    },
    /*permutes=*/true, /*uses_rounds=*/true, /*uniform=*/true, /*deterministic=*/true, /*gpu_run=*/{}}};
}  // namespace
