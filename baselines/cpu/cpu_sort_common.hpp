// baselines/cpu/cpu_sort_common.hpp — registers a CPU sort for the three shapes of the
// Onesweep experiments (registry::sort_shape) from one generic implementation.
// Internal to baselines/cpu; not part of the public library interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "onepass/error.hpp"
#include "onepass/registry.hpp"

namespace onepass::baselines {

/// Registers Impl (a struct with `template <class Key, class Value> static void run(const Key*
/// keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n, const
/// registry::sort_params&)`, values nullptr for keys-only) under `name` for keys_u32,
/// pairs_u32_u32 and keys_u64.
template <class Impl>
void register_cpu_sort_all_shapes(const std::string& name, const std::string& label, const std::string& description) {
  using registry::sort_shape;
  registry::add_sort(registry::sort_entry{
      name, registry::device::cpu, sort_shape::keys_u32, label, description,
      [](const void* ki, void* ko, const void*, void*, std::size_t n, const registry::sort_params& p) {
        Impl::template run<std::uint32_t, std::uint32_t>(static_cast<const std::uint32_t*>(ki),
                                                         static_cast<std::uint32_t*>(ko), nullptr, nullptr, n, p);
      },
      {}});
  registry::add_sort(registry::sort_entry{
      name, registry::device::cpu, sort_shape::pairs_u32_u32, label, description,
      [name](const void* ki, void* ko, const void* vi, void* vo, std::size_t n, const registry::sort_params& p) {
        // A pairs call with null values would otherwise sort the keys only: refuse it.
        const std::string fn = name + " (cpu, pairs_u32_u32)";
        require(n == 0 || vi != nullptr, fn.c_str(), "values_in", "must not be null when n > 0 (key-value sort)");
        require(n == 0 || vo != nullptr, fn.c_str(), "values_out", "must not be null when n > 0 (key-value sort)");
        Impl::template run<std::uint32_t, std::uint32_t>(
            static_cast<const std::uint32_t*>(ki), static_cast<std::uint32_t*>(ko),
            static_cast<const std::uint32_t*>(vi), static_cast<std::uint32_t*>(vo), n, p);
      },
      {}});
  registry::add_sort(registry::sort_entry{
      name, registry::device::cpu, sort_shape::keys_u64, label, description,
      [](const void* ki, void* ko, const void*, void*, std::size_t n, const registry::sort_params& p) {
        Impl::template run<std::uint64_t, std::uint32_t>(static_cast<const std::uint64_t*>(ki),
                                                         static_cast<std::uint64_t*>(ko), nullptr, nullptr, n, p);
      },
      {}});
}

}  // namespace onepass::baselines
