// experiments/common/gpu_harness.cuh — what the GPU experiment programs share on
// top of harness.hpp: CUDA-event timing of work enqueued on a stream (warm-up
// runs, then timed runs; median, min and max), GPU provenance for meta.json,
// owning device buffers whose allocation failure can be told apart from other
// errors, and an exact check that a shuffle's output is a permutation.
//
// Timing protocol (measure()): for each of warmup + reps runs, outside the timed
// region the L2 cache is flushed (unless turned off: a kernel reads a buffer of
// twice the L2 size, so no data of the previous run is cached and its dirty lines
// are written back before the clock starts); then an event is recorded on the
// stream, the work is enqueued, a second event is recorded and waited for. The
// elapsed time between the two events of each timed run is one sample. Allocation
// and temporary-storage queries happen before measure() is called, never inside.
// With the flush, the work is queued behind the flush kernel, so the host's launch
// latency before the first kernel of the work is not part of the sample (a wait on
// the host inside the work still is); without it (--warm-l2) it is.
//
// Everything here needs CUDA; the CPU harness (harness.hpp/.cpp) does not include it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace onepass::experiments::gpu {

/// Throws runtime_failure("<file>:<line>: <call>: <CUDA error string>") unless
/// status is cudaSuccess (out_of_memory for cudaErrorMemoryAllocation).
void check(cudaError_t status, const char* call, const char* file, int line);

#define ONEPASS_EXPERIMENT_CUDA(call) ::onepass::experiments::gpu::check((call), #call, __FILE__, __LINE__)

/// A device allocation that failed for lack of memory (the experiment skips the
/// algorithm at that size and goes on).
class out_of_memory : public runtime_failure {
 public:
  using runtime_failure::runtime_failure;
};

/// True when `e` reports a failed allocation: out_of_memory, std::bad_alloc (what
/// thrust throws) or a message naming CUDA's "out of memory".
bool is_out_of_memory(const std::exception& e);

/// Selects device 0 and creates its context (outside any timing). Returns false,
/// with the reason in `why`, when there is no usable CUDA device.
bool init_device(std::string& why);

/// init_device() for an experiment program: true when a device is ready; otherwise
/// prints "[experiment] no usable CUDA device (...): nothing measured, nothing written"
/// and returns false (the program then exits with status 3).
bool device_ready(const std::string& experiment);

/// Adds the GPU's provenance to the run's meta.json: gpu_name, gpu_compute_capability,
/// gpu_sm_count, gpu_memory_bytes, gpu_l2_bytes, gpu_memory_bus_width_bits,
/// gpu_clock_khz, gpu_memory_clock_khz, gpu_ecc, gpu_pci_bus_id, cuda_driver_api_version,
/// cuda_runtime_version, cuda_compiler_version, cuda_architectures, cccl_version and,
/// when nvidia-smi answers, nvidia_driver_version and the current/max clocks and power limit.
void note_gpu(run& r);

/// An owning device allocation (cudaMalloc/cudaFree). Move-only.
class device_buffer {
 public:
  device_buffer() = default;
  /// Allocates `bytes` (0 allowed: then get() is nullptr). Throws out_of_memory
  /// when the device has too little free memory, runtime_failure on other errors.
  explicit device_buffer(std::size_t bytes);
  ~device_buffer();
  device_buffer(device_buffer&& other) noexcept;
  device_buffer& operator=(device_buffer&& other) noexcept;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  /// Frees the memory now (the buffer becomes empty).
  void reset();

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// An owning non-blocking CUDA stream.
class stream {
 public:
  stream();
  ~stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  cudaStream_t get() const { return s_; }
  /// Waits for the stream; throws runtime_failure on an error of earlier work.
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

/// How measure() times: warmup untimed runs, then reps timed runs (reps >= 1).
struct timing_options {
  int warmup = 2;
  int reps = 5;
  bool flush_l2 = true;  ///< flush the L2 cache before every run (outside the timed region)
};

/// Command-line values for timing_options; 0 means "pick by scale".
struct timing_cli {
  int reps = 0;
  int warmup = 2;
  bool warm_l2 = false;
};

/// Adds --reps N (timed runs per measurement, default by scale), --warmup N
/// (untimed runs first, default 2) and --warm-l2 (do not flush L2 between runs).
void add_timing_options(CLI::App& app, timing_cli& cli);

/// The options after parsing: reps from --reps, else smoke/default/paper =
/// default_reps[0..2]. Also notes them in the run's meta.json (timing, reps,
/// warmup, l2_flush).
timing_options resolve_timing(run& r, const timing_cli& cli, const int (&default_reps)[3]);

/// The start every single-GPU experiment shares once its command line is parsed and
/// checked: device_ready(experiment), then resolve_timing(r, cli, default_reps) and
/// note_gpu(r), in that order (so meta.json's notes come in the same order in every
/// program). Returns the timing options, or std::nullopt when no usable GPU is present
/// (device_ready has said why on stderr; the program then exits with status 3).
/// Use: `const auto options = gpu::start_timed_run(r, experiment, timing_cli, {5, 7, 11});
/// if (!options) return 3;`.
std::optional<timing_options> start_timed_run(run& r, const std::string& experiment, const timing_cli& cli,
                                              const int (&default_reps)[3]);

/// The start of a program that checks nothing of its own between parsing its command line and
/// start_timed_run: add_timing_options(app, ·) (after the program's own options, so --help lists
/// them last), r.parse(argc, argv) (exits on --help or a usage error), then
/// start_timed_run(r, experiment, ·, default_reps). Use: `const auto started =
/// gpu::parse_and_start_timed_run(r, app, argc, argv, experiment, {5, 7, 11}); if (!started) return 3;`.
std::optional<timing_options> parse_and_start_timed_run(run& r, CLI::App& app, int argc, char** argv,
                                                        const std::string& experiment, const int (&default_reps)[3]);

/// Elapsed seconds of the timed runs and their median, min and max.
struct timing {
  std::vector<double> seconds;  ///< one per timed run, in run order
  double median = 0, min = 0, max = 0;
  int reps() const { return static_cast<int>(seconds.size()); }
};

/// median (mean of the two middle values for an even count), min and max; empty input throws.
timing summarize(std::vector<double> seconds);

/// CUDA-event timer of work enqueued on one stream (see the protocol at the top).
class timer {
 public:
  /// Allocates the L2 flush buffer (2 x the device's L2 size) and the events.
  timer(cudaStream_t s, timing_options options);
  ~timer();
  timer(const timer&) = delete;
  timer& operator=(const timer&) = delete;

