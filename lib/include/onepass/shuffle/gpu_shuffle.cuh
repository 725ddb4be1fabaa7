// onepass/shuffle/gpu_shuffle.cuh — the bijective shuffle on the GPU (CUDA): the
// public API.
//
// Source: Mitchell et al., "Bandwidth-Optimal Random Shuffling for GPUs", §4
// (Algorithm 1) and §6 (the three fusion levels). For i in [0, domain_size = 2^b) in
// order, the image w_i = f(i) is flagged when w_i < num_items; the j-th flagged index
// gathers out[j] = in[w_j] (the paper's m is num_items, its n domain_size). The
// permutation is exactly the one of the CPU shuffle (onepass/shuffle/cpu_shuffle.hpp) for
// the same bijection, element for element.
//
// Three implementations of the same permutation (`fusion`), one header each:
//   bijective0  gpu_bijective0.cuh: separate passes — evaluate all domain_size images,
//               cub::DeviceSelect::If keeps those below num_items, a gather kernel.
//   bijective1  gpu_bijective1.cuh: two-pass reduce-then-scan — tile counts,
//               cub::DeviceScan::ExclusiveSum, then re-evaluate, rank and gather.
//   bijective2  gpu_bijective2.cuh: single pass over the decoupled look-back scan
//               (scan/tile_state.cuh), software-pipelined over two tiles; a domain whose
//               output fits in shared memory takes the staged structure of
//               gpu_staged_shuffle.cuh (one cooperative launch, a grid barrier in place
//               of the look-back). Each element is read once and written once.
// bijective_unshuffle applies the inverse permutation with the bijective2 structure:
// out[w_j] = in[j].
//
// Below them: the tiles of the fused kernels and the steps that rank a tile
// (gpu_tile_ranking.cuh), the device forms of the bijections and the element words
// (gpu_evaluator.cuh), the argument checks and temporary storage
// (gpu_shuffle_protocol.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/gpu_bijective0.cuh"
#include "onepass/shuffle/gpu_bijective1.cuh"
#include "onepass/shuffle/gpu_bijective2.cuh"
#include "onepass/shuffle/gpu_evaluator.cuh"
#include "onepass/shuffle/gpu_shuffle_protocol.cuh"
#include "onepass/shuffle/gpu_staged_shuffle.cuh"
#include "onepass/shuffle/gpu_tile_ranking.cuh"

