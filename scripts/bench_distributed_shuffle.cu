// scripts/bench_distributed_shuffle.cu — the per-rank GPU work of distributed::shuffle and
// unshuffle (distributed/shuffle.cuh, issue 29) timed phase by phase on ONE GPU, to find where
// the distributed shuffle's time beyond (one-GPU shuffle + all-to-all) goes. Not part of the
// library.
//
// One rank's view: rank r of P, n = 2^k u64 items per rank, N = P n (an even split), the
// bijective kind with the default 24 rounds. The rank's index range is taken as
// [r D / P, (r + 1) D / P) (exact when N is a power of two: then D = N and every index is
// flagged). Phases: the boundary tile counts over the rank's share (count_valid_kernel, one
// launch), the range count (range_count: count kernel + scans), the domain pass (forward:
// send[m] = in[f(i_m) - P_r], alone and recording the owners of the range; inverse for the
// unshuffle), the range count and move (evaluating f, or reading the recorded owners; gather for the
// forward placement, scatter for the unshuffle's split). Floors beside them: one evaluation of
// f per index of the domain (a sum, nothing stored), a device copy of n items, and the one-GPU
// gpu::bijective_shuffle of n items. CUDA events, median of 7 (two warm-up calls), ms.
//   nvcc -O3 -arch=sm_90 -std=c++17 -I lib/include -I scripts scripts/bench_distributed_shuffle.cu -lnccl -o /tmp/bds
//   /tmp/bds [log2 n = 30] [P = 2] [r = 0]
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "median_event_ms.cuh"
#include "onepass/distributed/shuffle.cuh"

namespace dd = onepass::distributed::detail;
namespace sg = onepass::shuffle::gpu::detail;

template <class E>
__global__ void evaluate_sum(E g, std::uint64_t domain, unsigned long long* out) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < domain;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t w[1];
    g.template images<1>(i, 1, w);
    sum += w[0];
  }
  atomicAdd(out, static_cast<unsigned long long>(sum));
}

