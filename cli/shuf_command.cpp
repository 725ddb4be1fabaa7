// cli/shuf_command.cpp — `onepass shuf` (a drop-in for GNU coreutils shuf) and
// `onepass unshuf` (its inverse).
//
// Options are parsed with getopt_long, as GNU's are: short options bundle (-rn5),
// long options take "=VALUE" or the next word and may be abbreviated (--head=3),
// options and operands mix unless POSIXLY_CORRECT is set, "--" ends the options.
//
// The order. Output line j is input line w_j, where w_0, w_1, ... are the images f(i)
// below L of i = 0, 1, 2, ... < 2^b for the bijection f of the algorithm and seed
// (VariablePhilox with keys from std::mt19937_64(seed), or the LCG; domain 2^b,
// b = max(4, ceil(log2 L))): the bijective shuffle of Mitchell et al., "Bandwidth-
// Optimal Random Shuffling for GPUs", Algorithm 1, so `shuf --seed S` prints exactly
// the lines the library's cpu::variable_philox_shuffle(.., S, rounds) orders. The
// images are evaluated in batches of 2^20 indices (oneTBB) and streamed to the
// output: no permutation array. -n K prints the first min(K, L) lines of that same
// order. unshuf scatters instead (line j of its input goes to position w_j), which
// needs one index per line (32-bit below 2^32 lines).
//
// -r draws line k as the k-th value of Lemire's unbiased bounded map of
// std::mt19937_64(seed) over [0, L); without -n it never stops (as GNU's).
//
// The seed: --seed S; or --random-source=FILE: FILE's first 8 bytes as a little-endian
// integer S (all of FILE when shorter), the same as --seed S (GNU instead reads random
// bytes from FILE as it needs them: the same FILE gives the same output here too, but not
// GNU's output); or, with neither, 64 bits from std::random_device (a fresh order every
// run). FILE is only read when there are at least 2 lines and something to print; it must
// then hold the bytes the output needs, ceil(log2(N) / 8) for N possible outputs, capped at
// 8 (random_source_bytes_needed), else "'FILE': end of file", as GNU, which reads about as
// many. A FILE of 8 bytes or more gives the same S for any -n, so -n K prints the first K
// lines of the whole order here too.
#include <getopt.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "onepass/bijection/lcg.hpp"
#include "onepass/bijection/variable_philox.hpp"
#include "onepass/bits.hpp"
#include "onepass/error.hpp"
#include "onepass/shuffle/cpu_images.hpp"
#include "shuf_io.hpp"

namespace onepass::cli {

namespace {

namespace reg = onepass::registry;
namespace bij = onepass::bijection;

// ---------------------------------------------------------------------------------
// Options

enum long_only : int { opt_random_source = 256, opt_help, opt_version, opt_rounds };

const struct option long_options[] = {
    {"echo", no_argument, nullptr, 'e'},
    {"input-range", required_argument, nullptr, 'i'},
    {"head-count", required_argument, nullptr, 'n'},
    {"output", required_argument, nullptr, 'o'},
    {"random-source", required_argument, nullptr, opt_random_source},
    {"repeat", no_argument, nullptr, 'r'},
    {"zero-terminated", no_argument, nullptr, 'z'},
    {"seed", required_argument, nullptr, 's'},
    {"rounds", required_argument, nullptr, opt_rounds},
    {"algorithm", required_argument, nullptr, 'a'},
    {"help", no_argument, nullptr, opt_help},
    {"version", no_argument, nullptr, opt_version},
    {nullptr, 0, nullptr, 0},
};

struct options {
  bool inverse = false;
  bool echo = false, repeat = false, zero = false;
  bool have_range = false;
  std::uint64_t range_lo = 0, range_count = 0;
  std::uint64_t head = UINT64_MAX;  // -n; UINT64_MAX = all (or forever with -r)
  bool have_head = false;
  bool have_output = false;
  std::string output;
  bool have_random_source = false;
  std::string random_source;
  bool have_seed = false;
  std::string seed_text;
  std::string rounds_text = "24";
  std::string algorithm = "variable_philox";
  std::vector<std::string> operands;
  bool help = false, version = false;
  char delim() const { return zero ? '\0' : '\n'; }
};

/// A usage error that GNU follows with "Try 'shuf --help'": one line here.
usage_error usage(const std::string& message, const char* command) {
  return usage_error{message + " (try 'onepass " + std::string(command) + " --help')"};
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Decimal digits to uint64; false on overflow.
bool to_u64(const std::string& s, std::uint64_t& value) {
  value = 0;
  for (char c : s) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - d) / 10) return false;
    value = value * 10 + d;
  }
  return true;
}

