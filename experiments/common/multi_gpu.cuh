// experiments/common/multi_gpu.cuh — what the multi-GPU experiments (multi_gpu_sort,
// multi_gpu_shuffle) share: MPI starts the ranks (mpirun -np P, one rank per GPU; the rank's
// GPU is its local rank on the node) and shares the NCCL unique id; the library calls take
// the NCCL communicator. One run measures every P from 1 to the world size: the first P ranks
// form a sub-communicator (ncclCommSplit) while the others wait.
//
// Timing: every rank waits for its stream, then MPI_Barrier, then each rank times its call
// (host wall clock around the call and a stream synchronize: the distributed calls are
// host-synchronous); the run's time is the largest over the ranks (MPI_Allreduce MAX).
// Input and output are GPU-resident; host transfers are outside the timed region.
//
// Phases (measure_phases): the call run --reps more times with an event_observer installed
// (onepass/distributed/phase_observer.hpp: a CUDA event on the call's stream at each phase
// mark); per rank and phase the median elapsed time on that rank's GPU, one row per (rank,
// phase) of <experiment>_phases.csv (algorithm,shape,num_ranks,rank,phase,seconds_median).
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu_harness.cuh"
#include "harness.hpp"
#include "onepass/distributed/nccl_support.cuh"
#include "onepass/distributed/phase_observer.hpp"
#include "onepass/error.hpp"

namespace onepass::experiments::multi_gpu {

/// MPI_Init / MPI_Finalize and this process's place: world rank and size, the GPU it uses.
class session {
 public:
  session(int& argc, char**& argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
  }
  ~session() { MPI_Finalize(); }
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

/// Makes this rank's GPU current (its local rank modulo the GPUs of its host) after
/// gpu::init_device. Returns false, rank 0 saying why as experiment's progress, when the
/// process has no usable GPU (the caller then returns exit_no_gpu).
inline bool use_rank_device(const session& s, const char* experiment) {
  std::string why;
  if (!gpu::init_device(why)) {
    if (s.rank() == 0) progress(experiment, "no usable GPU: " + why);
    return false;
  }
  int devices = 0;
  cudaGetDeviceCount(&devices);
  ONEPASS_EXPERIMENT_CUDA(cudaSetDevice(s.local_rank() % std::max(devices, 1)));
  return true;
}

inline void nccl_ok(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + " failed: " + ncclGetErrorString(r));
}

/// The world's NCCL communicator (unique id from rank 0 by MPI_Bcast).
inline ncclComm_t world_comm(const session& s) {
  ncclUniqueId id;
  if (s.rank() == 0) nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm = nullptr;
  nccl_ok(ncclCommInitRank(&comm, s.size(), id, s.rank()), "ncclCommInitRank");
  return comm;
}

/// The ranks 0..P-1 of the world: their NCCL and MPI communicators (null on the other ranks).
struct group {
  int num_ranks = 1;
  bool member = false;
  ncclComm_t nccl = nullptr;
  MPI_Comm mpi = MPI_COMM_NULL;
};

/// Splits the first num_ranks ranks off the world (every world rank must call it).
inline group first_ranks(const session& s, ncclComm_t world, int num_ranks) {
  group g;
  g.num_ranks = num_ranks;
  g.member = s.rank() < num_ranks;
  nccl_ok(ncclCommSplit(world, g.member ? 0 : NCCL_SPLIT_NOCOLOR, s.rank(), &g.nccl, nullptr), "ncclCommSplit");
  MPI_Comm_split(MPI_COMM_WORLD, g.member ? 0 : MPI_UNDEFINED, s.rank(), &g.mpi);
  return g;
}

inline void release(group& g) {
  if (g.nccl) ncclCommDestroy(g.nccl);
  if (g.mpi != MPI_COMM_NULL) MPI_Comm_free(&g.mpi);
  g.nccl = nullptr;
  g.mpi = MPI_COMM_NULL;
}

/// Times work(k) for k = 0 .. warmup + reps - 1 on the members of g (prepare(k) first, not
/// timed); returns the timing of the last reps runs, each the largest time over the ranks.
/// Call on members only.
template <class Prepare, class Work>
gpu::timing time_group(const group& g, cudaStream_t stream, int warmup, int reps, Prepare&& prepare, Work&& work) {
  std::vector<double> seconds;
  for (int k = 0; k < warmup + reps; ++k) {
    prepare(k);
    gpu::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__);
    MPI_Barrier(g.mpi);
    const double t0 = MPI_Wtime();
    work(k);
    gpu::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__);
    double t = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, g.mpi);
    if (k >= warmup) seconds.push_back(slowest);
  }
  return gpu::summarize(std::move(seconds));
}

