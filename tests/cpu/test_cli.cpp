// The `onepass` command-line tool (cli/onepass_main.cpp), run as a process:
// list format, permutations equal to the library call for seeds S + k, shuf keeps
// lines and is deterministic per seed, and every bad argument gives exactly one
// line on stderr, nothing on stdout and a non-zero exit status.
//
// Needs <build>/bin/onepass: the test target depends on onepass_cli in CMake.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "onepass/harness/registry.hpp"
#include "onepass/shuffle/cpu_shuffle.hpp"

namespace {

namespace fs = std::filesystem;
namespace reg = onepass::registry;

using onepass::testing::outcome;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string::size_type start = 0, pos;
  while ((pos = text.find('\n', start)) != std::string::npos) {
    lines.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

std::vector<std::uint64_t> parse_numbers(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::uint64_t> v;
  std::uint64_t x;
  while (in >> x) v.push_back(x);
  return v;
}

std::vector<std::uint64_t> iota_vec(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  std::iota(v.begin(), v.end(), std::uint64_t{0});
  return v;
}

class CliTest : public onepass::testing::cli_runner {};

TEST_F(CliTest, ListPrintsEveryRegisteredAlgorithmAsNameFamilyDeviceDetails) {
  const outcome r = run("list");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = split_lines(r.out);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "variable_philox shuffle cpu deterministic"), lines.end()) << r.out;
  EXPECT_NE(std::find(lines.begin(), lines.end(), "lcg shuffle cpu deterministic"), lines.end()) << r.out;
  // Shuffles first, one line per registry entry in registry order, four single-space fields;
  // the ones whose output depends on thread timing are marked.
  const auto entries = reg::shuffles();
  ASSERT_GE(lines.size(), entries.size()) << r.out;
  for (std::size_t i = 0; i < entries.size(); ++i)
    EXPECT_EQ(lines[i], entries[i].name + " shuffle " + reg::to_string(entries[i].where) +
                            (entries[i].deterministic ? " deterministic" : " nondeterministic"));
  // Then the sorts: one line per (name, device), its registered shapes comma-separated.
  std::vector<std::string> expected;
  for (const auto& e : reg::sorts()) {
    const std::string head = e.name + " sort " + reg::to_string(e.where) + " ";
    auto it = std::find_if(expected.begin(), expected.end(), [&](const std::string& l) { return l.rfind(head, 0) == 0; });
    if (it == expected.end()) {
      expected.push_back(head + reg::to_string(e.shape));
    } else {
      *it += std::string(",") + reg::to_string(e.shape);
    }
  }
  ASSERT_FALSE(expected.empty());  // the CPU sorts are always registered
  // Then the segmented shuffles (GPU builds register them), one line each.
  const auto segmented = reg::segmented_shuffles();
  // Then the Gaussian generators (GPU builds register them), DETAILS their output types.
  const auto gaussians = reg::gaussian_generators();
  ASSERT_EQ(lines.size(), entries.size() + expected.size() + segmented.size() + gaussians.size()) << r.out;
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(lines[entries.size() + i], expected[i]);
  for (std::size_t i = 0; i < segmented.size(); ++i)
    EXPECT_EQ(lines[entries.size() + expected.size() + i],
              segmented[i].name + " segmented " + reg::to_string(segmented[i].where) +
                  (segmented[i].library_definition ? " library-definition" : " per-segment-permutation"));
  const std::size_t first_gaussian = entries.size() + expected.size() + segmented.size();
  for (std::size_t i = 0; i < gaussians.size(); ++i) {
    std::string dtypes;
    for (auto d : gaussians[i].dtypes) dtypes += (dtypes.empty() ? "" : ",") + std::string(reg::to_string(d));
    EXPECT_EQ(lines[first_gaussian + i],
              gaussians[i].name + " gaussian " + reg::to_string(gaussians[i].where) + " " + dtypes);
  }
#ifdef ONEPASS_HAVE_CUDA_SOURCES
  // A CUDA build lists ours (both forms) and cuRAND's host API, doubles and floats.
  for (const char* name : {"ours_memory_3", "ours_memory_4", "curand_host_philox"})
    EXPECT_NE(std::find(lines.begin(), lines.end(), std::string(name) + " gaussian gpu f64,f32"), lines.end())
        << name << "\n" << r.out;
#endif
}

