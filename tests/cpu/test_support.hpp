// tests/cpu/test_support.hpp — small helpers CPU tests share: the bytes of two outputs
// compared, and the message a call throws (the naming-convention tests of issue 31 compare
// each deprecated alias with its new name by both; test_walking checks argument errors).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "onepass/error.hpp"

namespace onepass::testing {

/// True when a and b hold the same number of elements with the same bytes (NaN payloads and
/// the sign of zero included).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// The what() of the onepass::error that call() throws, or "" when it throws none.
template <class F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const onepass::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace onepass::testing
