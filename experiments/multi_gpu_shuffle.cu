// experiments/multi_gpu_shuffle.cu — onepass::distributed::shuffle over P GPUs (issue 29),
// started with `mpirun -np P multi_gpu_shuffle` (one rank per GPU; every P from 1 to the world
// size in the same run), beside, in the same run, the one-GPU gpu::bijective_shuffle (over the
// whole input where it fits, and over one rank's share: the issue's bound is the all-to-all of
// the same bytes plus the one-GPU shuffle of 2^30 items) and the NCCL all-to-all of the same
// bytes (grouped ncclSend/ncclRecv, n_r / P items to every rank).
//
// Cases (u64 items; --scale standard, smoke divides every size by 2^12):
//   strong: N = 2^30 items, the same global input for every P;
//   weak: 2^30 items per GPU.
// Algorithms: distributed_shuffle (permutation::bijective, the default: equal to the one-GPU
// bijective shuffle of the concatenation), distributed_shuffle_walking (permutation::walking),
// bijective_shuffle (one GPU, num_ranks 1), alltoall; with --exchange-sms K..., the tuning study
// distributed_shuffle_sms<K> (the bijective shuffle whose walks beside the exchange leave K SMs'
// share of their persistent grid free for NCCL's kernels). --shapes picks the cases.
// Item i of the global input is i (u64), so the output is the permutation itself. Timing as
// multi_gpu_sort (experiments/common/multi_gpu.cuh): slowest rank's wall time, GPU-resident
// input and output, host transfers excluded.
// Check (untimed): the output's fingerprint — the sum over the ranks of mix(global position,
// item) — must equal the one of the P = 1 run of the same case and permutation (world-size
// invariance), and the items must be a permutation of [0, N) (sum and xor of mix(item)).
//
// Output: <out>/multi_gpu_shuffle.csv
//   algorithm,shape,num_ranks,n_per_rank,n_total,seconds_median,seconds_min,seconds_max,items_per_second
// <out>/multi_gpu_shuffle_phases.csv (unless --no-phases): algorithm,shape,num_ranks,rank,phase,seconds_median
// — after each timed distributed_shuffle / distributed_shuffle_walking measurement (every P),
// the call run --reps more times with a phase_observer (onepass/distributed/phase_observer.hpp;
// mg::measure_phases) recording a CUDA event at each phase boundary; per rank and phase the
// median elapsed time on that rank's GPU. Phases (distributed/shuffle.cuh's "Profiling"), P > 1:
// boundaries (bijective, D > N only), own_walk, plan, walk_exchange, exchange_tail (how long the
// stream waits for the exchange after the last walk: near zero when the exchange hides behind
// the walks), place; P = 1: local_shuffle. A phase that starts with a collective includes the
// wait for the slowest rank to reach it.
// Exit status: 0 measured, 1 a failed check or a CUDA/NCCL failure, 2 bad arguments, 3 no GPU.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "multi_gpu.cuh"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/distributed/shuffle.cuh"
#include "onepass/shuffle/gpu_shuffle.cuh"

namespace {

namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;
namespace mg = onepass::experiments::multi_gpu;
namespace dist = onepass::distributed;
using mg::first_of;
using mg::share;

const char* const experiment = "multi_gpu_shuffle";

__global__ void iota_from(std::uint64_t* d, std::uint64_t n, std::uint64_t first) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = first + i;
}

/// sums[0] += mix(position, item) (the placement fingerprint), sums[1] += mix(0, item),
/// sums[2] ^= mix(0, item) (the multiset).
__global__ void fingerprint(const std::uint64_t* d, std::uint64_t n, std::uint64_t first, unsigned long long* sums) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long placed = 0, sum = 0, x = 0;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    placed += mg::mix64(first + i, d[i]);
    const std::uint64_t m = mg::mix64(0, d[i]);
    sum += m;
    x ^= m;
  }
  atomicAdd(&sums[0], placed);
  atomicAdd(&sums[1], sum);
  atomicXor(&sums[2], x);
}

struct case_spec {
  std::string name;
  std::uint64_t total, per_rank;  // strong: total; weak: per_rank
};

