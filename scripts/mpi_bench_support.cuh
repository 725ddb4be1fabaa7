// scripts/mpi_bench_support.cuh — what the mpirun benches of scripts/ (bench_alltoall_alignment.cu,
// bench_carried_index.cu) share: abort-on-error checks and one NCCL communicator per MPI rank, rank r
// on device r mod (the node's GPUs). Not part of the library.
#pragma once

#include <mpi.h>
#include <nccl.h>

#include <cstdio>

#include <cuda_runtime.h>

namespace bench {

/// Aborts every rank with the CUDA error's text when `e` is not cudaSuccess.
inline void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/// Aborts every rank with NCCL's text when `e` is not ncclSuccess.
inline void ok(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, ncclGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/// This MPI rank's device (rank mod the GPUs it sees), its NCCL communicator over MPI_COMM_WORLD (the
/// unique id broadcast from rank 0) and a non-blocking stream. Call after MPI_Init.
struct rank_setup {
  int rank = 0, size = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  rank_setup() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int devices = 0;
    ok(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    ok(cudaSetDevice(rank % devices), "cudaSetDevice");
    ncclUniqueId id;
    if (rank == 0) ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ok(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
};

}  // namespace bench
