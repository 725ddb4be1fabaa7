// experiments/common/sort_bench.cu — see sort_bench.cuh.
#include "sort_bench.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/launch_geometry.cuh"
#include "onepass/random/counter_hash.hpp"

namespace onepass::experiments::gpu {

namespace {

namespace reg = onepass::registry;

constexpr unsigned threads = 256;

unsigned blocks_for(std::size_t n) {
  return onepass::device::stride_grid(n, threads, std::uint64_t{onepass::device::multiprocessors()} * 16);
}

/// The unsigned word of a key type (the bits the fingerprints and checks read).
template <class Key>
using word_t = std::conditional_t<sizeof(Key) == 8, std::uint64_t, std::uint32_t>;

/// keys[i] = AND of hash(i * q + j), j < q (Thearling–Smith band q), truncated to the
/// key's width; float keys take the 32-bit pattern, with bit 30 cleared where the
/// exponent is all ones (so no NaN or infinity: every key finite).
template <class Key>
__global__ void band_keys_kernel(Key* keys, std::size_t n, unsigned q, random::counter_hash hash) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::uint64_t w = ~std::uint64_t{0};
    for (unsigned j = 0; j < q; ++j) w &= hash(i * q + j);
    if constexpr (std::is_floating_point_v<Key>) {
      auto bits = static_cast<word_t<Key>>(w);
      constexpr word_t<Key> exponent = sizeof(Key) == 8 ? word_t<Key>{0x7FF0000000000000ull} : word_t<Key>{0x7F800000u};
      constexpr word_t<Key> high_exponent_bit = exponent & ~(exponent >> 1);
      if ((bits & exponent) == exponent) bits &= ~high_exponent_bit;
      Key k;
      memcpy(&k, &bits, sizeof k);
      keys[i] = k;
    } else {
      keys[i] = static_cast<Key>(w);
    }
  }
}

template <class Value>
__global__ void iota_kernel(Value* v, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    v[i] = static_cast<Value>(i);
}

/// acc[0] += sum of d[i], acc[1] += sum of mix64(d[i]) (mod 2^64): an order-independent
/// fingerprint of the multiset d[0, n).
template <class T>
__global__ void fingerprint_kernel(const T* d, std::size_t n, unsigned long long* acc) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  unsigned long long sum = 0, hashed = 0;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    word_t<T> bits;
    memcpy(&bits, &d[i], sizeof bits);
    const std::uint64_t v = bits;
    sum += v;
    hashed += random::mix64(v + 0x9e3779b97f4a7c15ull);
  }
  if (sum) atomicAdd(&acc[0], sum);
  if (hashed) atomicAdd(&acc[1], hashed);
}

/// bad[0]: i with out[i] > out[i+1] (for floats: by value, so -0.0 and +0.0 may come in
/// either order, ours keeping them apart and CUB treating them as equal; the keys are
/// finite); bad[1] (pairs): i with values[i] >= n or keys_in[values[i]] != out[i] (bits);
/// bad[2] (pairs): neighbours with equal key bits whose values do not increase.
template <class Key, class Value>
__global__ void check_sorted_kernel(const Key* out, const Key* keys_in, const Value* values, std::size_t n,
                                    unsigned long long* bad) {
  constexpr bool pairs = !std::is_void_v<Value>;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  unsigned long long order = 0, wrong_value = 0, unstable = 0;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const Key k = out[i];
    const bool has_next = i + 1 < n;
    const Key next = has_next ? out[i + 1] : k;
    order += has_next && k > next;
    if constexpr (pairs) {
      const Value v = values[i];
      auto same_bits = [](Key a, Key b) {
        word_t<Key> x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        return x == y;
      };
      wrong_value += v >= n || !same_bits(keys_in[v], k);
      unstable += has_next && same_bits(k, next) && v >= values[i + 1];
    }
  }
  if (order) atomicAdd(&bad[0], order);
  if (wrong_value) atomicAdd(&bad[1], wrong_value);
  if (unstable) atomicAdd(&bad[2], unstable);
}

