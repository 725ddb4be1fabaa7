// experiments/segmented_shuffle.cu — many independent shuffles in one call: every GPU entry
// of the segmented-shuffle registry (registry::segmented_shuffles(): ours,
// harness/src/gpu_segmented_shuffles.cu over shuffle/gpu_segmented_shuffle.cuh; Mitchell et al.,
// "Bandwidth-Optimal Random Shuffling for GPUs", §4, per segment; and the baselines of
// baselines/gpu/segmented_baselines.cu: CUB's segmented sorts of random keys, the
// segment-id sort, a loop of single shuffles), all timed in the same run on B rows of n
// uint64 items (B * n = 2^28 at the default scale) and on one ragged case (row lengths
// drawn log-uniformly from 1 to 2^16), with a device-to-device copy of the same bytes as
// the bandwidth reference (`copy`). Entries with a segment limit or that need uniform rows
// are skipped (and the skip noted) where the shape exceeds it.
// Timing: gpu_harness's timer (warm-up runs, then --reps timed runs with CUDA events, L2
// flushed before each); temporary storage, offsets and buffers allocated outside the timed
// region. After timing, one untimed run into a poisoned output is checked on the device:
// each output row holds exactly its own input row's items (every item once).
//
// Output: <out>/segmented_shuffle.csv with
//   algorithm,n,num_segments,num_items,reps,seconds_median,seconds_min,seconds_max,items_per_second
// n = the row length (0 for the ragged case); items_per_second = num_items / seconds_median.
//
// Exit status: 0 when everything was measured or skipped for memory, 1 when an algorithm
// failed its check, 2 for bad arguments, 3 when there is no CUDA device (nothing written).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;

const char* const experiment = "segmented_shuffle";

/// Flags output items that left their row (input = iota, so an item is its input index).
__global__ void row_check_kernel(const std::uint64_t* out, const std::int64_t* offsets, std::uint64_t rows,
                                 unsigned long long* misplaced) {
  for (std::uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const auto b = static_cast<std::uint64_t>(offsets[r]), e = static_cast<std::uint64_t>(offsets[r + 1]);
    for (std::uint64_t i = b + threadIdx.x; i < e; i += blockDim.x)
      if (out[i] < b || out[i] >= e) atomicAdd(misplaced, 1ull);
  }
}

unsigned grid_for(std::uint64_t work) {
  const std::uint64_t g = (work + 255) / 256;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(g, 132 * 16)));
}

