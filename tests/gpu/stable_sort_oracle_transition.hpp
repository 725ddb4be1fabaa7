// tests/gpu/stable_sort_oracle_transition.hpp — transitional: pre-included (tests/CMakeLists.txt)
// into a GPU test that still calls the oracle as onepass::sort::stable_sort_oracle from
// onepass/sort/cpu_radix_sort.hpp, where it lived before it moved to the baselines
// (onepass_baselines/cpu/stable_sort_oracle.hpp, namespace onepass::baselines). CMake stops
// pre-including it as soon as the test includes the new header; then delete this file.
#pragma once

#include "onepass_baselines/cpu/stable_sort_oracle.hpp"

namespace onepass::sort {
using onepass::baselines::stable_sort_oracle;
}  // namespace onepass::sort
