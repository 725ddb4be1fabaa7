#include "gpu_harness.cuh"
#include "onepass/launch_geometry.cuh"

#include <cuda/std/version>  // CCCL_VERSION

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <sstream>
#include <utility>

#ifndef ONEPASS_CUDA_ARCHITECTURES
#define ONEPASS_CUDA_ARCHITECTURES "unknown"
#endif

namespace onepass::experiments::gpu {

namespace {

constexpr unsigned block_threads = 256;

/// Blocks for a grid-stride loop over n items: enough to fill the device, no more.
unsigned grid_for(std::size_t n) {
  return onepass::device::stride_grid(n, block_threads, std::uint64_t{onepass::device::multiprocessors()} * 32);
}

__global__ void iota_kernel(std::uint64_t* d, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) d[i] = i;
}

/// Reads every 16-byte word of `buffer` so that the L2 cache holds only it afterwards;
/// the conditional store keeps the loads from being optimised away.
__global__ void flush_kernel(const ulonglong2* buffer, std::size_t words, unsigned long long* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long acc = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    const ulonglong2 v = buffer[i];
    acc ^= v.x ^ v.y;
  }
  if (acc == 0x9E3779B97F4A7C15ull) *sink = acc;  // the buffer is zero: never taken
}

/// counters[0] += elements >= n; counters[1] += elements already marked in the bitmap.
__global__ void check_kernel(const std::uint64_t* out, std::size_t n, unsigned* bitmap, bool distinct,
                             unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, dup = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t v = out[i];
    if (v >= n) {
      ++bad;
      continue;
    }
    if (distinct) {
      const unsigned bit = 1u << (v & 31u);
      if (atomicOr(&bitmap[v >> 5], bit) & bit) ++dup;
    }
  }
  if (bad) atomicAdd(&counters[0], bad);
  if (dup) atomicAdd(&counters[1], dup);
}

/// counters[0] += elements with d[i] != i.
__global__ void not_iota_kernel(const std::uint64_t* d, std::size_t n, unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    bad += d[i] != i;
  if (bad) atomicAdd(&counters[0], bad);
}

std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

/// Number of elements d[i] != i (waits for the stream).
std::uint64_t count_not_iota(const std::uint64_t* d, std::size_t n, cudaStream_t s) {
  device_buffer counters(2 * sizeof(unsigned long long));
  ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(counters.get(), 0, counters.bytes(), s));
  if (n > 0) {
    not_iota_kernel<<<grid_for(n), block_threads, 0, s>>>(d, n, counters.as<unsigned long long>());
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  }
  unsigned long long host[2] = {0, 0};
  ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(host, counters.get(), sizeof host, cudaMemcpyDeviceToHost, s));
  ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(s));
  return host[0];
}

}  // namespace

void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::ostringstream msg;
  msg << file << ":" << line << ": " << call << ": " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status)
      << ")";
  if (status == cudaErrorMemoryAllocation) throw out_of_memory(msg.str());
  throw runtime_failure(msg.str());
}

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const out_of_memory*>(&e) || dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos || what.find("cudaErrorMemoryAllocation") != std::string::npos;
}

bool init_device(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    why = status != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status)
                                : std::string("no CUDA device");
    cudaGetLastError();
    return false;
  }
  ONEPASS_EXPERIMENT_CUDA(cudaSetDevice(0));
  ONEPASS_EXPERIMENT_CUDA(cudaFree(nullptr));  // creates the context now, not inside a timed region
  return true;
}

bool device_ready(const std::string& experiment) {
  std::string why;
  if (init_device(why)) return true;
  progress(experiment, "no usable CUDA device (" + why + "): nothing measured, nothing written");
  return false;
}

