// onepass_baselines/gpu/gpu_sort_common.cuh — what the GPU sort baselines of the Onesweep
// experiments (Figs. 9–11, sort_headline) share: the registry adapter of the library
// (harness: onepass/harness/registry/gpu_sort_adapter.cuh: typed calls, the two-phase
// protocol and register_gpu_sort_all_shapes, which the library's own sorts use too), named here, and
// CUB's key types. Shared by the baselines (target onepass_baselines) and their tests; not
// part of the library.
#pragma once

#include <cstdint>
#include <type_traits>

#include "onepass/cuda_check.hpp"
#include "onepass/harness/registry/gpu_sort_adapter.cuh"

namespace onepass::baselines::gpu {

using registry::has_values;
using registry::register_gpu_sort_all_shapes;
using registry::sort_call;
using registry::sort_family;
using registry::sort_size_query;

/// CUB's radix traits are keyed on the fundamental type: uint64_t (unsigned long on Linux)
/// is passed as unsigned long long, the same width and order.
template <class T>
struct cub_type {
  using type = T;
};
template <>
struct cub_type<unsigned long> {
  using type = std::conditional_t<sizeof(unsigned long) == 8, unsigned long long, unsigned int>;
};
template <class T>
using cub_type_t = typename cub_type<T>::type;

}  // namespace onepass::baselines::gpu
