// The distributed shuffle's walk grid beside the exchange (distributed/walk_grid.hpp,
// issue 29): the share of the SMs left to NCCL, rounded to whole SMs, on an H100 (132 SMs),
// smaller and larger GPUs, and the edges (no share, all of it, more than all, NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "onepass/distributed/walk_grid.hpp"

namespace {

using onepass::distributed::detail::blocks_leaving_share;

TEST(DistributedWalkGrid, TheDefaultShareLeaves48OfAnH100s132Sms) {
  // 2 resident blocks per SM: 264 slots; 48 SMs left -> 84 SMs' blocks = 168.
  EXPECT_EQ(blocks_leaving_share(264, 132, 48.0 / 132.0), 168u);
  // Any count k of 132 SMs given as k / 132 leaves exactly k.
  for (int k = 0; k <= 132; ++k)
    EXPECT_EQ(blocks_leaving_share(132 * 3, 132, k / 132.0), static_cast<std::uint64_t>(3 * std::max(132 - k, 1)))
        << "k = " << k;
}

TEST(DistributedWalkGrid, SmallerAndLargerGpusKeepTheSameShare) {
  // 40 SMs (a T4): round(40 * 48 / 132) = round(14.55) = 15 left, 25 kept.
  EXPECT_EQ(blocks_leaving_share(40 * 4, 40, 48.0 / 132.0), 25u * 4u);
  // 108 SMs (an A100): round(39.27) = 39 left, 69 kept.
  EXPECT_EQ(blocks_leaving_share(108 * 2, 108, 48.0 / 132.0), 69u * 2u);
  // 148 SMs: round(53.8) = 54 left, 94 kept.
  EXPECT_EQ(blocks_leaving_share(148, 148, 48.0 / 132.0), 94u);
}

TEST(DistributedWalkGrid, EdgesKeepAtLeastOneSmsShare) {
  EXPECT_EQ(blocks_leaving_share(264, 132, 0.0), 264u);
  EXPECT_EQ(blocks_leaving_share(264, 132, -1.0), 264u);
  EXPECT_EQ(blocks_leaving_share(264, 132, std::numeric_limits<double>::quiet_NaN()), 264u);
  EXPECT_EQ(blocks_leaving_share(264, 132, 1.0), 2u);     // every SM left: one SM's share stays
  EXPECT_EQ(blocks_leaving_share(264, 132, 1000.0), 2u);  // more than all counts as all
  EXPECT_EQ(blocks_leaving_share(7, 132, 0.5), 3u);       // 7 * 66 / 132 = 3 (fewer slots than SMs)
  EXPECT_EQ(blocks_leaving_share(1, 132, 0.9), 1u);       // never below one block
  EXPECT_EQ(blocks_leaving_share(10, 0, 0.5), 10u);       // an unknown SM count counts as one SM
}

}  // namespace
