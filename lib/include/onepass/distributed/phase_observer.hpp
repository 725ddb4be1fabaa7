// onepass/distributed/phase_observer.hpp — an optional observer of the phases of a distributed
// call, for profiling (where the time of a distributed sort goes: local sort, splitter search,
// partition, exchange, merge; that of a distributed shuffle: walks, planning, exchange,
// placement). None is installed by default; then each phase boundary costs one read of a
// thread-local pointer and nothing else.
//
// While a scoped_phase_observer is alive on a host thread, every distributed call that thread
// makes calls observer.mark(phase, stream) at each of its phase boundaries, in the order the
// phases are issued on `stream` (the call's stream). A typical observer records a CUDA event on
// `stream` in mark(); the time of phase k is then the elapsed time between the event of mark k
// and that of mark k + 1 (the last mark is "end"). Phases are issued asynchronously: the host
// calls mark() when it enqueues the phase, not when the GPU runs it.
//
// Phases (`phase` is one of these string literals, valid for the program's lifetime):
//   sort_keys / sort_pairs, sort_method::sort_first, P > 1:
//     "local_sort", "splitters", "exchange", "merge", "end"
//   sort_keys / sort_pairs, sort_method::partition_first, P > 1:
//     "splitters", "partition", "exchange", "local_sort", "end"
//   either method on one rank: "local_sort", "end"
//   shuffle (distributed/shuffle.cuh), P > 1: ["boundaries"], "own_walk", "plan",
//     "walk_exchange", "exchange_tail", "place", "end"
//   unshuffle, P > 1: ["boundaries"], "split", "exchange", "inverse_walk", "end"
//   shuffle / unshuffle on one rank: "local_shuffle" / "local_unshuffle", "end"
//   ("boundaries" only for permutation::bijective when its domain 2^b exceeds N; "exchange_tail"
//   is the time the call's stream waits for the exchange after its last walk.)
// (Marked after the call's agreement step, which checks the arguments on every rank; a call
// that throws or answers a size query marks nothing, and an empty global input marks nothing.)
#pragma once

#include <cuda_runtime.h>

namespace onepass::distributed {

/// Receives the phase boundaries of the distributed calls made on the installing thread (see
/// the file comment). mark() must not throw and must not synchronize with the GPU if the
/// phases are to be timed as the call runs them (recording a CUDA event is enough).
class phase_observer {
 public:
  virtual ~phase_observer() = default;
  /// `phase`: the phase that starts now on `stream` ("end" after the last one).
  virtual void mark(const char* phase, cudaStream_t stream) noexcept = 0;
};

namespace detail {
inline phase_observer*& installed_phase_observer() noexcept {
  thread_local phase_observer* observer = nullptr;
  return observer;
}
/// Called by the distributed calls at each phase boundary.
inline void mark_phase(const char* phase, cudaStream_t stream) noexcept {
  if (phase_observer* o = installed_phase_observer()) o->mark(phase, stream);
}
}  // namespace detail

/// Installs `observer` on this thread for the scope's lifetime (restoring the previous one,
/// usually none, when it ends). Not copyable; the observer must outlive the scope.
class scoped_phase_observer {
 public:
  explicit scoped_phase_observer(phase_observer& observer) noexcept
      : previous_(detail::installed_phase_observer()) {
    detail::installed_phase_observer() = &observer;
  }
  ~scoped_phase_observer() { detail::installed_phase_observer() = previous_; }
  scoped_phase_observer(const scoped_phase_observer&) = delete;
  scoped_phase_observer& operator=(const scoped_phase_observer&) = delete;

 private:
  phase_observer* previous_;
};

}  // namespace onepass::distributed
