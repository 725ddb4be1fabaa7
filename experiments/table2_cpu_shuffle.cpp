// experiments/table2_cpu_shuffle.cpp — Table 2 / Figure 12 of Mitchell et al.,
// "Bandwidth-Optimal Random Shuffling for GPUs", §6: throughput (items/s) of the
// CPU shuffles on uint64 data of length n = 2^w + 1 (the bijective shuffle's worst
// case, 2^w - 1 redundant evaluations), w = 8, 11, 14, ...
//
// Every shuffle registered with device cpu is timed (VariablePhilox, LCG and the
// baselines: gather, std::shuffle, Rao-Sandelius, MergeShuffle, DartThrowing,
// SortShuffle — whatever is registered), all in this one process, with Google
// Benchmark in real time. Input = iota(n), output preallocated and touched;
// allocation is outside the timed loop and shared by all algorithms of one size.
// Iteration k of a benchmark uses seed --seed + k (deterministic), rounds 24.
//
// Output: <out>/table2_cpu_shuffle.csv with
//   algorithm,label,log2_size,n,threads,iterations,seconds_per_iteration,items_per_second,
//   repetitions,seconds_min,seconds_max,cv
// where threads = oneTBB default concurrency, iterations and seconds_per_iteration
// are summed/averaged over all repetitions (total real time / total iterations),
// items_per_second = n / seconds_per_iteration, seconds_min / seconds_max are the
// fastest and slowest repetition's mean time per iteration, and cv is the coefficient
// of variation (sample standard deviation / mean) of those per-repetition times (0 for
// one repetition). A benchmark that fails (the
// algorithm throws) is reported on stderr and in the meta file, and gets no row.
//
// Options (besides the harness's --scale, --out-dir, --seed):
//   --max-log2 W       largest w, in [8, 40] (default: smoke 14, default 23, paper 29)
//   --algorithms a,b   only these registered cpu shuffles (default: all)
//   --benchmark_*      passed through to Google Benchmark (e.g. --benchmark_filter=lcg)
//
// Scale (timing per size and algorithm). Measured on the 2-core development VM with
// the 8 algorithms of Table 2 (and other jobs running): smoke 0.5 s, default about
// 2 minutes (the budget is about 5), so a busy machine still fits.
//   smoke:   MinTime 0.01 s, 3 repetitions, w up to 14
//   default: MinTime 0.2 s,  7 repetitions, w up to 23
//   paper:   MinTime 0.5 s,  7 repetitions (the paper averages five trials), w up to 29
// Paper scale holds 16 bytes per element (2 x 4 GiB at 2^29 + 1) plus what each
// baseline allocates (e.g. keys for SortShuffle, a 2n buffer for DartThrowing).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/info.h>

#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace reg = onepass::registry;
namespace ex = onepass::experiments;

const char* const experiment = "table2_cpu_shuffle";

/// One benchmark: an algorithm at one size.
struct spec {
  reg::shuffle_entry entry;
  unsigned log2_size = 0;
  std::uint64_t n = 0;  ///< 2^log2_size + 1
  std::string benchmark_name;
};

/// Input (iota) and output buffers for the current size, shared by the algorithms
/// of that size (benchmarks are registered size by size), allocated outside timing.
struct buffers {
  std::vector<std::uint64_t> in, out;
  void ensure(std::uint64_t n) {
    if (in.size() == n) return;
    in = std::vector<std::uint64_t>();  // release the previous size first
    out = std::vector<std::uint64_t>();
    ex::progress(experiment, "allocating 2 x " + std::to_string(n) + " uint64 for n = " + std::to_string(n));
    in.resize(n);
    std::iota(in.begin(), in.end(), std::uint64_t{0});
    out.assign(n, 0);  // touched, so page faults stay out of the timed loop
  }
};

/// What the reporter saw of one benchmark, summed over its repetitions.
struct measurement {
  std::int64_t iterations = 0;
  double real_seconds = 0;
  int runs = 0;
  std::vector<double> per_repetition;  // mean seconds per iteration of each repetition
  std::string error;
};

/// Console output (to stderr, as progress) plus capture of every iteration run, so
/// that the CSV is written through the harness after the benchmarks ran.
// Google Benchmark 1.7 (Debian 12) reports a failed run through error_occurred /
// error_message, 1.8 (Ubuntu 24.04) through skipped / skip_message.
template <class Run>
auto failure_of(const Run& run, int) -> decltype(run.error_occurred, std::string()) {
  return run.error_occurred ? (run.error_message.empty() ? std::string("error") : std::string(run.error_message))
                            : std::string();
}
template <class Run>
auto failure_of(const Run& run, long) -> decltype(run.skip_message, std::string()) {
  return run.skipped ? (run.skip_message.empty() ? std::string("skipped") : std::string(run.skip_message))
                     : std::string();
}

