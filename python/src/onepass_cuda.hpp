// python/src/onepass_cuda.hpp — the GPU launches behind onepass's Python package, with a
// plain C++ interface (device pointers and streams as integers) so that the nanobind
// module (onepass_cuda_ext.cpp, compiled by the host compiler) needs no CUDA headers and
// the CUDA translation unit (onepass_cuda.cu, nvcc) needs no nanobind.
//
// Every function: `device` is the CUDA device the pointers live on (made current for the
// call, the previous one restored); `stream` a cudaStream_t (0: the legacy default stream);
// temporary storage is taken with cudaMallocAsync on `stream` and given back with
// cudaFreeAsync on it; the work is enqueued on `stream`, not waited for (except where a
// library call says it waits: sort's stage-2 sample, the segmented shuffle with offsets).
// Bad arguments throw onepass::error before anything is enqueued; CUDA failures
// onepass::runtime_failure. The Python layer has checked shapes, dtypes and overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onepass_py {

/// x viewed as `outer` x n x row_bytes bytes (C order): out[a, j, :] = in[a, p[j], :]
/// (inverse: out[a, p[j], :] = in[a, j, :]) with p the permutation of the bijective
/// shuffle for (n, seed, rounds). Returns the path taken: "bijective_shuffle" (outer == 1,
/// rows of 1, 2, 4, 8 or 16 aligned bytes: the library's single-pass kernel) or
/// "permutation_gather" (the permutation, then a row gather/scatter kernel).
std::string shuffle_rows(std::uintptr_t in, std::uintptr_t out, std::uint64_t outer, std::uint64_t n,
                         std::uint64_t row_bytes, std::uint64_t seed, unsigned rounds, bool inverse,
                         std::uintptr_t stream, int device);

/// out: n uint64 — the permutation of 0..n-1 for (seed, rounds).
void permutation(std::uintptr_t out, std::uint64_t n, std::uint64_t seed, unsigned rounds, std::uintptr_t stream,
                 int device);

/// out: count uint64, out[k] = sigma((first + k * stride) mod num_items) with sigma =
/// walking_permutation::for_length(num_items, seed, rounds) (cycle walking over
/// VariablePhilox): gpu::walking_indices, equal to the CPU walking_indices.
void walking_indices(std::uintptr_t out, std::uint64_t count, std::uint64_t num_items, std::uint64_t seed,
                     unsigned rounds, std::uint64_t first, std::uint64_t stride, std::uintptr_t stream, int device);

/// Segmented shuffle of num_items items of item_bytes (1, 2, 4, 8, 16) bytes: with offsets
/// (offset_bytes 4 or 8: int32 / int64, num_segments + 1 device values) or, offsets == 0,
/// num_segments rows of row_length items.
void segmented(std::uintptr_t in, std::uintptr_t out, std::uint64_t num_items, unsigned item_bytes,
               std::uintptr_t offsets, unsigned offset_bytes, std::uint64_t num_segments, std::uint64_t row_length,
               std::uint64_t seed, unsigned rounds, bool inverse, std::uintptr_t stream, int device);

/// onepass::sort::sort_keys (values_in == 0) or sort_pairs (value_bytes 4 or 8) of n keys
/// of kind 'u' / 'i' / 'f' and key_bytes 4 or 8. Returns the algorithm run.
std::string sort(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in, std::uintptr_t values_out,
                 std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes, unsigned begin_bit,
                 unsigned end_bit, bool descending, std::uintptr_t stream, int device);

/// index_out: n uint64, the stable sorting permutation of the keys (sort_pairs of the keys
/// with 0..n-1; the sorted keys go to temporary storage). Returns the algorithm run.
std::string argsort(std::uintptr_t keys_in, std::uintptr_t index_out, std::uint64_t n, char key_kind,
                    unsigned key_bytes, unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream,
                    int device);

/// out: n doubles (single == false) or floats: generate_normal with the default table.
void normal(std::uintptr_t out, std::uint64_t n, bool single, double mean, double stddev, std::uint64_t seed,
            int form, std::uintptr_t stream, int device);

/// cudaMallocAsync(bytes) on stream (device memory that a returned array owns).
std::uintptr_t allocate(std::size_t bytes, std::uintptr_t stream, int device);
/// cudaFreeAsync(ptr) on stream.
void release(std::uintptr_t ptr, std::uintptr_t stream, int device) noexcept;
/// cudaStreamSynchronize(stream).
void synchronize(std::uintptr_t stream, int device);
/// Makes `consumer` wait for the work enqueued so far on `producer` (an event).
void stream_wait(std::uintptr_t producer, std::uintptr_t consumer, int device);
/// The device a device pointer belongs to, -1 for host memory / unknown pointers.
int pointer_device(std::uintptr_t ptr);
/// Number of CUDA devices (0 when there is no driver or no device).
int device_count() noexcept;

}  // namespace onepass_py
