// onepass/distributed/walk_grid.hpp — how many resident blocks the distributed shuffle's walks
// launch while NCCL's exchange runs beside them (distributed/shuffle.cuh, step 4). Pure host
// arithmetic: no CUDA, no NCCL (tests/cpu/test_distributed_walk_grid.cpp).
//
// A persistent kernel that fills the device leaves NCCL's kernels on the side stream too little
// room: on 4 H100s the exchange then moved at about half its standalone rate. The walks therefore
// leave a share of the SMs' resident blocks unused (results/recorded/nvidia-h100-x4/README.md,
// twenty-second session: 48 of the H100's 132 SMs was the fastest of 0-96).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace onepass::distributed::detail {

/// The resident blocks of a persistent kernel with `slots` resident blocks on a device of `sms`
/// SMs (sms <= 0 counts as 1) when a share `leave_share` of the SMs, rounded to whole SMs, is left
/// without its blocks: slots x (sms - round(leave_share x sms)) / sms, at least one SM's share
/// (ceil(slots / sms)); `slots` when leave_share <= 0 (or NaN). leave_share above 1 counts as 1.
inline std::uint64_t blocks_leaving_share(std::uint64_t slots, int sms, double leave_share) {
  if (!(leave_share > 0)) return slots;
  const auto all = static_cast<std::uint64_t>(sms > 0 ? sms : 1);
  const auto leave = static_cast<std::uint64_t>(std::llround(std::min(leave_share, 1.0) * static_cast<double>(all)));
  const std::uint64_t kept = leave < all ? all - leave : 0;
  const std::uint64_t left = slots * kept / all;
  const std::uint64_t one_sm = (slots + all - 1) / all;
  return std::max(left, one_sm);
}

}  // namespace onepass::distributed::detail
