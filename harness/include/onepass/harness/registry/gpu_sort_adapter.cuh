// onepass/harness/registry/gpu_sort_adapter.cuh — turns one generic GPU sort into sort-family
// registry entries (registry.hpp: sort_entry, gpu_sort_fn) for every registry::sort_shape it supports.
// Used by the library's own sorts (harness/src/gpu_onesweep_sorts.cu, gpu_hybrid_msd_sorts.cu),
// by the GPU sort baselines and by a user's own one-file baseline.
//
// Conventions every GPU sort registered through it follows (registry::gpu_sort_fn):
// - temp == nullptr is a size query: it checks n and the bit range, sets temp_bytes (>= 1)
//   and does nothing else.
// - The run call checks null pointers with n > 0, overlapping buffers (outputs must not
//   overlap inputs or each other), temp_bytes below the query's answer; each throws
//   onepass::error naming the argument. Nothing is enqueued when it throws.
// - n = 0 enqueues nothing. All work goes to the given stream; nothing synchronises it.
// sort_size_query below does these checks for an Impl that has no protocol of its own.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/sort/sort_args.hpp"

namespace onepass::registry {

/// Key and value types of a registry sort shape as an Impl sees them: registry::shape_types
/// with value = sort::no_values (an empty type, not void) for keys-only shapes.
template <sort_shape Shape>
struct sort_call_types {
  using key = typename shape_types<Shape>::key;
  using value = std::conditional_t<std::is_void_v<typename shape_types<Shape>::value>, sort::no_values,
                                   typename shape_types<Shape>::value>;
};

/// True for the key-value shapes (Value is not sort::no_values).
template <class Value>
inline constexpr bool has_values = !std::is_same_v<Value, sort::no_values>;

/// The arguments of one gpu_sort_fn call, typed (device pointers; values nullptr for
/// keys-only shapes; bits resolved: end in [1, key bits], begin < end).
template <class Key, class Value>
struct sort_call {
  void* temp;
  std::size_t& temp_bytes;
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;  // nullptr for keys-only
  Value* values_out;       // nullptr for keys-only
  std::size_t n;
  sort::bit_range bits;
  bool descending;
  cudaStream_t stream;
};

/// Checks the buffers of an in-place sort (registry::sort_entry::in_place): keys_in ==
/// keys_out (values alike), not null when n > 0, keys and values not overlapping. Throws
/// onepass::error naming `fn` and the argument.
template <class Key, class Value>
void check_in_place_buffers(const char* fn, const sort_call<Key, Value>& c) {
  if (c.n == 0) return;
  require(static_cast<const void*>(c.keys_in) == static_cast<const void*>(c.keys_out), fn, "keys_in",
          "must equal keys_out (an in-place sort: keys_out holds the input on entry)");
  if constexpr (has_values<Value>)
    require(static_cast<const void*>(c.values_in) == static_cast<const void*>(c.values_out), fn, "values_in",
            "must equal values_out (an in-place sort: values_out holds the input on entry)");
  protocol::check_not_null(fn, "keys_out", c.keys_out, "when n > 0");
  if constexpr (has_values<Value>) {
    protocol::check_not_null(fn, "values_out", c.values_out, "when n > 0 (key-value sort)");
    protocol::check_disjoint_bytes(fn, "values_out", c.values_out, c.n * sizeof(Value), "keys_out", c.keys_out,
                                   c.n * sizeof(Key));
  }
}

/// The two-phase protocol for an Impl that needs `required` bytes of temporary storage.
/// When c.temp is null sets c.temp_bytes = max(required, 1) and returns true (the caller
/// returns). Otherwise checks the buffers (the in-place rules when InPlace, else
/// sort::check_sort_buffers) and c.temp_bytes >= required, and returns false. Throws
/// onepass::error naming `fn` and the argument.
template <bool InPlace = false, class Key, class Value>
bool sort_size_query(const char* fn, const sort_call<Key, Value>& c, std::size_t required) {
  if (required == 0) required = 1;
  if (protocol::answer_query(c.temp, c.temp_bytes, required)) return true;
  if constexpr (InPlace)
    check_in_place_buffers(fn, c);
  else
    sort::check_sort_buffers(fn, c.keys_in, c.keys_out, c.values_in, c.values_out, c.n, sizeof(Key),
                             has_values<Value> ? sizeof(Value) : 0);
  protocol::check_temp_bytes(fn, c.temp_bytes, required, "n", c.n);
  return false;
}

/// A registry::gpu_sort_fn for shape Shape: resolves the bit range (params.end_bit == 0
/// is the key's width; a bad range throws onepass::error naming begin_bit or end_bit, also
/// in a size query), types the call and calls Impl::template run<Key, Value>(fn, call),
/// with `fn` = "name (gpu, <shape>)" for Impl's error messages. Returns what Impl::run
/// returns when that is a `const char*` (the algorithm an Impl that chooses per call ran,
/// registry::gpu_sort_fn), nullptr when Impl::run returns void.
template <sort_shape Shape, class Impl>
gpu_sort_fn make_gpu_sort(std::string name) {
  using key = typename sort_call_types<Shape>::key;
  using value = typename sort_call_types<Shape>::value;
  return [name = std::move(name) + " (gpu, " + to_string(Shape) + ")"](
             void* temp, std::size_t& temp_bytes, const void* d_keys_in, void* d_keys_out, const void* d_values_in,
             void* d_values_out, std::size_t n, const sort_params& params, void* stream) -> const char* {
    const char* fn = name.c_str();
    const sort::bit_range bits = sort::resolve_bit_range(fn, sizeof(key) * 8, params.begin_bit, params.end_bit);
    sort_call<key, value> c{temp,
                            temp_bytes,
                            static_cast<const key*>(d_keys_in),
                            static_cast<key*>(d_keys_out),
                            has_values<value> ? static_cast<const value*>(d_values_in) : nullptr,
                            has_values<value> ? static_cast<value*>(d_values_out) : nullptr,
                            n,
                            bits,
                            params.descending,
                            static_cast<cudaStream_t>(stream)};
    if constexpr (std::is_void_v<decltype(Impl::template run<key, value>(fn, c))>) {
      Impl::template run<key, value>(fn, c);
      return nullptr;
    } else {
      return Impl::template run<key, value>(fn, c);
    }
  };
}

/// Registers Impl (a struct with `template <class Key, class Value> static void run(const
/// char* fn, sort_call<Key, Value>& call)`, Value = sort::no_values for keys-only shapes;
/// run may return the `const char*` name of the algorithm it ran, registry::gpu_sort_fn)
/// as a GPU entry for every registry::sort_shape it supports (all, unless Impl declares
/// `static constexpr bool supports(sort_shape)`: registry::implementation_supports; the
/// others are not instantiated), with the fields of `family` (name, label, description,
/// in_place, float_zeros_equal: registry::sort_family) shared. An in-place Impl checks its
/// buffers with sort_size_query<true>; CUB-based sorts set float_zeros_equal. Throws
/// onepass::error (registry::add_sort) when the name is empty or already taken for a shape.
template <class Impl>
void register_gpu_sort_all_shapes(const sort_family& family) {
  for_each_sort_shape([&](auto tag) {
    constexpr sort_shape shape = decltype(tag)::shape;
    if constexpr (implementation_supports<Impl, shape>()) {
      sort_entry e = family.entry(device::gpu, shape);
      e.gpu_run = make_gpu_sort<shape, Impl>(family.name);
      add_sort(std::move(e));
    }
  });
}

/// register_gpu_sort_all_shapes(sort_family{name, label, description}): an out-of-place
/// sort that orders float keys by sort/key_traits.hpp's total order (-0.0 < +0.0).
template <class Impl>
void register_gpu_sort_all_shapes(const std::string& name, const std::string& label, const std::string& description) {
  register_gpu_sort_all_shapes<Impl>(sort_family{name, label, description});
}

}  // namespace onepass::registry
