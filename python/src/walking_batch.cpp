// python/src/walking_batch.cpp — run-time choice of the walking batch's instruction-set copy
// (walking_batch.hpp) by the CPU's level (x86_level.hpp).
#include "walking_batch.hpp"

#include "x86_level.hpp"

#include "onepass/shuffle/cpu_walking.hpp"

namespace onepass_py {
namespace {

using batch_fn = void (*)(const onepass::shuffle::walking_permutation&, std::uint64_t, std::uint64_t, std::uint64_t,
                          std::uint64_t*);

struct choice {
  batch_fn fn;
  const char* isa;
};

choice pick() {
  const x86_level level = detect_x86_level();
  switch (level) {
    case x86_level::v4: return {walking_batch_x86_64_v4, to_string(level)};
    case x86_level::v3: return {walking_batch_x86_64_v3, to_string(level)};
    default: return {walking_batch_baseline, to_string(level)};
  }
}

const choice& chosen() {
  static const choice c = pick();
  return c;
}

}  // namespace

void walking_batch(const onepass::shuffle::walking_permutation& sigma, std::uint64_t first, std::uint64_t stride,
                   std::uint64_t count, std::uint64_t* out) {
  // The checks (and their messages) of the library's entry point, then the chosen copy.
  onepass::shuffle::detail::check_strided("walking_indices", sigma, first, stride, count, out);
  chosen().fn(sigma, first, stride, count, out);
}

const char* walking_batch_isa() { return chosen().isa; }

}  // namespace onepass_py
