// experiments/walking_sampler.cu — the walking permutation as a data-loader sampler on the
// GPU: indices per second of gpu::walking_indices (a batch of the global order written to
// device memory) for both walk structures, and the walks' cost in evaluations of the
// bijection — the structure study of the sampler's issue (cycle walking, Black & Rogaway,
// CT-RSA 2002, over the VariablePhilox bijection of Mitchell et al. §3.2).
//
// Sizes: N = 10^6, 10^8, 10^9, 3*10^9 (the sampler benchmark's), and N = 2^k (best case:
// every evaluation lands in [0, N)) and 2^k + 1 (worst case: domain 2^(k+1), about two
// evaluations per index) for k = 20, 24, 28, 32. Every timed call writes a batch of
// --batch-log2 (default 28) indices, positions 0 .. batch - 1 of epoch run k's order (taken
// mod N, as a padded sampler does), seed --seed + k; CUDA events, L2 flushed, median of the
// timed runs (experiments/common/gpu_harness.cuh). After timing, one more batch is compared
// on the host with the CPU's walking_indices on a sample of 2^16 positions; a mismatch fails
// the run.
//
// Evaluations (from the bijection on the host, not timed; the first --stat-positions
// positions): mean evaluations per index; the longest walk; for one_per_lane, the lane-
// evaluation slots per index (each warp of 32 consecutive positions runs as long as its
// longest walk: 32 x max / 32 positions); for warp_queue, the same emulated exactly for its
// queue over chunks of 2048 positions (gpu_walking.cuh). Bijective2's work for comparison:
// 2^b / N evaluations per index (the whole domain is evaluated once).
//
// Output: <out>/walking_sampler.csv
//   algorithm,num_items,case,domain_bits,batch,reps,seconds_median,seconds_min,seconds_max,indices_per_second,
//   mean_evaluations,max_walk,lane_slots_per_index,bijective2_evaluations_per_index
// algorithm: walking_warp_queue | walking_one_per_lane.
// Exit status: 0 measured, 1 a wrong batch or a CUDA failure, 2 bad arguments, 3 no GPU.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/shuffle/cpu_walking.hpp"
#include "onepass/shuffle/gpu_walking.cuh"
#include "onepass/shuffle/walking_permutation.hpp"

