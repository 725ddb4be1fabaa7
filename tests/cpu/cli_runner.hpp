// tests/cpu/cli_runner.hpp — a GoogleTest fixture that runs the built `onepass`
// command-line tool as a process in a scratch directory and captures its exit
// status, stdout and stderr. Shared by test_cli.cpp and test_gaussian_stream.cpp.
//
// Needs ONEPASS_BINARY_DIR (set by tests/CMakeLists.txt) and <build>/bin/onepass:
// the test targets that include it depend on onepass_cli in CMake.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace onepass::testing {

/// Outcome of one run of the tool.
struct outcome {
  int status = -1;  ///< exit status (WEXITSTATUS), or -1 when it did not exit normally
  std::string out;  ///< stdout (of the pipe's last command when a pipe is given)
  std::string err;  ///< stderr of the tool
};

/// The whole content of a file (binary).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Fixture: a fresh scratch directory per test, removed afterwards.
class cli_runner : public ::testing::Test {
 protected:
  const std::string binary = ONEPASS_BINARY_DIR "/bin/onepass";

  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(binary)) << binary << " is missing: build the onepass_cli target first";
    std::string pattern = (std::filesystem::temp_directory_path() / "onepass_cli_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  /// Runs `onepass ARGS` (ARGS is shell text) with stdin from `stdin_path`; with a
  /// non-empty `pipe` (shell text), the tool's stdout goes through it and `out` is
  /// the pipe's output.
  outcome run(const std::string& args, const std::filesystem::path& stdin_path = "/dev/null",
              const std::string& pipe = "") {
    const std::filesystem::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command = "'" + binary + "' " + args + " <'" + stdin_path.string() + "' 2>'" + err.string() +
                                "'" + (pipe.empty() ? "" : " | " + pipe) + " >'" + out.string() + "'";
    const int raw = std::system(command.c_str());
    outcome r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  /// Writes `content` to a file in the scratch directory and returns its path.
  std::filesystem::path write_file(const std::string& name, const std::string& content) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

  std::filesystem::path dir_;
};

}  // namespace onepass::testing