  const timing_options& options() const { return options_; }

  /// Runs work(k) for k = 0 .. warmup + reps - 1 (k is the run index, e.g. for a
  /// per-run seed); `work` must only enqueue on the stream. Returns the timing of
  /// runs warmup .. warmup + reps - 1. Throws runtime_failure on a CUDA error (the
  /// launch or the work itself) and passes on whatever `work` throws.
  template <class Work>
  timing measure(Work&& work) {
    return measure([](int) {}, std::forward<Work>(work));
  }

  /// As measure(work), with prepare(k) enqueued before run k's L2 flush, outside the
  /// timed region (e.g. restoring the input of an in-place sort).
  template <class Prepare, class Work>
  timing measure(Prepare&& prepare, Work&& work) {
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(options_.reps));
    const int runs = options_.warmup + options_.reps;
    for (int k = 0; k < runs; ++k) {
      prepare(k);
      if (options_.flush_l2) flush_l2();
      start();
      work(k);
      const double t = stop();
      if (k >= options_.warmup) seconds.push_back(t);
    }
    return summarize(std::move(seconds));
  }

  /// Evicts the L2 cache (enqueued on the stream; not timed by measure()).
  void flush_l2();

 private:
  void start();
  double stop();  ///< records the stop event, waits, checks errors, returns seconds

  cudaStream_t stream_;
  timing_options options_;
  cudaEvent_t begin_ = nullptr, end_ = nullptr;
  device_buffer flush_;
  device_buffer sink_;
};

/// d[i] = i for i in [0, n) (enqueued on s).
void fill_iota(std::uint64_t* d, std::size_t n, cudaStream_t s);

/// Sets every byte of d[0, n) to 0xA5 (enqueued on s): 0xA5A5A5A5A5A5A5A5 is never
/// a valid index, so a slot the algorithm did not write shows as out of range.
void poison(std::uint64_t* d, std::size_t n, cudaStream_t s);

/// Result of checking an output produced from the input iota(n).
struct permutation_check {
  bool checked = false;           ///< false when the check could not run (see note)
  std::uint64_t out_of_range = 0; ///< elements >= n (unwritten slots included)
  std::uint64_t duplicates = 0;   ///< elements seen before (only when distinct was asked)
  std::string note;
  bool ok() const { return checked && out_of_range == 0 && duplicates == 0; }
  std::string describe() const;
};

/// Exact check of d_out[0, n) for input iota(n): every value < n and, when
/// `distinct`, no value twice (with n values < n that is exactly "a permutation").
/// Uses an n-bit bitmap on the device; waits for the stream. When the bitmap
/// cannot be allocated, returns checked = false with the reason in note.
permutation_check check_iota_output(const std::uint64_t* d_out, std::size_t n, bool distinct, cudaStream_t s);

/// A GPU shuffle as the experiments time it (a registry entry, or a wrapper such as
/// the gather through an index array).
struct gpu_algorithm {
  std::string name;
  std::string label;
  bool permutes = true;  ///< false: only "every output is an input element" is checked
  registry::gpu_shuffle_fn run;
};

/// What happened when one algorithm was measured at one size.
struct measurement {
  enum class status { measured, skipped, failed, fatal };
  status what = status::measured;
  timing time;
  std::string message;  ///< why it was skipped or failed; the check result when measured
};

/// A measurement that threw `e`: clears a non-sticky CUDA error, sets m.message to
/// e.what() and m.what to fatal when the stream or device no longer synchronises
/// (the message then says so), skipped for an allocation failure, failed otherwise.
void record_failure(measurement& m, const std::exception& e, cudaStream_t s);

/// Measures `a` on d_in -> d_out (n uint64 elements, d_in = iota(n)): queries and
/// allocates its temporary storage (outside timing), times it with `t` (run k uses
/// seed base.seed + k), then, untimed, poisons d_out, runs it once more with
/// base.seed and checks the output exactly (check_iota_output). An allocation
/// failure gives status skipped; any other error or a wrong output gives failed;
/// an error after which the CUDA context is unusable gives fatal (stop measuring).
measurement measure_shuffle(const gpu_algorithm& a, const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n,
                            const registry::shuffle_params& base, timer& t, cudaStream_t s);

/// The registered GPU shuffle as a gpu_algorithm.
gpu_algorithm from_registry(const registry::shuffle_entry& e);

/// "1.234 G items/s" style text for progress lines.
std::string rate_text(double items_per_second);

}  // namespace onepass::experiments::gpu
