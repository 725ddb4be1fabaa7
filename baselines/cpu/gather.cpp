// baselines/cpu/gather.cpp — "Gather": the parallel random-gather upper bound of the
// paper's Table 2 (Mitchell et al., §2.2 and Fig. 1; CPU version with oneTBB, §6).
//
// out[i] = in[h(i) mod n] for i in [0, n), with h(i) a counter-based hash of (seed, i)
// computed in registers (onepass/random/counter_hash.hpp) and reduced to [0, n) by
// Lemire's multiply-shift (the same role as "mod n" without a 64-bit division).
// Contiguous writes, random reads: the memory traffic any one-pass gather shuffle must
// at least pay. It is NOT a permutation (indices repeat), so the registry marks it
// permutes = false. O(n) work, O(n / p) time on p threads, no scratch memory.
#include <cstddef>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"

namespace onepass::baselines {
namespace {

/// Random gather: out[i] = in[fast_range(h(seed, i), n)] for i in [0, n).
/// in, out: n elements, not overlapping; n = 0 does nothing. Deterministic per seed.
/// Throws onepass::error on null pointers with n > 0 or overlapping ranges.
void random_gather(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("random_gather", in, out, n);
  if (n == 0) return;
  const random::counter_hash hash(domain_seed(seed, algorithm_domain::gather), 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, std::size_t{1} << 14),
                    [=](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i != r.end(); ++i)
                        out[i] = in[random::fast_range(hash(i), n)];
                    });
}

const registry::registrar gather_registration{[] {
  registry::shuffle_entry e{"gather", registry::device::cpu};
  e.label = "Gather";
  e.description = "random gather upper bound out[i] = in[h(i) mod n] (not a permutation), oneTBB parallel_for";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
    random_gather(in, out, n, p.seed);
  };
  e.permutes = false;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  return e;
}()};
}  // namespace

}  // namespace onepass::baselines