struct context {
  ex::run* r;
  const mg::session* s;
  int warmup, reps;
  std::uint64_t seed;
  cudaStream_t stream;
  bool with_phases;        ///< measure the phases after each distributed timing (not --no-phases; every rank alike)
  ex::csv_table* phases;   ///< rank 0: multi_gpu_shuffle_phases.csv; null elsewhere
  std::map<std::string, std::uint64_t> one_rank_fingerprint;  // (case, algorithm) at P = 1
  std::vector<unsigned> exchange_sms;  ///< --exchange-sms: extra distributed_shuffle_sms<k> rows (P > 1)
};

void write_row(context& c, const char* algorithm, const std::string& shape, int P, std::uint64_t n0, std::uint64_t total,
               const gpu::timing& t) {
  if (c.s->rank() != 0) return;
  c.r->row(algorithm, shape, P, n0, total, t.median, t.min, t.max, static_cast<double>(total) / t.median);
  ex::progress(experiment, std::string(algorithm) + " " + shape + " P=" + std::to_string(P) + " N=" +
                               std::to_string(total) + ": " + std::to_string(t.median * 1e3) + " ms");
}

/// Fingerprint of this group's output, checked against the P = 1 run's and the multiset of
/// [0, N) (computed on the host from the same mix).
void check_output(context& c, const mg::group& g, const std::string& key, const std::uint64_t* d_in,
                  const std::uint64_t* d_out, std::uint64_t n, std::uint64_t first) {
  gpu::device_buffer sums(3 * sizeof(unsigned long long));
  ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(sums.get(), 0, 3 * sizeof(unsigned long long), c.stream));
  if (n) fingerprint<<<1024, 256, 0, c.stream>>>(d_out, n, first, sums.as<unsigned long long>());
  unsigned long long h[3];
  ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(h, sums.get(), sizeof(h), cudaMemcpyDeviceToHost, c.stream));
  ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(c.stream));
  unsigned long long all[3];
  MPI_Allreduce(h, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, g.mpi);
  MPI_Allreduce(&h[2], &all[2], 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, g.mpi);
  // The multiset of the input (the items [first, first + n) of iota), from the same kernel.
  unsigned long long want[2] = {0, 0};
  {
    ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(sums.get(), 0, 3 * sizeof(unsigned long long), c.stream));
    if (n) fingerprint<<<1024, 256, 0, c.stream>>>(d_in, n, first, sums.as<unsigned long long>());
    ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(h, sums.get(), sizeof(h), cudaMemcpyDeviceToHost, c.stream));
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(c.stream));
    MPI_Allreduce(&h[1], &want[0], 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, g.mpi);
    MPI_Allreduce(&h[2], &want[1], 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, g.mpi);
  }
  if (all[1] != want[0] || all[2] != want[1])
    throw onepass::runtime_failure("multi_gpu_shuffle: " + key + " on " + std::to_string(g.num_ranks) +
                                   " ranks: the output is not a permutation of the input");
  // The first run of a (case, algorithm, N) sets the fingerprint (P = 1); every later one
  // (the one-GPU shuffle, P > 1) must match it.
  const auto it = c.one_rank_fingerprint.find(key);
  if (it == c.one_rank_fingerprint.end()) {
    c.one_rank_fingerprint[key] = all[0];
  } else if (it->second != all[0]) {
    throw onepass::runtime_failure("multi_gpu_shuffle: " + key + " on " + std::to_string(g.num_ranks) +
                                   " ranks differs from the one-rank output (world-size invariance)");
  }
}