void note_gpu(run& r) {
  int device = 0;
  ONEPASS_EXPERIMENT_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  ONEPASS_EXPERIMENT_CUDA(cudaGetDeviceProperties(&prop, device));
  auto attribute = [device](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? std::to_string(v) : std::string("unknown");
  };
  int driver = 0, runtime = 0;
  ONEPASS_EXPERIMENT_CUDA(cudaDriverGetVersion(&driver));
  ONEPASS_EXPERIMENT_CUDA(cudaRuntimeGetVersion(&runtime));
  char bus[32] = "unknown";
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  r.note("gpu_name", prop.name);
  r.note("gpu_compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  r.note("gpu_sm_count", std::to_string(prop.multiProcessorCount));
  r.note("gpu_memory_bytes", std::to_string(prop.totalGlobalMem));
  r.note("gpu_l2_bytes", std::to_string(prop.l2CacheSize));
  r.note("gpu_memory_bus_width_bits", std::to_string(prop.memoryBusWidth));
  r.note("gpu_clock_khz", attribute(cudaDevAttrClockRate));
  r.note("gpu_memory_clock_khz", attribute(cudaDevAttrMemoryClockRate));
  r.note("gpu_ecc", prop.ECCEnabled ? "on" : "off");
  r.note("gpu_pci_bus_id", bus);
  r.note("cuda_driver_api_version", version_text(driver));
  r.note("cuda_runtime_version", version_text(runtime));
  r.note("cuda_compiler_version", std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) +
                                      "." + std::to_string(__CUDACC_VER_BUILD__));
  r.note("cuda_architectures", ONEPASS_CUDA_ARCHITECTURES);
  r.note("cccl_version", std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
                             std::to_string(CCCL_PATCH_VERSION));
  // Driver release and clocks as nvidia-smi reports them (absent when it is not installed).
  const std::string smi = command_output(
      "nvidia-smi -i " + std::string(bus) +
      " --query-gpu=driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,persistence_mode "
      "--format=csv,noheader 2>/dev/null");
  static const char* const keys[] = {"nvidia_driver_version", "gpu_clock_sm_now", "gpu_clock_mem_now",
                                     "gpu_clock_sm_max",      "gpu_clock_mem_max", "gpu_power_limit",
                                     "gpu_persistence_mode"};
  std::vector<std::string> fields;
  {
    std::istringstream line(smi.substr(0, smi.find('\n')));
    std::string field;
    while (std::getline(line, field, ',')) {
      const auto first = field.find_first_not_of(' ');
      fields.push_back(first == std::string::npos ? "" : field.substr(first));
    }
  }
  if (fields.size() == sizeof keys / sizeof keys[0])  // anything else is a message, not the answer
    for (std::size_t i = 0; i < fields.size(); ++i) r.note(keys[i], fields[i]);
  cudaGetLastError();  // a failed attribute query above must not be blamed on later work
}

// --------------------------------------------------------------------------- buffers and streams

device_buffer::device_buffer(std::size_t bytes) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMalloc(&ptr_, bytes);
  if (status != cudaSuccess) {
    ptr_ = nullptr;
    cudaGetLastError();  // an allocation failure is not sticky; clear it
    std::ostringstream msg;
    msg << "cudaMalloc(" << bytes << " bytes): " << cudaGetErrorString(status);
    if (status == cudaErrorMemoryAllocation) throw out_of_memory(msg.str());
    throw runtime_failure(msg.str());
  }
  bytes_ = bytes;
}

device_buffer::~device_buffer() { reset(); }