/// -n COUNT as GNU: digits; a count too large for 64 bits means "no limit".
/// How GNU's xstrtoumax reads a whole argument: leading white space, an optional '+', then
/// decimal digits (at least one) to the end; a '-' or anything else is invalid.
enum class gnu_number { ok, invalid, too_large };
gnu_number parse_gnu_unsigned(const std::string& text, std::uint64_t& value) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && text[i] == '+') ++i;
  const std::string digits = text.substr(i);
  if (!all_digits(digits)) return gnu_number::invalid;
  return to_u64(digits, value) ? gnu_number::ok : gnu_number::too_large;
}

/// -n COUNT as GNU: " 5" and "+5" are 5; a count above 2^64 - 1 means every line.
std::uint64_t parse_head_count(const std::string& text) {
  std::uint64_t v = 0;
  const gnu_number status = parse_gnu_unsigned(text, v);
  if (status == gnu_number::invalid) throw usage_error{"invalid line count: '" + text + "'"};
  return status == gnu_number::ok ? v : UINT64_MAX;
}

/// -i LO-HI as GNU: LO and HI read as parse_gnu_unsigned (" 1", "+1"), LO <= HI + 1 (LO = HI + 1
/// is the empty range), at most 2^64 - 1 numbers. A bad LO or HI is quoted alone, with "Value too
/// large for defined data type" when it overflows; a bad range is quoted whole.
void parse_range(const std::string& text, options& o) {
  const auto dash = text.find('-');
  const std::string lo_text = text.substr(0, dash);
  std::uint64_t lo = 0, hi = 0;
  const auto fail_part = [&](const std::string& part, gnu_number status) {
    throw usage_error{"invalid input range: '" + part + "'" +
                      (status == gnu_number::too_large ? ": Value too large for defined data type" : "")};
  };
  const gnu_number lo_status = parse_gnu_unsigned(lo_text, lo);
  if (lo_status != gnu_number::ok) fail_part(lo_text, lo_status);
  if (dash == std::string::npos) throw usage_error{"invalid input range: '" + text + "'"};
  const std::string hi_text = text.substr(dash + 1);
  const gnu_number hi_status = parse_gnu_unsigned(hi_text, hi);
  if (hi_status != gnu_number::ok) fail_part(hi_text, hi_status);
  if ((lo == 0 && hi == UINT64_MAX) || !(lo == 0 || lo - 1 <= hi))
    throw usage_error{"invalid input range: '" + text + "'"};
  o.have_range = true;
  o.range_lo = lo;
  o.range_count = hi - lo + 1;  // mod 2^64: 0 for LO = HI + 1
}

