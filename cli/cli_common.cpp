// cli/cli_common.cpp — see cli_common.hpp.
#include "cli_common.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace onepass::cli {

namespace reg = onepass::registry;

std::uint64_t parse_integer(const std::string& text, const char* argument, std::uint64_t lo, std::uint64_t hi,
                            const std::string& range) {
  std::uint64_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const bool digits_only =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const auto result = std::from_chars(first, last, value);
  if (!digits_only || result.ec != std::errc() || result.ptr != last || value < lo || value > hi)
    throw usage_error{std::string(argument) + " must be an integer in " + range + ", got '" + text + "'"};
  return value;
}

std::string runnable_names() {
  std::string names;
  for (const auto& e : reg::shuffles())
    if (e.where == reg::device::cpu && e.permutes) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

reg::shuffle_entry find_runnable(const std::string& name) {
  const std::string allowed = "; allowed: " + runnable_names();
  // A GPU entry may share its name with a CPU twin: the CPU twin is the one we run.
  for (const auto& e : reg::shuffles())
    if (e.name == name && e.where == reg::device::cpu && e.permutes) return e;
  for (const auto& e : reg::shuffles()) {
    if (e.name != name) continue;
    if (e.where != reg::device::cpu)
      throw usage_error{"--algorithm '" + name + "' runs on the " + reg::to_string(e.where) +
                        ", this tool runs cpu algorithms" + allowed};
    throw usage_error{"--algorithm '" + name + "' does not produce a permutation" + allowed};
  }
  throw usage_error{"--algorithm '" + name + "' is not a registered shuffle" + allowed};
}

}  // namespace onepass::cli