template <class T>
std::pair<unsigned long long, unsigned long long> fingerprint(const T* d, std::size_t n, cudaStream_t s) {
  device_buffer acc(2 * sizeof(unsigned long long));
  ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(acc.get(), 0, acc.bytes(), s));
  if (n) {
    fingerprint_kernel<T><<<blocks_for(n), threads, 0, s>>>(d, n, acc.as<unsigned long long>());
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  }
  unsigned long long h[2] = {0, 0};
  ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(h, acc.get(), sizeof h, cudaMemcpyDeviceToHost, s));
  ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(s));
  return {h[0], h[1]};
}

std::string size_text(std::size_t n) {
  std::ostringstream s;
  s.precision(4);
  s << n << " (2^" << std::log2(static_cast<double>(n)) << ")";
  return s.str();
}

/// The launch gate (what nvbench calls its blocking kernel, with a time limit): before each run
/// of a sort, one thread spins on a word of host-mapped memory; the run's L2 flush, start event
/// and call are enqueued behind it, and the host opens the gate once the call has been enqueued.
/// So the host's time to enqueue the call (its launches, and any stall of the host thread while
/// it does) is outside the timed region, as the device's work is not delayed by it; what the
/// device does between the events is timed as before. A call that waits for the device inside
/// (onepass::sort's stage-2 selector reads its sample back) cannot be enqueued whole behind a
/// closed gate: the gate then opens after gate_limit_ns and that run is timed as without it
/// (such runs are counted per measurement, meta.json `launch_gate_timeouts`).
constexpr unsigned long long gate_limit_ns = 2'000'000;

__global__ void gate_kernel(const volatile unsigned* open, unsigned long long limit_ns, volatile unsigned* timeouts) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*open == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > limit_ns) {
      *timeouts = *timeouts + 1;  // one thread, one gate at a time: no race
      return;
    }
    __nanosleep(256);
  }
}

class launch_gate {
 public:
  launch_gate() {
    void* words = nullptr;
    ONEPASS_EXPERIMENT_CUDA(cudaHostAlloc(&words, 2 * sizeof(unsigned), cudaHostAllocMapped));
    host_ = static_cast<volatile unsigned*>(words);
    ONEPASS_EXPERIMENT_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), words, 0));
    host_[0] = 1;
    host_[1] = 0;
  }
  ~launch_gate() {
    if (host_) cudaFreeHost(const_cast<unsigned*>(host_));
  }
  launch_gate(const launch_gate&) = delete;
  launch_gate& operator=(const launch_gate&) = delete;

  /// Enqueues the closed gate on `s` (the previous one has passed: every run ends with a wait).
  void close(cudaStream_t s) {
    host_[0] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    gate_kernel<<<1, 1, 0, s>>>(device_, gate_limit_ns, device_ + 1);
    ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  }
  /// Lets the device past the gate.
  void open() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    host_[0] = 1;
  }
  /// Gates that opened by their time limit so far (read after the runs were waited for).
  unsigned timeouts() const { return host_[1]; }

 private:
  volatile unsigned* host_ = nullptr;  // [0]: open, [1]: time-outs (written by the device)
  unsigned* device_ = nullptr;
};

struct bench {
  const char* experiment;
  run& r;
  timer& t;
  cudaStream_t stream;
  std::vector<std::string> skipped, failed, copy_rates;
  std::set<std::string> choices;  // what onepass_sort (onepass::sort) ran, by shape and n
  std::vector<std::string> gate_timeouts;  // measurements with runs whose gate opened by its limit
  std::size_t rows = 0;
  bool fatal = false;
  launch_gate gate;