TEST_F(CliTest, PermutationEqualsLibraryForSeedsSPlusK) {
  const std::size_t n = 1000;
  const std::uint64_t seed = 42;
  const auto in = iota_vec(n);
  for (unsigned rounds : {24u, 7u}) {
    const outcome r = run("permutation --algorithm variable_philox --n 1000 --seed 42 --samples 3 --rounds " +
                          std::to_string(rounds));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    ASSERT_FALSE(r.out.empty());
    EXPECT_EQ(r.out.back(), '\n');
    const auto lines = split_lines(r.out);
    ASSERT_EQ(lines.size(), 3u);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const auto perm = parse_numbers(lines[k]);
      auto sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, in) << "sample " << k << " is not a permutation of 0..n-1";
      std::vector<std::uint64_t> expected(n);
      onepass::shuffle::cpu::variable_philox_shuffle(in.data(), expected.data(), n, seed + k, rounds);
      EXPECT_EQ(perm, expected) << "sample " << k << ", rounds " << rounds;
    }
    EXPECT_NE(lines[0], lines[1]);
  }
}

TEST_F(CliTest, PermutationDefaultsAndOtherAlgorithms) {
  // Defaults: --samples 1, --rounds 24, --algorithm variable_philox, --seed 0.
  const std::size_t n = 37;
  const auto in = iota_vec(n);
  std::vector<std::uint64_t> expected(n);
  onepass::shuffle::cpu::variable_philox_shuffle(in.data(), expected.data(), n, 0, 24);
  outcome r = run("permutation --n 37");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(split_lines(r.out).size(), 1u);
  EXPECT_EQ(parse_numbers(r.out), expected);

  onepass::shuffle::cpu::lcg_shuffle(in.data(), expected.data(), n, 9);
  r = run("permutation --algorithm lcg --n 37 --seed 9");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_numbers(r.out), expected);

  // Every registered cpu permutation runs through the tool and gives permutations.
  for (const auto& e : reg::shuffles()) {
    if (e.where != reg::device::cpu || !e.permutes) continue;
    r = run("permutation --algorithm " + e.name + " --n 300 --seed 5 --samples 2");
    ASSERT_EQ(r.status, 0) << e.name << ": " << r.err;
    const auto lines = split_lines(r.out);
    ASSERT_EQ(lines.size(), 2u) << e.name;
    for (const auto& line : lines) {
      auto perm = parse_numbers(line);
      std::sort(perm.begin(), perm.end());
      EXPECT_EQ(perm, iota_vec(300)) << e.name;
    }
  }

  // n = 0 prints one empty line per sample; n = 1 prints "0".
  r = run("permutation --n 0 --samples 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "\n\n");
  r = run("permutation --n 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0\n");
}

