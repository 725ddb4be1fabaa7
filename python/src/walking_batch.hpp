// python/src/walking_batch.hpp — the CPU batch of the walking permutation for the Python
// module, built for several x86-64 instruction-set levels and picked at run time.
//
// The module is built portable (no -march=native: a wheel runs on any x86-64), but the
// walk's Feistel rounds are vector loops (onepass/shuffle/cpu_walking.hpp) that run ~2x
// faster with AVX-512's 64-bit multiplies than with SSE2. So walking_batch_*.cpp compile
// the same body for x86-64 (baseline), x86-64-v3 (AVX2) and x86-64-v4 (AVX-512), each
// instantiating the library's templates with its own tag type (no instantiation is shared
// between them), and walking_batch() calls the best one the CPU supports.
#pragma once

#include <cstdint>

#include "onepass/shuffle/walking_permutation.hpp"

namespace onepass_py {

/// out[k] = sigma((first + k * stride) mod N), k < count: the library's walking_indices
/// (arguments checked by it), run with the best instruction set this CPU has.
void walking_batch(const onepass::shuffle::walking_permutation& sigma, std::uint64_t first, std::uint64_t stride,
                   std::uint64_t count, std::uint64_t* out);

/// The instruction-set level walking_batch uses here: "x86-64-v4", "x86-64-v3" or "baseline".
const char* walking_batch_isa();

/// One copy per level (walking_batch_body.inc); only those built exist (see CMakeLists.txt).
void walking_batch_baseline(const onepass::shuffle::walking_permutation& sigma, std::uint64_t first,
                            std::uint64_t stride, std::uint64_t count, std::uint64_t* out);
void walking_batch_x86_64_v3(const onepass::shuffle::walking_permutation& sigma, std::uint64_t first,
                             std::uint64_t stride, std::uint64_t count, std::uint64_t* out);
void walking_batch_x86_64_v4(const onepass::shuffle::walking_permutation& sigma, std::uint64_t first,
                             std::uint64_t stride, std::uint64_t count, std::uint64_t* out);

}  // namespace onepass_py
