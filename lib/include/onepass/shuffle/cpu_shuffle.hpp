// onepass/shuffle/cpu_shuffle.hpp — the bijective shuffle on the CPU (oneTBB).
//
// Public names (issue 31): onepass::shuffle::cpu::bijective_shuffle / bijective_unshuffle
// (out of place, the contract of gpu::bijective_shuffle / gpu::bijective_unshuffle),
// cpu::bijective_shuffle_in_place / bijective_unshuffle_in_place, and the seeded
// cpu::variable_philox_shuffle / variable_philox_unshuffle / lcg_shuffle; the count is
// num_items. The old names in onepass::shuffle (bijective_shuffle_copy, the in-place
// bijective_shuffle, variable_philox_shuffle_copy, ...) stay one release as deprecated
// forwarders.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4,
// Algorithm 1. For i in [0, 2^b) in order, w_i = f(i) is flagged when w_i < m (m = num_items);
// the j-th flagged index gathers out[j] = in[w_i]. Here evaluation, flag, scan and
// gather are fused into one tbb::parallel_scan: no n-sized index or flag buffer.
// The output for a seed equals thrust::shuffle_copy(thrust::host, ...,
// std::mt19937_64(seed)) element for element (tests/cpu/test_thrust_oracle.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_scan.h>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"

namespace onepass::shuffle {

/// Largest sequence length (num_items) the CPU shuffle accepts (the domain 2^b must fit in 64 bits).
inline constexpr std::uint64_t max_length = std::uint64_t{1} << 63;

namespace detail {

/// Indices per oneTBB task: large enough to amortise scheduling, small enough to balance.
inline constexpr std::uint64_t scan_grain = 1u << 14;

/// Argument checks of the cpu:: shuffles; m is the caller's num_items, `function` its name.
template <class Bijection>
void check_arguments(const char* function, const void* in, const void* out, std::size_t m, std::size_t element_bytes,
                     const Bijection& f, bool allow_same) {
  protocol::check_at_most(function, "num_items", m, max_length, "in [0, 2^63]");
  if (m == 0) return;
  protocol::check_not_null(function, "in", in, "when num_items > 0");
  protocol::check_not_null(function, "out", out, "when num_items > 0");
  const unsigned bits = f.domain_bits();
  require(bits >= 64 || (std::uint64_t{1} << bits) >= m, function, "bijection",
          "domain 2^" + std::to_string(bits) + " must hold num_items = " + std::to_string(m) + " indices");
  if (!(allow_same && in == out))
    protocol::check_disjoint(function, "out", out, "in", in, m, element_bytes, " (out-of-place operation)");
}

/// Number of consecutive indices whose bijection rounds are interleaved on the CPU.
inline constexpr int run_length = 8;
/// Indices evaluated and compacted before their gathers, so the gathers of one
/// block run without branches and their cache misses overlap.
inline constexpr std::uint64_t prefetch_block = 64;

/// True when Bijection has images_of_run<K>(first, out) (VariablePhilox does).
template <class Bijection, class = void>
struct has_images_of_run : std::false_type {};
template <class Bijection>
struct has_images_of_run<Bijection, std::void_t<decltype(std::declval<const Bijection&>().template images_of_run<8>(
                                        std::uint64_t{}, std::declval<std::uint64_t*>()))>> : std::true_type {};

/// w[k] = f(first + k) for k < prefetch_block.
template <class Bijection>
inline void images_of_block(const Bijection& f, std::uint64_t first, std::uint64_t* w) {
  if constexpr (has_images_of_run<Bijection>::value) {
    for (std::uint64_t r = 0; r < prefetch_block; r += run_length) f.template images_of_run<run_length>(first + r, w + r);
  } else {
    for (std::uint64_t k = 0; k < prefetch_block; ++k) w[k] = f(first + k);
  }
}

/// Body of the fused scan. Forward: out[j] = in[f(i)] (gather). Inverse: out[f(i)] = in[j]
/// (scatter), which applies the inverse of the forward permutation.
template <class T, class Bijection, bool Inverse>
struct compaction_body {
  const T* in;
  T* out;
  std::uint64_t m;
  const Bijection* f;
  std::uint64_t count = 0;  // flagged indices before the current range (inclusive prefix so far)

  compaction_body(const T* in_, T* out_, std::uint64_t m_, const Bijection* f_) : in(in_), out(out_), m(m_), f(f_) {}
  compaction_body(compaction_body& other, tbb::split) : in(other.in), out(other.out), m(other.m), f(other.f) {}