int main(int argc, char** argv) {
  const unsigned log2n = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 30;
  const std::uint64_t P = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2;
  const std::uint64_t r = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  using T = std::uint64_t;
  const std::uint64_t n = std::uint64_t{1} << log2n, N = n * P, first = r * n;
  const auto f = onepass::bijection::variable_philox::for_length(N, 12345);
  const std::uint64_t D = std::uint64_t{1} << f.domain_bits();
  const std::uint64_t lo = r * (D / P), hi = (r + 1) * (D / P);
  const dd::shuffle_temp layout = dd::plan_temp(n, static_cast<int>(P), sizeof(T), 0, dd::shuffle_tuning{});
  std::printf("# rank %llu of P = %llu, n = 2^%u u64 items, N = %llu, D = 2^%u, range [%llu, %llu), temp %.2f GiB\n",
              (unsigned long long)r, (unsigned long long)P, log2n, (unsigned long long)N, f.domain_bits(),
              (unsigned long long)lo, (unsigned long long)hi, layout.total / 1073741824.0);
  T *in = nullptr, *out = nullptr;
  void* temp = nullptr;
  unsigned long long* sink = nullptr;
  ONEPASS_CUDA_CHECK(cudaMalloc(&in, n * sizeof(T)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&out, n * sizeof(T)));
  ONEPASS_CUDA_CHECK(cudaMalloc(&temp, layout.total));
  ONEPASS_CUDA_CHECK(cudaMalloc(&sink, sizeof(*sink)));
  ONEPASS_CUDA_CHECK(cudaMemset(in, 1, n * sizeof(T)));
  dd::shuffle_buffers b(temp, layout);
  std::vector<std::uint64_t> offsets(P + 1);
  for (std::uint64_t q = 0; q <= P; ++q) offsets[q] = q * n;
  ONEPASS_CUDA_CHECK(cudaMemcpy(b.bounds, offsets.data(), offsets.size() * 8, cudaMemcpyHostToDevice));
  T* send = reinterpret_cast<T*>(b.send);
  T* recv = reinterpret_cast<T*>(b.recv);
  const auto Pn = static_cast<std::uint32_t>(P);
  const dd::range_chunks chunks = dd::chunks_of(lo, hi, b);
  const double gb = n * sizeof(T) / 1e9;  // GB of item bytes
  auto report = [&](const char* phase, double ms, double bytes_moved) {
    std::printf("%-34s %9.3f ms", phase, ms);
    if (bytes_moved > 0) std::printf("  %7.1f GB/s of item bytes read + written", bytes_moved / (ms / 1e3));
    std::printf("\n");
  };
  const std::uint64_t tiles = (D / P) >> 12;
  sg::with_evaluator(f, [&](const auto& g) {
    report("boundary tile counts (D/P)", median_ms([&] {
             dd::count_valid_kernel<<<static_cast<unsigned>(tiles), dd::shuffle_block>>>(g, N, lo, hi, 4096, b.tiles);
           }, 7), 0);
    report("evaluate f over D (sum only)", median_ms([&] {
             evaluate_sum<<<132 * 16, 256>>>(g, D, sink);
           }, 7), 0);
    report("evaluate f over D/P (sum only)", median_ms([&] {
             evaluate_sum<<<132 * 16, 256>>>(g, D / P, sink);
           }, 7), 0);
    using E = std::decay_t<decltype(g)>;
    const dd::evaluated_owner<E> evaluated{g, N, b.bounds, Pn};
    const dd::recorded_owner recorded{b.owners, lo, Pn};
    const dd::owner_record record{b.owners, lo, hi, b.bounds, Pn, N};
    report("range count, evaluated (D/P)", median_ms([&] {
             dd::range_count(evaluated, chunks, n, b, Pn, b.scratch, 0);
           }, 7), 0);
    report("domain pass, forward (D)", median_ms([&] {
             dd::domain_pass<false>(g, D, first, n, b, in, send, 0);
           }, 7), 2 * gb);
    report("domain pass, forward + owners", median_ms([&] {
             dd::domain_pass<false>(g, D, first, n, b, in, send, 0, record);
           }, 7), 2 * gb);
    report("range count, recorded (D/P)", median_ms([&] {
             dd::range_count(recorded, chunks, n, b, Pn, b.scratch, 0);
           }, 7), 0);
    report("range move, gather, evaluated", median_ms([&] {
             dd::range_move<true>(evaluated, chunks, b, Pn, recv, out, 0);
           }, 7), 2 * gb);
    report("range move, gather, recorded", median_ms([&] {
             dd::range_move<true>(recorded, chunks, b, Pn, recv, out, 0, dd::own_group<T>{static_cast<std::uint32_t>(r), send, 0} /* even split: the own group has the same place in both */);
           }, 7), 2 * gb);
    report("range move, scatter (unshuffle)", median_ms([&] {
             dd::range_move<false>(evaluated, chunks, b, Pn, in, send, 0);
           }, 7), 2 * gb);
    report("domain pass, inverse (unshuffle)", median_ms([&] {
             dd::domain_pass<true>(g, D, first, n, b, recv, out, 0);
           }, 7), 2 * gb);
  });
  report("device copy of n items", median_ms([&] {
           ONEPASS_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, 0));
         }, 7), 2 * gb);
  const auto f1 = onepass::bijection::variable_philox::for_length(n, 12345);
  std::size_t bytes = 0;
  onepass::shuffle::gpu::bijective_shuffle(nullptr, bytes, in, out, n, f1);
  void* t1 = nullptr;
  ONEPASS_CUDA_CHECK(cudaMalloc(&t1, bytes));
  report("one-GPU bijective_shuffle of n", median_ms([&] {
           onepass::shuffle::gpu::bijective_shuffle(t1, bytes, in, out, n, f1);
         }, 7), 2 * gb);
  ONEPASS_CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}