device_buffer::device_buffer(device_buffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

device_buffer& device_buffer::operator=(device_buffer&& other) noexcept {
  if (this != &other) {
    reset();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void device_buffer::reset() {
  if (ptr_) cudaFree(ptr_);  // nothing useful to do with an error while freeing
  ptr_ = nullptr;
  bytes_ = 0;
}

stream::stream() { ONEPASS_EXPERIMENT_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }

stream::~stream() {
  if (s_) cudaStreamDestroy(s_);
}

void stream::synchronize() const { ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(s_)); }

// --------------------------------------------------------------------------- timing

void add_timing_options(CLI::App& app, timing_cli& cli) {
  app.add_option("--reps", cli.reps, "timed runs per measurement (median reported), >= 1; default by scale")
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup", cli.warmup, "untimed runs before the timed ones (default 2)")->check(CLI::Range(0, 100));
  app.add_flag("--warm-l2", cli.warm_l2, "do not flush the L2 cache before each run (default: flush)");
}

std::optional<timing_options> start_timed_run(run& r, const std::string& experiment, const timing_cli& cli,
                                              const int (&default_reps)[3]) {
  if (!device_ready(experiment)) return std::nullopt;
  const timing_options options = resolve_timing(r, cli, default_reps);
  note_gpu(r);
  return options;
}

std::optional<timing_options> parse_and_start_timed_run(run& r, CLI::App& app, int argc, char** argv,
                                                        const std::string& experiment, const int (&default_reps)[3]) {
  timing_cli cli;
  add_timing_options(app, cli);
  r.parse(argc, argv);
  return start_timed_run(r, experiment, cli, default_reps);
}

timing_options resolve_timing(run& r, const timing_cli& cli, const int (&default_reps)[3]) {
  timing_options o;
  o.reps = cli.reps > 0 ? cli.reps : r.pick(default_reps[0], default_reps[1], default_reps[2]);
  o.warmup = cli.warmup;
  o.flush_l2 = !cli.warm_l2;
  r.note("reps", std::to_string(o.reps));
  r.note("warmup", std::to_string(o.warmup));
  r.note("l2_flush", o.flush_l2 ? "before every run a kernel reads 2 x L2 bytes, outside the timed region; the "
                                  "call is enqueued behind it, so the host's launch latency before its first "
                                  "kernel is not timed (later host-side waits inside the call are)"
                                : "none (--warm-l2): runs follow each other with the data of the last run cached; "
                                  "the host's launch latency is inside the timed region");
  r.note("timing",
         "CUDA events recorded on the algorithm's stream around each call (one call per sample); " +
             std::to_string(o.warmup) + " untimed warm-up run(s), then " + std::to_string(o.reps) +
             " timed runs; seconds_median/min/max over the timed runs; items_per_second = n / seconds_median; "
             "run k uses seed + k; temporary storage queried and allocated before timing");
  r.note("default_reps_by_scale", "smoke " + std::to_string(default_reps[0]) + ", default " +
                                      std::to_string(default_reps[1]) + ", paper " + std::to_string(default_reps[2]));
  return o;
}

timing summarize(std::vector<double> seconds) {
  require(!seconds.empty(), "gpu::summarize", "seconds", "must hold at least one timed run");
  timing t;
  t.seconds = seconds;
  std::sort(seconds.begin(), seconds.end());
  const std::size_t m = seconds.size() / 2;
  t.median = seconds.size() % 2 ? seconds[m] : 0.5 * (seconds[m - 1] + seconds[m]);
  t.min = seconds.front();
  t.max = seconds.back();
  return t;
}

timer::timer(cudaStream_t s, timing_options options) : stream_(s), options_(options) {
  require(options.reps >= 1, "gpu::timer", "options.reps", "must be >= 1");
  require(options.warmup >= 0, "gpu::timer", "options.warmup", "must be >= 0");
  ONEPASS_EXPERIMENT_CUDA(cudaEventCreate(&begin_));
  ONEPASS_EXPERIMENT_CUDA(cudaEventCreate(&end_));
  if (options_.flush_l2) {
    int device = 0, l2 = 0;
    ONEPASS_EXPERIMENT_CUDA(cudaGetDevice(&device));
    ONEPASS_EXPERIMENT_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    const std::size_t bytes = std::max<std::size_t>(std::size_t{2} * static_cast<std::size_t>(l2), std::size_t{1} << 20);
    flush_ = device_buffer(bytes);
    sink_ = device_buffer(sizeof(unsigned long long));
    ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream_));
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(stream_));
  }
}

timer::~timer() {
  if (begin_) cudaEventDestroy(begin_);
  if (end_) cudaEventDestroy(end_);
}

void timer::flush_l2() {
  if (!flush_.get()) return;
  const std::size_t words = flush_.bytes() / sizeof(ulonglong2);
  flush_kernel<<<grid_for(words), block_threads, 0, stream_>>>(flush_.as<const ulonglong2>(), words,
                                                                 sink_.as<unsigned long long>());
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
}

void timer::start() {
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());  // an earlier unchecked error must not be blamed on this run
  ONEPASS_EXPERIMENT_CUDA(cudaEventRecord(begin_, stream_));
}

double timer::stop() {
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());  // launch errors of the work
  ONEPASS_EXPERIMENT_CUDA(cudaEventRecord(end_, stream_));
  ONEPASS_EXPERIMENT_CUDA(cudaEventSynchronize(end_));  // execution errors of the work
  float ms = 0;
  ONEPASS_EXPERIMENT_CUDA(cudaEventElapsedTime(&ms, begin_, end_));
  return static_cast<double>(ms) * 1e-3;
}

// --------------------------------------------------------------------------- inputs and checks

void fill_iota(std::uint64_t* d, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  iota_kernel<<<grid_for(n), block_threads, 0, s>>>(d, n);
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
}

void poison(std::uint64_t* d, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(d, 0xA5, n * sizeof(std::uint64_t), s));
}