void measure(context& c, const mg::group& g, const case_spec& cs) {
  const int P = g.num_ranks;
  int rank = 0;
  MPI_Comm_rank(g.mpi, &rank);
  const std::uint64_t total = cs.total ? cs.total : cs.per_rank * P;
  const std::uint64_t n = share(total, P, rank), first = first_of(total, P, rank), n0 = share(total, P, 0);
  gpu::device_buffer in(n * 8), out(n * 8);
  iota_from<<<1024, 256, 0, c.stream>>>(in.as<std::uint64_t>(), n, first);
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  for (const auto kind : {dist::permutation::bijective, dist::permutation::walking}) {
    const char* name = kind == dist::permutation::bijective ? "distributed_shuffle" : "distributed_shuffle_walking";
    std::size_t bytes = 0;
    dist::shuffle(nullptr, bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), n, c.seed, g.nccl, c.stream, kind);
    gpu::device_buffer temp(bytes);
    const auto shuffle = [&] {
      dist::shuffle(temp.get(), bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), n, c.seed, g.nccl, c.stream,
                    kind);
    };
    const auto t = mg::time_group(g, c.stream, c.warmup, c.reps, [](int) {}, [&](int) { shuffle(); });
    check_output(c, g, cs.name + "/" + name + "/" + std::to_string(total), in.as<std::uint64_t>(),
                 out.as<std::uint64_t>(), n, first);
    write_row(c, name, cs.name, P, n0, total, t);
    // The phases: the call --reps more times with an event_observer (multi_gpu.cuh); the input
    // is not modified, so nothing to restore between runs.
    if (c.with_phases) mg::measure_phases(g, c.stream, c.reps, c.phases, experiment, name, cs.name, [] {}, shuffle);
  }
  // The tuning variants: the bijective shuffle with walks that leave k SMs to the exchange
  // (detail::shuffle_tuning::exchange_sm_share = k / the device's SMs; the library's default,
  // 48 of an H100's 132, is the distributed_shuffle row).
  int device = 0, sms = 0;
  if (P > 1 && !c.exchange_sms.empty()) {
    ONEPASS_EXPERIMENT_CUDA(cudaGetDevice(&device));
    ONEPASS_EXPERIMENT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  }
  for (const unsigned k : P > 1 ? c.exchange_sms : std::vector<unsigned>{}) {
    const std::string name = "distributed_shuffle_sms" + std::to_string(k);
    dist::detail::shuffle_tuning tuning{};
    tuning.exchange_sm_share = static_cast<double>(k) / static_cast<double>(sms > 0 ? sms : 1);
    const auto call = [&](void* d_temp, std::size_t& bytes) {
      dist::detail::shuffle_call<true>("multi_gpu_shuffle", d_temp, bytes, in.as<std::uint64_t>(),
                                       out.as<std::uint64_t>(), n, c.seed, g.nccl, c.stream,
                                       dist::permutation::bijective, onepass::bijection::default_rounds, tuning);
    };
    std::size_t bytes = 0;
    call(nullptr, bytes);
    gpu::device_buffer temp(bytes);
    const auto shuffle = [&] { call(temp.get(), bytes); };
    const auto t = mg::time_group(g, c.stream, c.warmup, c.reps, [](int) {}, [&](int) { shuffle(); });
    check_output(c, g, cs.name + "/distributed_shuffle/" + std::to_string(total), in.as<std::uint64_t>(),
                 out.as<std::uint64_t>(), n, first);
    write_row(c, name.c_str(), cs.name, P, n0, total, t);
    if (c.with_phases)
      mg::measure_phases(g, c.stream, c.reps, c.phases, experiment, name.c_str(), cs.name, [] {}, shuffle);
  }
  if (P == 1) {
    // The one-GPU bijective shuffle (the same permutation as distributed_shuffle).
    const auto f = onepass::bijection::variable_philox::for_length(total, c.seed);
    std::size_t bytes = 0;
    onepass::shuffle::gpu::bijective_shuffle(nullptr, bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), n, f);
    gpu::device_buffer temp(bytes);
    const auto t = mg::time_group(g, c.stream, c.warmup, c.reps, [](int) {}, [&](int) {
      onepass::shuffle::gpu::bijective_shuffle(temp.get(), bytes, in.as<std::uint64_t>(), out.as<std::uint64_t>(), n, f,
                                               onepass::shuffle::gpu::fusion::bijective2, c.stream);
    });
    check_output(c, g, cs.name + "/distributed_shuffle/" + std::to_string(total), in.as<std::uint64_t>(),
                 out.as<std::uint64_t>(), n, first);
    write_row(c, "bijective_shuffle", cs.name, 1, n, total, t);
  } else {
    const auto ta = mg::time_alltoall(g, c.stream, n, 8, c.warmup, c.reps);
    write_row(c, "alltoall", cs.name, P, n0, total, ta);
  }
}

}  // namespace

