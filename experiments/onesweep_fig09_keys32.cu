// experiments/onesweep_fig09_keys32.cu — Fig. 9 of Adinets & Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs" (§4): sorting throughput (uint32 keys only) of every
// registered GPU sort vs problem size, sizes drawn log-uniformly from 2^12 to 2^30, for the
// entropy bands q = 1, 2, 3, 4, 8, 16. The implementation, options, output columns and
// checks are those of experiments/common/sort_bench.cuh.
#include "sort_bench.cuh"

int main(int argc, char** argv) {
  return onepass::experiments::gpu::run_sort_throughput(
      onepass::registry::sort_shape::keys_u32, "onesweep_fig09_keys32",
      "Onesweep paper Fig. 9: GPU sorting throughput (uint32 keys only), GKey/s vs size, per entropy band", argc, argv);
}