std::string permutation_check::describe() const {
  if (!checked) return "not checked (" + note + ")";
  if (ok()) return note.empty() ? "output checked" : note;
  std::ostringstream msg;
  msg << out_of_range << " element(s) out of range or unwritten, " << duplicates << " duplicate(s)";
  return msg.str();
}

permutation_check check_iota_output(const std::uint64_t* d_out, std::size_t n, bool distinct, cudaStream_t s) {
  permutation_check c;
  device_buffer bitmap, counters;
  try {
    counters = device_buffer(2 * sizeof(unsigned long long));
    if (distinct) bitmap = device_buffer(((n + 31) / 32) * sizeof(unsigned));
  } catch (const out_of_memory& e) {
    c.note = std::string("no memory for the check: ") + e.what();
    return c;
  }
  ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(counters.get(), 0, counters.bytes(), s));
  if (distinct && bitmap.get()) ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(bitmap.get(), 0, bitmap.bytes(), s));
  if (n > 0) {
    check_kernel<<<grid_for(n), block_threads, 0, s>>>(d_out, n, bitmap.as<unsigned>(), distinct,
                                                        counters.as<unsigned long long>());
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  }
  unsigned long long host[2] = {0, 0};
  ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(host, counters.get(), sizeof host, cudaMemcpyDeviceToHost, s));
  ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(s));
  c.checked = true;
  c.out_of_range = host[0];
  c.duplicates = host[1];
  c.note = distinct ? "output is a permutation of the input (exact check)"
                    : "every output element is an input element (exact check; not a permutation by design)";
  return c;
}

// --------------------------------------------------------------------------- one measurement

gpu_algorithm from_registry(const registry::shuffle_entry& e) {
  return gpu_algorithm{e.name, e.label, e.permutes, e.gpu_run};
}

measurement measure_shuffle(const gpu_algorithm& a, const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n,
                            const registry::shuffle_params& base, timer& t, cudaStream_t s) {
  measurement m;
  try {
    require(static_cast<bool>(a.run), "gpu::measure_shuffle", "a.run", "must be set ('" + a.name + "' has no GPU run)");
    std::size_t temp_bytes = 0;
    registry::shuffle_params p = base;
    a.run(nullptr, temp_bytes, d_in, d_out, n, p, s);  // query: enqueues nothing
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
    // At least one byte, so that a non-null pointer is passed even when nothing is
    // needed (a null pointer would mean "query only" and time nothing).
    device_buffer temp(std::max<std::size_t>(temp_bytes, 1));
    void* const stream_arg = static_cast<void*>(s);
    m.time = t.measure([&](int k) {
      p.seed = base.seed + static_cast<std::uint64_t>(k);
      std::size_t bytes = temp_bytes;
      a.run(temp.get(), bytes, d_in, d_out, n, p, stream_arg);
    });
    // Untimed: the output of one more run on a poisoned buffer, checked exactly.
    poison(d_out, n, s);
    p.seed = base.seed;
    std::size_t bytes = temp_bytes;
    a.run(temp.get(), bytes, d_in, d_out, n, p, stream_arg);
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(s));
    const permutation_check c = check_iota_output(d_out, n, a.permutes, s);
    const std::uint64_t input_changed = count_not_iota(d_in, n, s);
    if (input_changed) {
      m.what = measurement::status::failed;
      m.message = "the input was modified (" + std::to_string(input_changed) + " element(s) differ from iota)";
      fill_iota(const_cast<std::uint64_t*>(d_in), n, s);  // restore it for the next algorithm
      ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(s));
    } else if (c.checked && !c.ok()) {
      m.what = measurement::status::failed;
      m.message = "wrong output: " + c.describe();
    } else {
      m.message = c.describe();
    }
  } catch (const std::exception& e) {
    record_failure(m, e, s);
  }
  return m;
}

void record_failure(measurement& m, const std::exception& e, cudaStream_t s) {
  cudaGetLastError();  // clear a non-sticky error
  m.message = e.what();
  cudaError_t status = cudaStreamSynchronize(s);
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    m.what = measurement::status::fatal;
    m.message += std::string("; the CUDA context is unusable afterwards: ") + cudaGetErrorString(status);
  } else {
    m.what = is_out_of_memory(e) ? measurement::status::skipped : measurement::status::failed;
  }
}

std::string rate_text(double items_per_second) {
  char buf[64];
  if (items_per_second >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3f G items/s", items_per_second / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f M items/s", items_per_second / 1e6);
  return buf;
}

}  // namespace onepass::experiments::gpu
