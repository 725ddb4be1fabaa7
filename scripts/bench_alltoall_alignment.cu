// scripts/bench_alltoall_alignment.cu — does the address alignment of the pieces of an
// exchange change NCCL's send/receive rate? (issue 29: the distributed sort's exchange phase,
// whose pieces start at arbitrary key positions, measured at ~0.75 of the all-to-all of the
// same bytes from 16-byte aligned pieces; multi_gpu_sort_phases.csv, nvidia-h100-x4.)
// Not part of the library.
//
// One rank per GPU (mpirun -np P). Every rank sends n / P u32 items to every rank with
// onepass::distributed::all_to_all (grouped ncclSend/ncclRecv, the rank's own piece a device
// copy) in five layouts of the same bytes:
//   aligned        pieces at multiples of n / P items from cudaMalloc'd bases (16-byte aligned)
//   send+4B        the send base moved by one item (every sent piece 4 bytes off alignment)
//   recv+4B        the receive base moved by one item
//   both+4B        both moved
//   odd counts     counts n / P - 1 and n / P + 1 alternately, aligned bases: the pieces
//                  after the first start at odd item positions on both sides (as in the sort)
// Wall time of the slowest rank around the call and a stream synchronize (MPI_Barrier first),
// median of 7 after 2 warm-up calls; GB/s of the bytes this rank sends to other ranks.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include $(mpicxx --showme:compile) \
//     scripts/bench_alltoall_alignment.cu $(mpicxx --showme:link) -lnccl -o /tmp/baa
//   NCCL_NVLS_ENABLE=0 mpirun --allow-run-as-root -np 4 /tmp/baa [log2 n per rank = 30]
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onepass/distributed/nccl_support.cuh"
#include "mpi_bench_support.cuh"

using bench::ok;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bench::rank_setup setup;
  const int rank = setup.rank, P = setup.size;
  const ncclComm_t comm = setup.comm;
  const cudaStream_t stream = setup.stream;
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 30;
  const std::uint64_t n = std::uint64_t{1} << log2n;
  std::uint32_t *a = nullptr, *b = nullptr;
  ok(cudaMalloc(&a, (n + 64) * 4), "cudaMalloc");
  ok(cudaMalloc(&b, (n + 64) * 4), "cudaMalloc");
  ok(cudaMemset(a, 1, (n + 64) * 4), "cudaMemset");

  struct layout {
    const char* name;
    int send_shift, recv_shift;
    bool odd;
  };
  const layout layouts[] = {{"aligned", 0, 0, false},
                            {"send+4B", 1, 0, false},
                            {"recv+4B", 0, 1, false},
                            {"both+4B", 1, 1, false},
                            {"odd counts", 0, 0, true}};
  if (rank == 0) std::printf("P=%d n=2^%d u32 per rank (%.2f GiB)\n", P, log2n, n * 4.0 / (1u << 30));
  for (const auto& l : layouts) {
    // Counts: what every rank sends to every rank (the same matrix on every rank).
    std::vector<std::uint64_t> send(P), recv(P);
    const auto count = [&](int from, int to) -> std::uint64_t {
      const std::uint64_t base = n / P;
      if (!l.odd || P == 1) return base;
      // alternately one less and one more (sum over `to` stays n for even P)
      const bool less = ((from + to) % 2) == 0;
      if (P % 2 == 1 && to == P - 1) return base;
      return less ? base - 1 : base + 1;
    };
    for (int q = 0; q < P; ++q) send[q] = count(rank, q), recv[q] = count(q, rank);
    std::vector<double> times;
    for (int k = 0; k < 9; ++k) {
      ok(cudaStreamSynchronize(stream), "sync");
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      onepass::distributed::all_to_all(a + l.send_shift, send, b + l.recv_shift, recv, 4, comm, stream);
      ok(cudaStreamSynchronize(stream), "sync");
      double t = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (k >= 2) times.push_back(slowest);
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    std::uint64_t out = 0;
    for (int q = 0; q < P; ++q)
      if (q != rank) out += send[q];
    if (rank == 0)
      std::printf("%-11s P=%d  %8.3f ms  (min %.3f, max %.3f)  %6.1f GB/s sent to others per rank\n", l.name, P,
                  1e3 * median, 1e3 * times.front(), 1e3 * times.back(), out * 4.0 / median / 1e9);
  }
  cudaFree(a);
  cudaFree(b);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