/// The message for a long option getopt_long refused ("--foo", "--r", "--repeat=1").
std::string long_option_problem(const std::string& arg) {
  const std::string body = arg.substr(2);
  const auto eq = body.find('=');
  const std::string name = body.substr(0, eq);
  std::vector<const option*> matches;
  for (const option* p = long_options; p->name; ++p) {
    if (name == p->name) {
      matches.assign(1, p);
      break;
    }
    if (std::strncmp(p->name, name.c_str(), name.size()) == 0) matches.push_back(p);
  }
  if (matches.empty()) return "unrecognized option '" + arg + "'";
  if (matches.size() > 1) {
    std::string s = "option '--" + name + "' is ambiguous; possibilities:";
    for (const option* p : matches) s += std::string(" '--") + p->name + "'";
    return s;
  }
  if (eq != std::string::npos && matches[0]->has_arg == no_argument)
    return std::string("option '--") + matches[0]->name + "' doesn't allow an argument";
  return std::string("option '--") + matches[0]->name + "' requires an argument";
}

options parse_options(int argc, char** argv, bool inverse) {
  const char* command = inverse ? "unshuf" : "shuf";
  options o;
  o.inverse = inverse;
  opterr = 0;
  optind = 0;  // glibc: reinitialise
  for (;;) {
    int index = -1;
    const int c = getopt_long(argc, argv, ":ei:n:o:rzs:a:", long_options, &index);
    if (c == -1) break;
    const std::string arg = optarg ? optarg : "";
    const std::string current = (optind >= 1 && optind <= argc) ? argv[optind - 1] : "";
    switch (c) {
      case 'e':
        o.echo = true;
        break;
      case 'i':
        if (o.have_range) throw usage_error{"multiple -i options specified"};
        parse_range(arg, o);
        break;
      case 'n':
        o.head = std::min(o.head, parse_head_count(arg));  // GNU: the smallest -n wins
        o.have_head = true;
        break;
      case 'o':
        if (o.have_output && o.output != arg) throw usage_error{"multiple output files specified"};
        o.have_output = true;
        o.output = arg;
        break;
      case opt_random_source:
        if (o.have_random_source && o.random_source != arg) throw usage_error{"multiple random sources specified"};
        o.have_random_source = true;
        o.random_source = arg;
        break;
      case 'r':
        o.repeat = true;
        break;
      case 'z':
        o.zero = true;
        break;
      case 's':
        o.have_seed = true;
        o.seed_text = arg;
        break;
      case opt_rounds:
        o.rounds_text = arg;
        break;
      case 'a':
        o.algorithm = arg;
        break;
      case opt_help:
        o.help = true;
        return o;
      case opt_version:
        o.version = true;
        return o;
      case ':':
        if (current.rfind("--", 0) == 0) throw usage(long_option_problem(current), command);
        throw usage(std::string("option requires an argument -- '") + static_cast<char>(optopt) + "'", command);
      default:  // '?'
        if (current.rfind("--", 0) == 0) throw usage(long_option_problem(current), command);
        throw usage(std::string("invalid option -- '") + static_cast<char>(optopt) + "'", command);
    }
  }
  for (int k = optind; k < argc; ++k) o.operands.emplace_back(argv[k]);

  if (o.echo && o.have_range) throw usage("cannot combine -e and -i options", command);
  if (o.have_range && !o.operands.empty()) throw usage("extra operand '" + o.operands[0] + "'", command);
  if (inverse && o.have_head)
    throw usage("-n/--head-count cannot be used: unshuf needs the whole output of shuf", command);
  if (inverse && o.repeat) throw usage("-r/--repeat cannot be used: a sample with repetition has no inverse", command);
  if (o.have_seed && o.have_random_source) throw usage("--seed and --random-source cannot be combined", command);
  if (inverse && !o.have_seed && !o.have_random_source)
    throw usage("--seed S (or --random-source=FILE) is required: the one 'onepass shuf' was given", command);
  return o;
}