class capturing_reporter : public benchmark::ConsoleReporter {
 public:
  capturing_reporter() : benchmark::ConsoleReporter(OO_Tabular) {
    SetOutputStream(&std::cerr);
    SetErrorStream(&std::cerr);
  }

  void ReportRuns(const std::vector<Run>& reports) override {
    for (const Run& run : reports) {
      if (run.run_type != Run::RT_Iteration) continue;  // mean/median/stddev aggregates
      measurement& m = captured[run.run_name.function_name];
      if (const std::string error = failure_of(run, 0); !error.empty()) {
        m.error = error;
        continue;
      }
      m.iterations += run.iterations;
      m.real_seconds += run.real_accumulated_time;  // seconds, all iterations of this run
      ++m.runs;
      if (run.iterations > 0) m.per_repetition.push_back(run.real_accumulated_time / static_cast<double>(run.iterations));
    }
    ConsoleReporter::ReportRuns(reports);
  }

  std::map<std::string, measurement> captured;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Table 2 (Mitchell et al. §6): CPU shuffle throughput, items/s, n = 2^w + 1"};
  ex::run r(experiment, app);
  int max_log2_option = 0;
  std::vector<std::string> only;
  app.add_option("--max-log2", max_log2_option, "largest w (n = 2^w + 1), in [8, 40]; default by scale 14/23/29")
      ->check(CLI::Range(8, 40));
  app.add_option("--algorithms", only, "comma-separated registered cpu shuffles (default: all)")->delimiter(',');
  app.allow_extras();  // --benchmark_* flags, handed to Google Benchmark below
  r.parse(argc, argv);