  /// Times entry e on (keys_in, values_in) -> (keys_out, values_out), then checks one
  /// more untimed run. In-place entries (registry::sort_entry::in_place) get the input
  /// copied into the outputs before every run, outside the timed region, and sort there.
  template <class Key, class Value>
  measurement measure(const reg::sort_entry& e, const Key* keys_in, Key* keys_out, const Value* values_in,
                      Value* values_out, std::size_t n, unsigned q,
                      std::pair<unsigned long long, unsigned long long> key_print,
                      std::pair<unsigned long long, unsigned long long> value_print) {
    constexpr bool pairs = !std::is_void_v<Value>;
    constexpr std::size_t value_size = pairs ? sizeof(std::conditional_t<pairs, Value, char>) : 0;
    measurement p;
    try {
      const reg::sort_params params;  // ascending, all key bits (the paper's setting)
      const void* ki = e.in_place ? static_cast<const void*>(keys_out) : keys_in;
      const void* vi = e.in_place ? static_cast<const void*>(values_out) : values_in;
      auto restore = [&](int) {
        if (!e.in_place) return;
        ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(keys_out, keys_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
        if (pairs)
          ONEPASS_EXPERIMENT_CUDA(
              cudaMemcpyAsync(values_out, values_in, n * value_size, cudaMemcpyDeviceToDevice, stream));
      };
      std::size_t temp_bytes = 0;
      e.gpu_run(nullptr, temp_bytes, ki, keys_out, vi, values_out, n, params, stream);
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      device_buffer temp(std::max<std::size_t>(temp_bytes, 1));
      const unsigned timeouts_before = gate.timeouts();
      p.time = t.measure(
          [&](int k) {
            restore(k);
            gate.close(stream);
          },
          [&](int) {
            std::size_t bytes = temp_bytes;
            try {
              e.gpu_run(temp.get(), bytes, ki, keys_out, vi, values_out, n, params, stream);
            } catch (...) {
              gate.open();
              throw;
            }
            gate.open();
          });
      if (const unsigned late = gate.timeouts() - timeouts_before)
        gate_timeouts.push_back(e.name + " " + reg::to_string(e.shape) + " n=" + std::to_string(n) +
                                " q=" + std::to_string(q) + ": " + std::to_string(late));
      // Untimed check of one more run into poisoned outputs (in place: the restored input).
      ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(keys_out, 0xA5, n * sizeof(Key), stream));
      if (pairs) ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(values_out, 0xA5, n * value_size, stream));
      restore(0);
      std::size_t bytes = temp_bytes;
      // The entry reports the algorithm it ran where it chooses one per call (onepass_sort).
      const char* ran = e.gpu_run(temp.get(), bytes, ki, keys_out, vi, values_out, n, params, stream);
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(stream));
      temp.reset();
      if (ran != nullptr)
        choices.insert(std::string(reg::to_string(e.shape)) + " n=" + std::to_string(n) + " q=" + std::to_string(q) +
                       ": " + ran);
      device_buffer bad(3 * sizeof(unsigned long long));
      ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(bad.get(), 0, bad.bytes(), stream));
      check_sorted_kernel<Key, Value><<<blocks_for(n), threads, 0, stream>>>(keys_out, keys_in, values_out, n,
                                                                           bad.as<unsigned long long>());
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      unsigned long long h[3] = {0, 0, 0};
      ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(h, bad.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
      ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(stream));
      const auto out_print = fingerprint(keys_out, n, stream);
      const auto in_print = fingerprint(keys_in, n, stream);
      std::ostringstream problems;
      if (h[0]) problems << h[0] << " adjacent pair(s) out of order; ";
      if (out_print != key_print) problems << "the output keys are not a permutation of the input (fingerprint); ";
      if (in_print != key_print) problems << "the input keys were modified; ";
      if constexpr (pairs) {
        if (h[1]) problems << h[1] << " value(s) not pointing at their key; ";
        if (h[2]) problems << h[2] << " equal-key neighbour(s) out of input order (not stable); ";
        if (fingerprint(values_out, n, stream) != value_print) problems << "the values are not a permutation; ";
        if (fingerprint(values_in, n, stream) != value_print) problems << "the input values were modified; ";
      }
      if (!problems.str().empty()) {
        p.what = measurement::status::failed;
        p.message = "wrong output: " + problems.str();
      } else {
        p.message = pairs ? "checked: sorted, keys a permutation, values follow their keys, stable"
                          : "checked: sorted, a permutation of the input";
      }
    } catch (const std::exception& ex) {
      record_failure(p, ex, stream);
    }
    return p;
  }

  /// Measures every algorithm of `algorithms` (all of one shape, keys Key, values Value or
  /// void) at size n for every band q.
  template <class Key, class Value>
  void run_size(reg::sort_shape shape, const std::vector<reg::sort_entry>& algorithms, std::size_t n,
                const std::vector<unsigned>& bands) {
    constexpr bool pairs = !std::is_void_v<Value>;
    using value_type = std::conditional_t<pairs, Value, std::uint32_t>;
    const std::string where_size = std::string(reg::to_string(shape)) + ", n = " + size_text(n);
    device_buffer keys_in, keys_out, values_in, values_out;
    try {
      keys_in = device_buffer(n * sizeof(Key));
      keys_out = device_buffer(n * sizeof(Key));
      if (pairs) {
        values_in = device_buffer(n * sizeof(value_type));
        values_out = device_buffer(n * sizeof(value_type));
      }
    } catch (const out_of_memory& ex) {
      skipped.push_back("all algorithms at " + where_size + ": inputs/outputs: " + ex.what());
      progress(experiment, "SKIPPED (memory) " + skipped.back());
      return;
    }
    std::pair<unsigned long long, unsigned long long> value_print{0, 0};
    if constexpr (pairs) {
      iota_kernel<value_type><<<blocks_for(n), threads, 0, stream>>>(values_in.as<value_type>(), n);
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      value_print = fingerprint(values_in.as<const value_type>(), n, stream);
    }
    // Device-to-device copy of the keys at this size: the bandwidth reference of the report.
    try {
      const timing copy = t.measure([&](int) {
        ONEPASS_EXPERIMENT_CUDA(
            cudaMemcpyAsync(keys_out.get(), keys_in.get(), n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
      });
      std::ostringstream rate;
      rate.precision(6);
      rate << reg::to_string(shape) << ":" << n << ":" << 2.0 * sizeof(Key) * static_cast<double>(n) / copy.median;
      copy_rates.push_back(rate.str());
    } catch (const std::exception& ex) {
      progress(experiment, std::string("copy bandwidth not measured at ") + where_size + ": " + ex.what());
      cudaGetLastError();
    }
    for (unsigned q : bands) {
      if (fatal) return;
      band_keys_kernel<Key><<<blocks_for(n), threads, 0, stream>>>(keys_in.as<Key>(), n, q,
                                                                   random::counter_hash(r.seed(), q));
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
      const auto key_print = fingerprint(keys_in.as<const Key>(), n, stream);
      for (const auto& e : algorithms) {
        const measurement p = measure<Key, Value>(
            e, keys_in.as<const Key>(), keys_out.as<Key>(), pairs ? values_in.as<const value_type>() : nullptr,
            pairs ? values_out.as<value_type>() : nullptr, n, q, key_print, value_print);
        const std::string where = e.name + " at " + where_size + ", q = " + std::to_string(q);
        switch (p.what) {
          case measurement::status::measured: {
            const double rate = static_cast<double>(n) / p.time.median;
            r.row(e.name, e.label, reg::to_string(shape), q, n, std::log2(static_cast<double>(n)), p.time.reps(),
                  p.time.median, p.time.min, p.time.max, rate);
            ++rows;
            std::ostringstream line;
            line.precision(4);
            line << where << ": " << rate / 1e9 << " GKey/s (median " << p.time.median * 1e3 << " ms; "
                 << p.message << ")";
            progress(experiment, line.str());
            break;
          }
          case measurement::status::skipped:
            skipped.push_back(where + ": " + p.message);
            progress(experiment, "SKIPPED (memory) " + skipped.back());
            break;
          case measurement::status::failed:
            failed.push_back(where + ": " + p.message);
            progress(experiment, "FAILED " + failed.back());
            break;
          case measurement::status::fatal:
            failed.push_back(where + ": " + p.message);
            progress(experiment, "FAILED, stopping: " + failed.back());
            fatal = true;
            return;
        }
      }
    }
  }

  /// run_size with the shape's key and value types (registry::visit_sort_shape).
  void run_shape(reg::sort_shape shape, const std::vector<reg::sort_entry>& algorithms, std::size_t n,
                 const std::vector<unsigned>& bands) {
    reg::visit_sort_shape(shape, [&](auto tag) {
      using types = decltype(tag);
      run_size<typename types::key, typename types::value>(shape, algorithms, n, bands);
    });
  }
};

/// The registered GPU sorts of `shape`, restricted to `only` when it is not empty (a
/// name of `only` registered for none of `shapes` is a usage error).
std::vector<reg::sort_entry> gpu_sorts_of(const char* experiment, reg::sort_shape shape,
                                          const std::vector<std::string>& only,
                                          const std::vector<reg::sort_shape>& shapes) {
  std::vector<std::string> known;
  for (const auto& e : reg::sorts())
    if (e.where == reg::device::gpu && std::find(shapes.begin(), shapes.end(), e.shape) != shapes.end() &&
        std::find(known.begin(), known.end(), e.name) == known.end())
      known.push_back(e.name);
  for (const auto& name : only)
    if (std::find(known.begin(), known.end(), name) == known.end())
      usage_exit(experiment, "--algorithms: '" + name + "' is not a registered GPU sort of these shapes; known: " +
                                 join(known));
  std::vector<reg::sort_entry> algorithms;
  for (const auto& e : reg::sorts())
    if (e.where == reg::device::gpu && e.shape == shape &&
        (only.empty() || std::find(only.begin(), only.end(), e.name) != only.end()))
      algorithms.push_back(e);
  return algorithms;
}

const std::vector<std::string> csv_columns = {"algorithm", "label",          "shape",       "q",
                                              "n",         "log2_n",         "reps",        "seconds_median",
                                              "seconds_min", "seconds_max",  "keys_per_second"};

/// The meta.json notes both programs share.
void note_common(run& r, const bench& b) {
  r.note("check", "after timing, one untimed run into poisoned outputs, checked on the GPU: keys non-decreasing "
                  "(float keys by value), multiset fingerprints (sum, sum of hashes of the key bits) equal to the "
                  "input's, input unchanged; pairs: keys_out[i] == keys_in[values_out[i]] (bits), values increasing "
                  "within equal keys (stable), values a permutation by fingerprint");
  r.note("in_place_entries", "entries registered in_place (cub::DoubleBuffer forms, onesweep_db, thrust::sort) get the "
                             "input copied into the output buffer before every run, outside the timed region, and "
                             "sort there (any copy back from their alternate buffer is timed)");
  r.note("copy_bytes_per_second_by_n", join(b.copy_rates, " ") +
                                           " (shape:n:rate; cudaMemcpyAsync device to device of the keys, bytes = 2 "
                                           "x key bytes, median of the timed runs)");
  r.note("rows", std::to_string(b.rows));
  r.note("launch_gate", "before each timed or warm-up run of a sort a one-thread kernel spins on host-mapped memory "
                        "until the host has enqueued the run's L2 flush, start event and call (then the host opens "
                        "it), so the host's enqueueing, and any stall of it, is not timed; a call that waits for "
                        "the device inside opens the gate by its limit of " +
                            std::to_string(gate_limit_ns / 1000) + " us and that run is timed as without a gate");
  r.note("launch_gate_timeouts", b.gate_timeouts.empty()
                                     ? std::string("none")
                                     : join(b.gate_timeouts, "; ") + " (algorithm shape n q: runs, warm-up included)");
  if (!b.choices.empty())
    r.note("onepass_sort_choice", "the algorithm onepass::sort (registry name onepass_sort) ran at each shape, n and band q "
                                  "(sort/sort.cuh, select_algorithm on the same keys): " +
                                      join(std::vector<std::string>(b.choices.begin(), b.choices.end()), "; "));
  if (!b.skipped.empty()) r.note("skipped", join(b.skipped, "; "));
  if (!b.failed.empty()) r.note("failed", join(b.failed, "; "));
}

const char* keys_note =
    "Thearling-Smith band q: key i = AND of counter_hash(seed, q)(i * q + j), j < q, generated on the GPU (32-bit "
    "keys: low half; float keys: that 32-bit pattern with bit 30 cleared where the exponent is all ones, so every "
    "key is finite); values (pairs) = 0..n-1 in the value type; ascending sort on all key bits";

}  // namespace

