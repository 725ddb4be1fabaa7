// onepass/error.hpp — the library's exception types and argument checks.
#pragma once

#include <stdexcept>
#include <string>

namespace onepass {

/// Thrown for bad input: the message names the argument and the accepted range.
class error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Thrown when the runtime (CUDA, allocation, I/O) fails for a reason that is not
/// the caller's argument.
class runtime_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws onepass::error("<function>: <argument> <requirement>") when `ok` is false.
inline void require(bool ok, const char* function, const char* argument, const std::string& requirement) {
  if (!ok) throw error(std::string(function) + ": " + argument + " " + requirement);
}

/// The same for a fixed requirement (a string literal): no std::string is built unless
/// the check fails, so a check in a loop or a hot path costs one comparison.
inline void require(bool ok, const char* function, const char* argument, const char* requirement) {
  if (!ok) throw error(std::string(function) + ": " + argument + " " + requirement);
}

}  // namespace onepass