/// Rank r's share of `total` items over P ranks (the first total % P ranks one more), and the
/// global index of its first item: rank r holds [first_of(r), first_of(r) + share(r)).
inline std::uint64_t share(std::uint64_t total, int P, int r) {
  return total / P + (static_cast<std::uint64_t>(r) < total % P ? 1 : 0);
}
inline std::uint64_t first_of(std::uint64_t total, int P, int r) {
  std::uint64_t f = 0;
  for (int k = 0; k < r; ++k) f += share(total, P, k);
  return f;
}

/// Times the NCCL all-to-all of (about) n items of item_bytes bytes on this rank of g: grouped
/// ncclSend/ncclRecv of n / P items to every rank (onepass::distributed::all_to_all), the
/// exchange's bound. Every piece starts on a 16-byte boundary on both sides, NCCL's fastest
/// form (pieces 4 bytes off were 1.2-1.4x slower: scripts/bench_alltoall_alignment.cu): n is
/// rounded down to a multiple of u = items_per_alignment(item_bytes) (16 bytes) and every rank but the last gets
/// floor(n / (P u)) u items, the last the rest (fewer than 16 bytes, and at most P - 1 units,
/// away from n / P). Before 2026-11-27 (nineteenth session) the pieces were share(n, P, q): not
/// aligned when P does not divide n / u (P = 3), which made that bound up to 1.4x slower.
/// Members only.
inline gpu::timing time_alltoall(const group& g, cudaStream_t stream, std::uint64_t n, std::size_t item_bytes,
                                 int warmup, int reps) {
  const int P = g.num_ranks;
  int rank = 0;
  MPI_Comm_rank(g.mpi, &rank);
  const std::uint64_t u = onepass::distributed::items_per_alignment(item_bytes);
  const std::uint64_t used = n - n % u, piece = used / (static_cast<std::uint64_t>(P) * u) * u;
  std::vector<std::uint64_t> send(P, piece), recv(P), all(static_cast<std::size_t>(P) * P);
  send[P - 1] = used - piece * static_cast<std::uint64_t>(P - 1);
  MPI_Allgather(send.data(), P, MPI_UINT64_T, all.data(), P, MPI_UINT64_T, g.mpi);
  std::uint64_t recv_total = 0;
  for (int r = 0; r < P; ++r) recv_total += (recv[r] = all[static_cast<std::size_t>(r) * P + rank]);
  gpu::device_buffer a(n * item_bytes), b(recv_total * item_bytes);
  return time_group(g, stream, warmup, reps, [](int) {}, [&](int) {
    onepass::distributed::all_to_all(a.get(), send, b.get(), recv, item_bytes, g.nccl, stream);
  });
}

/// Runs measure(g, P) for P = first .. last on the first P ranks of the world (one communicator
/// per P: ncclCommSplit and NCCL's first connections cost seconds), then waits for every rank.
/// A failure on any rank (named on stderr as experiment's progress) stops the run on every rank.
/// Returns ex::exit_success or ex::exit_failure.
template <class Measure>
int for_each_group(const session& s, ncclComm_t world, int first, int last, const char* experiment,
                   Measure&& measure) {
  int failed = 0;
  for (int P = first; P <= last && !failed; ++P) {
    group g = first_ranks(s, world, P);
    if (g.member) {
      try {
        measure(g, P);
      } catch (const std::exception& e) {
        progress(experiment, "rank " + std::to_string(s.rank()) + ", P = " + std::to_string(P) + ": " + e.what());
        failed = 1;
      }
    }
    release(g);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    failed = any;
  }
  return failed ? exit_failure : exit_success;
}

