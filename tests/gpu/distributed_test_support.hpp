// tests/gpu/distributed_test_support.hpp — running P ranks of a distributed call inside one
// test process: one host thread and one GPU (devices 0..P-1) per rank, the communicators
// from ncclCommInitAll. A test of P ranks is skipped (and says so) on a machine with fewer
// than P GPUs. The library calls are the ones an MPI or torchrun program makes; only the way
// the ranks start differs.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.hpp"
#include "onepass/distributed/phase_observer.hpp"

namespace onepass::testing {

/// Number of usable CUDA devices (0 without a driver).
inline int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  cudaGetLastError();
  return count;
}

/// Skips the calling test unless the machine has at least `ranks` GPUs.
#define ONEPASS_REQUIRE_GPUS(ranks)                                                                              \
  do {                                                                                                           \
    const int onepass_have_ = ::onepass::testing::gpu_count();                                                   \
    if (onepass_have_ < (ranks))                                                                                 \
      GTEST_SKIP() << "needs " << (ranks) << " GPUs (one per rank), this machine has " << onepass_have_;       \
  } while (0)

/// P ranks, rank r on device r with its own communicator (ncclCommInitAll, once: creating
/// communicators costs about half a second, so a test that runs many calls keeps one team).
class rank_team {
 public:
  explicit rank_team(int num_ranks) : comms_(num_ranks) {
    std::vector<int> devices(num_ranks);
    for (int r = 0; r < num_ranks; ++r) devices[r] = r;
    if (ncclCommInitAll(comms_.data(), num_ranks, devices.data()) != ncclSuccess)
      throw std::runtime_error("ncclCommInitAll failed for " + std::to_string(num_ranks) + " ranks");
  }
  ~rank_team() {
    for (std::size_t r = 0; r < comms_.size(); ++r) {
      cudaSetDevice(static_cast<int>(r));
      ncclCommDestroy(comms_[r]);
    }
    cudaSetDevice(0);
  }
  rank_team(const rank_team&) = delete;
  rank_team& operator=(const rank_team&) = delete;
  int size() const { return static_cast<int>(comms_.size()); }

  /// Runs body(rank, comm, stream) for every rank on its own thread (device r, a new stream);
  /// waits for all. An exception in any rank is reported as a test failure naming the rank.
  void run(const std::function<void(int, ncclComm_t, cudaStream_t)>& body) {
    const int num_ranks = size();
    std::vector<std::string> failures(num_ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < num_ranks; ++r)
      threads.emplace_back([&, r] {
        try {
          cuda_ok(cudaSetDevice(r), "cudaSetDevice");
          cudaStream_t stream = nullptr;
          cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
          try {
            body(r, comms_[r], stream);
          } catch (...) {
            cudaStreamSynchronize(stream);
            cudaStreamDestroy(stream);
            throw;
          }
          cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          cudaStreamDestroy(stream);
        } catch (const std::exception& e) {
          failures[r] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    cudaSetDevice(0);
    for (int r = 0; r < num_ranks; ++r)
      if (!failures[r].empty()) ADD_FAILURE() << "rank " << r << " of " << num_ranks << " threw: " << failures[r];
  }

 private:
  std::vector<ncclComm_t> comms_;
};

/// Runs body(rank, comm, stream) for rank = 0..P-1 on P threads, rank r on device r with its
/// own stream and its rank's communicator (a rank_team made for this call); waits for all.
/// An exception in any rank is reported as a test failure naming the rank. A rank that
/// throws before a collective the others enter makes them wait: the library's agreement step
/// is what prevents that, and the tests of bad arguments check it.
inline void run_ranks(int num_ranks, const std::function<void(int, ncclComm_t, cudaStream_t)>& body) {
  rank_team team(num_ranks);
  team.run(body);
}

/// As run_ranks, but collects what each rank threw (empty: nothing) instead of failing:
/// for the tests that expect every rank to throw.
inline std::vector<std::string> errors_of_ranks(int num_ranks,
                                                const std::function<void(int, ncclComm_t, cudaStream_t)>& body) {
  std::vector<std::string> errors(num_ranks);
  run_ranks(num_ranks, [&](int r, ncclComm_t comm, cudaStream_t stream) {
    try {
      body(r, comm, stream);
    } catch (const std::exception& e) {
      errors[r] = e.what();
    }
  });
  return errors;
}

/// A phase_observer that keeps the names of the phases it is told, in order (the phase tests of
/// the distributed sort and shuffle).
struct phase_names final : onepass::distributed::phase_observer {
  std::vector<std::string> names;
  void mark(const char* phase, cudaStream_t) noexcept override { names.emplace_back(phase); }
};

}  // namespace onepass::testing