TEST_F(CliTest, ShufKeepsLinesIsDeterministicPerSeedAndReadsStdin) {
  // Duplicates, an empty line, a '\r' kept before '\n', spaces, and no final newline.
  std::vector<std::string> lines;
  for (int i = 0; i < 60; ++i) lines.push_back("line " + std::to_string(i % 45));
  lines.push_back("");
  lines.push_back("carriage\r");
  lines.push_back("  spaced  out ");
  lines.push_back("last without newline");
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) text += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  const fs::path file = write_file("input.txt", text);

  const outcome a = run("shuf '" + file.string() + "' --seed 11");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.err, "");
  ASSERT_EQ(a.out.back(), '\n');  // the unterminated last line is printed with one
  const auto shuffled = split_lines(a.out);
  ASSERT_EQ(shuffled.size(), lines.size());
  auto sorted_in = lines, sorted_out = shuffled;
  std::sort(sorted_in.begin(), sorted_in.end());
  std::sort(sorted_out.begin(), sorted_out.end());
  EXPECT_EQ(sorted_out, sorted_in) << "multiset of lines changed";
  EXPECT_NE(shuffled, lines) << "not shuffled";

  // Line j of the output is input line perm[j], perm the library's shuffle of the indices.
  const auto in = iota_vec(lines.size());
  std::vector<std::uint64_t> perm(lines.size());
  onepass::shuffle::cpu::variable_philox_shuffle(in.data(), perm.data(), lines.size(), 11, 24);
  for (std::size_t j = 0; j < lines.size(); ++j) EXPECT_EQ(shuffled[j], lines[perm[j]]) << j;

  const outcome again = run("shuf '" + file.string() + "' --seed 11");
  EXPECT_EQ(again.out, a.out) << "same seed, different output";
  const outcome other = run("shuf '" + file.string() + "' --seed 12");
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_NE(other.out, a.out) << "seeds 11 and 12 gave the same order";

  const outcome from_stdin = run("shuf --seed 11", file);
  ASSERT_EQ(from_stdin.status, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, a.out);
  const outcome dash = run("shuf - --seed 11", file);
  ASSERT_EQ(dash.status, 0) << dash.err;
  EXPECT_EQ(dash.out, a.out);

  const outcome with_lcg = run("shuf '" + file.string() + "' --seed 11 --algorithm lcg");
  ASSERT_EQ(with_lcg.status, 0) << with_lcg.err;
  auto sorted_lcg = split_lines(with_lcg.out);
  std::sort(sorted_lcg.begin(), sorted_lcg.end());
  EXPECT_EQ(sorted_lcg, sorted_in);

  const outcome empty = run("shuf --seed 1", write_file("empty.txt", ""));
  ASSERT_EQ(empty.status, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
}

// --random-source=FILE: the seed is FILE's first 8 bytes, little-endian (the bytes after them
// do not count); FILE must hold ceil(log2(N) / 8) bytes, at most 8, for N possible outputs,
// else "'FILE': end of file" and status 1, as GNU shuf.
TEST_F(CliTest, ShufRandomSourceIsSeedOfFirst8BytesAndShortFileIsEndOfFile) {
  std::string lines;
  for (int i = 1; i <= 100; ++i) lines += std::to_string(i) + "\n";
  const std::string input = "'" + write_file("hundred.txt", lines).string() + "'";
  // 0x2a = 42; the trailing bytes are ignored.
  const fs::path key42 = write_file("key42", std::string("\x2a\0\0\0\0\0\0\0\xff\x01", 10));
  const outcome by_file = run("shuf --random-source='" + key42.string() + "' " + input);
  const outcome by_seed = run("shuf --seed 42 " + input);
  ASSERT_EQ(by_file.status, 0) << by_file.err;
  ASSERT_EQ(by_seed.status, 0) << by_seed.err;
  EXPECT_EQ(by_file.out, by_seed.out);
  // -n 5: the same seed, so the first 5 lines of the whole order.
  const outcome head = run("shuf -n 5 --random-source='" + key42.string() + "' " + input);
  ASSERT_EQ(head.status, 0) << head.err;
  const auto all = split_lines(by_seed.out);
  EXPECT_EQ(split_lines(head.out), std::vector<std::string>(all.begin(), all.begin() + 5));

  // Needed bytes: 2 lines (2 orders) 1; -n 1 of 100 (100 outputs) 1; -n 2 of 100 (9900) 2;
  // 10 lines (10! < 2^24) 3; 20 lines (2^56 < 20! < 2^64) 8; -r -n 8 of 2 (2^8) 1, -n 9 2.
  const fs::path one_byte = write_file("one_byte", "a");
  const fs::path three_bytes = write_file("three_bytes", "abc");
  const fs::path seven_bytes = write_file("seven_bytes", "abcdefg");
  const std::string two = "'" + write_file("two.txt", "1\n2\n").string() + "'";
  std::string ten_text, twenty_text;
  for (int i = 1; i <= 20; ++i) (i <= 10 ? ten_text : twenty_text) += std::to_string(i) + "\n";
  const std::string ten = "'" + write_file("ten.txt", ten_text).string() + "'";
  const std::string twenty = "'" + write_file("twenty.txt", ten_text + twenty_text).string() + "'";
  struct probe {
    fs::path key;
    std::string args;
    bool enough;
  };
  const std::vector<probe> probes = {
      {one_byte, two, true},           {one_byte, "-n 1 " + input, true},  {one_byte, "-n 2 " + input, false},
      {one_byte, ten, false},          {three_bytes, ten, true},           {three_bytes, twenty, false},
      {seven_bytes, twenty, false},    {one_byte, "-r -n 8 " + two, true}, {one_byte, "-r -n 9 " + two, false},
      {seven_bytes, "-r " + two, false},
  };
  for (const probe& p : probes) {
    const outcome r = run("shuf --random-source='" + p.key.string() + "' " + p.args);
    if (p.enough) {
      EXPECT_EQ(r.status, 0) << p.key << " " << p.args << ": " << r.err;
    } else {
      EXPECT_EQ(r.status, 1) << p.key << " " << p.args;
      EXPECT_EQ(r.out, "") << p.key << " " << p.args;
      EXPECT_NE(r.err.find("'" + p.key.string() + "': end of file"), std::string::npos) << r.err;
    }
  }
}

