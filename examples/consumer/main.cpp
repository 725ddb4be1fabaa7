// Shuffles 0..n-1 with onepass's CPU bijective shuffle, checks that the result is a
// permutation that is not the identity and that the inverse shuffle restores it, then
// sorts it back with the CPU radix sort; reads the warp Gaussian generator's table (from
// the compiled part of the library). Exit code 0 when every check holds.
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include <onepass/gaussian/table.hpp>
#include <onepass/shuffle/cpu_shuffle.hpp>
#include <onepass/sort/cpu_radix_sort.hpp>
#include <onepass/version.hpp>

static int fail(const char* what) {
  std::fprintf(stderr, "consumer: FAILED: %s\n", what);
  return 1;
}

int main() {
  const std::size_t n = 100000;
  const std::uint64_t seed = 42;
  std::vector<std::uint32_t> in(n), shuffled(n), restored(n), sorted(n);
  std::iota(in.begin(), in.end(), 0u);

  onepass::shuffle::cpu::variable_philox_shuffle(in.data(), shuffled.data(), n, seed);
  if (shuffled == in) return fail("the shuffle left the input in order");
  onepass::shuffle::cpu::variable_philox_unshuffle(shuffled.data(), restored.data(), n, seed);
  if (restored != in) return fail("the inverse shuffle did not restore the input");

  onepass::sort::cpu::sort_keys(shuffled.data(), sorted.data(), n);
  if (sorted != in) return fail("sorting the shuffle did not give 0..n-1 (not a permutation?)");

  if (!(onepass::gaussian::default_table().coeff.p[0] > 0)) return fail("the Gaussian table has no weights");

  std::printf("consumer: onepass %s shuffled and sorted %zu keys: OK\n", ONEPASS_VERSION_STRING, n);
  return 0;
}
