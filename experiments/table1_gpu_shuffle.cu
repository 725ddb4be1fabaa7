// experiments/table1_gpu_shuffle.cu — Table 1 / Figure 11 of Mitchell et al.,
// "Bandwidth-Optimal Random Shuffling for GPUs", §6: throughput (items/s) of the GPU
// shuffles on uint64 data of length n = 2^w + 1 (the bijective shuffle's worst case),
// w = 8, 11, 14, ..., 29.
//
// Every shuffle registered with device gpu is timed (VariablePhilox = Bijective2,
// its Bijective0/1 variants, LCG, and the baselines: gather with a computed index,
// dart throwing, SortShuffle, thrust::shuffle_copy, randperm — whatever is
// registered), plus "gather_index_array": the random gather through a precomputed
// index array (experiments/common/index_array_gather.cuh; the indices are those the
// computed gather uses, filled before timing, so the two differ only by the index read).
// All in this one process, on one stream, with CUDA events (experiments/common/
// gpu_harness.cuh: warm-up runs, then --reps timed runs, L2 flushed before each run;
// median, min and max). Input = iota(n) on the device; output and temporary storage
// allocated outside timing. Run k uses seed --seed + k, rounds 24 (paper §5).
//
// After timing, each algorithm runs once more (untimed) into a poisoned output that is
// then checked exactly on the device: a permutation of the input for the shuffles,
// every element an input element for the gathers. A wrong output is reported and gets
// no row. An algorithm that cannot allocate its buffers at a size is skipped there
// (reported on stderr and in meta.json "skipped"); the table goes on.
//
// Output: <out>/table1_gpu_shuffle.csv with
//   algorithm,label,log2_size,n,reps,seconds_median,seconds_min,seconds_max,items_per_second
// where reps = timed runs, seconds_* = seconds per call over them, items_per_second =
// n / seconds_median. meta.json also records the GPU (gpu_harness note_gpu) and the
// device-to-device copy bandwidth measured in the same run at every size
// (copy_bytes_per_second_by_log2_size; bytes = 2 x 8 x n, a read and a write per element).
//
// Options (besides the harness's --scale, --out-dir, --seed):
//   --max-log2 W       largest w, in [8, 40] (default: smoke 14, default and paper 29)
//   --algorithms a,b   only these (registered gpu shuffles and/or gather_index_array)
//   --reps N           timed runs per point (default: smoke 5, default 7, paper 11)
//   --warmup N         untimed runs first (default 2)
//   --warm-l2          do not flush the L2 cache before each run
//
// Exit status: 0 when every point was measured or skipped for memory, 1 when an
// algorithm failed (exception or wrong output), 2 for bad arguments, 3 when there
// is no CUDA device (nothing written).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "index_array_gather.cuh"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace reg = onepass::registry;
namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;

const char* const experiment = "table1_gpu_shuffle";
const char* const index_array_name = gpu::index_array_gather_name;