TEST_F(CliTest, BadArgumentsGiveOneLineOnStderrAndNothingOnStdout) {
  const fs::path missing = dir_ / "does_not_exist.txt";
  // {arguments, words the message must contain: the argument and, where numeric, its range}
  std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"permutation --n 4294967297", {"--n", "[0, 2^32]"}},
      {"permutation --n -1", {"--n", "[0, 2^32]"}},
      {"permutation --n 12x", {"--n", "[0, 2^32]"}},
      {"permutation", {"--n"}},
      {"permutation --n 5 --algorithm no_such_algorithm", {"--algorithm", "variable_philox"}},
      {"permutation --n 5 --rounds 0", {"--rounds", "[1, 64]"}},
      {"permutation --n 5 --rounds 65", {"--rounds", "[1, 64]"}},
      {"permutation --n 5 --samples 0", {"--samples", "[1, 2^32]"}},
      {"permutation --n 5 --seed 18446744073709551616", {"--seed", "[0, 2^64-1]"}},
      {"permutation --n 5 --unknown-flag", {"--unknown-flag"}},
      {"shuf '" + missing.string() + "' --seed 1", {missing.string()}},
      {"shuf '" + dir_.string() + "' --seed 1", {dir_.string()}},
      {"shuf --seed 1 --algorithm no_such_algorithm", {"--algorithm", "variable_philox"}},
      {"shuf --seed 1 --rounds 99", {"--rounds", "[1, 64]"}},
      {"no_such_subcommand", {"no_such_subcommand"}},
      {"", {"subcommand"}},
  };
  // Registered names with no CPU permutation under them (the random gather, GPU-only
  // entries); a GPU entry that shares its name with a CPU twin selects the twin.
  auto is_cpu_permutation = [](const std::string& name) {
    for (const auto& e : reg::shuffles())
      if (e.name == name && e.where == reg::device::cpu && e.permutes) return true;
    return false;
  };
  for (const auto& e : reg::shuffles())
    if (!is_cpu_permutation(e.name)) {
      cases.push_back({"permutation --n 5 --algorithm " + e.name, {"--algorithm", e.name}});
      cases.push_back({"shuf --algorithm " + e.name, {"--algorithm", e.name}});
    }
  for (const auto& [args, words] : cases) {
    const outcome r = run(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(r.out, "") << args;
    const auto err_lines = split_lines(r.err);
    ASSERT_EQ(err_lines.size(), 1u) << args << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.back(), '\n') << args;
    EXPECT_EQ(err_lines[0].rfind("onepass: ", 0), 0u) << args << ": " << err_lines[0];
    for (const auto& word : words)
      EXPECT_NE(err_lines[0].find(word), std::string::npos) << args << ": '" << word << "' missing in " << err_lines[0];
  }
}

TEST_F(CliTest, HelpGoesToStdoutWithStatusZero) {
  const outcome r = run("permutation --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--samples"), std::string::npos) << r.out;
}

}  // namespace
