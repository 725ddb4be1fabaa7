// experiments/fig10_fusion.cu — Figure 10 of Mitchell et al., "Bandwidth-Optimal
// Random Shuffling for GPUs", §6: GPU kernel fusion for the bijective shuffle.
// Throughput (items/s) of the three VariablePhilox implementations of Algorithm 1 —
//   Bijective0 (variable_philox_bijective0): evaluate, compact, gather in separate passes,
//   Bijective1 (variable_philox_bijective1): one fused transform-scan-gather, two-pass scan,
//   Bijective2 (variable_philox):            one fused pass over the decoupled look-back scan,
// and of the random gather (computed index) as the upper bound, against the size, in
// the worst case n = 2^w + 1 (the domain is 2^(w+1): 2^w - 1 redundant evaluations)
// and the best case n = 2^w (no redundant evaluation; the paper's "Bijective2 (n=m)").
// Beside them the walking permutation (walking: cycle walking over the same bijection,
// issue 28), a gather through sigma with no scan: about 2 evaluations per item in the
// worst case (walks of different lengths), 1 in the best.
// uint64 elements; timing, checks and skipping as in table1_gpu_shuffle (experiments/
// common/gpu_harness.cuh): warm-up runs, then --reps timed runs with CUDA events, L2
// flushed before each run; each algorithm's output is then checked exactly (untimed).
//
// Output: <out>/fig10_fusion.csv with
//   algorithm,case,log2_size,n,reps,seconds_median,seconds_min,seconds_max,items_per_second
// case in {worst, best}; items_per_second = n / seconds_median. Every algorithm is
// measured in both cases (the figure draws Bijective0/1/2 worst, Bijective2 best,
// walking worst and best, and gather worst).
//
// Options (besides the harness's --scale, --out-dir, --seed):
//   --max-log2 W       largest w, in [8, 40] (default: smoke 14, default and paper 29)
//   --step S           w = 8, 8 + S, ... (default: smoke 3, default and paper 1)
//   --algorithms a,b   registered gpu shuffles to time (default: the five above)
//   --reps N, --warmup N, --warm-l2   timing (default reps: smoke 5, default 7, paper 11)
//
// Exit status: 0 when every point was measured or skipped for memory, 1 when an
// algorithm failed or one of the default five is not registered, 2 for bad
// arguments, 3 when there is no CUDA device (nothing written).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace reg = onepass::registry;
namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;