void print_help(bool inverse) {
  const char* shuf_help = R"(Usage: onepass shuf [OPTION]... [FILE]...
  or:  onepass shuf -e [OPTION]... [ARG]...
  or:  onepass shuf -i LO-HI [OPTION]...
Write a random permutation of the input lines to standard output.

With no FILE, or when FILE is -, read standard input. Several FILEs are read one
after the other (each one's last line ends with a delimiter, added if missing).

Mandatory arguments to long options are mandatory for short options too.
  -e, --echo                treat each ARG as an input line
  -i, --input-range=LO-HI   treat each number LO through HI as an input line
  -n, --head-count=COUNT    output at most COUNT lines
  -o, --output=FILE         write result to FILE instead of standard output
                            (FILE may be an input: it is replaced only when
                            the whole result is written, through a temporary
                            .onepass-shuf-XXXXXX beside it, which a killed run
                            (SIGKILL) leaves behind; on a disk too full for
                            both, FILE is rewritten in place, as GNU does)
      --random-source=FILE  the seed is FILE's first 8 bytes, little-endian (the
                            same as --seed); FILE may be shorter when the output
                            has fewer than 2^64 possible outputs, not shorter than
                            ceil(log2(outputs) / 8) bytes ("end of file", as GNU)
  -r, --repeat              output lines can be repeated (forever without -n)
  -z, --zero-terminated     line delimiter is NUL, not newline
  -s, --seed=S              seed in [0, 2^64-1]: the same S and input give the
                            same output (default: a fresh seed every run)
      --rounds=R            VariablePhilox rounds in [1, 64] (default 24)
  -a, --algorithm=NAME      registered cpu shuffle (default variable_philox)
      --help        display this help and exit
      --version     output version information and exit

'onepass unshuf --seed S' restores the order that 'onepass shuf --seed S' changed.
)";
  const char* unshuf_help = R"(Usage: onepass unshuf --seed=S [OPTION]... [FILE]...
  or:  onepass unshuf --seed=S -e [OPTION]... [ARG]...
  or:  onepass unshuf --random-source=FILE [OPTION]... [FILE]...
Restore the original order of lines written by 'onepass shuf' with the same seed
(or --random-source), --rounds and --algorithm, without -n or -r:
  onepass shuf --seed 7 data.txt | onepass unshuf --seed 7   # prints data.txt

With no FILE, or when FILE is -, read standard input.

  -e, --echo                treat each ARG as an input line
  -i, --input-range=LO-HI   treat each number LO through HI as an input line
  -o, --output=FILE         write result to FILE instead of standard output
      --random-source=FILE  the seed is FILE's first 8 bytes, little-endian (the
                            same as --seed); FILE may be shorter when the output
                            has fewer than 2^64 possible outputs, not shorter than
                            ceil(log2(outputs) / 8) bytes ("end of file", as GNU)
  -z, --zero-terminated     line delimiter is NUL, not newline
  -s, --seed=S              the seed given to 'onepass shuf', in [0, 2^64-1]
      --rounds=R            VariablePhilox rounds in [1, 64] (default 24)
  -a, --algorithm=NAME      the registered cpu shuffle used (default variable_philox;
                            deterministic ones only)
      --help        display this help and exit
      --version     output version information and exit
)";
  std::fputs(inverse ? unshuf_help : shuf_help, stdout);
}

void print_version(bool inverse) {
  std::printf("onepass %s (onepass) %s\n", inverse ? "unshuf" : "shuf", ONEPASS_CLI_VERSION);
  std::fputs(
      "The options of GNU coreutils shuf over the bijective shuffle of Mitchell et al.,\n"
      "\"Bandwidth-Optimal Random Shuffling for GPUs\" (VariablePhilox, 24 rounds).\n",
      stdout);
}

// ---------------------------------------------------------------------------------
// Seeds

