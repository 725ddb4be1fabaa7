// onepass/harness/onesweep_phases.cuh — the phases of one Onesweep sort (the library's
// sort/onesweep.cuh), callable one at a time, for the experiments that time them apart
// (Adinets & Merrill, "Onesweep", Table 2: experiments/onesweep_table2_digit_width.cu).
// The library keeps its schedule internal (onesweep::detail::plan); the harness is the one
// place above the library that reaches into it, so that no experiment does. Not installed.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "onepass/sort/onesweep.cuh"

namespace onepass::harness {

/// One keys-only Onesweep sort of n keys of type Key (uint32_t, uint64_t, float, ...) with
/// DigitBits-bit digits (in [5, 9]) on bits [begin_bit, end_bit), split into its phases:
/// the same kernels, launch geometry and temporary-storage layout as
/// onesweep::sort_keys<DigitBits> (it is that sort's plan). Device pointers; every call
/// enqueues on `stream` and does not wait. The bit range is not checked here (as the
/// library's own plan: the public sort functions check it); pass 0 <= begin_bit <
/// end_bit <= 8 * sizeof(Key).
template <unsigned DigitBits, class Key>
class onesweep_phases {
 public:
  /// n keys (any n >= 0), bits [begin_bit, end_bit), ascending unless `descending`.
  onesweep_phases(std::uint64_t n, unsigned begin_bit, unsigned end_bit, bool descending)
      : plan_(n, begin_bit, end_bit, descending) {}

  /// Digit places (binning passes) of the sort: ceil((end_bit - begin_bit) / DigitBits).
  unsigned num_places() const { return plan_.num_places(); }

  /// Bytes of device temporary storage bind() needs (histograms, place flags, look-back
  /// state; no key buffers).
  std::size_t temp_bytes() const { return plan_.temp_bytes(); }

  /// Uses d_temp (at least temp_bytes() bytes of device memory) from now on.
  void bind(void* d_temp) { plan_.bind(d_temp); }

  /// Enqueues the zeroing of the global histograms and the upfront histogram kernel over
  /// d_keys[0, n) (all digit places at once).
  void histogram(const Key* d_keys, cudaStream_t stream) const { plan_.histogram(d_keys, stream); }

  /// Enqueues the exclusive sum of the histograms (one block per place); after histogram().
  void exclusive_sum(cudaStream_t stream) const { plan_.exclusive_sum(stream); }

  /// Enqueues the digit-binning pass of digit place `place` (< num_places()): keys_in[0, n)
  /// -> keys_out[0, n), look-back state initialisation included. Needs histogram() and
  /// exclusive_sum() earlier in stream order.
  void binning_pass(unsigned place, const Key* keys_in, Key* keys_out, cudaStream_t stream) const {
    plan_.binning_pass(place, keys_in, keys_out, nullptr, nullptr, stream);
  }

 private:
  sort::gpu::onesweep::detail::plan<DigitBits, Key> plan_;
};

}  // namespace onepass::harness