int run_sort_throughput(reg::sort_shape shape, const char* experiment, const char* title, int argc, char** argv) {
  CLI::App app{title};
  run r(experiment, app);
  int sizes_option = 0, min_log2 = 12, max_log2_option = 0;
  std::vector<unsigned> bands = {1, 2, 3, 4, 8, 16};
  std::vector<std::string> only;
  timing_cli timing_cli;
  app.add_option("--sizes", sizes_option, "number of problem sizes, drawn log-uniformly (default: smoke 4, "
                                          "default 64, paper 1000)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--min-log2", min_log2, "smallest size 2^W (default 12)")->check(CLI::Range(1, 40));
  app.add_option("--max-log2", max_log2_option, "largest size 2^W (default: smoke 16, default and paper 30)")
      ->check(CLI::Range(1, 40));
  app.add_option("--bands", bands, "entropy bands q (key = AND of q uniform words), default 1,2,3,4,8,16")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--algorithms", only, "comma-separated registered GPU sorts of this shape (default: all)")
      ->delimiter(',');
  add_timing_options(app, timing_cli);
  r.parse(argc, argv);

  const int max_log2 = max_log2_option ? max_log2_option : r.pick(16, 30, 30);
  if (min_log2 > max_log2)
    usage_exit(experiment, "--min-log2 (" + std::to_string(min_log2) + ") must not exceed --max-log2 (" +
                               std::to_string(max_log2) + ")");
  if (bands.empty()) usage_exit(experiment, "--bands: at least one band");
  const std::vector<reg::sort_entry> algorithms = gpu_sorts_of(experiment, shape, only, {shape});
  if (algorithms.empty()) usage_exit(experiment, std::string("no GPU sort registered for ") + reg::to_string(shape));

  const auto started = start_timed_run(r, experiment, timing_cli, {5, 7, 7});
  if (!started) return 3;
  const timing_options options = *started;

  // Sizes: log-uniform on [2^min, 2^max], from a generator seeded by --seed, ascending.
  const int count = sizes_option ? sizes_option : r.pick(4, 64, 1000);
  std::mt19937_64 size_rng(r.seed() ^ 0x5eed5123u);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::size_t> sizes;
  for (int k = 0; k < count; ++k) {
    const double e = min_log2 + (max_log2 - min_log2) * unit(size_rng);
    sizes.push_back(static_cast<std::size_t>(std::llround(std::exp2(e))));
  }
  std::sort(sizes.begin(), sizes.end());

  std::vector<std::string> names;
  for (const auto& e : algorithms) names.push_back(e.name);
  std::vector<std::string> band_text;
  for (unsigned q : bands) band_text.push_back(std::to_string(q));
  progress(experiment, std::to_string(algorithms.size()) + " algorithms (" + join(names, ", ") + "), " +
                           std::to_string(sizes.size()) + " sizes in [2^" + std::to_string(min_log2) + ", 2^" +
                           std::to_string(max_log2) + "], bands q = " + join(band_text) + ", " +
                           std::to_string(options.warmup) + " warm-up + " + std::to_string(options.reps) +
                           " timed runs each");

  stream s;
  timer t(s.get(), options);
  r.open_csv(csv_columns);
  bench b{experiment, r, t, s.get()};
  for (std::size_t n : sizes) {
    if (b.fatal) break;
    b.run_shape(shape, algorithms, n, bands);
  }

  std::vector<std::string> size_text_list;
  for (std::size_t n : sizes) size_text_list.push_back(std::to_string(n));
  r.note("shape", reg::to_string(shape));
  r.note("algorithms", join(names));
  r.note("bands", join(band_text));
  r.note("sizes", join(size_text_list, " "));
  r.note("size_distribution", "log-uniform on [2^" + std::to_string(min_log2) + ", 2^" + std::to_string(max_log2) +
                                  "], " + std::to_string(count) + " draws (std::mt19937_64(seed ^ 0x5eed5123)), sorted");
  r.note("keys", keys_note);
  note_common(r, b);
  r.finish();
  return b.failed.empty() ? 0 : 1;
}