namespace {

namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;
namespace sh = onepass::shuffle;
using sh::gpu::walk_structure;

const char* const experiment = "walking_sampler";

struct walk_stats {
  double mean_evaluations = 0;
  std::uint64_t max_walk = 0;
  double lane_slots_per_index = 0;
};

/// Walk lengths of positions [0, count), then the structure's lane-evaluation slots.
walk_stats evaluate(const sh::walking_permutation& sigma, std::uint64_t count, walk_structure structure) {
  std::vector<std::uint32_t> length(count);
  std::uint64_t total = 0, longest = 0;
  for (std::uint64_t j = 0; j < count; ++j) {
    std::uint64_t k = 0;
    sigma.walk(j % sigma.num_items(), k);
    length[j] = static_cast<std::uint32_t>(k);
    total += k;
    longest = std::max(longest, k);
  }
  std::uint64_t slots = 0;  // warp iterations x 32
  if (structure == walk_structure::one_per_lane) {
    for (std::uint64_t w = 0; w < count; w += 32) {
      std::uint32_t m = 0;
      for (std::uint64_t j = w; j < std::min(count, w + 32); ++j) m = std::max(m, length[j]);
      slots += 32ull * m;
    }
  } else {
    const std::uint64_t chunk = sh::gpu::walk_chunk;
    for (std::uint64_t base = 0; base < count; base += chunk) {
      const std::uint64_t c = std::min(chunk, count - base);
      // Lane state: remaining evaluations of its current walk (0: free).
      std::uint32_t remaining[32];
      std::uint64_t taken = 0;
      for (int l = 0; l < 32; ++l) remaining[l] = taken < c ? length[base + taken++] : 0;
      bool open = true;
      while (open) {
        open = false;
        for (int l = 0; l < 32; ++l) open |= remaining[l] > 0;
        if (!open) break;
        slots += 32;
        for (int l = 0; l < 32; ++l) {
          if (remaining[l] > 0) --remaining[l];
        }
        for (int l = 0; l < 32; ++l) {
          // A lane whose walk ended (or that was idle) takes the next position, in lane order.
          if (remaining[l] == 0 && taken < c) remaining[l] = length[base + taken++];
        }
      }
    }
  }
  walk_stats s;
  s.mean_evaluations = static_cast<double>(total) / static_cast<double>(count);
  s.max_walk = longest;
  s.lane_slots_per_index = static_cast<double>(slots) / static_cast<double>(count);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Walking-permutation sampler on the GPU: indices/s of gpu::walking_indices and the walks' cost"};
  ex::run r(experiment, app);
  int batch_log2_option = 0;
  std::uint64_t stat_positions_option = 0;
  app.add_option("--batch-log2", batch_log2_option, "indices per timed call 2^B, B in [10, 32]; default by scale 20/28/28")
      ->check(CLI::Range(10, 32));
  app.add_option("--stat-positions", stat_positions_option,
                 "positions whose walks are counted on the host (default by scale 2^16/2^22/2^24)");
  const auto started = gpu::parse_and_start_timed_run(r, app, argc, argv, experiment, {3, 7, 11});
  if (!started) return 3;
  const gpu::timing_options options = *started;

  const unsigned batch_log2 = batch_log2_option ? static_cast<unsigned>(batch_log2_option) : r.pick(20u, 28u, 28u);
  const std::uint64_t batch = std::uint64_t{1} << batch_log2;
  const std::uint64_t stat_positions =
      stat_positions_option ? stat_positions_option : r.pick<std::uint64_t>(1u << 16, 1u << 22, 1u << 24);

  struct size_point {
    std::uint64_t n;
    const char* which;
  };
  std::vector<size_point> points{{1000000ull, "sampler"}, {100000000ull, "sampler"}, {1000000000ull, "sampler"},
                                 {3000000000ull, "sampler"}};
  for (unsigned k : {20u, 24u, 28u, 32u}) {
    points.push_back({std::uint64_t{1} << k, "best"});
    points.push_back({(std::uint64_t{1} << k) + 1, "worst"});
  }

  gpu::stream stream;
  gpu::timer timer(stream.get(), options);
  gpu::device_buffer out(batch * sizeof(std::uint64_t));
  auto* d_out = out.as<std::uint64_t>();
  r.open_csv({"algorithm", "num_items", "case", "domain_bits", "batch", "reps", "seconds_median", "seconds_min",
              "seconds_max", "indices_per_second", "mean_evaluations", "max_walk", "lane_slots_per_index",
              "bijective2_evaluations_per_index"});
  std::vector<std::string> failed;
  for (const size_point& p : points) {
    const auto sigma0 = sh::walking_permutation::for_length(p.n, r.seed());
    const double bijective2 = static_cast<double>(std::uint64_t{1} << sigma0.domain_bits()) / static_cast<double>(p.n);
    // The permutations of the timed runs (seed + k), made outside the timed region.
    std::vector<sh::walking_permutation> sigmas;
    for (int k = 0; k < options.warmup + options.reps; ++k)
      sigmas.push_back(sh::walking_permutation::for_length(p.n, r.seed() + static_cast<std::uint64_t>(k)));
    for (walk_structure s : {walk_structure::warp_queue, walk_structure::one_per_lane}) {
      const std::string name = std::string("walking_") + sh::gpu::to_string(s);
      const gpu::timing t = timer.measure([&](int k) {
        sh::gpu::walking_indices(d_out, 0, 1, batch, sigmas[static_cast<std::size_t>(k)], stream.get(), s);
      });
      // Check: one more batch against the CPU on a sample of positions.
      sh::gpu::walking_indices(d_out, 0, 1, batch, sigma0, stream.get(), s);
      stream.synchronize();
      const std::uint64_t sample = std::min<std::uint64_t>(batch, 1u << 16);
      std::vector<std::uint64_t> got(sample), want(sample);
      ONEPASS_EXPERIMENT_CUDA(cudaMemcpy(got.data(), d_out + (batch - sample), sample * sizeof(std::uint64_t),
                                         cudaMemcpyDeviceToHost));
      sh::cpu::walking_indices(want.data(), batch - sample, 1, sample, sigma0);
      if (got != want) {
        failed.push_back(name + " at N = " + std::to_string(p.n) + ": batch differs from the CPU's walking_indices");
        ex::progress(experiment, "FAILED " + failed.back());
        continue;
      }
      const walk_stats w = evaluate(sigma0, std::min(stat_positions, p.n), s);
      const double rate = static_cast<double>(batch) / t.median;
      r.row(name, p.n, p.which, sigma0.domain_bits(), batch, t.reps(), t.median, t.min, t.max, rate,
            w.mean_evaluations, w.max_walk, w.lane_slots_per_index, bijective2);
      std::ostringstream line;
      line.precision(4);
      line << name << " N = " << p.n << " (" << p.which << "): " << rate / 1e9 << " G indices/s (median "
           << t.median * 1e3 << " ms); evaluations/index " << w.mean_evaluations << ", longest walk " << w.max_walk
           << ", lane slots/index " << w.lane_slots_per_index << " (Bijective2: " << bijective2 << ")";
      ex::progress(experiment, line.str());
    }
  }
  r.note("batch", std::to_string(batch) + " indices per call (positions 0..batch-1 mod N)");
  r.note("stat_positions", std::to_string(stat_positions));
  r.note("rounds", "24");
  r.note("check", "after timing, the last 2^16 indices of one more batch compared with the CPU's walking_indices");
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