namespace onepass::shuffle::gpu {

/// How far evaluation, compaction and gather are fused (paper §6).
enum class fusion {
  bijective0,  ///< separate passes: evaluate -> cub::DeviceSelect::If -> gather
  bijective1,  ///< fused, two-pass reduce-then-scan (tile counts, cub::DeviceScan, re-evaluate + gather)
  bijective2,  ///< fused, single pass over the decoupled look-back scan
};

/// "bijective0", "bijective1" or "bijective2".
inline const char* to_string(fusion variant) {
  switch (variant) {
    case fusion::bijective0: return "bijective0";
    case fusion::bijective1: return "bijective1";
    case fusion::bijective2: return "bijective2";
  }
  return "unknown";
}

/// Bijective shuffle on the GPU (paper §4, Algorithm 1; fusion levels of §6):
/// d_out[j] = d_in[f(i_j)], where i_0 < i_1 < ... are the indices of [0, 2^b) that f
/// maps below num_items. The same permutation as the CPU cpu::bijective_shuffle for f.
///
/// CUB's two-phase temporary storage: with d_temp == nullptr only temp_bytes is set
/// (to the bytes `variant` needs for num_items and f; d_in, d_out are not looked at), and
/// nothing is enqueued. Otherwise d_temp must hold at least that many bytes of
/// device memory (any alignment) and the work is enqueued on `stream`, not waited
/// for. The query of bijective0/1 asks CUB for its own storage, which looks at the
/// current device. Temporary storage, domain_size = 2^b: bijective2 8 bytes per tile
/// (1024 indices per tile from 2^22 up; 512 below) plus under 1 KiB; bijective1 twice
/// that plus CUB's scan storage; bijective0 8 (domain_size + num_items) bytes plus CUB's
/// selection storage (so bijective0 takes b <= 56 only). A bijective2 whose output fits in
/// the device's shared memory (up to 2^21 uint64 indices on an H100) runs the staged
/// structure of gpu_staged_shuffle.cuh, one cooperative launch, in the same storage.
///
/// T: any trivially copyable type (moved as its bytes). d_in, d_out: device
/// pointers to num_items elements each, not overlapping. num_items in [0, 2^63]. f: a
/// bijection of [0, 2^b) with b in [1, 63] and 2^b >= num_items, with host+device
/// operator() and domain_bits() (bijection::variable_philox, bijection::lcg), trivially
/// copyable.
///
/// Throws onepass::error (nothing enqueued, d_out untouched) for num_items > 2^63, a
/// domain that does not hold num_items (or b > 56 with bijective0), and in the run phase
/// for null d_in or d_out with num_items > 0, overlapping buffers, or temp_bytes below the
/// query's answer; throws onepass::runtime_failure when a CUDA call or launch fails.
template <class T, class Bijection>
void bijective_shuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t num_items,
                       const Bijection& f, fusion variant = fusion::bijective2, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu::bijective_shuffle: T must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Bijection>, "gpu::bijective_shuffle: the bijection must be trivially copyable");
  constexpr const char* function = "onepass::shuffle::gpu::bijective_shuffle";
  detail::check_sizes(function, num_items, f);
  std::size_t required = 0;
  switch (variant) {
    case fusion::bijective0:
      require(f.domain_bits() <= 56, function, "bijection",
              "domain 2^" + std::to_string(f.domain_bits()) + " is too large for bijective0's index array (b <= 56)");
      required = detail::bijective0_layout(std::uint64_t{1} << f.domain_bits(), num_items).total;
      break;
    case fusion::bijective1: required = detail::bijective1_temp_bytes<T>(f.domain_bits()); break;
    case fusion::bijective2: required = detail::bijective2_temp_bytes<T>(f.domain_bits()); break;
    default: require(false, function, "variant", "must be fusion::bijective0, bijective1 or bijective2");
  }
  if (!detail::query_or_check(function, d_temp, temp_bytes, required, d_in, d_out, num_items)) return;
  switch (variant) {
    case fusion::bijective0: detail::run_bijective0(d_temp, d_in, d_out, num_items, f, stream); break;
    case fusion::bijective1: detail::run_bijective1(d_temp, d_in, d_out, num_items, f, stream); break;
    case fusion::bijective2: detail::run_bijective2<false>(d_temp, d_in, d_out, num_items, f, stream); break;
  }
}

/// Inverse of bijective_shuffle for the same f: d_out[f(i_j)] = d_in[j], so
/// bijective_unshuffle(bijective_shuffle(x)) == x. Single pass with the bijective2
/// structure (the look-back scan; scattered writes, each read and write once).
/// Temporary storage, arguments and errors as bijective_shuffle with bijective2.
template <class T, class Bijection>
void bijective_unshuffle(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t num_items,
                         const Bijection& f, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<T>, "gpu::bijective_unshuffle: T must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Bijection>, "gpu::bijective_unshuffle: the bijection must be trivially copyable");
  constexpr const char* function = "onepass::shuffle::gpu::bijective_unshuffle";
  detail::check_sizes(function, num_items, f);
  const std::size_t required = detail::bijective2_temp_bytes<T>(f.domain_bits());
  if (!detail::query_or_check(function, d_temp, temp_bytes, required, d_in, d_out, num_items)) return;
  detail::run_bijective2<true>(d_temp, d_in, d_out, num_items, f, stream);
}

}  // namespace onepass::shuffle::gpu