const char* const experiment = "fig10_fusion";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fig. 10 (Mitchell et al. §6): Bijective0/1/2, walking and gather vs size, worst (2^w+1) and best "
               "(2^w) case"};
  ex::run r(experiment, app);
  int max_log2_option = 0, step_option = 0;
  std::vector<std::string> only;
  gpu::timing_cli timing_cli;
  app.add_option("--max-log2", max_log2_option, "largest w, in [8, 40]; default by scale 14/29/29")
      ->check(CLI::Range(8, 40));
  app.add_option("--step", step_option, "step between sizes w, in [1, 8]; default by scale 3/1/1")
      ->check(CLI::Range(1, 8));
  app.add_option("--algorithms", only,
                 "comma-separated registered gpu shuffles (default: variable_philox_bijective0, "
                 "variable_philox_bijective1, variable_philox, walking, gather)")
      ->delimiter(',');
  gpu::add_timing_options(app, timing_cli);
  r.parse(argc, argv);

  const std::vector<std::string> defaults{"variable_philox_bijective0", "variable_philox_bijective1",
                                          "variable_philox", "walking", "gather"};
  std::vector<std::string> known;
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::gpu) known.push_back(e.name);
  auto registered = [&](const std::string& name) { return std::find(known.begin(), known.end(), name) != known.end(); };
  for (const auto& name : only)
    if (!registered(name))
      ex::usage_exit(experiment, "--algorithms: '" + name + "' is not a registered gpu shuffle; known: " + ex::join(known));
  std::vector<std::string> failed;
  std::vector<gpu::gpu_algorithm> algorithms;
  for (const auto& name : only.empty() ? defaults : only) {
    if (registered(name)) {
      algorithms.push_back(gpu::from_registry(reg::find_shuffle(name, reg::device::gpu)));
    } else {
      failed.push_back(name + ": not registered (known: " + ex::join(known) + ")");
      ex::progress(experiment, "MISSING " + failed.back());
    }
  }
  if (algorithms.empty()) ex::usage_exit(experiment, "no gpu shuffle to time");
  std::vector<std::string> names;
  for (const auto& a : algorithms) names.push_back(a.name);

  const auto started = gpu::start_timed_run(r, experiment, timing_cli, {5, 7, 11});
  if (!started) return 3;
  const gpu::timing_options options = *started;

  const unsigned max_log2 = max_log2_option ? static_cast<unsigned>(max_log2_option) : r.pick(14u, 29u, 29u);
  const unsigned step = step_option ? static_cast<unsigned>(step_option) : r.pick(3u, 1u, 1u);
  std::vector<unsigned> log2_sizes;
  for (unsigned w = 8; w <= max_log2; w += step) log2_sizes.push_back(w);

  ex::progress(experiment, std::to_string(names.size()) + " algorithms (" + ex::join(names, ", ") + "), w = 8.." +
                               std::to_string(log2_sizes.back()) + " step " + std::to_string(step) +
                               ", worst (2^w+1) and best (2^w) case, " + std::to_string(options.warmup) +
                               " warm-up + " + std::to_string(options.reps) + " timed runs each");

  gpu::stream stream;
  gpu::timer timer(stream.get(), options);
  reg::shuffle_params params;
  params.seed = r.seed();
  params.rounds = onepass::bijection::default_rounds;

  r.open_csv({"algorithm", "case", "log2_size", "n", "reps", "seconds_median", "seconds_min", "seconds_max",
              "items_per_second"});
  std::vector<std::string> skipped;
  std::size_t rows = 0;
  bool fatal = false;
  struct size_case {
    const char* name;
    std::uint64_t extra;  // n = 2^w + extra
  };
  const size_case cases[] = {{"worst", 1}, {"best", 0}};

  for (unsigned w : log2_sizes) {
    if (fatal) break;
    const std::uint64_t n_max = (std::uint64_t{1} << w) + 1;  // both cases fit in the worst case's buffers
    gpu::device_buffer in, out;
    try {
      in = gpu::device_buffer(n_max * sizeof(std::uint64_t));
      out = gpu::device_buffer(n_max * sizeof(std::uint64_t));
    } catch (const gpu::out_of_memory& e) {
      skipped.push_back("w = " + std::to_string(w) + " (all algorithms): input/output: " + e.what());
      ex::progress(experiment, "SKIPPED " + skipped.back());
      continue;
    }
    auto* d_in = in.as<std::uint64_t>();
    auto* d_out = out.as<std::uint64_t>();
    gpu::fill_iota(d_in, n_max, stream.get());  // iota(n_max) starts with iota(2^w)
    gpu::poison(d_out, n_max, stream.get());
    stream.synchronize();
    for (const size_case& c : cases) {
      if (fatal) break;
      const std::uint64_t n = (std::uint64_t{1} << w) + c.extra;
      const std::string size = "2^" + std::to_string(w) + (c.extra ? "+1" : "");
      for (const auto& a : algorithms) {
        const gpu::measurement m = gpu::measure_shuffle(a, d_in, d_out, n, params, timer, stream.get());
        const std::string where = a.name + " (" + c.name + ") at " + size;
        if (m.what == gpu::measurement::status::measured) {
          const double items_per_second = static_cast<double>(n) / m.time.median;
          r.row(a.name, c.name, w, n, m.time.reps(), m.time.median, m.time.min, m.time.max, items_per_second);
          ++rows;
          std::ostringstream line;
          line.precision(4);
          line << where << ": " << gpu::rate_text(items_per_second) << " (median " << m.time.median * 1e3
               << " ms, min " << m.time.min * 1e3 << ", max " << m.time.max * 1e3 << "; " << m.message << ")";
          ex::progress(experiment, line.str());
        } else if (m.what == gpu::measurement::status::skipped) {
          skipped.push_back(where + ": " + m.message);
          ex::progress(experiment, "SKIPPED (memory) " + skipped.back());
        } else {
          failed.push_back(where + ": " + m.message);
          ex::progress(experiment, (m.what == gpu::measurement::status::fatal ? "FAILED, stopping: " : "FAILED ") +
                                       failed.back());
          if (m.what == gpu::measurement::status::fatal) {
            fatal = true;
            break;
          }
        }
      }
    }
  }

  r.note("algorithms", ex::join(names));
  r.note("log2_sizes", "8.." + std::to_string(log2_sizes.back()) + " step " + std::to_string(step));
  r.note("cases", "worst: n = 2^w + 1 (domain 2^(w+1)); best: n = 2^w (domain 2^w)");
  r.note("rounds", "24");
  r.note("element_type", "uint64");
  r.note("check", "after timing, one untimed run into a poisoned output, checked exactly on the device");
  r.note("rows", std::to_string(rows));
  if (!skipped.empty()) r.note("skipped", ex::join(skipped, "; "));
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