int run_sort_headline(const char* experiment, const char* title, int argc, char** argv) {
  CLI::App app{title};
  run r(experiment, app);
  std::vector<int> sizes_log2;
  std::vector<unsigned> bands = {1, 2, 3, 4, 8, 16};
  std::vector<std::string> shape_names, only;
  timing_cli timing_cli;
  app.add_option("--sizes-log2", sizes_log2, "sizes 2^W, comma-separated (default: smoke 12,16; else 12,14,16,18,20,24,28,30)")
      ->delimiter(',')
      ->check(CLI::Range(1, 40));
  std::string default_shapes;
  for (auto shape : reg::all_sort_shapes)
    if (reg::headline_default(shape))
      default_shapes += (default_shapes.empty() ? "" : ",") + std::string(reg::to_string(shape));
  app.add_option("--shapes", shape_names,
                 "comma-separated shapes, of " + reg::sort_shape_names(",") + " (default: " + default_shapes + ")")
      ->delimiter(',');
  app.add_option("--bands", bands, "entropy bands q of keys_u32 (default 1,2,3,4,8,16); other shapes q = 1")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--algorithms", only, "comma-separated registered GPU sorts (default: all)")->delimiter(',');
  add_timing_options(app, timing_cli);
  r.parse(argc, argv);

  // The small sizes (2^12..2^18) are issue 33's; 2^20 and up the headline's.
  if (sizes_log2.empty()) sizes_log2 = r.pick(std::vector<int>{12, 16}, std::vector<int>{12, 14, 16, 18, 20, 24, 28, 30},
                                              std::vector<int>{12, 14, 16, 18, 20, 24, 28, 30});
  if (bands.empty()) usage_exit(experiment, "--bands: at least one band");
  std::vector<reg::sort_shape> shapes;
  for (const auto& name : shape_names) {
    try {
      shapes.push_back(reg::parse_sort_shape(name));
    } catch (const onepass::error&) {
      usage_exit(experiment, "--shapes: '" + name + "' is not a sort shape; known: " + reg::sort_shape_names());
    }
  }
  if (shapes.empty())
    for (auto shape : reg::all_sort_shapes)
      if (reg::headline_default(shape)) shapes.push_back(shape);
  std::vector<std::vector<reg::sort_entry>> algorithms;
  for (auto shape : shapes) algorithms.push_back(gpu_sorts_of(experiment, shape, only, shapes));

  const auto started = start_timed_run(r, experiment, timing_cli, {5, 7, 9});
  if (!started) return 3;
  const timing_options options = *started;

  std::vector<std::string> band_text, size_text_list, shape_text;
  for (unsigned q : bands) band_text.push_back(std::to_string(q));
  for (int w : sizes_log2) size_text_list.push_back("2^" + std::to_string(w));
  for (auto shape : shapes) shape_text.push_back(reg::to_string(shape));
  progress(experiment, "shapes " + join(shape_text) + ", sizes " + join(size_text_list) + ", keys_u32 bands q = " +
                           join(band_text) + " (other shapes q = 1), " + std::to_string(options.warmup) +
                           " warm-up + " + std::to_string(options.reps) + " timed runs each");

  stream s;
  timer t(s.get(), options);
  r.open_csv(csv_columns);
  bench b{experiment, r, t, s.get()};
  for (std::size_t k = 0; k < shapes.size() && !b.fatal; ++k) {
    const std::vector<unsigned> shape_bands =
        shapes[k] == reg::sort_shape::keys_u32 ? bands : std::vector<unsigned>{1};
    for (int w : sizes_log2) {
      if (b.fatal) break;
      b.run_shape(shapes[k], algorithms[k], std::size_t{1} << w, shape_bands);
    }
  }
  r.note("shapes", join(shape_text));
  r.note("sizes", join(size_text_list));
  r.note("bands", "keys_u32: " + join(band_text) + "; other shapes: 1");
  r.note("keys", keys_note);
  note_common(r, b);
  r.finish();
  return b.failed.empty() ? 0 : 1;
}

}  // namespace onepass::experiments::gpu
