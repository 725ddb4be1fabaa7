// Registers the library's own CPU bijective shuffles (VariablePhilox, LCG).
#include "onepass/registry.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"

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
}  // namespace