  // Google Benchmark sees only its own flags (the harness's --scale etc. stay ours).
  std::vector<std::string> bench_args{argv[0]};
  for (const auto& extra : app.remaining()) {
    if (extra.rfind("--benchmark_", 0) != 0)
      ex::usage_exit(experiment, "unknown argument '" + extra + "'; allowed: --scale, --out-dir, --seed, --max-log2, --algorithms, "
                 "--benchmark_*");
    bench_args.push_back(extra);
  }
  std::vector<char*> bench_argv;
  for (auto& a : bench_args) bench_argv.push_back(a.data());
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, bench_argv.data())) return 2;

  // Algorithms: every registered cpu shuffle, optionally filtered by --algorithms.
  std::vector<reg::shuffle_entry> algorithms;
  std::vector<std::string> known;
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::cpu) known.push_back(e.name);
  for (const auto& name : only)
    if (std::find(known.begin(), known.end(), name) == known.end())
      ex::usage_exit(experiment, "--algorithms: '" + name + "' is not a registered cpu shuffle; known: " + ex::join(known));
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::cpu && (only.empty() || std::find(only.begin(), only.end(), e.name) != only.end()))
      algorithms.push_back(e);
  if (algorithms.empty()) ex::usage_exit(experiment, "no registered cpu shuffle to time");

  const unsigned max_log2 = max_log2_option ? static_cast<unsigned>(max_log2_option) : r.pick(14u, 23u, 29u);
  const double min_time = r.pick(0.01, 0.2, 0.5);
  const int repetitions = r.pick(3, 7, 7);
  const int threads = tbb::info::default_concurrency();
  const std::uint64_t seed = r.seed();

  std::vector<unsigned> log2_sizes;
  for (unsigned w = 8; w <= max_log2; w += 3) log2_sizes.push_back(w);

  // Register size-major (one row of Table 2 after another), algorithms in registry order.
  auto shared = std::make_shared<buffers>();
  std::vector<spec> specs;
  for (unsigned w : log2_sizes) {
    for (const auto& entry : algorithms) {
      spec s;
      s.entry = entry;
      s.log2_size = w;
      s.n = (std::uint64_t{1} << w) + 1;
      s.benchmark_name = "table2/" + entry.name + "/2^" + std::to_string(w) + "+1";
      specs.push_back(s);
      benchmark::RegisterBenchmark(s.benchmark_name.c_str(), [shared, s, seed](benchmark::State& state) {
        shared->ensure(s.n);
        const std::uint64_t* in = shared->in.data();
        std::uint64_t* out = shared->out.data();
        reg::shuffle_params params;
        params.rounds = 24;  // paper §5 recommendation, used in all of §6
        std::uint64_t k = 0;
        for (auto _ : state) {
          params.seed = seed + k++;
          try {
            s.entry.run(in, out, static_cast<std::size_t>(s.n), params);
          } catch (const std::exception& e) {
            state.SkipWithError(e.what());
            break;
          }
          benchmark::DoNotOptimize(out);
          benchmark::ClobberMemory();
        }
        state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(s.n));
      })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(min_time)
          ->Repetitions(repetitions);
    }
  }

  std::vector<std::string> names;
  for (const auto& e : algorithms) names.push_back(e.name);
  ex::progress(experiment, std::to_string(algorithms.size()) + " algorithms (" + ex::join(names) + "), w = 8.." +
                               std::to_string(log2_sizes.back()) + " step 3, MinTime " + std::to_string(min_time) +
                               " s, " + std::to_string(repetitions) + " repetition(s), " + std::to_string(threads) +
                               " oneTBB threads");

  capturing_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  r.open_csv({"algorithm", "label", "log2_size", "n", "threads", "iterations", "seconds_per_iteration",
              "items_per_second", "repetitions", "seconds_min", "seconds_max", "cv"});
  std::vector<std::string> failed;
  std::size_t rows = 0;
  for (const auto& s : specs) {
    const auto it = reporter.captured.find(s.benchmark_name);
    if (it == reporter.captured.end()) continue;  // filtered out by --benchmark_filter
    const measurement& m = it->second;
    if (!m.error.empty() || m.iterations == 0) {
      failed.push_back(s.benchmark_name + ": " + (m.error.empty() ? "no iterations" : m.error));
      ex::progress(experiment, "FAILED " + failed.back());
      continue;
    }
    const double seconds_per_iteration = m.real_seconds / static_cast<double>(m.iterations);
    const double items_per_second = static_cast<double>(s.n) / seconds_per_iteration;
    const auto& reps = m.per_repetition;
    const double fastest = reps.empty() ? seconds_per_iteration : *std::min_element(reps.begin(), reps.end());
    const double slowest = reps.empty() ? seconds_per_iteration : *std::max_element(reps.begin(), reps.end());
    double cv = 0;
    if (reps.size() >= 2) {
      const double mean = std::accumulate(reps.begin(), reps.end(), 0.0) / static_cast<double>(reps.size());
      double squares = 0;
      for (double t : reps) squares += (t - mean) * (t - mean);
      cv = std::sqrt(squares / static_cast<double>(reps.size() - 1)) / mean;
    }
    r.row(s.entry.name, s.entry.label, s.log2_size, s.n, threads, m.iterations, seconds_per_iteration,
          items_per_second, reps.size(), fastest, slowest, cv);
    ++rows;
    std::ostringstream line;
    line.precision(4);
    line << s.entry.name << " n = 2^" << s.log2_size << "+1: " << items_per_second / 1e6 << " M items/s ("
         << m.iterations << " iterations)";
    ex::progress(experiment, line.str());
  }

  r.note("algorithms", ex::join(names));
  r.note("log2_sizes", "8.." + std::to_string(log2_sizes.back()) + " step 3");
  r.note("min_time_seconds", std::to_string(min_time));
  r.note("repetitions", std::to_string(repetitions));
  r.note("scale_choice",
         "smoke MinTime 0.01 s x 3; default MinTime 0.2 s x 7 repetitions (about the time of the earlier 0.5 s x 3, "
         "~2 min on 2 cores with 8 algorithms; budget ~5 min); paper MinTime 0.5 s x 7 repetitions (the paper "
         "averages five trials; 7 give a min-max range and a CV)");
  r.note("rounds", "24");
  r.note("element_type", "uint64");
  r.note("timing",
         "Google Benchmark real time (UseRealTime), one process for all algorithms; seconds_per_iteration = total "
         "real time / total iterations over repetitions; iteration k uses seed + k; buffers allocated outside timing");
  r.note("threads", std::to_string(threads) + " (oneTBB default concurrency; std_shuffle and other sequential "
                                              "baselines use one)");
  r.note("rows", std::to_string(rows));
  if (!failed.empty()) r.note("failed", ex::join(failed));
  r.finish();
  return failed.empty() ? 0 : 1;
}
