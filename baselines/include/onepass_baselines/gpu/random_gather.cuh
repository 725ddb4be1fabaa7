// onepass_baselines/gpu/random_gather.cuh — the random-gather upper bound of the paper's Table 1
// ("Gather", Mitchell et al. §2.2 and §6) as callable functions, for experiments that time
// its two forms separately: the index computed in registers, and the index read from a
// precomputed array (plus the kernels that fill such an array, which are not timed).
// Defined in baselines/gpu/gather.cu (and baselines/gpu/randperm.cu for
// fill_random_permutation); compiled into onepass_baselines. The registry entry "gather"
// (device gpu) is random_gather below.
//
// All functions: device pointers, uint64 elements, 64-bit sizes n in [0, 2^56], work
// enqueued on `stream` and not waited for; n = 0 enqueues nothing. Bad arguments throw
// onepass::error (nothing enqueued), CUDA failures onepass::runtime_failure.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace onepass::baselines::gpu {

/// Random gather with the index computed in registers:
///   out[i] = in[mul_high(h(i), n)],  i in [0, n),
/// h the counter_hash of (domain_seed(seed, gather), stream 0) — the same h and the same
/// multiply-high reduction (Lemire) as the CPU "gather", so the two agree bit for bit.
/// Not a permutation (indices repeat). d_in, d_out: n elements each, not overlapping.
/// Throws onepass::error on null pointers with n > 0 or overlap.
void random_gather(const std::uint64_t* d_in, std::uint64_t* d_out, std::size_t n, std::uint64_t seed,
                   cudaStream_t stream);

/// Random gather through an index array: out[i] = in[d_idx[i]], i in [0, n).
/// Every d_idx[i] must be < n (not checked: an index out of range reads out of bounds).
/// d_idx, d_in, d_out: n elements each; d_out must not overlap d_in or d_idx.
/// Throws onepass::error on null pointers with n > 0 or overlapping d_in/d_out.
void random_gather_indexed(const std::uint64_t* d_idx, const std::uint64_t* d_in, std::uint64_t* d_out,
                           std::size_t n, cudaStream_t stream);

/// Fills d_idx[0, n) with independent random indices d_idx[i] = mul_high(h(i), n), the
/// indices random_gather computes for the same seed (so random_gather_indexed over them
/// returns exactly random_gather's output). Throws onepass::error on d_idx == nullptr
/// with n > 0.
void fill_random_indices(std::uint64_t* d_idx, std::size_t n, std::uint64_t seed, cudaStream_t stream);

/// Fills d_idx[0, n) with a uniformly random permutation of 0..n-1 (the "randperm"
/// algorithm: sort random keys with their indices, shuffle runs of tied keys). Two-phase
/// temporary storage as the registry's GPU shuffles: temp == nullptr only sets temp_bytes
/// (>= 1); otherwise temp must hold temp_bytes >= that many bytes of device memory.
/// Deterministic for a seed. Throws onepass::error on d_idx == nullptr with n > 0 or too
/// little temporary storage.
void fill_random_permutation(void* temp, std::size_t& temp_bytes, std::uint64_t* d_idx, std::size_t n,
                             std::uint64_t seed, cudaStream_t stream);

}  // namespace onepass::baselines::gpu
