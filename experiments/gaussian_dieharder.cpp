// experiments/gaussian_dieharder.cpp — dieharder on the warp Gaussian generator's output
// (article "Training a random Gaussian generator", section "Testing with PractRand", which
// maps the output through the normal CDF to uint32 and runs PractRand on it).
//
// For each selected dieharder test D, the bit-exact CPU emulation's output for seed S
// (onepass::gaussian::default_table(), 4-coefficient form, cpu::generate_normal's order),
// mapped by the article's erf mapping (onepass/gaussian/cdf_stream.hpp), is piped from
// its first word into `dieharder -g 200 -d D -p P` (raw uint32 from stdin), exactly as
//   onepass gaussian-stream --seed S | dieharder -g 200 -d D -p P
// would; dieharder stops reading when it has enough.
//
// --generator float_native tests the float-native generator instead: its bit-identical
// CPU twin (cpu::generate_normal with default_float_table(), mean 0, stddev 1, its
// output order), two outputs per word by normal_pair_to_uint32 (cdf_stream.hpp): the top
// 16 bits of Phi(x) of output 2k in bits 16..31 of word k, of output 2k + 1 in bits
// 0..15, Phi computed in double from the float. Not the 32-bit erf mapping of one float:
// a float's 24-bit significand fixes Phi(x) only to about 2^-25 (less with the
// generator's few-ulp rounding), so the low bits of such a word would be the float
// lattice, the same for every float generator, and not a property of this one; 16 bits
// per output stay clear of it (cdf_stream.hpp's file comment has the numbers).
//
// P (psamples: p-values per final Kolmogorov–Smirnov test) is reduced from dieharder's
// 100 so the default run takes about 30 s on 2 cores (either generator); tsamples are
// dieharder's defaults (its tests' asymptotics assume them).
//   smoke:   tests 0 8 15 100, P = 5 (a few seconds)
//   default: tests 0 1 2 3 4 8 9 10 11 12 13 15 16 100 101 102 203 204, P = 20
//   paper:   the default tests plus 17 206, P = 100 (dieharder's default)
// (dieharder's "Suspect"/"Do Not Use" tests 5 6 7 14 are left out, and 205, 207-209,
// which take minutes.)
//
// Output: <out>/gaussian_dieharder.csv (--generator double) or
// <out>/gaussian_dieharder_float_native.csv (--generator float_native), each with
//   test_id,test_name,ntup,tsamples,psamples,p_value,assessment,words_written,seconds
// one row per result line dieharder prints (some tests print several, one per ntup);
// words_written = uint32 words written before dieharder closed its input (an upper
// bound on what it read). When dieharder is not installed the CSV has its header and no
// rows and meta.json says "dieharder": "not installed" (make deps installs it). The
// meta.json (same name, .meta.json) notes the generator and the stream.
//
// Options (besides --scale, --out-dir, --seed): --generator double|float_native (default
// double), --tests 0,1,2 (dieharder -d numbers), --psamples P (1..1000). Exit status: 0
// (also when dieharder is missing), 1 when a dieharder run fails or prints no result, 2
// for bad arguments.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "harness.hpp"
#include "onepass/gaussian/cdf_stream.hpp"
#include "onepass/gaussian/float_lane.hpp"
#include "onepass/gaussian/table.hpp"

