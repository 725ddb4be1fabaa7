// onepass/sort/sort.cuh — onepass::sort: the GPU sort users call. It runs onesweep (LSD,
// sort/onesweep.cuh) or the hybrid MSD radix sort (sort/hybrid_msd.cuh) per call,
// whichever the rule below predicts to be faster, and returns which one it ran.
//
// The rule (choose_algorithm) depends only on what the host knows when the sort is
// enqueued — key width, value width, n and the bit range — so the call stays
// asynchronous (no stream synchronisation, capturable in a CUDA graph). The keys' digit
// histograms, which would tell long common prefixes and skew apart, live on the device;
// instead of reading them on the host (a synchronisation per sort), the hybrid sort uses
// them itself: a bucket whose keys all share the next digit is not moved (hybrid_msd.cuh,
// step 3), so skew costs it a histogram read per such level, not a pass.
// Thresholds: measured on an H100 (sort_headline; see choose_algorithm). The experiments
// log the choice (sort_bench: meta.json "onepass_sort_choice").
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "onepass/sort/hybrid_msd.cuh"
#include "onepass/sort/key_traits.hpp"
#include "onepass/sort/onesweep.cuh"

namespace onepass::sort {

/// The algorithm onepass::sort ran.
enum class algorithm { onesweep, hybrid_msd };

/// "onesweep" or "hybrid_msd".
inline const char* to_string(algorithm a) { return a == algorithm::onesweep ? "onesweep" : "hybrid_msd"; }

/// Largest n for which onepass::sort takes the hybrid MSD sort: uniform keys are
/// local-finished after two levels (2^16 buckets of n / 2^16 keys each) while
/// n / 2^16 stays under local_max by about 6.5 standard deviations of a bucket's
/// Poisson spread (512 keys), i.e. n <= 2^16 x 5632 = 369,098,752 (about 2^28.46).
/// Beyond, a third level whose scatter does not coalesce makes the hybrid sort slower
/// than onesweep (hybrid_msd.cuh, "Global passes").
inline constexpr std::uint64_t hybrid_max_keys = (std::uint64_t{1} << 16) * (hybrid_msd::detail::local_max - 512);

/// The algorithm onepass::sort takes for n keys of key_bytes bytes (4 or 8) with values of
/// value_bytes bytes (0 for keys only, else 4 or 8), sorted on `bits` bits (1..64).
/// The hybrid MSD sort makes about ceil(log_256(n / 6144)) + 1 passes over the data
/// (two scatters and a local finish for 2^28 uniform keys) where onesweep makes
/// ceil(bits / 8) + 1/2; it is taken where it was measured faster on an H100
/// (sort_headline, uniform keys, CUB in the same run; ours in microseconds,
/// onesweep / hybrid): 64-bit keys 1066 / 1129 at 2^24, 4170 / 3749 at 2^26, 15276 /
/// 12197 at 2^28, 64-bit pairs 202 / 284 at 2^20, 2120 / 1695 at 2^24; and not at 2^30
/// (64-bit keys 0.82x, pairs 0.85x onesweep: a third level). So: keys wider than 32
/// sorted bits from 2^25 keys (with values from 2^22) up to hybrid_max_keys; 32-bit keys
/// never (0.50-0.75x onesweep: four onesweep passes leave the MSD sort nothing to save).
inline algorithm choose_algorithm(std::size_t key_bytes, std::size_t value_bytes, std::uint64_t n, unsigned bits) {
  if (key_bytes != 8 || bits <= 32 || n > hybrid_max_keys) return algorithm::onesweep;
  const std::uint64_t from = value_bytes == 0 ? std::uint64_t{1} << 25 : std::uint64_t{1} << 22;
  return n >= from ? algorithm::hybrid_msd : algorithm::onesweep;
}

/// Sorts n keys on the GPU: the output of onesweep::sort_keys and hybrid_msd::sort_keys
/// (they are equal: both stable, same key order), by whichever choose_algorithm picks.
/// Arguments, accepted ranges, temporary storage protocol (d_temp == nullptr: size
/// query) and errors as onesweep::sort_keys (sort/onesweep.cuh); the size query answers
/// for the algorithm the run will take. Returns the algorithm (also for a size query).
template <class Key>
algorithm sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                    unsigned begin_bit = 0, unsigned end_bit = radix_traits<Key>::bits, bool descending = false,
                    cudaStream_t stream = 0) {
  const algorithm a = choose_algorithm(sizeof(Key), 0, n, end_bit > begin_bit ? end_bit - begin_bit : 0);
  if (a == algorithm::hybrid_msd) {
    hybrid_msd::sort_keys(d_temp, temp_bytes, d_keys_in, d_keys_out, n, begin_bit, end_bit, descending, stream);
  } else {
    onesweep::sort_keys(d_temp, temp_bytes, d_keys_in, d_keys_out, n, begin_bit, end_bit, descending, stream);
  }
  return a;
}

/// Sorts n (key, value) pairs on the GPU, stable, by whichever algorithm
/// choose_algorithm picks; as onesweep::sort_pairs otherwise. Returns the algorithm.
template <class Key, class Value>
algorithm sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                     const Value* d_values_in, Value* d_values_out, std::size_t n, unsigned begin_bit = 0,
                     unsigned end_bit = radix_traits<Key>::bits, bool descending = false, cudaStream_t stream = 0) {
  const algorithm a = choose_algorithm(sizeof(Key), sizeof(Value), n, end_bit > begin_bit ? end_bit - begin_bit : 0);
  if (a == algorithm::hybrid_msd) {
    hybrid_msd::sort_pairs(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit, end_bit,
                           descending, stream);
  } else {
    onesweep::sort_pairs(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit, end_bit,
                         descending, stream);
  }
  return a;
}

}  // namespace onepass::sort