/// Records a CUDA event on the call's stream at every phase mark (phase_observer.hpp) of the
/// distributed calls made while it is installed; after the stream is synchronized, phases()
/// gives each phase's elapsed time on this rank's GPU. capacity: the most marks of one call
/// ("end" included); `experiment` names the failures.
class event_observer final : public onepass::distributed::phase_observer {
 public:
  explicit event_observer(std::size_t capacity, const char* experiment = "multi_gpu")
      : events_(capacity), experiment_(experiment) {
    for (auto& e : events_) ONEPASS_EXPERIMENT_CUDA(cudaEventCreate(&e));
  }
  ~event_observer() override {
    for (auto e : events_) cudaEventDestroy(e);
  }
  event_observer(const event_observer&) = delete;
  event_observer& operator=(const event_observer&) = delete;
  void clear() { names_.clear(); }
  void mark(const char* phase, cudaStream_t stream) noexcept override {
    if (names_.size() == events_.size()) return;  // phases() then reports the overflow
    cudaEventRecord(events_[names_.size()], stream);
    names_.push_back(phase);
  }
  /// (phase, seconds) for every phase but the closing "end" mark, in call order. Throws
  /// onepass::runtime_failure when the marks overflowed or did not end with "end".
  std::vector<std::pair<std::string, double>> phases() const {
    if (names_.size() == events_.size() || names_.empty() || names_.back() != std::string("end"))
      throw onepass::runtime_failure(std::string(experiment_) + ": the phase marks did not end with \"end\" (" +
                                     std::to_string(names_.size()) + " marks)");
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t i = 0; i + 1 < names_.size(); ++i) {
      float ms = 0;
      ONEPASS_EXPERIMENT_CUDA(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
      out.emplace_back(names_[i], 1e-3 * ms);
    }
    return out;
  }

 private:
  std::vector<cudaEvent_t> events_;
  std::vector<const char*> names_;
  const char* experiment_;
};

/// The phases of `call` on every member of g: reset() (untimed), a stream synchronize and an
/// MPI_Barrier, then call() with an event_observer installed, `reps` times; rank 0 of g writes
/// to `table` (when not null) one row per (rank, phase): algorithm, shape, P, rank, phase, the
/// median over the runs of the phase's elapsed time on that rank's GPU. Every run and every
/// rank must mark the same phases (else onepass::runtime_failure, on every rank where the ranks
/// disagree). A phase that starts with a collective includes the wait for the slowest rank to
/// reach it. Call on the members of g only.
template <class Reset, class Call>
void measure_phases(const group& g, cudaStream_t stream, int reps, csv_table* table, const char* experiment,
                    const std::string& algorithm, const std::string& shape_text, Reset&& reset, Call&& call) {
  const int P = g.num_ranks;
  int rank = 0;
  MPI_Comm_rank(g.mpi, &rank);
  event_observer observer(16, experiment);
  std::vector<std::string> names;
  std::vector<std::vector<double>> seconds;  // [phase][run]
  for (int k = 0; k < reps; ++k) {
    reset();
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(stream));
    MPI_Barrier(g.mpi);
    observer.clear();
    {
      onepass::distributed::scoped_phase_observer installed(observer);
      call();
    }
    ONEPASS_EXPERIMENT_CUDA(cudaStreamSynchronize(stream));
    const auto phases = observer.phases();
    if (k == 0) {
      for (const auto& p : phases) names.push_back(p.first);
      seconds.assign(names.size(), {});
    }
    if (phases.size() != names.size())
      throw onepass::runtime_failure(std::string(experiment) + ": the phases of " + algorithm +
                                     " changed between runs");
    for (std::size_t i = 0; i < phases.size(); ++i) seconds[i].push_back(phases[i].second);
  }
  // Every rank must report the same phases (the same call path).
  int count = static_cast<int>(names.size()), low = 0, high = 0;
  MPI_Allreduce(&count, &low, 1, MPI_INT, MPI_MIN, g.mpi);
  MPI_Allreduce(&count, &high, 1, MPI_INT, MPI_MAX, g.mpi);
  if (low != high) throw onepass::runtime_failure(std::string(experiment) + ": the ranks marked different phases");
  std::vector<double> medians(names.size()), all(names.size() * P);
  for (std::size_t i = 0; i < names.size(); ++i) medians[i] = gpu::summarize(seconds[i]).median;
  MPI_Gather(medians.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, 0, g.mpi);
  if (rank != 0 || !table) return;
  for (int r = 0; r < P; ++r)
    for (std::size_t i = 0; i < names.size(); ++i)
      table->row(algorithm, shape_text, P, r, names[i], all[r * names.size() + i]);
}

/// A 64-bit mix of (seed, global index): the inputs' generator, so that the global input is
/// the same for every P and split.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace onepass::experiments::multi_gpu
