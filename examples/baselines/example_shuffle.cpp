// examples/baselines/example_shuffle.cpp — a shuffle baseline in one file (the README's
// example): copy it into baselines/cpu/ and the build, the experiments (Table 2) and the
// `onepass` CLI pick it up by its registry name. tests/cpu/test_example_baselines.cpp
// builds this file and checks it. This one: a sequential Fisher–Yates (Durstenfeld)
// shuffle driven by std::mt19937_64 seeded with the seed (not a good shuffle to publish:
// it only shows the shape of an entry).
#include <algorithm>
#include <random>

#include "onepass/harness/registry.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"  // check_shuffle_arguments

namespace {

void example_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  onepass::baselines::check_shuffle_arguments("example_shuffle_copy", in, out, n);  // names bad arguments
  std::copy(in, in + n, out);
  std::mt19937_64 engine(seed);
  for (std::size_t i = n; i > 1; --i) std::swap(out[i - 1], out[std::uniform_int_distribution<std::size_t>(0, i - 1)(engine)]);
}

const onepass::registry::registrar example_shuffle_registration{[] {
  onepass::registry::shuffle_entry e{"example_shuffle", onepass::registry::device::cpu};
  e.label = "Example (Fisher-Yates)";
  e.description = "the README's one-file baseline: sequential Fisher-Yates with std::mt19937_64";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const onepass::registry::shuffle_params& p) {
    example_shuffle_copy(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = true;
  return e;
}()};

}  // namespace
