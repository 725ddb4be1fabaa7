// onepass/distributed/prefix.hpp — the exclusive prefix of per-rank counts, shared by the host
// planning (exchange_plan.hpp, splitters.hpp) and the NCCL layer (nccl_support.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "onepass/error.hpp"

namespace onepass::distributed::detail {

/// The exclusive prefix of `counts` (size counts.size() + 1): offsets[q] = counts[0] + ... +
/// counts[q-1]. Throws onepass::error naming `argument` of `function` when the sum overflows
/// 64 bits.
inline std::vector<std::uint64_t> exclusive_prefix(const std::vector<std::uint64_t>& counts, const char* function,
                                                   const char* argument) {
  std::vector<std::uint64_t> offsets(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    require(counts[i] <= std::numeric_limits<std::uint64_t>::max() - offsets[i], function, argument,
            "must sum to less than 2^64");
    offsets[i + 1] = offsets[i] + counts[i];
  }
  return offsets;
}

}  // namespace onepass::distributed::detail