std::string size_text(unsigned w) { return "2^" + std::to_string(w) + "+1"; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Table 1 (Mitchell et al. §6): GPU shuffle throughput, items/s, uint64, n = 2^w + 1"};
  ex::run r(experiment, app);
  int max_log2_option = 0;
  std::vector<std::string> only;
  gpu::timing_cli timing_cli;
  app.add_option("--max-log2", max_log2_option, "largest w (n = 2^w + 1), in [8, 40]; default by scale 14/29/29")
      ->check(CLI::Range(8, 40));
  app.add_option("--algorithms", only,
                 "comma-separated registered gpu shuffles and/or gather_index_array (default: all)")
      ->delimiter(',');
  gpu::add_timing_options(app, timing_cli);
  r.parse(argc, argv);

  // Algorithms: every registered gpu shuffle, then the gather through an index array.
  std::vector<std::string> known;
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::gpu) known.push_back(e.name);
  known.push_back(index_array_name);
  for (const auto& name : only)
    if (std::find(known.begin(), known.end(), name) == known.end())
      ex::usage_exit(experiment, "--algorithms: '" + name + "' is not a registered gpu shuffle or " + index_array_name +
                 "; known: " + ex::join(known));
  auto wanted = [&](const std::string& name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  std::vector<gpu::gpu_algorithm> algorithms;
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::gpu && wanted(e.name)) algorithms.push_back(gpu::from_registry(e));
  const bool with_index_array = wanted(index_array_name);
  std::vector<std::string> names;
  for (const auto& a : algorithms) names.push_back(a.name);
  if (with_index_array) names.push_back(index_array_name);
  if (names.empty()) ex::usage_exit(experiment, "no gpu shuffle to time");

  const auto started = gpu::start_timed_run(r, experiment, timing_cli, {5, 7, 11});
  if (!started) return 3;
  const gpu::timing_options options = *started;

  const unsigned max_log2 = max_log2_option ? static_cast<unsigned>(max_log2_option) : r.pick(14u, 29u, 29u);
  std::vector<unsigned> log2_sizes;
  for (unsigned w = 8; w <= max_log2; w += 3) log2_sizes.push_back(w);

  ex::progress(experiment, std::to_string(names.size()) + " algorithms (" + ex::join(names, ", ") + "), w = 8.." +
                               std::to_string(log2_sizes.back()) + " step 3, " + std::to_string(options.warmup) +
                               " warm-up + " + std::to_string(options.reps) + " timed runs each");

  gpu::stream stream;
  gpu::timer timer(stream.get(), options);
  reg::shuffle_params params;
  params.seed = r.seed();
  params.rounds = 24;  // paper §5 recommendation, used in all of §6

  r.open_csv({"algorithm", "label", "log2_size", "n", "reps", "seconds_median", "seconds_min", "seconds_max",
              "items_per_second"});
  std::vector<std::string> skipped, failed, copy_rates;
  std::size_t rows = 0;
  bool fatal = false;

  auto record = [&](const gpu::gpu_algorithm& a, unsigned w, std::uint64_t n, const gpu::measurement& m) {
    const std::string where = a.name + " at " + size_text(w);
    switch (m.what) {
      case gpu::measurement::status::measured: {
        const double items_per_second = static_cast<double>(n) / m.time.median;
        r.row(a.name, a.label, w, n, m.time.reps(), m.time.median, m.time.min, m.time.max, items_per_second);
        ++rows;
        std::ostringstream line;
        line.precision(4);
        line << a.name << " n = " << size_text(w) << ": " << gpu::rate_text(items_per_second) << " (median "
             << m.time.median * 1e3 << " ms, min " << m.time.min * 1e3 << ", max " << m.time.max * 1e3 << "; "
             << m.message << ")";
        ex::progress(experiment, line.str());
        break;
      }
      case gpu::measurement::status::skipped:
        skipped.push_back(where + ": " + m.message);
        ex::progress(experiment, "SKIPPED (memory) " + skipped.back());
        break;
      case gpu::measurement::status::failed:
        failed.push_back(where + ": " + m.message);
        ex::progress(experiment, "FAILED " + failed.back());
        break;
      case gpu::measurement::status::fatal:
        failed.push_back(where + ": " + m.message);
        ex::progress(experiment, "FAILED, stopping: " + failed.back());
        fatal = true;
        break;
    }
  };

  for (unsigned w : log2_sizes) {
    if (fatal) break;
    const std::uint64_t n = (std::uint64_t{1} << w) + 1;
    gpu::device_buffer in, out;
    try {
      in = gpu::device_buffer(n * sizeof(std::uint64_t));
      out = gpu::device_buffer(n * sizeof(std::uint64_t));
    } catch (const gpu::out_of_memory& e) {
      for (const auto& name : names) skipped.push_back(name + " at " + size_text(w) + ": input/output: " + e.what());
      ex::progress(experiment, "SKIPPED size " + size_text(w) + ": cannot allocate input and output: " + e.what());
      continue;
    }
    auto* d_in = in.as<std::uint64_t>();
    auto* d_out = out.as<std::uint64_t>();
    gpu::fill_iota(d_in, n, stream.get());
    gpu::poison(d_out, n, stream.get());  // touched before any timing
    stream.synchronize();

    // The copy bandwidth of this device at this size, as a reference for the report.
    try {
      const gpu::timing copy = timer.measure([&](int) {
        ONEPASS_EXPERIMENT_CUDA(
            cudaMemcpyAsync(d_out, d_in, n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream.get()));
      });
      std::ostringstream rate;
      rate.precision(6);
      rate << w << ":" << 2.0 * sizeof(std::uint64_t) * static_cast<double>(n) / copy.median;
      copy_rates.push_back(rate.str());
    } catch (const std::exception& e) {
      ex::progress(experiment, std::string("copy bandwidth not measured at ") + size_text(w) + ": " + e.what());
      cudaGetLastError();
    }

    for (const auto& a : algorithms) {
      record(a, w, n, gpu::measure_shuffle(a, d_in, d_out, n, params, timer, stream.get()));
      if (fatal) break;
    }

    if (with_index_array && !fatal) {
      gpu::device_buffer idx;
      try {
        idx = gpu::device_buffer(n * sizeof(std::uint64_t));
      } catch (const gpu::out_of_memory& e) {
        record(gpu::index_array_gather(nullptr), w, n,
               gpu::measurement{gpu::measurement::status::skipped, {}, std::string("index array: ") + e.what()});
        continue;
      }
      // The indices the computed gather uses for this seed; filled here, not timed.
      gpu::fill_gather_indices(idx.as<std::uint64_t>(), n, params.seed, stream.get());
      stream.synchronize();
      const gpu::gpu_algorithm indexed = gpu::index_array_gather(idx.as<const std::uint64_t>());
      record(indexed, w, n, gpu::measure_shuffle(indexed, d_in, d_out, n, params, timer, stream.get()));
    }
  }

  r.note("algorithms", ex::join(names));
  r.note("log2_sizes", "8.." + std::to_string(log2_sizes.back()) + " step 3 (n = 2^w + 1)");
  r.note("rounds", "24");
  r.note("element_type", "uint64");
  r.note("input", "iota(n) on the device; output poisoned (0xA5 bytes) before the first run");
  r.note("check", "after timing, one untimed run into a poisoned output, checked exactly on the device "
                  "(permutation of the input for shuffles; every element an input element for gathers); "
                  "the input is checked unchanged");
  r.note(std::string(index_array_name),
         "out[i] = in[idx[i]] with idx = the computed gather's indices for the same seed (fill_gather_indices, "
         "not timed); reads 24 bytes and writes 8 per element");
  r.note("copy_bytes_per_second_by_log2_size",
         ex::join(copy_rates, " ") + " (cudaMemcpyAsync device to device, bytes = 16 n, median of the timed runs)");
  r.note("rows", std::to_string(rows));
  if (!skipped.empty()) r.note("skipped", ex::join(skipped, "; "));
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
