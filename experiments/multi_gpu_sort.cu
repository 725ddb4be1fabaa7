// experiments/multi_gpu_sort.cu — onepass::distributed::sort_keys / sort_pairs over P GPUs
// (issue 29), started with `mpirun -np P multi_gpu_sort` (one rank per GPU; every P from 1 to
// the world size is measured in the same run, the first P ranks splitting off a
// communicator), beside, in the same run, the one-GPU onepass::sort::gpu sort over the whole input
// (where it fits) and the NCCL all-to-all of the same bytes (grouped ncclSend/ncclRecv of
// n_r * bytes / P to every rank: the exchange's bound).
//
// Cases (--scale standard; smoke divides every size by 2^12):
//   strong scaling, the same global input for every P: keys_u32 N = 2^31, keys_u64 N = 2^30,
//     pairs_u32 N = 2^31 (u32 keys, u32 values);
//   weak scaling: keys_u32 2^30 keys per GPU;
//   skewed keys, N = 2^31 u32 (strong): q4_band (AND of 4 uniform words, Fig. 9's q = 4),
//     one_percent_equal (1 % of the keys one value), presorted, reverse;
//   --big: keys_u32 2^34 keys over the world (64 GiB), the distributed sort only.
// Keys are generated on the GPU from (seed, global index), so the global input is the same
// for every P and split; rank r holds the global indices [r N / P, (r + 1) N / P).
// Timing (experiments/common/multi_gpu.cuh): --warmup untimed and --reps timed runs, each the
// slowest rank's wall time around the call (host-synchronous) and a stream synchronize; the
// input is restored from a pristine copy before each run, outside the timed region; GPU-
// resident input and output (no host transfers timed).
// Check (untimed, after timing): every rank's output is sorted, holds its input count, and
// the last key of rank r is at most the first of rank r + 1 (a failure fails the run).
//
// Output: <out>/multi_gpu_sort.csv
//   algorithm,shape,num_ranks,n_per_rank,n_total,seconds_median,seconds_min,seconds_max,keys_per_second
// algorithm: distributed_sort (ours with the library's default method,
// dist::default_sort_method: sort_method::sort_first since 2026-11-27, partition_first before),
// the other method on P >= 2 (--default-only leaves it out): distributed_sort_partition_first
// (sort_method::partition_first) or, while partition_first was the default,
// distributed_sort_merge (sort_method::sort_first); onepass_sort (one GPU, num_ranks 1), alltoall (the bound;
// "keys" per second = the keys whose bytes it moves), local_sort (P >= 2: every rank's one-GPU
// onepass::sort::gpu sort of its own n_r keys at once, the slowest rank's time; with alltoall, the bound of
// a sort that sorts locally and exchanges without overlap). n_per_rank: rank 0's count.
// <out>/multi_gpu_sort_phases.csv (unless --no-phases): algorithm,shape,num_ranks,rank,phase,seconds_median
// — each method run --reps more times with a phase_observer (onepass/distributed/phase_observer.hpp)
// recording a CUDA event at each phase boundary; per rank and phase the median elapsed time on that
// rank's GPU. A phase that starts with a collective (the exchange) includes the wait for the
// slowest rank to reach it; the rank that arrives last waits least.
// Exit status: 0 measured, 1 a failed check or a CUDA/NCCL failure, 2 bad arguments, 3 no GPU.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "multi_gpu.cuh"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/distributed/phase_observer.hpp"
#include "onepass/distributed/sort.cuh"
#include "onepass/sort/sort.cuh"

