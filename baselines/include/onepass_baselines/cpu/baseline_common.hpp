// onepass_baselines/cpu/baseline_common.hpp — small helpers shared by the CPU shuffle
// baselines of the paper's Table 2 (argument checks, Fisher–Yates, scratch buffers).
// Shared by the baselines (target onepass_baselines) and their tests; not part of the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/random/counter_hash.hpp"

namespace onepass::baselines {

/// Checks the arguments every out-of-place baseline shuffle takes: in and out must be
/// non-null when n > 0 and the ranges in[0, n) and out[0, n) must not overlap.
/// n == 0 accepts null pointers. Throws onepass::error naming `function` and the argument.
inline void check_shuffle_arguments(const char* function, const std::uint64_t* in, const std::uint64_t* out,
                                    std::size_t n) {
  if (n == 0) return;
  protocol::check_not_null(function, "in", in, "when n > 0");
  protocol::check_not_null(function, "out", out, "when n > 0");
  protocol::check_byte_count(function, "n", n, sizeof(std::uint64_t));
  protocol::check_disjoint(function, "out", out, "in", in, n, sizeof(std::uint64_t), " (out-of-place operation)");
}

/// Per-algorithm random domains, so that two baselines given the same seed draw from
/// unrelated streams (otherwise RS and MergeShuffle, which both reduce to Fisher–Yates
/// on small inputs, would return the same permutation for the same seed).
enum class algorithm_domain : std::uint64_t {
  gather = 1,
  rao_sandelius = 2,
  merge_shuffle = 3,
  dart_throwing = 4,
  sort_shuffle = 5,
};

/// The seed an algorithm keys its counter_hash streams with: the key of stream
/// `domain` of `seed` (a bijection of seed for each domain).
inline std::uint64_t domain_seed(std::uint64_t seed, algorithm_domain domain) {
  return random::counter_hash(seed, static_cast<std::uint64_t>(domain)).key();
}

/// An array of n elements of trivially constructible T whose contents are left
/// uninitialised (no zero-fill pass over memory the algorithm overwrites anyway).
/// Throws std::bad_alloc when the memory is not available.
template <class T>
std::unique_ptr<T[]> uninitialized_array(std::size_t n) {
  return std::unique_ptr<T[]>(new T[n]);  // default-initialisation: no value written
}

/// Durstenfeld's Fisher–Yates shuffle of a[0, n) in place: for i = n-1 down to 1,
/// swap a[i] with a[j], j exactly uniform in [0, i]. O(n) work, sequential.
/// Uniform over all n! orders given uniform words from `rng`.
template <class T>
void fisher_yates(T* a, std::size_t n, random::counter_stream& rng) {
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.uniform_below(i));
    using std::swap;
    swap(a[i - 1], a[j]);
  }
}

/// Inside-out Fisher–Yates (Durstenfeld/Knuth, out-of-place form): writes a uniformly
/// random permutation of src[0, n) to dst[0, n) in one pass; for i = 0..n-1, j is exactly
/// uniform in [0, i], dst[i] = dst[j], dst[j] = src[i]. src and dst must not overlap.
/// O(n) work, sequential; never reads an element of dst it has not written.
template <class T>
void fisher_yates_copy(const T* src, T* dst, std::size_t n, random::counter_stream& rng) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = static_cast<std::size_t>(rng.uniform_below(i + 1));
    if (j != i) dst[i] = dst[j];
    dst[j] = src[i];
  }
}

}  // namespace onepass::baselines
