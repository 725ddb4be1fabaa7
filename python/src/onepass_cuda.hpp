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
#include <utility>

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

/// onepass::sort::gpu::sort_keys (values_in == 0) or sort_pairs (value_bytes 4 or 8) of n keys
/// of kind 'u' / 'i' / 'f' and key_bytes 4 or 8. Returns the algorithm run.
std::string sort(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in, std::uintptr_t values_out,
                 std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes, unsigned begin_bit,
                 unsigned end_bit, bool descending, std::uintptr_t stream, int device);

/// index_out: n uint64, the stable sorting permutation of the keys (sort_pairs of the keys
/// with 0..n-1; the sorted keys go to temporary storage). Returns the algorithm run.
std::string argsort(std::uintptr_t keys_in, std::uintptr_t index_out, std::uint64_t n, char key_kind,
                    unsigned key_bytes, unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t stream,
                    int device);

/// out: n doubles (single == false) or floats. Doubles, and floats with method 1
/// (gaussian::method::rounded_double): gaussian::gpu::generate_normal with the default table
/// and the form (floats: the doubles rounded to nearest). Floats with method 0
/// (method::float_native): the float-native generator, gpu::generate_normal(float*, ...,
/// method::float_native), equal to cpu::generate_normal(float*, ..., method::float_native);
/// form not used. method is not used for doubles.
void normal(std::uintptr_t out, std::uint64_t n, bool single, double mean, double stddev, std::uint64_t seed,
            int form, int method, std::uintptr_t stream, int device);

// --- Beyond one GPU (onepass_cuda_distributed.cu; only built, and registered in the module,
// when NCCL was found: ONEPASS_PY_HAVE_NCCL): onepass::distributed::sort_keys / sort_pairs /
// shuffle / unshuffle on a NCCL communicator of the module's own, passed as an integer handle
// (its ncclComm_t). Collectives: every rank of the communicator calls them in the same order.
// Temporary storage is the caller's (temp, temp_bytes: the answer of the matching *_bytes
// query), so that PyTorch's caching allocator owns it. Host-synchronous like the library
// calls (see their headers).

/// ncclGetUniqueId: the 128 bytes rank 0 hands to every rank of a new communicator.
std::string nccl_unique_id();
/// ncclCommInitRank(nranks, id, rank) with `device` current: a communicator handle.
/// Collective over the nranks callers (blocks until all have called).
std::uintptr_t nccl_comm_init(const std::string& unique_id, int nranks, int rank, int device);
/// ncclCommDestroy (abort == false: after the communicator's work is done; all ranks should
/// call it) or ncclCommAbort (abort == true: local, never waits for the other ranks).
void nccl_comm_destroy(std::uintptr_t comm, bool abort);
/// (rank, number of ranks) of the communicator.
std::pair<int, int> nccl_comm_rank_count(std::uintptr_t comm);
/// The NCCL library's version (ncclGetVersion, e.g. 22809).
int nccl_version();

/// The temporary storage of distributed_sort for these arguments (no communication).
std::size_t distributed_sort_bytes(std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes,
                                   unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t comm,
                                   std::uintptr_t stream, int device, int method);
/// onepass::distributed::sort_keys (value_bytes == 0) or sort_pairs (4 or 8) of n keys of
/// kind 'u' / 'i' / 'f' and key_bytes 4 or 8 in the double buffers (keys0 current, keys1
/// alternate; values0, values1 likewise). Returns the selectors (keys, values) of the buffers
/// holding the output; both buffers of each pair are overwritten. method: 0
/// sort_method::partition_first, 1 sort_method::sort_first (else onepass::error).
std::pair<int, int> distributed_sort(std::uintptr_t temp, std::size_t temp_bytes, std::uintptr_t keys0,
                                     std::uintptr_t keys1, std::uintptr_t values0, std::uintptr_t values1,
                                     std::uint64_t n, char key_kind, unsigned key_bytes, unsigned value_bytes,
                                     unsigned begin_bit, unsigned end_bit, bool descending, std::uintptr_t comm,
                                     std::uintptr_t stream, int device, int method);
/// The temporary storage of distributed_shuffle for n items of item_bytes (1, 2, 4, 8, 16)
/// bytes; kind 0 bijective, 1 walking (no communication).
std::size_t distributed_shuffle_bytes(std::uint64_t n, unsigned item_bytes, int kind, std::uintptr_t comm,
                                      std::uintptr_t stream, int device);
/// onepass::distributed::shuffle (inverse: unshuffle) of n items of item_bytes bytes from in
/// to out (not overlapping), kind 0 bijective / 1 walking.
void distributed_shuffle(std::uintptr_t temp, std::size_t temp_bytes, std::uintptr_t in, std::uintptr_t out,
                         std::uint64_t n, unsigned item_bytes, std::uint64_t seed, int kind, unsigned rounds,
                         bool inverse, std::uintptr_t comm, std::uintptr_t stream, int device);

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
