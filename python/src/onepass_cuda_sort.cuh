// python/src/onepass_cuda_sort.cuh — the typed sort wrappers (onepass::sort::gpu) of the Python
// package's GPU module, included by the sort translation units only.
#pragma once

#include <type_traits>

#include "onepass/sort/sort.cuh"
#include "onepass_cuda_common.cuh"

namespace onepass_py {
namespace {

/// Calls fn(Key{}) with the key type of (kind, bytes).
template <class Fn>
inline std::string with_key(char kind, unsigned bytes, Fn&& fn) {
  if (kind == 'u' && bytes == 4) return fn(std::uint32_t{});
  if (kind == 'i' && bytes == 4) return fn(std::int32_t{});
  if (kind == 'f' && bytes == 4) return fn(float{});
  if (kind == 'u' && bytes == 8) return fn(std::uint64_t{});
  if (kind == 'i' && bytes == 8) return fn(std::int64_t{});
  if (kind == 'f' && bytes == 8) return fn(double{});
  throw onepass::error("keys: dtype must be uint32, int32, float32, uint64, int64 or float64");
}

/// Calls fn(Key{}) with the key type of (kind, Bytes): one key width only, so that a
/// translation unit instantiates half of the key types.
template <unsigned Bytes, class Fn>
inline std::string with_key_of_width(char kind, Fn&& fn) {
  using U = std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>;
  using I = std::conditional_t<Bytes == 4, std::int32_t, std::int64_t>;
  using F = std::conditional_t<Bytes == 4, float, double>;
  if (kind == 'u') return fn(U{});
  if (kind == 'i') return fn(I{});
  if (kind == 'f') return fn(F{});
  throw onepass::error("keys: dtype must be uint32, int32, float32, uint64, int64 or float64");
}

template <class Key, class Value>
std::string sort_pairs_typed(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                             std::uintptr_t values_out, std::uint64_t n, unsigned begin_bit, unsigned end_bit,
                             bool descending, cudaStream_t stream) {
  namespace so = onepass::sort::gpu;
  std::size_t bytes = 0;
  so::sort_pairs<Key, Value>(nullptr, bytes, as_ptr<const Key>(keys_in), as_ptr<Key>(keys_out),
                             as_ptr<const Value>(values_in), as_ptr<Value>(values_out), n, begin_bit, end_bit,
                             descending, stream);
  stream_buffer temp(bytes, stream);
  const so::algorithm a = so::sort_pairs<Key, Value>(
      temp.get(), bytes, as_ptr<const Key>(keys_in), as_ptr<Key>(keys_out), as_ptr<const Value>(values_in),
      as_ptr<Value>(values_out), n, begin_bit, end_bit, descending, stream);
  return so::to_string(a);
}

}  // namespace
}  // namespace onepass_py
