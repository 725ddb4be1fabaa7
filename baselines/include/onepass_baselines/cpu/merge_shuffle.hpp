// onepass_baselines/cpu/merge_shuffle.hpp — the random merge step of MergeShuffle (Bacher,
// Bodini, Hollender & Lumbroso, "MergeShuffle: a very fast, parallel random permutation
// algorithm", arXiv:1508.03167, 2015: the merge procedure), exposed for the baseline in
// baselines/cpu/merge_shuffle.cpp and for its unit test; not part of the library.
#pragma once

#include <cstddef>
#include <utility>

namespace onepass::baselines {

/// In-place random merge of two runs t[0, n1) and t[n1, n1 + n2): if each run is a
/// uniformly random order of its elements (independently), t[0, n1 + n2) is afterwards a
/// uniformly random order of all n1 + n2 elements (proved by Bacher et al. 2015; checked
/// exactly on small sizes in tests/cpu/test_baselines.cpp).
///
/// Phase 1: position i (starting at 0) takes the next element of the second run with
/// probability 1/2 (swap t[i] with t[j], the second run's head) or keeps the first run's
/// element, each decision a fresh random bit, until the run that the bit asks for is
/// exhausted. Phase 2: each remaining element at position i (i up to n1 + n2 - 1) is
/// swapped with t[m], m exactly uniform in [0, i] — inclusive (a Fisher–Yates insertion).
///
/// Random: any copyable type with `unsigned bit()` (a fresh uniform bit per call) and
/// `std::uint64_t uniform_below(std::uint64_t r)` (exactly uniform in [0, r), r >= 1),
/// e.g. onepass::random::counter_stream. O(n1 + n2) work, sequential.
template <class T, class Random>
void random_merge(T* t, std::size_t n1, std::size_t n2, Random& rng) {
  Random r = rng;  // local copy: lets the compiler keep the generator state in registers
  const std::size_t n = n1 + n2;
  std::size_t i = 0;   // next output position; t[0, i) is merged
  std::size_t j = n1;  // head of the second run; the first run's rest is t[i, j)
  for (;;) {
    const std::size_t from_second = r.bit();
    // Stop when the run the bit asks for is exhausted; written without a branch on the
    // (unpredictable) random bit.
    const std::size_t stop = (from_second & static_cast<std::size_t>(j == n)) |
                             ((from_second ^ 1u) & static_cast<std::size_t>(i == j));
    if (stop) break;
    // Swap t[i] with t[j] when the second run supplies, with itself otherwise.
    const std::size_t src = i + from_second * (j - i);
    const T x = t[src];
    t[src] = t[i];
    t[i] = x;
    j += from_second;
    ++i;
  }
  for (; i < n; ++i) {
    const std::size_t m = static_cast<std::size_t>(r.uniform_below(i + 1));
    using std::swap;
    swap(t[i], t[m]);
  }
  rng = r;
}

}  // namespace onepass::baselines
