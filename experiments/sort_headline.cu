// experiments/sort_headline.cu — the one-screen sort table (ours against CUB's best
// configuration at fixed sizes): every registered GPU sort — ours (onesweep,
// onesweep_db), each configuration of cub::DeviceRadixSort (cub_onesweep_n32 / _n64 /
// _db_n32 / _db_n64), CUB's reduce-then-scan path, thrust, VREN — at n = 2^12, 2^14, 2^16,
// 2^18 (issue 33's small sorts), 2^20, 2^24, 2^28, 2^30 for uint32 keys (entropy bands q = 1, 2, 3, 4, 8, 16, as the Onesweep
// paper's Fig. 9), uint32 pairs, uint64 keys, uint64 pairs and float
// keys (q = 1). The report compares ours with "CUB (best)", the fastest CUB configuration
// at each point. Options, columns and checks: experiments/common/sort_bench.cuh.
#include "sort_bench.cuh"

int main(int argc, char** argv) {
  return onepass::experiments::gpu::run_sort_headline(
      "sort_headline",
      "Sort headline table: GPU sorting throughput (GKey/s) of every registered sort, every shape, n = 2^12..2^30",
      argc, argv);
}
