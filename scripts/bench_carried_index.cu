// scripts/bench_carried_index.cu — the experimental carried-index shuffle
// (onepass::distributed::shuffle_carried_index, distributed/carried_index_shuffle.cuh) against the
// library's distributed::shuffle (permutation::bijective), on the same input, in one run (issue 29: the
// weak-scaling target at P = 3). Not part of the library; for the GPU machine's first run of the new
// method, before it becomes a row of experiments/multi_gpu_shuffle.
//
// One rank per GPU (mpirun -np P). Each rank holds 2^k u64 items (weak scaling, default k = 30),
// item value = its global input position. Both calls run on the same input; after the timed runs the
// two last outputs are compared on every rank (untimed), and a difference is reported and fails the run
// (exit 1): the check that the new method gives the library's permutation. Wall time of the slowest
// rank around the call and a stream synchronize (MPI_Barrier first), median, min and max of 7 after 2
// warm-up calls; distributed::shuffle's temporary storage is allocated outside the timed region, as a
// user would (the carried-index call allocates its own, stream-ordered, inside it).
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include $(mpicxx --showme:compile) \
//     scripts/bench_carried_index.cu $(mpicxx --showme:link) -lnccl -o /tmp/bci
//   NCCL_NVLS_ENABLE=0 mpirun --allow-run-as-root -np 3 /tmp/bci [k = 30] [seed = 1]
// Prints one line per method: "<method> P=<P> n_per_rank=2^<k>: median <ms> ms (min <ms>, max <ms>)".
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "onepass/distributed/carried_index_shuffle.cuh"
#include "onepass/distributed/shuffle.cuh"
#include "mpi_bench_support.cuh"

using bench::ok;

namespace {

__global__ void fill(std::uint64_t* d, std::uint64_t n, std::uint64_t first) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    d[i] = first + i;
}

__global__ void count_differences(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t n,
                                  unsigned long long* differences) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) atomicAdd(differences, 1ull);
}

/// Median, min and max of the slowest rank's wall times of `reps` calls after `warmup`.
std::vector<double> time_calls(const std::function<void()>& call, cudaStream_t stream, int warmup, int reps) {
  std::vector<double> t;
  for (int k = 0; k < warmup + reps; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    call();
    ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (k >= warmup) t.push_back(slowest);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bench::rank_setup my;  // this rank's device, communicator and stream
  const int k = argc > 1 ? std::atoi(argv[1]) : 30;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const std::uint64_t n = std::uint64_t{1} << k;

  std::uint64_t *d_in = nullptr, *d_lib = nullptr, *d_new = nullptr;
  ok(cudaMalloc(&d_in, n * 8), "cudaMalloc");
  ok(cudaMalloc(&d_lib, n * 8), "cudaMalloc");
  ok(cudaMalloc(&d_new, n * 8), "cudaMalloc");
  fill<<<1024, 256, 0, my.stream>>>(d_in, n, n * static_cast<std::uint64_t>(my.rank));
  ok(cudaGetLastError(), "fill");
  std::size_t temp_bytes = 0;
  onepass::distributed::shuffle(nullptr, temp_bytes, d_in, d_lib, n, seed, my.comm, my.stream);
  void* d_temp = nullptr;
  ok(cudaMalloc(&d_temp, std::max<std::size_t>(temp_bytes, 1)), "cudaMalloc");
  unsigned long long* d_differences = nullptr;
  ok(cudaMalloc(&d_differences, sizeof(unsigned long long)), "cudaMalloc");
  ok(cudaStreamSynchronize(my.stream), "cudaStreamSynchronize");

  const auto lib = time_calls(
      [&] { onepass::distributed::shuffle(d_temp, temp_bytes, d_in, d_lib, n, seed, my.comm, my.stream); }, my.stream, 2, 7);
  const auto carried = time_calls(
      [&] { onepass::distributed::shuffle_carried_index(d_in, d_new, n, seed, my.comm, my.stream); }, my.stream, 2, 7);
  ok(cudaMemsetAsync(d_differences, 0, sizeof(unsigned long long), my.stream), "cudaMemsetAsync");
  count_differences<<<1024, 256, 0, my.stream>>>(d_lib, d_new, n, d_differences);
  ok(cudaGetLastError(), "count_differences");
  unsigned long long differences = 0, total = 0;
  ok(cudaMemcpyAsync(&differences, d_differences, sizeof(differences), cudaMemcpyDeviceToHost, my.stream), "copy");
  ok(cudaStreamSynchronize(my.stream), "cudaStreamSynchronize");
  MPI_Allreduce(&differences, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const bool all_equal = total == 0;
  if (my.rank == 0) {
    std::printf("distributed_shuffle P=%d n_per_rank=2^%d: median %.3f ms (min %.3f, max %.3f)\n", my.size, k, lib[0] * 1e3,
                lib[1] * 1e3, lib[2] * 1e3);
    std::printf("shuffle_carried_index P=%d n_per_rank=2^%d: median %.3f ms (min %.3f, max %.3f)\n", my.size, k,
                carried[0] * 1e3, carried[1] * 1e3, carried[2] * 1e3);
    std::printf("outputs %s (%llu positions differ over all ranks)\n", all_equal ? "equal" : "DIFFER", total);
  }
  cudaFree(d_differences);
  cudaFree(d_temp);
  cudaFree(d_new);
  cudaFree(d_lib);
  cudaFree(d_in);
  ncclCommDestroy(my.comm);
  MPI_Finalize();
  return all_equal ? 0 : 1;
}
