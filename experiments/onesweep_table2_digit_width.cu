// experiments/onesweep_table2_digit_width.cu — Table 2 of Adinets & Merrill,
// "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs" (§4, "Cost of
// individual passes"): run time of the upfront histogram kernel and of one digit-
// binning ("partition") pass of our Onesweep (lib/include/onepass/sort/onesweep.cuh)
// for digit widths d = 5..9, sorting n = 2^28 uniformly random uint32 keys, and the
// partition time per bit (partition / d). Also the whole sort at each d, for context.
//
// Method: keys from a hash of the index (uniform 32-bit words), generated on the
// device. For each d the sort's phases (onepass/harness/onesweep_phases.cuh) are built
// and bound to their temporary storage (outside timing), then, with CUDA events
// (experiments/common/gpu_harness: warm-up runs, then --reps timed runs, L2 flushed before each; median, min, max):
//   histogram      zeroing the global counts (cudaMemsetAsync, a few KB) and the
//                  upfront histogram kernel over all ceil(32 / d) digit places;
//   exclusive_sum  the exclusive-sum kernel (one block per place);
//   partition      one binning pass at digit place 0, input -> output buffer, all of
//                  it: the look-back state's init kernel (zeroing ceil(n / 7680) x 2^d
//                  descriptor words of 8 bytes) and the chained-scan binning kernel
//                  (n <= 2^28 is one portion, so one kernel each);
//   sort           the whole out-of-place sort_keys<d> (histogram, exclusive sum, all
//                  passes), checked afterwards (sorted, same key sum).
//
// Output: <out>/onesweep_table2_digit_width.csv, one row per (d, phase):
//   digit_bits,passes,phase,n,reps,microseconds_median,microseconds_min,microseconds_max,microseconds_per_bit
// phase in {histogram, exclusive_sum, partition, sort}; passes = ceil(32 / d) (the
// paper's p); microseconds_per_bit = median / d for phase partition (the paper's
// "Partition / Bit" column), empty otherwise. The paper's table: p, d, Histogram (us),
// Partition (us), Partition / Bit (us) on an A100.
//
// Options (besides the harness's --scale, --out-dir, --seed):
//   --log2-n W     keys = 2^W, W in [10, 31] (default: smoke 20, default and paper 28)
//   --reps N       timed runs per measurement (default: smoke 5, default 7, paper 11)
//   --warmup N     untimed runs first (default 2)
//   --warm-l2      do not flush the L2 cache before each run
//
// Exit status: 0 on success, 1 when a sort's output was wrong or a step failed,
// 2 for bad arguments, 3 when there is no CUDA device (nothing written).
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/onesweep_phases.cuh"
#include "onepass/sort/onesweep.cuh"

namespace {

namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;
namespace os = onepass::sort::gpu::onesweep;

const char* const experiment = "onesweep_table2_digit_width";

__global__ void fill_random_u32(std::uint32_t* keys, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t x = i + seed * 0x9E3779B97F4A7C15ull;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    keys[i] = static_cast<std::uint32_t>(x);
  }
}

// sums[0] += keys, sums[1] += order violations (keys[i + 1] < keys[i]).
__global__ void key_sum_and_order(const std::uint32_t* keys, std::uint64_t n, unsigned long long* sums) {
  unsigned long long s = 0, bad = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    s += keys[i];
    if (i + 1 < n && keys[i + 1] < keys[i]) ++bad;
  }
  atomicAdd(&sums[0], s);
  atomicAdd(&sums[1], bad);
}

struct context {
  ex::run& r;
  gpu::timer& timer;
  cudaStream_t stream;
  std::uint64_t n;
  const std::uint32_t* d_in;
  std::uint32_t* d_out;
  std::vector<std::string>& failed;
};

void row(context& c, unsigned d, unsigned passes, const char* phase, const gpu::timing& t, bool per_bit) {
  const double us = t.median * 1e6;
  if (per_bit) {
    c.r.row(d, passes, phase, c.n, t.reps(), us, t.min * 1e6, t.max * 1e6, us / d);
  } else {
    c.r.row(d, passes, phase, c.n, t.reps(), us, t.min * 1e6, t.max * 1e6, "");
  }
  std::ostringstream line;
  line.precision(5);
  line << "d = " << d << " " << phase << ": " << us << " us (min " << t.min * 1e6 << ", max " << t.max * 1e6 << ")";
  if (per_bit) line << ", " << us / d << " us per bit";
  ex::progress(experiment, line.str());
}