/// How many bytes of --random-source an output of k of m lines needs (m >= 2, k >= 1; k of
/// UINT64_MAX with -r and no -n): ceil(log2(N) / 8) for the number N of outputs possible
/// (m!/(m-k)! orders of k distinct lines; m^k with -r), at most 8, the bytes of the 64-bit seed.
/// GNU shuf reads about as many before "end of file" (its randint uses log2(N) bits, a few more
/// when it rejects a draw); 8 from the 21st line of a permutation on (21! > 2^64).
unsigned random_source_bytes_needed(std::uint64_t m, std::uint64_t k, bool repeat) {
  const unsigned __int128 all_seeds = static_cast<unsigned __int128>(1) << 64;
  unsigned __int128 outcomes = 1;
  for (std::uint64_t t = 0; t < k && outcomes < all_seeds; ++t) {
    const std::uint64_t factor = repeat ? m : m - t;  // >= 1; below 2^64, so no overflow
    if (factor <= 1) break;
    outcomes *= factor;
  }
  unsigned bytes = 0;
  for (unsigned __int128 reach = 1; reach < outcomes && bytes < 8; reach <<= 8) ++bytes;
  return bytes;
}

/// --random-source=FILE: the seed is FILE's first 8 bytes read as a little-endian integer (all
/// of FILE when it is shorter), so --random-source=FILE is --seed=S for that S. Reads at most 8
/// bytes; a FILE shorter than `needed` bytes (random_source_bytes_needed) is an error,
/// "'FILE': end of file", as GNU's. Throws run_error when FILE cannot be opened or read.
std::uint64_t seed_of_file(const std::string& path, unsigned needed) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw run_error{path + ": " + std::strerror(errno)};
  unsigned char bytes[8];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t r = ::read(fd, bytes + got, sizeof bytes - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      throw run_error{path + ": read error: " + std::strerror(e)};
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  if (got < needed) throw run_error{"'" + path + "': end of file"};
  std::uint64_t seed = 0;
  for (std::size_t t = 0; t < got; ++t) seed |= static_cast<std::uint64_t>(bytes[t]) << (8 * t);
  return seed;
}

