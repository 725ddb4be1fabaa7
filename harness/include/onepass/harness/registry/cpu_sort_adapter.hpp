// onepass/harness/registry/cpu_sort_adapter.hpp — turns one generic CPU sort into sort-family
// registry entries (registry.hpp: sort_entry, cpu_sort_fn) for every registry::sort_shape it supports.
// Used by the CPU sort baselines and by a user's own one-file baseline
// (examples/baselines/example_sort.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "onepass/call_protocol.hpp"
#include "onepass/error.hpp"
#include "onepass/harness/registry.hpp"

namespace onepass::registry {

/// The registry::cpu_sort_fn of Impl for one shape: casts the void pointers to the
/// shape's key and value types (registry::shape_types; Value = uint32_t with null value
/// pointers for keys-only shapes) and calls Impl::template run<Key, Value>(keys_in,
/// keys_out, values_in, values_out, n, params). For pairs shapes a null values_in or
/// values_out with n > 0 throws onepass::error naming it and `name (cpu, <shape>)`.
template <class Impl, sort_shape Shape>
cpu_sort_fn make_cpu_sort(const std::string& name) {
  using key = typename shape_types<Shape>::key;
  using shape_value = typename shape_types<Shape>::value;
  constexpr bool pairs = !std::is_void_v<shape_value>;
  using value = std::conditional_t<pairs, shape_value, std::uint32_t>;
  return [fn = name + " (cpu, " + to_string(Shape) + ")"](const void* ki, void* ko, const void* vi, void* vo,
                                                          std::size_t n, const sort_params& p) {
    if constexpr (pairs) {
      // A pairs call with null values would otherwise sort the keys only: refuse it.
      if (n > 0) {
        protocol::check_not_null(fn.c_str(), "values_in", vi, "when n > 0 (key-value sort)");
        protocol::check_not_null(fn.c_str(), "values_out", vo, "when n > 0 (key-value sort)");
      }
      Impl::template run<key, value>(static_cast<const key*>(ki), static_cast<key*>(ko), static_cast<const value*>(vi),
                                     static_cast<value*>(vo), n, p);
    } else {
      Impl::template run<key, value>(static_cast<const key*>(ki), static_cast<key*>(ko), nullptr, nullptr, n, p);
    }
  };
}

/// Registers Impl (a struct with `template <class Key, class Value> static void run(const
/// Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
/// const registry::sort_params&)`, values nullptr for keys-only) under `name` as a CPU
/// entry for every registry::sort_shape it supports (all, unless Impl declares `static
/// constexpr bool supports(sort_shape)`: registry::implementation_supports), with the
/// given label and description. Throws onepass::error (registry::add_sort) when `name` is
/// empty or already taken for a shape.
template <class Impl>
void register_cpu_sort_all_shapes(const std::string& name, const std::string& label, const std::string& description) {
  const sort_family family{name, label, description};
  for_each_sort_shape([&](auto tag) {
    constexpr sort_shape shape = decltype(tag)::shape;
    if constexpr (implementation_supports<Impl, shape>()) {
      sort_entry e = family.entry(device::cpu, shape);
      e.run = make_cpu_sort<Impl, shape>(name);
      add_sort(std::move(e));
    }
  });
}

}  // namespace onepass::registry
