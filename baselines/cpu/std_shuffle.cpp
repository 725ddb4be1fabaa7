// baselines/cpu/std_shuffle.cpp — "std::shuffle" column of the paper's Table 2 (§6):
// the single-threaded C++ standard library shuffle (a Fisher–Yates / Durstenfeld
// shuffle, Knuth TAOCP vol. 2 Algorithm 3.4.2P) driven by std::mt19937_64(seed), on a
// copy of the input. O(n) work and time, one thread; no scratch memory.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

#include "baseline_common.hpp"
#include "onepass/registry.hpp"

namespace onepass::baselines {
namespace {

/// out = in, then std::shuffle(out, out + n, std::mt19937_64(seed)). in, out: n
/// elements, not overlapping; n = 0 does nothing. Deterministic per seed for a given
/// standard library. Throws onepass::error on null pointers with n > 0 or overlap.
void std_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("std_shuffle_copy", in, out, n);
  if (n == 0) return;
  std::copy(in, in + n, out);
  std::mt19937_64 engine(seed);
  std::shuffle(out, out + n, engine);
}

const registry::registrar std_shuffle_registration{registry::shuffle_entry{
    "std_shuffle", registry::device::cpu, "std::shuffle",
    "single-threaded std::shuffle with std::mt19937_64(seed) on a copy",
    [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
      std_shuffle_copy(in, out, n, p.seed);
    },
    /*permutes=*/true, /*uses_rounds=*/false, /*uniform=*/true, /*deterministic=*/true}};
}  // namespace

}  // namespace onepass::baselines
