// baselines/cpu/dart_throwing.cpp — "DartThrowing" column of the paper's Table 2:
// the dart-throwing permutation that the paper's §2.1 attributes to Reif & Miller [41]
// and Reif & Rajasekaran [49] (e.g. S. Rajasekaran, J. H. Reif, "Optimal and
// sublogarithmic time randomized parallel sorting algorithms", SIAM J. Comput. 18, 1989),
// with prefix-sum compaction; CPU version with oneTBB (paper §6).
//
// Every element i throws darts at a table of 2n slots (std::atomic<uint64_t>, empty =
// all ones) until a compare-and-swap claims an empty slot for its index i; a collision
// or a rejected draw is retried with fresh randomness. The occupied slots are then
// compacted in order by one tbb::parallel_scan that also gathers out[rank] = in[index].
// Each throw is exactly uniform over the 2n slots (Lemire's multiply-shift with
// rejection), so each placement lands on a uniformly random empty slot and the order of
// the occupied slots is a uniformly random permutation — assuming, as the analyses do,
// that which thread's CAS comes first does not depend on the slots drawn.
//
// Randomness: with s = domain_seed(seed, dart_throwing), throw a (0, 1, ...) of element i
// uses word i of counter_hash(s, 0) (a = 0) or of its substream a (a >= 1). Which element wins a contested slot depends on
// thread timing, so the output is NOT reproducible for a seed (deterministic = false).
//
// Complexity: O(n) expected work (at most n of the 2n slots are ever full, so a throw
// succeeds with probability >= 1/2); the most throws any element needs is O(log n)
// w.h.p.; the compaction is one O(n) scan. 2n words of scratch memory.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_scan.h>

#include "onepass/harness/registry.hpp"
#include "onepass/random/counter_hash.hpp"
#include "onepass_baselines/cpu/baseline_common.hpp"

namespace onepass::baselines {
namespace {

using slot_t = std::atomic<std::uint64_t>;
constexpr std::uint64_t empty_slot = ~std::uint64_t{0};  ///< never an element index (n < 2^63)
constexpr std::size_t grain = std::size_t{1} << 14;
constexpr std::size_t prefetch_distance = 16;  ///< elements ahead whose first slot is prefetched

/// parallel_scan body: counts occupied slots; in the final pass gathers out[rank] = in[slot].
struct compaction_body {
  const slot_t* table;
  const std::uint64_t* in;
  std::uint64_t* out;
  std::size_t count = 0;  // occupied slots before the current range

  compaction_body(const slot_t* t, const std::uint64_t* i, std::uint64_t* o) : table(t), in(i), out(o) {}
  compaction_body(compaction_body& other, tbb::split) : table(other.table), in(other.in), out(other.out) {}

  template <class Tag>
  void operator()(const tbb::blocked_range<std::size_t>& range, Tag) {
    std::size_t j = count;
    for (std::size_t s = range.begin(); s != range.end(); ++s) {
      const std::uint64_t index = table[s].load(std::memory_order_relaxed);
      if (index != empty_slot) {
        if (Tag::is_final_scan()) out[j] = in[index];
        ++j;
      }
    }
    count = j;
  }
  void reverse_join(compaction_body& left) { count += left.count; }
  void assign(compaction_body& other) { count = other.count; }
};

/// Dart-throwing shuffle of in[0, n) into out[0, n) (out-of-place, not overlapping).
/// Uniform, but not reproducible under parallel execution. n = 0 does nothing. Throws
/// onepass::error on null pointers with n > 0, overlap or n > SIZE_MAX / 16;
/// std::bad_alloc when the 2n-slot table is unavailable.
void dart_throwing_shuffle_copy(const std::uint64_t* in, std::uint64_t* out, std::size_t n, std::uint64_t seed) {
  check_shuffle_arguments("dart_throwing_shuffle_copy", in, out, n);
  if (n == 0) return;
  require(n <= SIZE_MAX / (2 * sizeof(slot_t)), "dart_throwing_shuffle_copy", "n",
          "must be at most SIZE_MAX / 16 (the table has 2n 8-byte slots), got " + std::to_string(n));
  const std::size_t slots = 2 * n;
  auto table = uninitialized_array<slot_t>(slots);
  slot_t* t = table.get();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, slots, grain), [t](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t s = r.begin(); s != r.end(); ++s) t[s].store(empty_slot, std::memory_order_relaxed);
  });

  const random::counter_hash first(domain_seed(seed, algorithm_domain::dart_throwing), 0);
  const std::uint64_t range = slots;
  const std::uint64_t reject_below = (0 - range) % range;  // 2^64 mod range: low parts below it are biased
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain), [=](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      // Software prefetch (write intent) of the first slot of element i + prefetch_distance:
      // a locked CAS stalls on its cache miss, so misses are overlapped here instead.
      if (r.end() - i > prefetch_distance)
        __builtin_prefetch(&t[random::mul_high(first(i + prefetch_distance), range)], 1);
      for (std::uint64_t attempt = 0;; ++attempt) {
        const std::uint64_t word = attempt == 0 ? first(i) : first.substream(attempt)(i);
        if (word * range < reject_below) continue;  // exact uniformity: redraw
        slot_t& slot = t[random::mul_high(word, range)];
        std::uint64_t expected = empty_slot;
        if (slot.load(std::memory_order_relaxed) == empty_slot &&
            slot.compare_exchange_strong(expected, i, std::memory_order_relaxed))
          break;
      }
    }
  });

  compaction_body body(t, in, out);
  tbb::parallel_scan(tbb::blocked_range<std::size_t>(0, slots, grain), body);
}

const registry::registrar dart_throwing_registration{[] {
  registry::shuffle_entry e{"dart_throwing", registry::device::cpu};
  e.label = "DartThrowing";
  e.description = "dart throwing into 2n atomic slots (CAS, retry on collision) + parallel_scan compaction, oneTBB";
  e.run = [](const std::uint64_t* in, std::uint64_t* out, std::size_t n, const registry::shuffle_params& p) {
    dart_throwing_shuffle_copy(in, out, n, p.seed);
  };
  e.permutes = true;
  e.uses_rounds = false;
  e.uniform = true;
  e.deterministic = false;
  return e;
}()};

}  // namespace
}  // namespace onepass::baselines
