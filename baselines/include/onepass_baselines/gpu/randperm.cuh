// onepass_baselines/gpu/randperm.cuh — the permutation behind "randperm+gather" (what a PyTorch
// user gets from x[torch.randperm(n, device="cuda")]), exposed for the tests (forcing tied
// keys) and for fill_random_permutation (random_gather.cuh). Defined in baselines/gpu/randperm.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace onepass::baselines::gpu {

/// Key bits PyTorch's CUDA randperm sorts on for length n (aten/src/ATen/native/cuda/
/// Randperm.cu): bits = min(64, ceil(log2(n - (6 n^2 + 1) / (12 ln 0.9)))), chosen so that
/// the keys are all distinct with probability about 0.9; n >= 1. Ties are then fixed by
/// shuffling each run of equal keys, so the result is uniform for any bits.
/// Examples: n = 5 -> 7 bits, n = 2^20 -> 43, n = 2^29 -> 61.
int randperm_key_bits(std::size_t n);

/// Writes a uniformly random permutation of 0..n-1 to d_perm[0, n):
/// 1. key i = the low `key_bits` bits of h(i) (counter_hash of (seed, randperm domain)),
///    32-bit keys when key_bits <= 32, else 64-bit, and values 0..n-1 (one kernel);
/// 2. cub::DeviceRadixSort::SortPairs on key bits [0, key_bits) (stable);
/// 3. every maximal run of equal keys (an "island") is shuffled in place by Fisher–Yates
///    with exactly uniform draws, by the thread at its first position, with a stream of the
///    counter-based generator keyed by that position.
/// key_bits in [1, 64], or 0 for randperm_key_bits(n). Deterministic for (seed, key_bits).
/// Two-phase temporary storage: temp == nullptr only sets temp_bytes (>= 1).
/// Throws onepass::error on d_perm == nullptr with n > 0, key_bits > 64, n > 2^56 or too
/// little temporary storage. Islands are shuffled sequentially, so forcing few key bits on
/// a large n is slow (O(n / 2^key_bits) per island thread) — a test device only.
void randperm_indices(void* temp, std::size_t& temp_bytes, std::uint64_t* d_perm, std::size_t n, std::uint64_t seed,
                      cudaStream_t stream, int key_bits = 0);

}  // namespace onepass::baselines::gpu
