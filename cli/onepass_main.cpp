// cli/onepass_main.cpp — the `onepass` command-line tool (CLI11).
//
//   onepass list
//       One registered algorithm per line: "NAME FAMILY DEVICE", e.g.
//       "variable_philox shuffle cpu" (registry order: device, then name).
//
//   onepass permutation --algorithm NAME --n N [--seed S] [--rounds R] [--samples K]
//       Prints K permutations of 0..N-1, one per line, values separated by one space.
//       Sample k (k = 0..K-1) is the registered shuffle of the identity 0..N-1 with
//       params.seed = S + k (mod 2^64) and params.rounds = R. An empty permutation
//       (N = 0) prints an empty line.
//
//   onepass shuf [OPTION]... [FILE]...       (cli/shuf_command.cpp)
//       A drop-in for GNU coreutils shuf: -n, -e, -i LO-HI, -o FILE (may be an input),
//       -r, -z, --random-source=FILE, several FILEs, --help, --version; plus --seed S
//       (reproducible; default: a fresh seed per run), --rounds R, --algorithm NAME.
//       `shuf --seed S` orders the lines as shuffle::cpu::variable_philox_shuffle with seed S.
//
//   onepass unshuf --seed S [OPTION]... [FILE]...
//       The inverse: restores the order that `onepass shuf --seed S` (same --rounds,
//       --algorithm, no -n/-r) changed.
//
//   onepass gaussian-stream [--seed S] [--count N] [--form 3|4]
//       Writes the warp Gaussian generator's N(0,1) outputs (bit-exact CPU emulation,
//       onepass::gaussian::default_table(), output order of gaussian::cpu::generate_normal with
//       seed S) mapped to uniform 32-bit words by the article's erf mapping,
//       (uint32) ((1 + erf(x / sqrt 2)) * 2^31) (onepass/gaussian/cdf_stream.hpp), as raw
//       native-endian uint32 on stdout: 4 N bytes, or without --count until the reader
//       closes the pipe. For uniformity suites, e.g.
//       `onepass gaussian-stream --seed 1 | RNG_test stdin32` (PractRand) or
//       `onepass gaussian-stream --seed 1 | dieharder -g 200 -a`.
//       --seed in [0, 2^64-1] (default 0); --count in [0, 2^62]; --form 3 or 4 (default 4:
//       the 4-coefficient form).
//
// Allowed values of list, permutation and gaussian-stream (checked before anything
// is written to stdout):
//   --algorithm  a registered shuffle with device cpu that produces a permutation
//                (`permutes`): variable_philox, lcg and the permuting baselines; not
//                "gather" (a random gather, not a permutation) and not gpu entries.
//                Default: variable_philox.
//   --n          integer in [0, 2^32]; the tool holds 16 bytes per element in memory
//                (input and output) plus one bit for the permutation check, and 2^32
//                values are about 40 GiB of text.
//   --seed       integer in [0, 2^64 - 1], default 0.
//   --rounds     integer in [1, 64], default 24 (paper §5 recommendation); used by
//                algorithms with uses_rounds (VariablePhilox), ignored by the others.
//   --samples    integer in [1, 2^32], default 1.
//
// Errors: one line "onepass: <message naming the argument and allowed range>" on
// stderr, nothing on stdout, exit status 2 for bad arguments and 1 for failures
// while running (output error, an algorithm that returns a non-permutation).
// shuf and unshuf follow GNU shuf instead: "onepass: shuf: <GNU's message>" and exit
// status 1 for every error. `onepass --help` / `onepass SUBCOMMAND --help` print help
// on stdout and exit 0; `onepass --version` prints the version.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_common.hpp"
#include "onepass/gaussian/cdf_stream.hpp"
#include "onepass/gaussian/table.hpp"
#include "onepass/harness/registry.hpp"

namespace {

namespace reg = onepass::registry;

/// Largest permutation length `permutation` accepts (2^32).
constexpr std::uint64_t max_n = std::uint64_t{1} << 32;
/// Largest sample count `permutation` accepts (2^32).
constexpr std::uint64_t max_samples = std::uint64_t{1} << 32;

using onepass::cli::find_runnable;
using onepass::cli::max_rounds;
using onepass::cli::min_rounds;
using onepass::cli::parse_integer;
using onepass::cli::run_error;
using onepass::cli::usage_error;

/// Buffered writer to stdout (fwrite in 1 MiB blocks); failure is a run_error. What is
/// still buffered when it is destroyed without finish() (an error path) is dropped.
class output {
 public:
  output() { buffer_.reserve(capacity); }
  void put(const char* data, std::size_t size) {
    if (buffer_.size() + size > capacity) flush_buffer();
    if (size > capacity) {
      write(data, size);
    } else {
      buffer_.insert(buffer_.end(), data, data + size);
    }
  }
  void put(char c) {
    if (buffer_.size() + 1 > capacity) flush_buffer();
    buffer_.push_back(c);
  }
  void put_number(std::uint64_t v) {
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, v);
    put(digits, static_cast<std::size_t>(r.ptr - digits));
  }
  void finish() {
    flush_buffer();
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      throw run_error{std::string("cannot write to stdout: ") + std::strerror(errno)};
  }