  template <class Tag>
  void operator()(const tbb::blocked_range<std::uint64_t>& range, Tag) {
    std::uint64_t j = count;
    const Bijection bijection = *f;  // a local copy: its fields stay in registers
    auto visit = [&](std::uint64_t w) {
      if (w < m) {
        if (Tag::is_final_scan()) {
          if constexpr (Inverse) {
            out[w] = in[j];
          } else {
            out[j] = in[w];
          }
        }
        ++j;
      }
    };
    std::uint64_t i = range.begin();
    // Software pipeline over blocks: evaluate and compact block b+1, prefetch what
    // it will touch, then gather (or scatter) block b, whose lines are in cache by
    // now. The compaction is branch-free and the gather loop has no branches.
    std::uint64_t selected[2][prefetch_block];
    std::uint64_t pending = 0;  // flagged images of the previous block, not yet moved
    int slot = 0;
    for (; i + prefetch_block <= range.end(); i += prefetch_block) {
      std::uint64_t w[prefetch_block];
      images_of_block(bijection, i, w);
      std::uint64_t* current = selected[slot];
      std::uint64_t c = 0;
      for (std::uint64_t k = 0; k < prefetch_block; ++k) {
        current[c] = w[k];
        c += w[k] < m ? 1 : 0;
      }
      if (Tag::is_final_scan()) {
        for (std::uint64_t t = 0; t < c; ++t) {
          if constexpr (Inverse) {
            __builtin_prefetch(out + current[t], 1);
          } else {
            __builtin_prefetch(in + current[t], 0);
          }
        }
        move_block(selected[slot ^ 1], pending, j);
      }
      j += pending;
      pending = c;
      slot ^= 1;
    }
    if (Tag::is_final_scan()) move_block(selected[slot ^ 1], pending, j);
    j += pending;
    for (; i != range.end(); ++i) visit(bijection(i));
    count = j;
  }
  // Moves the `count` flagged elements of one block, the first to output rank j.
  void move_block(const std::uint64_t* images, std::uint64_t count, std::uint64_t j) {
    for (std::uint64_t t = 0; t < count; ++t) {
      if constexpr (Inverse) {
        out[images[t]] = in[j + t];
      } else {
        out[j + t] = in[images[t]];
      }
    }
  }
  void reverse_join(compaction_body& left) { count += left.count; }
  void assign(compaction_body& other) { count = other.count; }
};

template <class T, class Bijection, bool Inverse>
void run_compaction(const T* in, T* out, std::size_t m, const Bijection& f) {
  if (m == 0) return;
  const std::uint64_t n = std::uint64_t{1} << f.domain_bits();  // domain_bits() <= 63, checked by callers
  compaction_body<T, Bijection, Inverse> body(in, out, m, &f);
  tbb::parallel_scan(tbb::blocked_range<std::uint64_t>(0, n, scan_grain), body);
}

}  // namespace detail

namespace cpu {

/// Out-of-place bijective shuffle: out[j] = in[f(i_j)], where i_0 < i_1 < ... are the
/// indices of [0, 2^b) that f maps below num_items (Algorithm 1, fused scan). The same
/// name and contract as gpu::bijective_shuffle (gpu_shuffle.cuh; in, out, num_items, f,
/// without the GPU's temporary storage and stream) and the same permutation.
///
/// T: any trivially copyable type. in, out: num_items elements each, not overlapping.
/// f: a bijection of [0, 2^b) with 2^b >= num_items and b <= 63 (VariablePhilox or LCG).
/// num_items in [0, 2^63]. Throws onepass::error on null pointers (num_items > 0), overlap,
/// num_items out of range or a domain too small; out is untouched then.
template <class T, class Bijection>
void bijective_shuffle(const T* in, T* out, std::size_t num_items, const Bijection& f) {
  static_assert(std::is_trivially_copyable_v<T>, "cpu::bijective_shuffle: T must be trivially copyable");
  constexpr const char* function = "onepass::shuffle::cpu::bijective_shuffle";
  detail::check_arguments(function, in, out, num_items, sizeof(T), f, false);
  require(f.domain_bits() <= 63, function, "bijection", "domain must be at most 2^63");
  detail::run_compaction<T, Bijection, false>(in, out, num_items, f);
}

/// Out-of-place inverse: bijective_unshuffle(bijective_shuffle(x)) == x for the same f.
/// Walks the same fused scan and scatters out[f(i_j)] = in[j], i.e. applies the
/// inverse of the compacted permutation (which thrust and the paper's code lack).
/// The contract of gpu::bijective_unshuffle. Arguments and errors as bijective_shuffle.
template <class T, class Bijection>
void bijective_unshuffle(const T* in, T* out, std::size_t num_items, const Bijection& f) {
  static_assert(std::is_trivially_copyable_v<T>, "cpu::bijective_unshuffle: T must be trivially copyable");
  constexpr const char* function = "onepass::shuffle::cpu::bijective_unshuffle";
  detail::check_arguments(function, in, out, num_items, sizeof(T), f, false);
  require(f.domain_bits() <= 63, function, "bijection", "domain must be at most 2^63");
  detail::run_compaction<T, Bijection, true>(in, out, num_items, f);
}

/// In-place convenience wrapper (CPU only): shuffles data[0, num_items) through a temporary
/// copy (num_items extra elements); data ends as cpu::bijective_shuffle(copy, data, ...)
/// would write it. data: num_items elements (may be null when num_items == 0).
/// Other arguments and errors as bijective_shuffle (overlap is not an error here).
template <class T, class Bijection>
void bijective_shuffle_in_place(T* data, std::size_t num_items, const Bijection& f) {
  detail::check_arguments("onepass::shuffle::cpu::bijective_shuffle_in_place", data, data, num_items, sizeof(T), f,
                          true);
  std::vector<T> copy(data, data + num_items);
  cpu::bijective_shuffle(copy.data(), data, num_items, f);
}

/// In-place inverse of bijective_shuffle_in_place for the same f (through a temporary copy,
/// as cpu::bijective_unshuffle). Arguments and errors as bijective_shuffle_in_place.
template <class T, class Bijection>
void bijective_unshuffle_in_place(T* data, std::size_t num_items, const Bijection& f) {
  detail::check_arguments("onepass::shuffle::cpu::bijective_unshuffle_in_place", data, data, num_items, sizeof(T), f,
                          true);
  std::vector<T> copy(data, data + num_items);
  cpu::bijective_unshuffle(copy.data(), data, num_items, f);
}

/// The paper's shuffle for a seed, out of place: cpu::bijective_shuffle with VariablePhilox
/// of schedule_domain_bits(num_items) and keys from std::mt19937_64(seed); rounds in
/// [1, 64] (default 24). in, out, num_items and errors as bijective_shuffle.
template <class T>
void variable_philox_shuffle(const T* in, T* out, std::size_t num_items, std::uint64_t seed,
                             unsigned rounds = bijection::default_rounds) {
  cpu::bijective_shuffle(in, out, num_items, bijection::variable_philox::for_length(num_items, seed, rounds));
}

/// Inverse of variable_philox_shuffle for the same seed and rounds (out of place).
template <class T>
void variable_philox_unshuffle(const T* in, T* out, std::size_t num_items, std::uint64_t seed,
                               unsigned rounds = bijection::default_rounds) {
  cpu::bijective_unshuffle(in, out, num_items, bijection::variable_philox::for_length(num_items, seed, rounds));
}

/// The LCG bijective shuffle for a seed (a, c from std::mt19937_64(seed)), out of place.
/// in, out, num_items and errors as bijective_shuffle.
template <class T>
void lcg_shuffle(const T* in, T* out, std::size_t num_items, std::uint64_t seed) {
  cpu::bijective_shuffle(in, out, num_items, bijection::lcg::for_length(num_items, seed));
}

}  // namespace cpu

// Deprecated aliases (issue 31 naming convention: the device as a namespace, one name one
// contract on both devices, the count num_items), removed after one release. Note the
// contracts: the old in-place bijective_shuffle(data, m, f) is cpu::bijective_shuffle_in_place,
// the old out-of-place bijective_shuffle_copy is cpu::bijective_shuffle. Call the new names
// qualified (cpu::...).

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::bijective_shuffle(in, out, num_items, f).
template <class T, class Bijection>
[[deprecated("use onepass::shuffle::cpu::bijective_shuffle")]] void bijective_shuffle_copy(
    const T* in, T* out, std::size_t num_items, const Bijection& f) {
  cpu::bijective_shuffle(in, out, num_items, f);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::bijective_unshuffle(in, out, num_items, f).
template <class T, class Bijection>
[[deprecated("use onepass::shuffle::cpu::bijective_unshuffle")]] void bijective_unshuffle_copy(
    const T* in, T* out, std::size_t num_items, const Bijection& f) {
  cpu::bijective_unshuffle(in, out, num_items, f);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::bijective_shuffle_in_place(data, num_items, f) (in place; the out-of-place
/// cpu::bijective_shuffle is the old bijective_shuffle_copy).
template <class T, class Bijection>
[[deprecated("use onepass::shuffle::cpu::bijective_shuffle_in_place")]] void bijective_shuffle(
    T* data, std::size_t num_items, const Bijection& f) {
  cpu::bijective_shuffle_in_place(data, num_items, f);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::bijective_unshuffle_in_place(data, num_items, f).
template <class T, class Bijection>
[[deprecated("use onepass::shuffle::cpu::bijective_unshuffle_in_place")]] void bijective_unshuffle(
    T* data, std::size_t num_items, const Bijection& f) {
  cpu::bijective_unshuffle_in_place(data, num_items, f);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::variable_philox_shuffle(in, out, num_items, seed, rounds).
template <class T>
[[deprecated("use onepass::shuffle::cpu::variable_philox_shuffle")]] void variable_philox_shuffle_copy(
    const T* in, T* out, std::size_t num_items, std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  cpu::variable_philox_shuffle(in, out, num_items, seed, rounds);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::variable_philox_unshuffle(in, out, num_items, seed, rounds).
template <class T>
[[deprecated("use onepass::shuffle::cpu::variable_philox_unshuffle")]] void variable_philox_unshuffle_copy(
    const T* in, T* out, std::size_t num_items, std::uint64_t seed, unsigned rounds = bijection::default_rounds) {
  cpu::variable_philox_unshuffle(in, out, num_items, seed, rounds);
}

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::lcg_shuffle(in, out, num_items, seed).
template <class T>
[[deprecated("use onepass::shuffle::cpu::lcg_shuffle")]] void lcg_shuffle_copy(
    const T* in, T* out, std::size_t num_items, std::uint64_t seed) {
  cpu::lcg_shuffle(in, out, num_items, seed);
}

}  // namespace onepass::shuffle