namespace {

namespace ex = onepass::experiments;
namespace g = onepass::gaussian;

const char* const experiment = "gaussian_dieharder";

/// The value of --generator in argv ("double" when it is absent or not readable): the
/// outputs' name depends on it and the harness takes the name before the full parse,
/// which checks the value (and everything else) afterwards.
std::string generator_in(int argc, char** argv) {
  CLI::App pre;
  pre.allow_extras();
  pre.set_help_flag();
  std::string generator = "double";
  pre.add_option("--generator", generator);
  try {
    pre.parse(argc, argv);
  } catch (const CLI::ParseError&) {
    return "double";
  }
  return generator;
}

struct result_line {
  std::string name, ntup, tsamples, psamples, p_value, assessment;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

/// Result lines of dieharder's default output: "name|ntup|tsamples|psamples|p-value|assessment".
std::vector<result_line> parse(const std::string& text) {
  std::vector<result_line> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string field;
    std::istringstream ls(line);
    while (std::getline(ls, field, '|')) f.push_back(trim(field));
    if (f.size() != 6 || f[0] == "test_name" || f[0].empty()) continue;
    char* end = nullptr;
    std::strtod(f[4].c_str(), &end);
    if (end == f[4].c_str()) continue;
    out.push_back({f[0], f[1], f[2], f[3], f[4], f[5]});
  }
  return out;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string read_file(const std::string& path) {
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
    std::fclose(f);
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dieharder on the CDF-mapped output of the warp Gaussian generator (bit-exact CPU emulation)"};
  const bool float_native = generator_in(argc, argv) == "float_native";
  ex::run r(float_native ? std::string(experiment) + "_float_native" : std::string(experiment), app);
  std::string generator = "double";
  std::vector<int> tests_option;
  int psamples_option = 0;
  app.add_option("--generator", generator,
                 "double: the double generator's CPU twin, erf-mapped to 32 bits per output; float_native: "
                 "the float-native one's, top 16 bits of Phi per output, two per word (default double)")
      ->check(CLI::IsMember({"double", "float_native"}));
  app.add_option("--tests", tests_option, "dieharder -d test numbers (default by scale)")->delimiter(',');
  app.add_option("--psamples", psamples_option, "dieharder -p, in [1, 1000] (default 5/20/100 by scale)")
      ->check(CLI::Range(1, 1000));
  r.parse(argc, argv);

  const std::vector<int> tests =
      !tests_option.empty()
          ? tests_option
          : r.pick(std::vector<int>{0, 8, 15, 100},
                   std::vector<int>{0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 15, 16, 100, 101, 102, 203, 204},
                   std::vector<int>{0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 15, 16, 17, 100, 101, 102, 203, 204, 206});
  for (int t : tests)
    if (t < 0 || t > 999) ex::usage_exit(r.name(), "--tests: " + std::to_string(t) + " is not a dieharder test number");
  const int psamples = psamples_option ? psamples_option : r.pick(5, 20, 100);

  r.open_csv({"test_id", "test_name", "ntup", "tsamples", "psamples", "p_value", "assessment", "words_written",
              "seconds"});
  const std::string version = ex::command_output("dieharder -h 2>&1 | grep -o 'dieharder version [0-9.]*' | head -1");
  if (version.empty()) {
    ex::progress(r.name(), "dieharder is not installed (make deps installs the Debian package 'dieharder'): "
                           "no test run, no rows written");
    r.note("dieharder", "not installed");
    r.finish();
    return 0;
  }
  r.note("dieharder", version);
  std::signal(SIGPIPE, SIG_IGN);  // dieharder closes its input when it has read enough

  const g::table& tab = g::default_table();
  const g::float_table& float_tab = g::default_float_table();
  // 2^18 words (1 MiB) per write: 2^13 rounds of the double generator (32 words each) or
  // 2^12 of the float-native one (128 outputs, 64 words each).
  constexpr std::size_t chunk_words = std::size_t{1} << 18;
  const std::uint64_t chunk_rounds = float_native ? chunk_words / 64 : chunk_words / 32;
  std::vector<std::uint32_t> words(chunk_words);
  std::vector<std::string> failed, lines_text;
  std::size_t rows = 0;
  char tmp_template[] = "/tmp/onepass_dieharder_XXXXXX";
  const int fd = mkstemp(tmp_template);
  if (fd < 0) {
    ex::progress(r.name(), "cannot create a temporary file");
    return 1;
  }
  close(fd);
  const std::string tmp = tmp_template;

  for (int t : tests) {
    const std::string command = "dieharder -g 200 -d " + std::to_string(t) + " -p " + std::to_string(psamples) +
                                " >'" + tmp + "' 2>&1";
    const double start = wall_seconds();
    FILE* pipe = popen(command.c_str(), "w");
    if (!pipe) {
      failed.push_back("test " + std::to_string(t) + ": cannot start dieharder");
      continue;
    }
    std::uint64_t written = 0;
    for (std::uint64_t round = 0;; round += chunk_rounds) {
      if (float_native)
        g::fill_float_cdf_words(words.data(), round, chunk_rounds, r.seed(), float_tab);
      else
        g::fill_cdf_words(words.data(), round, chunk_rounds, r.seed(), tab, g::form::four);
      const std::size_t put = std::fwrite(words.data(), sizeof(std::uint32_t), words.size(), pipe);
      written += put;
      if (put != words.size() || std::fflush(pipe) != 0) break;  // dieharder has what it needs
    }
    const int status = pclose(pipe);
    const double seconds = wall_seconds() - start;
    const auto results = parse(read_file(tmp));
    if (results.empty() || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failed.push_back("test " + std::to_string(t) + ": dieharder exit status " + std::to_string(status) + ", " +
                       std::to_string(results.size()) + " result lines");
      ex::progress(r.name(), "FAILED " + failed.back());
    }
    for (const auto& res : results) {
      r.row(t, res.name, res.ntup, res.tsamples, res.psamples, res.p_value, res.assessment, written, seconds);
      ++rows;
      ex::progress(r.name(), "-d " + std::to_string(t) + " " + res.name + " ntup " + res.ntup + ": p = " +
                                   res.p_value + " " + res.assessment);
    }
  }
  std::remove(tmp.c_str());
  std::vector<std::string> test_text;
  for (int t : tests) test_text.push_back(std::to_string(t));
  r.note("tests", ex::join(test_text));
  r.note("psamples", std::to_string(psamples));
  r.note("generator", generator);
  if (float_native)
    r.note("stream", "float-native generator's CPU twin (cpu::generate_normal, default_float_table, mean 0, "
                     "stddev 1) with seed " + std::to_string(r.seed()) +
                         "; word k = floor(Phi(x[2k]) 2^16) << 16 | floor(Phi(x[2k+1]) 2^16) (normal_pair_to_uint32),"
                         " from its first word for every test");
  else
    r.note("stream", "onepass gaussian-stream --seed " + std::to_string(r.seed()) +
                         " (default_table, 4 coefficients, erf mapping to uint32), from its first word for every test");
  r.note("rows", std::to_string(rows));
  if (!failed.empty()) r.note("failed", ex::join(failed, "; "));
  r.finish();
  return failed.empty() ? 0 : 1;
}