/// The seed of 0 or 1 lines (no randomness is used): 0, but a --random-source that cannot be
/// opened is still an error, as in GNU shuf (which opens it before reading any input).
std::uint64_t seed_of_few_lines(const options& o) {
  if (o.have_random_source) {
    const int fd = ::open(o.random_source.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw run_error{o.random_source + ": " + std::strerror(errno)};
    ::close(fd);
  }
  return 0;
}

/// The seed for k of m >= 2 lines (k = UINT64_MAX: -r without -n): --seed, --random-source
/// (seed_of_file), or 64 bits of std::random_device.
std::uint64_t seed_of(const options& o, std::uint64_t m, std::uint64_t k) {
  if (o.have_seed) return parse_integer(o.seed_text, "--seed", 0, UINT64_MAX, "[0, 2^64-1]");
  if (o.have_random_source) return seed_of_file(o.random_source, random_source_bytes_needed(m, k, o.repeat));
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// ---------------------------------------------------------------------------------
// Lines: text lines (offsets 32- or 64-bit) or the numbers of -i.

template <class Off>
struct text_lines {
  const char* data;
  const Off* offset;
  char delim;
  void prefetch_index(std::uint64_t j) const { __builtin_prefetch(offset + j); }
  void prefetch_text(std::uint64_t j) const { __builtin_prefetch(data + offset[j]); }
  void put(output_file& out, std::uint64_t j) const { out.put(data + offset[j], offset[j + 1] - offset[j]); }
};

struct range_lines {
  std::uint64_t lo;
  char delim;
  void prefetch_index(std::uint64_t) const {}
  void prefetch_text(std::uint64_t) const {}
  void put(output_file& out, std::uint64_t j) const { out.put_number(lo + j, delim); }
};

/// Writes lines idx[0], ..., idx[count - 1]; prefetches the offsets, then the text,
/// of the lines a few places ahead (the reads are random in the input).
template <class Lines, class Index>
void put_lines(output_file& out, const Lines& lines, const Index* idx, std::size_t count) {
  constexpr std::size_t offsets_ahead = 16, text_ahead = 8;
  for (std::size_t t = 0; t < count; ++t) {
    if (t + offsets_ahead < count) lines.prefetch_index(idx[t + offsets_ahead]);
    if (t + text_ahead < count) lines.prefetch_text(idx[t + text_ahead]);
    lines.put(out, idx[t]);
  }
}

// ---------------------------------------------------------------------------------
// Orders

// The images f(i) < m in order: onepass::shuffle::cpu::for_each_image (shuffle/cpu_images.hpp),
// Algorithm 1's evaluate-flag-compact without the gather.
using onepass::shuffle::cpu::for_each_image;

enum class kind { variable_philox, lcg, registry };

struct plan {
  kind how = kind::variable_philox;
  reg::shuffle_entry entry;
  unsigned rounds = bij::default_rounds;
};

/// Calls f(bijection) with the bijection of the plan for m lines and `seed`.
template <class F>
void with_bijection(const plan& p, std::uint64_t m, std::uint64_t seed, F&& f) {
  if (p.how == kind::lcg) {
    f(bij::lcg::for_length(m, seed));
  } else {
    f(bij::variable_philox::for_length(m, seed, p.rounds));
  }
}

/// The registry's order for a baseline: order[j] = input line printed at j. Checked
/// to be a permutation (guards against a broken registered algorithm).
std::vector<std::uint64_t> registry_order(const plan& p, std::uint64_t m, std::uint64_t seed) {
  if (m > SIZE_MAX / 16) throw std::bad_alloc();
  std::vector<std::uint64_t> order(m);
  {
    std::vector<std::uint64_t> identity(m);
    for (std::uint64_t k = 0; k < m; ++k) identity[k] = k;
    reg::shuffle_params params;
    params.seed = seed;
    params.rounds = p.rounds;
    try {
      p.entry.run(identity.data(), order.data(), m, params);
    } catch (const std::invalid_argument& e) {
      throw usage_error{e.what()};
    }
  }
  std::vector<bool> seen(m, false);
  for (std::uint64_t v : order) {
    if (v >= m || seen[v])
      throw run_error{"algorithm '" + p.entry.name + "' did not return a permutation of 0.." + std::to_string(m) +
                      "-1 (seed " + std::to_string(seed) + ")"};
    seen[v] = true;
  }
  return order;
}

/// Lemire's unbiased map of a 64-bit draw to [0, range), range >= 1.
std::uint64_t bounded(std::mt19937_64& g, std::uint64_t range) {
  unsigned __int128 product = static_cast<unsigned __int128>(g()) * range;
  std::uint64_t low = static_cast<std::uint64_t>(product);
  if (low < range) {
    const std::uint64_t threshold = (0 - range) % range;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(g()) * range;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

/// shuf, unshuf and shuf -r over `lines` (m of them), writing to `out`.
template <class Lines>
void emit(const options& o, const plan& p, const Lines& lines, std::uint64_t m, std::uint64_t seed,
          output_file& out) {
  if (o.repeat) {
    std::mt19937_64 g(seed);
    constexpr std::size_t chunk = 4096;
    std::uint64_t idx[chunk];
    std::uint64_t left = o.head;  // UINT64_MAX without -n: forever, in practice
    while (!o.have_head || left > 0) {
      const std::size_t c = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, left));
      for (std::size_t t = 0; t < c; ++t) idx[t] = m == 1 ? 0 : bounded(g, m);
      put_lines(out, lines, idx, c);
      if (o.have_head) left -= c;
    }
    return;
  }
  const std::uint64_t k = std::min(o.head, m);
  if (!o.inverse) {
    if (p.how == kind::registry) {
      const std::vector<std::uint64_t> order = registry_order(p, m, seed);
      put_lines(out, lines, order.data(), static_cast<std::size_t>(k));
    } else {
      with_bijection(p, m, seed, [&](const auto& f) {
        for_each_image(f, m, k, [&](const std::uint64_t* w, std::size_t c) { put_lines(out, lines, w, c); });
      });
    }
    return;
  }
  // unshuf: shuf printed input line w_j at position j, so position w_j of the original
  // is line j of ours: source[w_j] = j, then print lines source[0], source[1], ...
  auto invert = [&](auto* source) {
    using Index = std::remove_pointer_t<decltype(source)>;
    if (p.how == kind::registry) {
      const std::vector<std::uint64_t> order = registry_order(p, m, seed);
      for (std::uint64_t j = 0; j < m; ++j) source[order[j]] = static_cast<Index>(j);
    } else {
      std::uint64_t j = 0;
      with_bijection(p, m, seed, [&](const auto& f) {
        for_each_image(f, m, m, [&](const std::uint64_t* w, std::size_t c) {
          for (std::size_t t = 0; t < c; ++t) source[w[t]] = static_cast<Index>(j++);
        });
      });
    }
    put_lines(out, lines, source, static_cast<std::size_t>(m));
  };
  if (m > SIZE_MAX / 8) throw std::bad_alloc();
  if (m <= UINT32_MAX) {
    std::unique_ptr<std::uint32_t[]> source(new std::uint32_t[m]);
    invert(source.get());
  } else {
    std::unique_ptr<std::uint64_t[]> source(new std::uint64_t[m]);
    invert(source.get());
  }
}

/// shuf -n K of files that can be read twice: the same lines as emit(), holding only
/// the K chosen ones (input_files, shuf_io.hpp).
void head_of_files(const options& o, const plan& p, const input_files& files, std::uint64_t m, std::uint64_t k) {
  const char delim = o.delim();
  const std::uint64_t seed = m >= 2 ? seed_of(o, m, k) : seed_of_few_lines(o);
  // chosen[j] = (input line printed at j, j); sorted by line, the lines to keep.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> chosen;
  chosen.reserve(static_cast<std::size_t>(k));
  with_bijection(p, m, seed, [&](const auto& f) {
    for_each_image(f, m, k, [&](const std::uint64_t* w, std::size_t c) {
      for (std::size_t t = 0; t < c; ++t) chosen.emplace_back(w[t], chosen.size());
    });
  });
  std::sort(chosen.begin(), chosen.end());
  std::vector<std::uint64_t> wanted(chosen.size()), rank(chosen.size());
  for (std::size_t r = 0; r < chosen.size(); ++r) {
    wanted[r] = chosen[r].first;
    rank[chosen[r].second] = r;  // output j is the rank-th kept line
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>>().swap(chosen);
  line_store store;
  files.extract(delim, wanted, store);
  store.finish(delim);
  std::vector<std::uint64_t>().swap(wanted);
  std::unique_ptr<output_file> out =
      o.have_output ? std::make_unique<output_file>(o.output) : std::make_unique<output_file>();
  if (store.wide()) {
    put_lines(*out, text_lines<std::uint64_t>{store.data(), store.offsets64(), delim}, rank.data(), rank.size());
  } else {
    put_lines(*out, text_lines<std::uint32_t>{store.data(), store.offsets32(), delim}, rank.data(), rank.size());
  }
  out->commit();
}

void run(const options& o) {
  const reg::shuffle_entry entry = find_runnable(o.algorithm);
  plan p;
  p.entry = entry;
  p.how = entry.name == "variable_philox" ? kind::variable_philox
          : entry.name == "lcg"           ? kind::lcg
                                          : kind::registry;
  p.rounds = static_cast<unsigned>(parse_integer(o.rounds_text, "--rounds", min_rounds, max_rounds, "[1, 64]"));
  if (o.inverse && p.how == kind::registry && !entry.deterministic)
    throw usage_error{"--algorithm '" + entry.name + "' is not deterministic: unshuf cannot invert it"};
  if (o.have_seed) parse_integer(o.seed_text, "--seed", 0, UINT64_MAX, "[0, 2^64-1]");  // checked before reading

  const char delim = o.delim();
  if (o.have_head && o.head == 0) {  // GNU: reads nothing, writes (or truncates) the output
    std::unique_ptr<output_file> out = o.have_output ? std::make_unique<output_file>(o.output)
                                                     : std::make_unique<output_file>();
    out->commit();
    return;
  }

  // -n K: keep only the K chosen lines when that saves memory (inputs that cannot be read
  // twice, such as a pipe, are first copied to an unlinked temporary file: input_files).
  line_store store;
  bool stored = false;
  if (o.have_head && !o.echo && !o.have_range && !o.repeat && !o.inverse && p.how != kind::registry) {
    input_files files(o.operands.empty() ? std::vector<std::string>{"-"} : o.operands);
    files.spill();
    if (files.rereadable()) {
      std::uint64_t bytes = 0;
      const std::uint64_t m = files.count_lines(delim, bytes);
      const std::uint64_t k = std::min(o.head, m);
      const double all = static_cast<double>(bytes) + 4.0 * static_cast<double>(m);
      const double kept = static_cast<double>(k) * (static_cast<double>(bytes) / std::max<double>(1, m) + 40);
      if (2 * kept < all) {
        head_of_files(o, p, files, m, k);
        return;
      }
      files.append_all(delim, store);  // held after all (K is most of the lines)
      stored = true;
    }
  }

  // Everything is read before the output is opened: -o may name an input (unless -n above
  // has stored it already).
  if (o.echo) {
    for (const auto& line : o.operands) store.append_line(line, delim);
  } else if (!o.have_range && !stored) {
    if (o.operands.empty()) {
      store.append_file("-", delim);
    } else {
      for (const auto& path : o.operands) store.append_file(path, delim);
    }
  }
  store.finish(delim);
  const std::uint64_t m = o.have_range ? o.range_count : store.size();
  if (o.repeat && m == 0) throw run_error{"no lines to repeat"};

  // The seed only matters (and --random-source is only read) for 2 lines or more; a
  // --random-source that cannot be opened is an error for any number. It is drawn before
  // the output is opened, so a bad --random-source leaves -o FILE as it was.
  const std::uint64_t drawn = o.repeat ? o.head : std::min(o.head, m);  // lines printed; UINT64_MAX: forever
  const std::uint64_t seed = m >= 2 ? seed_of(o, m, drawn) : seed_of_few_lines(o);

  std::unique_ptr<output_file> out =
      o.have_output ? std::make_unique<output_file>(o.output) : std::make_unique<output_file>();
  if (o.have_range) {
    emit(o, p, range_lines{o.range_lo, delim}, m, seed, *out);
  } else if (store.wide()) {
    emit(o, p, text_lines<std::uint64_t>{store.data(), store.offsets64(), delim}, m, seed, *out);
  } else {
    emit(o, p, text_lines<std::uint32_t>{store.data(), store.offsets32(), delim}, m, seed, *out);
  }
  out->commit();
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

int shuf_main(int argc, char** argv, bool inverse) {
  const char* command = inverse ? "unshuf" : "shuf";
  auto fail = [&](const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "onepass: %s: %s\n", command, one_line(message).c_str());
    return 1;  // GNU shuf: EXIT_FAILURE for usage errors and failures alike
  };
  try {
    const options o = parse_options(argc, argv, inverse);
    // --help and --version to a full device fail as GNU's do: "write error: <reason>", exit 1.
    const auto flush_stdout = [&] {
      errno = 0;
      if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return 0;
      return fail(std::string("write error") + (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    };
    if (o.help) {
      print_help(inverse);
      return flush_stdout();
    }
    if (o.version) {
      print_version(inverse);
      return flush_stdout();
    }
    run(o);
  } catch (const usage_error& e) {
    return fail(e.message);
  } catch (const run_error& e) {
    return fail(e.message);
  } catch (const std::bad_alloc&) {
    return fail("memory exhausted");
  } catch (const std::length_error&) {
    return fail("memory exhausted");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}

}  // namespace onepass::cli
