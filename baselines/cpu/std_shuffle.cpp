// baselines/cpu/std_shuffle.cpp — "std::shuffle" column of the paper's Table 2 (§6):
// the single-threaded C++ standard library shuffle (a Fisher–Yates / Durstenfeld
// shuffle, Knuth TAOCP vol. 2 Algorithm 3.4.2P) driven by std::mt19937_64, on a copy
// of the input. O(n) work and time, one thread; no scratch memory.
//
// The engine is seeded through std::seed_seq from the two 32-bit halves of the seed,
// the standard way to spread a small integer seed over the engine's state. With
// direct seeding and the consecutive seeds S, S+1, ... that the §5 tests use
// (sample k uses seed S+k), S = 1 and 1e5 samples of n = 5 gave chi-square
// p = 0.006 and a one-sample MMD z of -4.7, while other seed blocks looked uniform;
// we did not establish the cause and prefer the decorrelated seeding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

#include "onepass/harness/registry.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"

namespace onepass::baselines {
namespace {

/// out = in, then std::shuffle(out, out + n, engine) with engine a std::mt19937_64
/// seeded by std::seed_seq{low 32 bits of seed, high 32 bits}. in, out: n
/// elements, not overlapping; n = 0 does nothing. Deterministic per seed for a given
/// standard library. Throws onepass::error on null pointers with n > 0 or overlap.
void std_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("std_shuffle_copy", in, out, n);
  if (n == 0) return;
  std::copy(in, in + n, out);
  std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
  std::mt19937_64 engine(sequence);
  std::shuffle(out, out + n, engine);
}

const registry::registrar std_shuffle_registration{[] {
  registry::shuffle_entry e{"std_shuffle", registry::device::cpu};
  e.label = "std::shuffle";
  e.description = "single-threaded std::shuffle with std::mt19937_64 (seeded through std::seed_seq) on a copy";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
    std_shuffle_copy(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  return e;
}()};
}  // namespace

}  // namespace onepass::baselines
