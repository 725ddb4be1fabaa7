// onepass/shuffle/cpu_images.hpp — the bijective shuffle's permutation as a stream of
// indices, in order, on the CPU (oneTBB): the flagged images w_j of Algorithm 1 handed to
// the caller batch by batch, without gathering any data and without a num_items-sized
// buffer: onepass::shuffle::cpu::for_each_image (issue 31 name; the old
// onepass::shuffle::for_each_image stays one release as a deprecated forwarder).
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4, Algorithm 1:
// for i = 0, 1, ... in order, w_i = f(i) is kept when w_i < num_items; the j-th kept image
// is the index of the input element that a shuffle places at output position j. The stream
// is therefore exactly the permutation that shuffle::cpu::bijective_shuffle (cpu_shuffle.hpp)
// applies: shuffling the sequence 0, 1, ..., num_items - 1 with the same bijection writes the
// same indices (tests/cpu/test_cpu_images.cpp checks this). Used by the `onepass shuf` command
// (cli/shuf_command.cpp) to print lines, their first K, or the inverse permutation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <tbb/parallel_for.h>

#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/error.hpp"

namespace onepass::shuffle {

namespace detail {

/// Indices per oneTBB task of for_each_image, and tasks per batch: a batch is 2^20 indices
/// of the domain (8 MiB of images), evaluated in parallel, then passed on in order.
inline constexpr std::uint64_t images_part = std::uint64_t{1} << 14;
inline constexpr std::uint64_t images_parts = 64;

}  // namespace detail

namespace cpu {

/// Calls sink(images, count) with the images w = f(i) < num_items of i = 0, 1, 2, ... in
/// order, in batches (count <= 2^20 per call, possibly 0), until `limit` images have been
/// passed or the domain of f is exhausted; the images passed are the first
/// min(limit, num_items) indices of the permutation of [0, num_items) that f defines
/// (Algorithm 1's compaction order). CPU only (no GPU twin).
///
/// f: a bijection with domain_bits() in [0, 64] and operator()(std::uint64_t) (onepass's
/// variable_philox or lcg, e.g. variable_philox::for_length(num_items, seed, rounds)); its
/// domain 2^domain_bits() must hold num_items. num_items: the length of the permuted
/// sequence, any value (0 passes nothing). limit: how many images to pass, any value
/// (limit >= num_items passes the whole permutation). sink: callable as
/// sink(const std::uint64_t* images, std::size_t count); `images` is valid only during the
/// call; an exception from sink stops the stream and propagates. Memory: one batch of 2^20
/// images (8 MiB, less for smaller domains).
/// Throws onepass::error naming `f` when its domain cannot hold num_items.
template <class Bijection, class Sink>
void for_each_image(const Bijection& f, std::uint64_t num_items, std::uint64_t limit, Sink&& sink) {
  constexpr const char* function = "onepass::shuffle::cpu::for_each_image";
  const std::uint64_t m = num_items;
  if (m == 0 || limit == 0) return;
  const unsigned bits = f.domain_bits();
  require(bits <= 64, function, "f", "domain_bits() must be in [0, 64], got " + std::to_string(bits));
  require(bits >= 64 || (std::uint64_t{1} << bits) >= m, function, "f",
          "domain 2^" + std::to_string(bits) + " must hold num_items = " + std::to_string(m) + " indices");
  constexpr std::uint64_t part = detail::images_part, parts = detail::images_parts, batch = part * parts;
  const std::uint64_t last = low_mask(bits);  // the domain is [0, last]
  const std::uint64_t domain_batch = last >= batch - 1 ? batch : last + 1;
  std::unique_ptr<std::uint64_t[]> images(new std::uint64_t[domain_batch]);
  std::uint64_t counts[parts];
  std::uint64_t passed = 0;
  for (std::uint64_t base = 0;; base += batch) {
    const std::uint64_t span_last = std::min(last, base + (batch - 1));  // base is a multiple of 2^20: no overflow
    const std::uint64_t span = span_last - base + 1;
    const std::uint64_t used_parts = (span + part - 1) / part;
    auto evaluate = [&](std::uint64_t p) {
      const std::uint64_t first = base + p * part;
      const std::uint64_t end = first + std::min(part, span - p * part);
      std::uint64_t* out = images.get() + p * part;
      std::uint64_t c = 0;
      std::uint64_t i = first;
      if constexpr (std::is_same_v<Bijection, bijection::variable_philox>) {
        constexpr int run = 8;  // interleaved Feistel rounds of 8 consecutive indices
        std::uint64_t w[run];
        for (; i + run <= end; i += run) {
          f.template images_of_run<run>(i, w);
          for (int k = 0; k < run; ++k) {
            out[c] = w[k];
            c += w[k] < m ? 1 : 0;
          }
        }
      }
      for (; i < end; ++i) {
        const std::uint64_t w = f(i);
        out[c] = w;
        c += w < m ? 1 : 0;
      }
      counts[p] = c;
    };
    if (used_parts > 1) {
      tbb::parallel_for(std::uint64_t{0}, used_parts, evaluate);
    } else {
      evaluate(0);
    }
    for (std::uint64_t p = 0; p < used_parts; ++p) {
      const std::uint64_t take = std::min(counts[p], limit - passed);
      sink(static_cast<const std::uint64_t*>(images.get() + p * part), static_cast<std::size_t>(take));
      passed += take;
      if (passed == limit) return;
    }
    if (span_last == last) return;
  }
}

}  // namespace cpu

/// Deprecated alias (issue 31 naming convention), removed after one release:
/// cpu::for_each_image(f, num_items, limit, sink).
template <class Bijection, class Sink>
[[deprecated("use onepass::shuffle::cpu::for_each_image")]] void for_each_image(
    const Bijection& f, std::uint64_t num_items, std::uint64_t limit, Sink&& sink) {
  cpu::for_each_image(f, num_items, limit, std::forward<Sink>(sink));
}

}  // namespace onepass::shuffle
