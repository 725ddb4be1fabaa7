// tests/gpu/test_onesweep_lookback_example.cu — the worked example of the Onesweep paper's
// chained scan (Adinets & Merrill, §3.2, Fig. 7: five tiles whose digit counts 11, 15, 9, 10, 8
// give the inclusive prefixes 11, 26, 35, 45, 53) replayed through the library's look-back
// (onepass/sort/onesweep/digit_lookback.cuh, the code the binning kernel runs), with the
// descriptors published in the figure's order by one GPU thread: (b) every tile but #2 publishes
// its count (tile #0 its inclusive prefix, which is its count), (c) tile #1 looks back and
// publishes 26, (d) tile #3 looks back while tile #2 has only just published its count (it
// adds 9 to tile #1's 26) and tile #2 then publishes 35, (e) tile #4 reads tile #3's inclusive
// 45 and publishes 53. Checked: each tile's exclusive prefix (0, 11, 26, 35, 45), the final
// descriptors (inclusive flag and 11, 26, 35, 45, 53), for look-back windows 1, 2 and 4 (the
// binning kernel's default) and for two digits at once (the second with other counts).
// Fig. 6's counter layout is checked on the host; the replay is skipped (GTEST_SKIP) without a
// CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu_test_support.hpp"
#include "onepass/sort/onesweep/digit_lookback.cuh"

namespace {

using onepass::testing::cuda_ok;
using onepass::testing::dev;
using onepass::testing::download;

constexpr unsigned radix = 2;  // two scan channels (digits): the paper's example in digit 0
using lookback = onepass::sort::gpu::onesweep::detail::digit_lookback<radix>;

/// One thread replays Fig. 7 for both digits; exclusive[tile * radix + digit] receives each
/// tile's exclusive prefix. counts: [radix][5].
template <int Window>
__global__ void replay_figure_7(lookback state, const std::uint32_t* counts, std::uint32_t* exclusive) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (std::uint32_t d = 0; d < radix; ++d) {
    const std::uint32_t* c = counts + d * 5;
    const auto publish_inclusive = [&](std::uint32_t tile, std::uint32_t prefix) {
      exclusive[tile * radix + d] = prefix;
      state.publish(tile, d, lookback::prefix_flag, prefix + c[tile]);
    };
    // (b) tile 0's count is its inclusive prefix; tiles 1, 3, 4 publish their counts.
    publish_inclusive(0, 0);
    state.publish(1, d, lookback::aggregate_flag, c[1]);
    state.publish(3, d, lookback::aggregate_flag, c[3]);
    state.publish(4, d, lookback::aggregate_flag, c[4]);
    // (c) tile 1 looks back to tile 0.
    publish_inclusive(1, state.template exclusive_prefix<Window>(1, d));
    // (d) tile 2 publishes its count; tile 3 looks back over it to tile 1; tile 2 then looks back.
    state.publish(2, d, lookback::aggregate_flag, c[2]);
    publish_inclusive(3, state.template exclusive_prefix<Window>(3, d));
    publish_inclusive(2, state.template exclusive_prefix<Window>(2, d));
    // (e) tile 4 looks back to tile 3.
    publish_inclusive(4, state.template exclusive_prefix<Window>(4, d));
  }
}

template <int Window>
void check_window() {
  const std::vector<std::uint32_t> counts = {11, 15, 9, 10, 8,  // the paper's digit
                                             3, 0, 7, 1, 2};    // a second digit (a zero count included)
  dev temp(lookback::temp_bytes(5)), d_counts(counts.size() * 4), d_exclusive(5 * radix * 4);
  onepass::testing::upload(d_counts.as<std::uint32_t>(), counts);
  lookback state(temp.p, 5);
  state.initialize(nullptr);
  replay_figure_7<Window><<<1, 32>>>(state, d_counts.as<std::uint32_t>(), d_exclusive.as<std::uint32_t>());
  cuda_ok(cudaGetLastError(), "launch");
  cuda_ok(cudaDeviceSynchronize(), "replay_figure_7");
  const auto exclusive = download(d_exclusive.as<std::uint32_t>(), 5 * radix);
  const auto words = download(reinterpret_cast<const std::uint32_t*>(static_cast<unsigned char*>(temp.p) +
                                                                     lookback::header_bytes),
                              5 * radix);
  const std::uint32_t want_exclusive[radix][5] = {{0, 11, 26, 35, 45}, {0, 3, 3, 10, 11}};
  const std::uint32_t want_inclusive[radix][5] = {{11, 26, 35, 45, 53}, {3, 3, 10, 11, 13}};
  for (unsigned d = 0; d < radix; ++d)
    for (unsigned t = 0; t < 5; ++t) {
      EXPECT_EQ(exclusive[t * radix + d], want_exclusive[d][t]) << "window " << Window << " digit " << d << " tile " << t;
      EXPECT_EQ(words[t * radix + d], lookback::prefix_flag | want_inclusive[d][t])
          << "window " << Window << " digit " << d << " tile " << t;
    }
}

// Fig. 6: a counter is one 32-bit word, status in the two upper bits (0 N not ready, 1 L local
// count, 2 G inclusive prefix), value in the lower 30; the figure's counter (G, 42). Host only.
TEST(OnesweepLookback, PaperFigure6CounterLayout) {
  EXPECT_EQ(lookback::aggregate_flag, 1u << 30);  // status 1 (L)
  EXPECT_EQ(lookback::prefix_flag, 2u << 30);     // status 2 (G)
  EXPECT_EQ(lookback::value_mask, (1u << 30) - 1u);
  const std::uint32_t g42 = lookback::prefix_flag | 42u;
  EXPECT_EQ(g42 >> 30, 2u);
  EXPECT_EQ(g42 & lookback::value_mask, 42u);
  EXPECT_EQ(g42, 0x8000002Au);
}

TEST(OnesweepLookback, PaperFigure7WorkedExample) {
  if (!onepass::testing::have_gpu()) GTEST_SKIP() << "no CUDA device: the look-back runs on the GPU";
  check_window<1>();
  check_window<2>();
  check_window<4>();
}

}  // namespace