namespace {

namespace ex = onepass::experiments;
namespace gpu = onepass::experiments::gpu;
namespace mg = onepass::experiments::multi_gpu;
namespace dist = onepass::distributed;
using mg::first_of;
using mg::share;

const char* const experiment = "multi_gpu_sort";

enum class shape { uniform, q4_band, one_percent_equal, presorted, reverse };


template <class Key>
__global__ void generate_keys(Key* keys, std::uint64_t n, std::uint64_t first, std::uint64_t total, shape s,
                              std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t g = first + i;
    std::uint64_t w = mg::mix64(seed, g);
    switch (s) {
      case shape::q4_band:
        w &= mg::mix64(seed + 1, g) & mg::mix64(seed + 2, g) & mg::mix64(seed + 3, g);
        break;
      case shape::one_percent_equal:
        if (w % 100 == 0) w = 0x5eed5eed5eed5eedull;
        break;
      case shape::presorted: w = sizeof(Key) == 4 ? (g * 0xFFFFFFFFull) / (total ? total : 1) : g * 8; break;
      case shape::reverse: w = sizeof(Key) == 4 ? ((total - 1 - g) * 0xFFFFFFFFull) / (total ? total : 1) : (total - g) * 8; break;
      default: break;
    }
    keys[i] = static_cast<Key>(w);
  }
}

template <class Key>
__global__ void count_descents(const Key* keys, std::uint64_t n, unsigned long long* descents) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i + 1 < n; i += stride)
    if (keys[i + 1] < keys[i]) ++mine;
  if (mine) atomicAdd(descents, mine);
}

__global__ void fill_values(std::uint32_t* v, std::uint64_t n, std::uint64_t first) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    v[i] = static_cast<std::uint32_t>(first + i);
}

struct case_spec {
  std::string name;  // the CSV's shape column
  int key_bytes;     // 4 or 8
  bool pairs;
  shape keys;
  std::uint64_t total;     // strong scaling: N; 0 for weak scaling
  std::uint64_t per_rank;  // weak scaling: n per rank
  bool one_gpu_baseline;
};

struct context {
  ex::run* r;
  const mg::session* s;
  int warmup, reps;
  std::uint64_t seed;
  cudaStream_t stream;
  bool with_other_method;
  bool with_phases;        ///< measure_phases after each timing (not --no-phases; the same on every rank)
  ex::csv_table* phases;   ///< rank 0: multi_gpu_sort_phases.csv; null elsewhere
};

/// The row name of a method: distributed_sort for the library's default, else the method's own.
const char* method_row(dist::sort_method m) {
  if (m == dist::default_sort_method) return "distributed_sort";
  return m == dist::sort_method::sort_first ? "distributed_sort_merge" : "distributed_sort_partition_first";
}

void write_row(context& c, const char* algorithm, const std::string& shape_text, int P, std::uint64_t n0,
               std::uint64_t total, const gpu::timing& t) {
  if (c.s->rank() != 0) return;
  c.r->row(algorithm, shape_text, P, n0, total, t.median, t.min, t.max, static_cast<double>(total) / t.median);
  ex::progress(experiment, std::string(algorithm) + " " + shape_text + " P=" + std::to_string(P) + " N=" +
                               std::to_string(total) + ": " + std::to_string(t.median * 1e3) + " ms");
}