struct shape {
  std::uint64_t n;  // row length; 0: ragged
  std::vector<std::int64_t> offsets;
  std::uint64_t items() const { return static_cast<std::uint64_t>(offsets.back()); }
  std::uint64_t rows() const { return offsets.size() - 1; }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Segmented shuffle: B rows of n uint64 items (B n = 2^28) and a ragged case, ours vs CUB's segmented "
               "sorts, the segment-id sort, a loop of single shuffles and a copy"};
  ex::run r(experiment, app);
  int log2_total_option = 0;
  app.add_option("--log2-items", log2_total_option, "log2 of B n, in [12, 31]; default by scale 20/28/28")
      ->check(CLI::Range(12, 31));
  const auto started = gpu::parse_and_start_timed_run(r, app, argc, argv, experiment, {5, 7, 9});
  if (!started) return 3;
  const gpu::timing_options options = *started;
  const unsigned log2_total = log2_total_option ? static_cast<unsigned>(log2_total_option) : r.pick(20u, 28u, 28u);
  const std::uint64_t total = std::uint64_t{1} << log2_total;

  std::vector<shape> shapes;
  for (unsigned w : {8u, 12u, 16u, 20u, 24u}) {
    if (w > log2_total) continue;
    shape s{std::uint64_t{1} << w, {0}};
    for (std::uint64_t i = 0; i < total >> w; ++i) s.offsets.push_back(s.offsets.back() + (std::int64_t{1} << w));
    shapes.push_back(std::move(s));
  }
  {  // ragged: lengths log-uniform in [1, 2^16], the last row trimmed to the total
    shape s{0, {0}};
    std::mt19937_64 rng(r.seed());
    std::uniform_real_distribution<double> u(0.0, 16.0);
    while (static_cast<std::uint64_t>(s.offsets.back()) < total) {
      const auto len = static_cast<std::int64_t>(std::floor(std::exp2(u(rng))));
      s.offsets.push_back(std::min<std::int64_t>(s.offsets.back() + std::max<std::int64_t>(1, len),
                                                 static_cast<std::int64_t>(total)));
    }
    shapes.push_back(std::move(s));
  }

  gpu::stream stream;
  gpu::timer timer(stream.get(), options);
  const cudaStream_t st = stream.get();
  r.open_csv({"algorithm", "n", "num_segments", "num_items", "reps", "seconds_median", "seconds_min", "seconds_max",
              "items_per_second"});
  std::vector<std::string> skipped, failed;
  std::size_t rows_written = 0;
  const std::uint64_t seed = r.seed();

  for (const shape& sh : shapes) {
    const std::uint64_t n_items = sh.items(), n_rows = sh.rows();
    const std::string where_shape = sh.n ? "n = 2^" + std::to_string(static_cast<int>(std::log2(sh.n))) +
                                               " (" + std::to_string(n_rows) + " rows)"
                                         : "ragged (" + std::to_string(n_rows) + " rows)";
    gpu::device_buffer in, out, offsets;
    try {
      in = gpu::device_buffer(n_items * 8);
      out = gpu::device_buffer(n_items * 8);
      offsets = gpu::device_buffer(sh.offsets.size() * 8);
    } catch (const gpu::out_of_memory& e) {
      skipped.push_back(where_shape + ": buffers: " + e.what());
      continue;
    }
    // On st (non-blocking): a cudaMemcpy on the legacy stream could still be landing when st's kernels read it.
    ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(offsets.get(), sh.offsets.data(), sh.offsets.size() * 8, cudaMemcpyHostToDevice, st));
    gpu::fill_iota(in.as<std::uint64_t>(), n_items, st);
    const auto* d_in = in.as<const std::uint64_t>();
    auto* d_out = out.as<std::uint64_t>();
    const auto* d_off = offsets.as<const std::int64_t>();

    struct algorithm {
      std::string name;
      std::function<std::size_t()> query;                 // temporary bytes
      std::function<void(void*, std::size_t, int)> run;   // (temp, bytes, run index)
      bool permutes;                                      // checked as a per-row permutation
    };
    std::vector<algorithm> algorithms;
    algorithms.push_back({"copy", [] { return std::size_t{0}; },
                          [&](void*, std::size_t, int) {
                            ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(d_out, d_in, n_items * 8, cudaMemcpyDeviceToDevice, st));
                          },
                          false});
    for (const auto& e : onepass::registry::segmented_shuffles()) {
      if (e.where != onepass::registry::device::gpu) continue;
      if (e.max_segments > 0 && n_rows > e.max_segments) {
        skipped.push_back(e.name + " at " + where_shape + ": more than " + std::to_string(e.max_segments) + " rows");
        continue;
      }
      if (e.needs_uniform && sh.n == 0) {
        skipped.push_back(e.name + " at " + where_shape + ": uniform rows only");
        continue;
      }
      const auto params = [&](int k) {
        onepass::registry::segmented_params p;
        p.seed = seed + static_cast<std::uint64_t>(k);
        p.rounds = onepass::bijection::default_rounds;
        p.uniform_length = sh.n;
        return p;
      };
      algorithms.push_back({e.name,
                            [&, e, params] {
                              std::size_t b = 0;
                              e.gpu_run(nullptr, b, d_in, d_out, n_items, d_off, n_rows, params(0), st);
                              return b;
                            },
                            [&, e, params](void* t, std::size_t b, int k) {
                              e.gpu_run(t, b, d_in, d_out, n_items, d_off, n_rows, params(k), st);
                            },
                            true});
    }

    for (const auto& a : algorithms) {
      const std::string where = a.name + " at " + where_shape;
      try {
        const std::size_t bytes = a.query();
        gpu::device_buffer temp(std::max<std::size_t>(bytes, 1));
        const gpu::timing t = timer.measure([&](int k) { a.run(temp.get(), bytes, k); });
        // Check: one more run into a poisoned output.
        gpu::poison(d_out, n_items, st);
        a.run(temp.get(), bytes, 0);
        ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(st));
        std::string message = "copy";
        if (a.permutes) {
          const gpu::permutation_check pc = gpu::check_iota_output(d_out, n_items, true, st);
          gpu::device_buffer bad(8);
          ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(bad.get(), 0, 8, st));
          row_check_kernel<<<grid_for(n_rows * 256), 256, 0, st>>>(d_out, d_off, n_rows,
                                                                   bad.as<unsigned long long>());
          unsigned long long misplaced = 0;
          ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(&misplaced, bad.get(), 8, cudaMemcpyDeviceToHost, st));
          ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(st));
          if (!pc.ok() || misplaced) {
            failed.push_back(where + ": " + pc.describe() + ", " + std::to_string(misplaced) + " item(s) left their row");
            ex::progress(experiment, "FAILED " + failed.back());
            continue;
          }
          message = "checked: every row a permutation of itself";
        }
        const double rate = static_cast<double>(n_items) / t.median;
        r.row(a.name, sh.n, n_rows, n_items, t.reps(), t.median, t.min, t.max, rate);
        ++rows_written;
        std::ostringstream line;
        line.precision(4);
        line << where << ": " << gpu::rate_text(rate) << " (median " << t.median * 1e3 << " ms; " << message << ")";
        ex::progress(experiment, line.str());
      } catch (const gpu::out_of_memory& e) {
        skipped.push_back(where + ": " + e.what());
        ex::progress(experiment, "SKIPPED (memory) " + skipped.back());
      } catch (const std::exception& e) {
        failed.push_back(where + ": " + e.what());
        ex::progress(experiment, "FAILED " + failed.back());
        cudaGetLastError();
      }
    }
  }
  r.note("element_type", "uint64");
  r.note("total_items", "2^" + std::to_string(log2_total) + " per shape (B n)");
  r.note("ragged", "row lengths floor(2^U), U uniform in [0, 16), at least 1, the last row trimmed to the total");
  r.note("rounds", "24 (ours and loop_shuffle)");
  r.note("keys", "sort baselines: random 32-bit keys from a counter hash, generated inside the timed call; "
                 "segment_id_sort: row << 32 | random 32 bits, sorted on bits [0, 32 + ceil(log2(rows + 1)))");
  r.note("check", "after timing, one untimed run into a poisoned output: every item once (bitmap) and in its own row");
  r.note("rows", std::to_string(rows_written));
  if (!skipped.empty()) r.note("skipped", ex::join(skipped, "; "));
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
