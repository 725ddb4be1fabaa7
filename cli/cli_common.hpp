// cli/cli_common.hpp — what the `onepass` subcommands share: the two error kinds,
// integer parsing with messages that name the argument and its range, and the choice
// of a registered CPU shuffle (--algorithm).
#pragma once

#include <cstdint>
#include <string>

#include "onepass/harness/registry.hpp"

#ifndef ONEPASS_CLI_VERSION
#define ONEPASS_CLI_VERSION "unknown"
#endif

namespace onepass::cli {

/// A bad command-line argument (usage error): one line on stderr.
struct usage_error {
  std::string message;
};
/// A failure while running (I/O, memory, a broken algorithm): one line on stderr.
struct run_error {
  std::string message;
};

/// Rounds range of VariablePhilox (registry::shuffle_params::rounds).
inline constexpr std::uint64_t min_rounds = 1, max_rounds = 64;

/// Parses a decimal unsigned integer in [lo, hi]; `range` is the human-readable
/// range used in the message. Throws usage_error naming `argument` otherwise.
std::uint64_t parse_integer(const std::string& text, const char* argument, std::uint64_t lo, std::uint64_t hi,
                            const std::string& range);

/// Names of the algorithms the tool can run (cpu, permutes), comma-separated.
std::string runnable_names();

/// The registry entry for --algorithm, checked to be a cpu permutation; throws
/// usage_error naming --algorithm and the allowed names otherwise.
registry::shuffle_entry find_runnable(const std::string& name);

/// The `onepass shuf` / `onepass unshuf` command: argv[0] is the subcommand's name.
/// Returns the exit status (0, or 1 after one line "onepass: shuf: ..." on stderr).
int shuf_main(int argc, char** argv, bool inverse);

}  // namespace onepass::cli