template <unsigned D>
void measure_width(context& c) {
  try {
    onepass::harness::onesweep_phases<D, std::uint32_t> plan(c.n, 0, 32, false);
    const unsigned passes = plan.num_places();
    gpu::device_buffer plan_temp(plan.temp_bytes());
    plan.bind(plan_temp.get());

    row(c, D, passes, "histogram", c.timer.measure([&](int) { plan.histogram(c.d_in, c.stream); }), false);
    row(c, D, passes, "exclusive_sum", c.timer.measure([&](int) { plan.exclusive_sum(c.stream); }), false);
    // Valid digit starts for the pass (the timed exclusive_sum runs left them scanned
    // more than once, so recompute them once more from a fresh histogram).
    plan.histogram(c.d_in, c.stream);
    plan.exclusive_sum(c.stream);
    row(c, D, passes, "partition",
        c.timer.measure([&](int) { plan.binning_pass(0, c.d_in, c.d_out, c.stream); }), true);
    plan_temp.reset();

    std::size_t temp_bytes = 0;
    os::sort_keys<D>(nullptr, temp_bytes, c.d_in, c.d_out, c.n, 0, 32, false, c.stream);
    gpu::device_buffer temp(temp_bytes);
    row(c, D, passes, "sort", c.timer.measure([&](int) {
          os::sort_keys<D>(temp.get(), temp_bytes, c.d_in, c.d_out, c.n, 0, 32, false, c.stream);
        }),
        false);

    // Check the last sort's output: sorted, and the same key sum as the input.
    gpu::device_buffer sums(4 * sizeof(unsigned long long));
    auto* s = sums.as<unsigned long long>();
    ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(s, 0, 4 * sizeof(unsigned long long), c.stream));
    key_sum_and_order<<<2048, 256, 0, c.stream>>>(c.d_in, c.n, s);
    key_sum_and_order<<<2048, 256, 0, c.stream>>>(c.d_out, c.n, s + 2);
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
    unsigned long long h[4];
    ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(h, s, sizeof(h), cudaMemcpyDeviceToHost, c.stream));
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(c.stream));
    if (h[0] != h[2] || h[3] != 0) {
      c.failed.push_back("d = " + std::to_string(D) + ": output not sorted (" + std::to_string(h[3]) +
                         " inversions) or key sum changed");
      ex::progress(experiment, "FAILED " + c.failed.back());
    }
  } catch (const std::exception& e) {
    c.failed.push_back("d = " + std::to_string(D) + ": " + e.what());
    ex::progress(experiment, "FAILED " + c.failed.back());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Table 2 (Onesweep §4): histogram and partition time vs digit width, 2^28 random uint32 keys"};
  ex::run r(experiment, app);
  int log2_option = 0;
  gpu::timing_cli timing_cli;
  app.add_option("--log2-n", log2_option, "keys = 2^W, W in [10, 31]; default by scale 20/28/28")
      ->check(CLI::Range(10, 31));
  gpu::add_timing_options(app, timing_cli);
  r.parse(argc, argv);

  const auto started = gpu::start_timed_run(r, experiment, timing_cli, {5, 7, 11});
  if (!started) return 3;
  const gpu::timing_options options = *started;
  const unsigned log2_n = log2_option ? static_cast<unsigned>(log2_option) : r.pick(20u, 28u, 28u);
  const std::uint64_t n = std::uint64_t{1} << log2_n;

  gpu::stream stream;
  gpu::timer timer(stream.get(), options);
  std::vector<std::string> failed;
  gpu::device_buffer in, out;
  try {
    in = gpu::device_buffer(n * sizeof(std::uint32_t));
    out = gpu::device_buffer(n * sizeof(std::uint32_t));
  } catch (const std::exception& e) {
    ex::progress(experiment, std::string("cannot allocate the keys: ") + e.what());
    return 1;
  }
  fill_random_u32<<<4096, 256, 0, stream.get()>>>(in.as<std::uint32_t>(), n, r.seed());
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(out.get(), 0, n * sizeof(std::uint32_t), stream.get()));
  stream.synchronize();

  r.open_csv({"digit_bits", "passes", "phase", "n", "reps", "microseconds_median", "microseconds_min",
              "microseconds_max", "microseconds_per_bit"});
  context c{r, timer, stream.get(), n, in.as<const std::uint32_t>(), out.as<std::uint32_t>(), failed};
  measure_width<5>(c);
  measure_width<6>(c);
  measure_width<7>(c);
  measure_width<8>(c);
  measure_width<9>(c);

  r.note("key_type", "uint32");
  r.note("log2_n", std::to_string(log2_n));
  r.note("input", "uniform random 32-bit keys (splitmix64 of index + seed), generated on the device");
  r.note("phases",
         "histogram = memset of the global counts + upfront histogram kernel (all places); exclusive_sum = the "
         "exclusive-sum kernel; partition = one binning pass at place 0 (look-back state init + binning kernel); "
         "sort = the whole out-of-place onesweep::sort_keys<d>");
  r.note("tile", "binning: 512 threads x 15 keys (7680 keys per tile); histogram: 256 threads x 8 keys per step");
  r.note("paper_reference", "Table 2 (A100, 256M random uint32): d=5 652/1573/315, d=6 653/1685/281, "
                            "d=7 679/1812/259, d=8 747/1995/249, d=9 655/2541/282 (histogram/partition/per bit, us)");
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
