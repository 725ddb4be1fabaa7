// experiments/onesweep_fig10_pairs32.cu — Fig. 10 of Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs" (§4): sorting throughput (uint32 keys + uint32 values) of every
// registered GPU sort vs problem size, sizes drawn log-uniformly from 2^12 to 2^30, for the
// entropy bands q = 1, 2, 3, 4, 8, 16. The implementation, options, output columns and
// checks are those of experiments/common/sort_bench.cuh.
#include "sort_bench.cuh"

int main(int argc, char** argv) {
  return onepass::experiments::gpu::run_sort_throughput(
      onepass::registry::sort_shape::pairs_u32_u32, "onesweep_fig10_pairs32",
      "Onesweep paper Fig. 10: GPU sorting throughput (uint32 keys + uint32 values), GKey/s vs size, per entropy band", argc, argv);
}