int main(int argc, char** argv) {
  mg::session s(argc, argv);
  CLI::App app{"multi_gpu_shuffle: the distributed shuffle over 1..P GPUs (mpirun -np P), issue 29"};
  ex::run r(experiment, app);
  gpu::timing_cli timing;
  int max_ranks = 0;
  app.add_option("--reps", timing.reps, "timed runs per measurement (default 7; smoke 3)");
  app.add_option("--warmup", timing.warmup, "untimed runs first (default 2)");
  app.add_option("--max-ranks", max_ranks, "largest P measured (default: the world size)");
  bool no_phases = false;
  app.add_flag("--no-phases", no_phases,
               "skip the phase timings (multi_gpu_shuffle_phases.csv: each distributed shuffle run --reps more "
               "times with a phase_observer recording CUDA events)");
  std::vector<unsigned> exchange_sms;
  app.add_option("--exchange-sms", exchange_sms,
                 "also time the bijective shuffle with walks that leave each of these numbers of SMs to the "
                 "exchange (rows distributed_shuffle_sms<k>, P > 1; a tuning study)");
  std::vector<std::string> shapes;
  app.add_option("--shapes", shapes, "measure only these cases (u64, weak_u64; default both)");
  r.parse(argc, argv);
  if (!mg::use_rank_device(s, experiment)) return ex::exit_no_gpu;
  const int P_max = max_ranks > 0 ? std::min(max_ranks, s.size()) : s.size();
  const int reps = timing.reps > 0 ? timing.reps : r.pick(3, 7, 7);
  const std::uint64_t div = r.pick<std::uint64_t>(std::uint64_t{1} << 12, 1, 1);
  const std::uint64_t N30 = (std::uint64_t{1} << 30) / div;
  const std::vector<case_spec> all_cases = {{"u64", N30, 0}, {"weak_u64", 0, N30}};
  for (const std::string& name : shapes)
    if (std::none_of(all_cases.begin(), all_cases.end(), [&](const case_spec& cs) { return cs.name == name; }))
      ex::usage_exit(experiment, "--shapes: '" + name + "' is not a case; known: u64, weak_u64");
  std::vector<case_spec> cases;
  for (const case_spec& cs : all_cases)
    if (shapes.empty() || std::find(shapes.begin(), shapes.end(), cs.name) != shapes.end()) cases.push_back(cs);
  if (s.rank() == 0) {
    r.open_csv({"algorithm", "shape", "num_ranks", "n_per_rank", "n_total", "seconds_median", "seconds_min",
                "seconds_max", "items_per_second"});
    gpu::note_gpu(r);
    r.note("world_size", std::to_string(s.size()));
    r.note("timing", "slowest rank's wall time around the call + stream synchronize (MPI_Barrier first); "
                     "GPU-resident input and output");
    r.note("reps", std::to_string(reps));
    r.note("alltoall_pieces", "aligned16");  // time_alltoall: every piece on a 16-byte boundary (multi_gpu.cuh)
    r.note("warmup", std::to_string(timing.warmup));
    r.note("check", "fingerprint of (position, item) equal to the P = 1 run's; items a permutation of [0, N)");
    r.note("phases", no_phases ? "not measured (--no-phases)"
                               : "multi_gpu_shuffle_phases.csv: per rank and phase, the median over --reps runs of "
                                 "the CUDA-event time between the phase marks (phase_observer.hpp)");
  }
  ncclComm_t world = mg::world_comm(s);
  cudaStream_t stream = nullptr;
  ONEPASS_EXPERIMENT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ex::csv_table* phases =
      s.rank() == 0 && !no_phases
          ? &r.open_extra_csv("_phases", {"algorithm", "shape", "num_ranks", "rank", "phase", "seconds_median"})
          : nullptr;
  context c{&r, &s, timing.warmup, reps, r.seed(), stream, !no_phases, phases, {}, exchange_sms};
  // P = 1 first: it sets the fingerprints the larger P must match.
  const int status = mg::for_each_group(s, world, 1, P_max, experiment, [&](const mg::group& g, int) {
    for (const auto& cs : cases) {
      try {
        measure(c, g, cs);
      } catch (const std::exception& e) {
        throw onepass::runtime_failure(cs.name + ": " + e.what());
      }
    }
  });
  cudaStreamDestroy(stream);
  ncclCommDestroy(world);
  if (status != ex::exit_success) return status;
  if (s.rank() == 0) r.finish();
  return ex::exit_success;
}