/// Times the distributed sort (and, where asked, the one-GPU sort and the all-to-all) of one
/// case on the members of g.
template <class Key>
void measure(context& c, const mg::group& g, const case_spec& cs) {
  const int P = g.num_ranks;
  int rank = 0;
  MPI_Comm_rank(g.mpi, &rank);
  const std::uint64_t total = cs.total ? cs.total : cs.per_rank * P;
  const std::uint64_t n = share(total, P, rank), first = first_of(total, P, rank);
  const std::uint64_t n0 = share(total, P, 0);
  gpu::device_buffer pristine(n * sizeof(Key)), k0(n * sizeof(Key)), k1(n * sizeof(Key));
  gpu::device_buffer v0(cs.pairs ? n * 4 : 0), v1(cs.pairs ? n * 4 : 0);
  const unsigned grid = 1024;
  generate_keys<Key><<<grid, 256, 0, c.stream>>>(pristine.as<Key>(), n, first, total, cs.keys, c.seed);
  ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
  dist::double_buffer<Key> keys;
  dist::double_buffer<std::uint32_t> values;
  const auto reset = [&] {
    keys = dist::double_buffer<Key>(k0.as<Key>(), k1.as<Key>());
    values = dist::double_buffer<std::uint32_t>(v0.as<std::uint32_t>(), v1.as<std::uint32_t>());
    ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(k0.get(), pristine.get(), n * sizeof(Key), cudaMemcpyDeviceToDevice, c.stream));
    if (cs.pairs && n) {
      fill_values<<<grid, 256, 0, c.stream>>>(v0.as<std::uint32_t>(), n, first);
      ONEPASS_EXPERIMENT_CUDA(cudaGetLastError());
    }
  };
  // Both methods of the distributed sort, the default first (the other only where P > 1: on
  // one rank they are the same call), each timed, then checked.
  const dist::sort_method other = dist::default_sort_method == dist::sort_method::sort_first
                                      ? dist::sort_method::partition_first
                                      : dist::sort_method::sort_first;
  for (const auto method : {dist::default_sort_method, other}) {
    if (method != dist::default_sort_method && (P == 1 || !c.with_other_method)) continue;
    reset();
    std::size_t bytes = 0;
    if (cs.pairs) dist::sort_pairs(nullptr, bytes, keys, values, n, g.nccl, c.stream, 0, sizeof(Key) * 8, false, method);
    else dist::sort_keys(nullptr, bytes, keys, n, g.nccl, c.stream, 0, sizeof(Key) * 8, false, method);
    gpu::device_buffer temp(bytes);
    const auto sort = [&] {
      if (cs.pairs)
        dist::sort_pairs(temp.get(), bytes, keys, values, n, g.nccl, c.stream, 0, sizeof(Key) * 8, false, method);
      else
        dist::sort_keys(temp.get(), bytes, keys, n, g.nccl, c.stream, 0, sizeof(Key) * 8, false, method);
    };
    const auto t = mg::time_group(g, c.stream, c.warmup, c.reps, [&](int) { reset(); }, [&](int) { sort(); });
    // Check: sorted on this rank, and across the ranks' edges.
    gpu::device_buffer descents(sizeof(unsigned long long));
    ONEPASS_EXPERIMENT_CUDA(cudaMemsetAsync(descents.get(), 0, sizeof(unsigned long long), c.stream));
    if (n > 1) count_descents<Key><<<grid, 256, 0, c.stream>>>(keys.current(), n, descents.as<unsigned long long>());
    unsigned long long bad = 0;
    Key edge[2] = {Key{}, Key{}};
    ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(&bad, descents.get(), sizeof(bad), cudaMemcpyDeviceToHost, c.stream));
    if (n) {
      ONEPASS_EXPERIMENT_CUDA(cudaMemcpyAsync(&edge[0], keys.current(), sizeof(Key), cudaMemcpyDeviceToHost, c.stream));
      ONEPASS_EXPERIMENT_CUDA(
          cudaMemcpyAsync(&edge[1], keys.current() + n - 1, sizeof(Key), cudaMemcpyDeviceToHost, c.stream));
    }
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(c.stream));
    std::vector<Key> edges(2 * P);
    MPI_Allgather(edge, 2 * sizeof(Key), MPI_BYTE, edges.data(), 2 * sizeof(Key), MPI_BYTE, g.mpi);
    unsigned long long all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, g.mpi);
    for (int r = 1; r < P; ++r)
      if (share(total, P, r) && share(total, P, r - 1) && edges[2 * r] < edges[2 * (r - 1) + 1]) ++all_bad;
    const char* name = method_row(method);
    if (all_bad)
      throw onepass::runtime_failure(std::string("multi_gpu_sort: ") + name + " " + cs.name + " on " +
                                     std::to_string(P) + " ranks is not sorted (" + std::to_string(all_bad) +
                                     " descents)");
    write_row(c, name, cs.name, P, n0, total, t);
    // The phases: the call --reps more times with an event_observer (multi_gpu.cuh).
    if (c.with_phases) mg::measure_phases(g, c.stream, c.reps, c.phases, experiment, name, cs.name, reset, sort);
  }

  if (cs.one_gpu_baseline) {
    // onepass::sort::gpu::sort_keys / sort_pairs of this rank's n keys (in/out, its fastest
    // form here): at P = 1 the one-GPU baseline over the whole input (onepass_sort); at P >= 2
    // the local sort alone, every rank sorting its own n_r keys at once as the distributed
    // sort's local sort does, the slowest rank's time (local_sort; with the all-to-all, the bound of a sort that sorts locally and
    // exchanges without overlapping the two).
    std::size_t one_bytes = 0;
    if (cs.pairs)
      onepass::sort::gpu::sort_pairs<Key, std::uint32_t>(nullptr, one_bytes, k0.as<Key>(), k1.as<Key>(),
                                                         v0.as<std::uint32_t>(), v1.as<std::uint32_t>(), n);
    else
      onepass::sort::gpu::sort_keys<Key>(nullptr, one_bytes, k0.as<Key>(), k1.as<Key>(), n);
    {
      gpu::device_buffer one_temp(one_bytes);
      const auto t1 = mg::time_group(g, c.stream, c.warmup, c.reps, [&](int) { reset(); }, [&](int) {
        if (n == 0) return;
        if (cs.pairs)
          onepass::sort::gpu::sort_pairs<Key, std::uint32_t>(one_temp.get(), one_bytes, k0.as<Key>(),
                                                             k1.as<Key>(), v0.as<std::uint32_t>(),
                                                             v1.as<std::uint32_t>(), n, 0, sizeof(Key) * 8, false,
                                                             c.stream);
        else
          onepass::sort::gpu::sort_keys<Key>(one_temp.get(), one_bytes, k0.as<Key>(), k1.as<Key>(), n, 0,
                                             sizeof(Key) * 8, false, c.stream);
      });
      write_row(c, P == 1 ? "onepass_sort" : "local_sort", cs.name, P, n0, total, t1);
    }
  }
  if (P > 1 && cs.one_gpu_baseline) {
    pristine.reset();
    k1.reset();
    v1.reset();
    // The all-to-all of the same bytes: n_r / P items (keys and values) to every rank.
    const auto ta = mg::time_alltoall(g, c.stream, n, sizeof(Key) + (cs.pairs ? 4 : 0), c.warmup, c.reps);
    write_row(c, "alltoall", cs.name, P, n0, total, ta);
  }
}

}  // namespace