 private:
  static constexpr std::size_t capacity = std::size_t{1} << 20;
  void write(const char* data, std::size_t size) {
    if (size && std::fwrite(data, 1, size, stdout) != size)
      throw run_error{std::string("cannot write to stdout: ") + std::strerror(errno)};
  }
  void flush_buffer() {
    write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  std::vector<char> buffer_;
};

/// Runs `entry` on the identity 0..n-1 into `out` and checks that the result is a
/// permutation of 0..n-1 (guards against a broken registered algorithm).
void shuffle_indices(const reg::shuffle_entry& entry, const std::vector<std::uint64_t>& identity,
                     std::vector<std::uint64_t>& out, const reg::shuffle_params& params) {
  const std::size_t n = identity.size();
  try {
    entry.run(identity.data(), out.data(), n, params);
  } catch (const std::invalid_argument& e) {
    throw usage_error{e.what()};
  }
  std::vector<bool> seen(n, false);
  for (std::uint64_t v : out) {
    if (v >= n || seen[v])
      throw run_error{"algorithm '" + entry.name + "' did not return a permutation of 0.." + std::to_string(n) +
                      "-1 (seed " + std::to_string(params.seed) + ")"};
    seen[v] = true;
  }
}

std::vector<std::uint64_t> identity_of(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  std::iota(v.begin(), v.end(), std::uint64_t{0});
  return v;
}

/// `onepass list`: one line per registered algorithm, NAME FAMILY DEVICE DETAILS (single
/// spaces): shuffles in registry order, DETAILS `deterministic` or `nondeterministic` (the
/// output depends on thread timing, e.g. dart throwing); then sorts, one line per (name,
/// device) in registry order, DETAILS the key/value shapes registered, comma-separated; then
/// segmented shuffles, DETAILS `library-definition` (segment s is the single shuffle with
/// segment_seed(seed, s)) or `per-segment-permutation` (only that each segment is permuted);
/// then Gaussian generators, DETAILS the output types it writes, comma-separated (f64, f32).
void list_command() {
  output out;
  auto put = [&](const std::string& line) { out.put(line.data(), line.size()); };
  for (const auto& e : reg::shuffles()) {
    put(e.name + " shuffle " + reg::to_string(e.where) + (e.deterministic ? " deterministic\n" : " nondeterministic\n"));
  }
  std::vector<std::pair<std::string, std::string>> order;  // (name, device) in first-seen order
  std::map<std::pair<std::string, std::string>, std::string> shapes;
  for (const auto& e : reg::sorts()) {
    const auto key = std::make_pair(e.name, std::string(reg::to_string(e.where)));
    auto& list = shapes[key];
    if (list.empty()) order.push_back(key);
    list += (list.empty() ? "" : ",") + std::string(reg::to_string(e.shape));
  }
  for (const auto& key : order) put(key.first + " sort " + key.second + " " + shapes[key] + "\n");
  for (const auto& e : reg::segmented_shuffles()) {
    put(e.name + " segmented " + reg::to_string(e.where) +
        (e.library_definition ? " library-definition\n" : " per-segment-permutation\n"));
  }
  for (const auto& e : reg::gaussian_generators()) {
    std::string dtypes;
    for (reg::gaussian_dtype d : e.dtypes) dtypes += (dtypes.empty() ? "" : ",") + std::string(reg::to_string(d));
    put(e.name + " gaussian " + reg::to_string(e.where) + " " + dtypes + "\n");
  }
  out.finish();
}

/// Options of `permutation` (as text, validated by hand so that
/// every error names the argument and its range in one line).
struct common_options {
  std::string algorithm = "variable_philox";
  std::string seed = "0";
  std::string rounds = "24";
};

reg::shuffle_params params_of(const common_options& o) {
  reg::shuffle_params p;
  p.seed = parse_integer(o.seed, "--seed", 0, UINT64_MAX, "[0, 2^64-1]");
  p.rounds = static_cast<unsigned>(parse_integer(o.rounds, "--rounds", min_rounds, max_rounds, "[1, 64]"));
  return p;
}

/// `onepass permutation`.
void permutation_command(const common_options& o, const std::string& n_text, const std::string& samples_text) {
  const reg::shuffle_entry entry = find_runnable(o.algorithm);
  const std::uint64_t n = parse_integer(n_text, "--n", 0, max_n, "[0, 2^32]");
  const std::uint64_t samples = parse_integer(samples_text, "--samples", 1, max_samples, "[1, 2^32]");
  const reg::shuffle_params base = params_of(o);

  std::vector<std::uint64_t> identity, perm;
  try {
    identity = identity_of(n);
    perm.assign(n, 0);
  } catch (const std::bad_alloc&) {
    throw run_error{"--n " + std::to_string(n) + " needs " + std::to_string(16 * n) + " bytes, out of memory"};
  }
  output out;
  for (std::uint64_t k = 0; k < samples; ++k) {
    reg::shuffle_params p = base;
    p.seed = base.seed + k;  // wraps mod 2^64
    shuffle_indices(entry, identity, perm, p);
    for (std::size_t i = 0; i < perm.size(); ++i) {
      if (i) out.put(' ');
      out.put_number(perm[i]);
    }
    out.put('\n');
  }
  out.finish();
}

/// `onepass gaussian-stream`: count_text empty = unlimited.
void gaussian_stream_command(const std::string& seed_text, const std::string& count_text, const std::string& form_text) {
  namespace g = onepass::gaussian;
  const std::uint64_t seed = parse_integer(seed_text, "--seed", 0, UINT64_MAX, "[0, 2^64-1]");
  const bool unlimited = count_text.empty();
  const std::uint64_t count =
      unlimited ? 0 : parse_integer(count_text, "--count", 0, std::uint64_t{1} << 62, "[0, 2^62]");
  const std::uint64_t form_number = parse_integer(form_text, "--form", 3, 4, "{3, 4}");
  const g::form f = form_number == 3 ? g::form::three : g::form::four;
  const g::table& tab = g::default_table();
  constexpr std::uint64_t chunk_rounds = std::uint64_t{1} << 14;  // 2^19 words, 2 MiB per chunk
  std::vector<std::uint32_t> words(32 * chunk_rounds);
  std::uint64_t written = 0;
  for (std::uint64_t round = 0; unlimited || written < count; round += chunk_rounds) {
    const std::uint64_t wanted = unlimited ? 32 * chunk_rounds : std::min(count - written, 32 * chunk_rounds);
    const std::uint64_t rounds = (wanted + 31) / 32;
    g::fill_cdf_words(words.data(), round, rounds, seed, tab, f);
    const std::size_t bytes = static_cast<std::size_t>(wanted) * sizeof(std::uint32_t);
    if (std::fwrite(words.data(), 1, bytes, stdout) != bytes)
      throw run_error{std::string("cannot write to stdout: ") + std::strerror(errno)};
    written += wanted;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw run_error{std::string("cannot write to stdout: ") + std::strerror(errno)};
}

/// One line: newlines in library/CLI11 messages become spaces.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

int fail(const std::string& message, int status) {
  std::fflush(stdout);
  std::fprintf(stderr, "onepass: %s\n", one_line(message).c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // shuf and unshuf parse their options as GNU shuf does (getopt_long), not with CLI11.
  if (argc >= 2 && (std::strcmp(argv[1], "shuf") == 0 || std::strcmp(argv[1], "unshuf") == 0))
    return onepass::cli::shuf_main(argc - 1, argv + 1, std::strcmp(argv[1], "unshuf") == 0);

  CLI::App app{"onepass: bandwidth-optimal random shuffles (Mitchell et al.) from the command line", "onepass"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("onepass ") + ONEPASS_CLI_VERSION);

  CLI::App* list = app.add_subcommand("list", "print the registered algorithms: NAME FAMILY DEVICE DETAILS");

  common_options perm_opts;
  std::string n_text, samples_text = "1";
  CLI::App* perm = app.add_subcommand("permutation", "print K permutations of 0..N-1, one per line");
  perm->add_option("--algorithm,-a", perm_opts.algorithm, "registered cpu shuffle (default variable_philox)");
  perm->add_option("--n,-n", n_text, "permutation length in [0, 2^32]")->required();
  perm->add_option("--seed,-s", perm_opts.seed, "seed in [0, 2^64-1] (default 0); sample k uses seed + k");
  perm->add_option("--rounds,-r", perm_opts.rounds, "VariablePhilox rounds in [1, 64] (default 24)");
  perm->add_option("--samples,-k", samples_text, "number of permutations in [1, 2^32] (default 1)");

  // Listed for `onepass --help` only: main() hands them to shuf_main() before CLI11.
  app.add_subcommand("shuf", "shuffle lines like GNU shuf (-n -e -i -o -r -z --random-source; onepass shuf --help)");
  app.add_subcommand("unshuf", "restore the order changed by 'onepass shuf --seed S' (onepass unshuf --help)");

  std::string gs_seed = "0", gs_count, gs_form = "4";
  CLI::App* gstream = app.add_subcommand(
      "gaussian-stream", "write the warp Gaussian generator's output, mapped to uint32 by the normal CDF, to stdout");
  gstream->add_option("--seed,-s", gs_seed, "seed in [0, 2^64-1] (default 0)");
  gstream->add_option("--count,-n", gs_count, "number of uint32 words in [0, 2^62] (default: until the pipe closes)");
  gstream->add_option("--form", gs_form, "3 or 4 output coefficients (default 4)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return fail(e.what(), 2);
  }

  try {
    if (list->parsed()) {
      list_command();
    } else if (perm->parsed()) {
      permutation_command(perm_opts, n_text, samples_text);
    } else if (gstream->parsed()) {
      gaussian_stream_command(gs_seed, gs_count, gs_form);
    } else {
      return fail("a subcommand is required: list, permutation, shuf, unshuf or gaussian-stream (see onepass --help)", 2);
    }
  } catch (const usage_error& e) {
    return fail(e.message, 2);
  } catch (const run_error& e) {
    return fail(e.message, 1);
  } catch (const std::bad_alloc&) {
    return fail("out of memory", 1);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
  return 0;
}