int main(int argc, char** argv) {
  mg::session s(argc, argv);
  CLI::App app{"multi_gpu_sort: the distributed sort over 1..P GPUs (mpirun -np P), issue 29"};
  ex::run r(experiment, app);
  gpu::timing_cli timing;
  bool big = false;
  int max_ranks = 0;
  app.add_option("--reps", timing.reps, "timed runs per measurement (default 7; smoke 3)");
  app.add_option("--warmup", timing.warmup, "untimed runs first (default 2)");
  app.add_option("--max-ranks", max_ranks, "largest P measured (default: the world size)");
  app.add_flag("--big", big, "also sort 2^34 u32 keys over the world (64 GiB; standard scale only)");
  bool default_only = false, no_phases = false;
  app.add_flag("--no-phases", no_phases,
               "skip the phase timings (multi_gpu_sort_phases.csv: each method run --reps more times with a "
               "phase_observer recording CUDA events)");
  app.add_flag("--default-only", default_only,
               "time only the library's default method (sort_first), not distributed_sort_partition_first");
  std::vector<std::string> only;
  int min_ranks = 1;
  app.add_option("--cases", only, "measure only these cases (shape names, e.g. keys_u32,big_keys_u32)")->delimiter(',');
  app.add_option("--min-ranks", min_ranks, "smallest P measured (default 1)");
  r.parse(argc, argv);
  if (!mg::use_rank_device(s, experiment)) return ex::exit_no_gpu;
  const int P_max = max_ranks > 0 ? std::min(max_ranks, s.size()) : s.size();
  const int reps = timing.reps > 0 ? timing.reps : r.pick(3, 7, 7);
  const std::uint64_t div = r.pick<std::uint64_t>(std::uint64_t{1} << 12, 1, 1);
  const std::uint64_t N31 = (std::uint64_t{1} << 31) / div, N30 = (std::uint64_t{1} << 30) / div;
  std::vector<case_spec> cases = {
      {"keys_u32", 4, false, shape::uniform, N31, 0, true},
      {"keys_u64", 8, false, shape::uniform, N30, 0, true},
      {"pairs_u32", 4, true, shape::uniform, N31, 0, true},
      {"weak_keys_u32", 4, false, shape::uniform, 0, N30, true},
      {"q4_band_u32", 4, false, shape::q4_band, N31, 0, true},
      {"one_percent_equal_u32", 4, false, shape::one_percent_equal, N31, 0, true},
      {"presorted_u32", 4, false, shape::presorted, N31, 0, true},
      {"reverse_u32", 4, false, shape::reverse, N31, 0, true},
  };
  if (big && r.size() != ex::scale::smoke)
    cases.push_back({"big_keys_u32", 4, false, shape::uniform, std::uint64_t{1} << 34, 0, false});
  if (s.rank() == 0) {
    r.open_csv({"algorithm", "shape", "num_ranks", "n_per_rank", "n_total", "seconds_median", "seconds_min",
                "seconds_max", "keys_per_second"});
    gpu::note_gpu(r);
    r.note("world_size", std::to_string(s.size()));
    r.note("timing", "slowest rank's wall time around the call + stream synchronize (MPI_Barrier first); input "
                     "restored from a pristine copy outside the timed region; GPU-resident input and output");
    r.note("reps", std::to_string(reps));
    r.note("alltoall_pieces", "aligned16");  // time_alltoall: every piece on a 16-byte boundary (multi_gpu.cuh)
    r.note("warmup", std::to_string(timing.warmup));
    r.note("input", "keys from a 64-bit mix of (seed, global index): the same global input for every P");
    r.note("rank_placement", "rank r holds global indices [r N / P, (r + 1) N / P); its GPU is its local rank");
    r.note("phases", no_phases ? "not measured (--no-phases)"
                               : "multi_gpu_sort_phases.csv: per rank and phase, the median over --reps runs of "
                                 "the CUDA-event time between the phase marks (phase_observer.hpp)");
    r.note("default_method", dist::default_sort_method == dist::sort_method::sort_first ? "sort_first"
                                                                                        : "partition_first");
  }
  ncclComm_t world = mg::world_comm(s);
  cudaStream_t stream = nullptr;
  ONEPASS_EXPERIMENT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ex::csv_table* phases =
      s.rank() == 0 && !no_phases
          ? &r.open_extra_csv("_phases", {"algorithm", "shape", "num_ranks", "rank", "phase", "seconds_median"})
          : nullptr;
  context c{&r, &s, timing.warmup, reps, r.seed(), stream, !default_only, !no_phases, phases};
  const int status = mg::for_each_group(s, world, std::max(1, min_ranks), P_max, experiment, [&](const mg::group& g, int P) {
    for (const auto& cs : cases) {
      if (!only.empty() && std::find(only.begin(), only.end(), cs.name) == only.end()) continue;
      if (cs.name == "big_keys_u32" && P != P_max) continue;
      try {
        if (cs.key_bytes == 4) measure<std::uint32_t>(c, g, cs);
        else measure<std::uint64_t>(c, g, cs);
      } catch (const std::exception& e) {
        throw onepass::runtime_failure(cs.name + ": " + e.what());
      }
    }
  });
  cudaStreamDestroy(stream);
  ncclCommDestroy(world);
  if (status != ex::exit_success) return status;
  if (s.rank() == 0) r.finish();  // renames the CSVs into place
  return ex::exit_success;
}
