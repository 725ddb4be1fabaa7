// experiments/common/harness.hpp — what every experiment program shares: the
// command line (--scale, --out-dir, --seed), progress on stderr, a tidy CSV writer
// and the provenance file results/<name>.meta.json.
//
// Outputs are written to "<file>.partial" and renamed only by finish(), so an
// interrupted run never leaves a CSV that looks complete.
//
// Exit status of every experiment program (one convention; README, "Experiments"):
//   0 (exit_success)  done, outputs written;
//   1 (exit_failure)  a runtime failure: a check of an output failed, an algorithm
//                     failed, a file could not be written, or any error nothing else
//                     caught (run::parse installs a handler that prints it in one line
//                     instead of aborting);
//   2 (exit_usage)    bad arguments, named in one line on stderr: an unknown option or
//                     value, or an --out-dir that cannot hold the outputs (a file, under
//                     a file, not writable). Nothing is created then: the output
//                     directory is made only when the first file is written;
//   3 (exit_no_gpu)   a GPU program found no usable GPU (it says so and writes nothing).
#pragma once

#include <cstdint>
#include <fstream>
#include <list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace onepass::experiments {

/// How big a run is: smoke (seconds, for `make test`), standard (the default,
/// all of `make figures` in about 20 minutes on 2 cores), paper (the paper's sizes).
enum class scale { smoke, standard, paper };

/// Exit statuses of the experiment programs (see the header comment).
inline constexpr int exit_success = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_no_gpu = 3;

const char* to_string(scale s);

/// One CSV file of a run: written to "<path>.partial" and renamed into place by commit()
/// (run::finish commits the run's tables), so an interrupted run leaves none that looks complete.
class csv_table {
 public:
  /// Creates "<path>.partial" with the header (columns: not empty); throws runtime_failure when
  /// it cannot be written. The directory must exist.
  void open(std::string path, const std::vector<std::string>& columns);
  bool is_open() const { return out_.is_open(); }

  /// Appends one row; values are formatted with operator<< (doubles with 10
  /// significant digits) and quoted as RFC 4180 asks when they hold a comma, a
  /// double quote or a line break. The number of values must match the header.
  template <class... Values>
  void row(const Values&... values) {
    std::string line;
    std::size_t count = 0;
    ((line += (count++ ? "," : "") + field(values)), ...);
    write_line(line, count);
  }

  /// One CSV field: `value` formatted with operator<< (10 significant digits),
  /// in double quotes (inner quotes doubled) when it needs them.
  template <class T>
  static std::string field(const T& value) {
    std::ostringstream text;
    text.precision(10);
    text << value;
    const std::string s = text.str();
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  }

  /// Closes the file and renames "<path>.partial" to path (nothing when not open); throws
  /// runtime_failure when the file could not be written.
  void commit();

 private:
  void write_line(const std::string& line, std::size_t count);
  std::string path_;
  std::vector<std::string> columns_;
  std::ofstream out_;
};

/// The state of one experiment run.
class run {
 public:
  /// Adds --scale {smoke,default,paper} (default: $SCALE, else default),
  /// --out-dir DIR (default: $RESULTS_DIR, else "results") and --seed S (default 1)
  /// to `app`. Call parse() after adding the program's own options.
  run(std::string name, CLI::App& app);

  /// Parses argv (exits with CLI11's message and status exit_usage on bad arguments),
  /// checks that --out-dir can hold the outputs (else exit_usage, naming the path and
  /// the reason), installs the uncaught-error handler (exit_failure) and prints the
  /// start line to stderr. The directory itself is created by the first write.
  void parse(int argc, char** argv);

  const std::string& name() const { return name_; }
  scale size() const { return scale_; }
  std::uint64_t seed() const { return seed_; }
  const std::string& out_dir() const { return out_dir_; }

  /// Picks the value for the current scale.
  template <class T>
  T pick(T smoke, T standard, T paper) const {
    return scale_ == scale::smoke ? smoke : (scale_ == scale::paper ? paper : standard);
  }

  /// Opens results/<name>.csv (as .partial) with the given header columns.
  void open_csv(const std::vector<std::string>& columns);

  /// Opens a further table results/<name><suffix>.csv (as .partial; e.g. suffix "_phases"),
  /// renamed into place by finish() with the main one. The reference stays valid for the run.
  csv_table& open_extra_csv(const std::string& suffix, const std::vector<std::string>& columns);

  /// Appends one row to results/<name>.csv (csv_table::row; open_csv first).
  template <class... Values>
  void row(const Values&... values) {
    require_csv_open();
    csv_.row(values...);
  }

  /// One CSV field (csv_table::field).
  template <class T>
  static std::string csv_field(const T& value) {
    return csv_table::field(value);
  }

  /// Adds a key to the provenance file (value stored as a JSON string).
  void note(const std::string& key, const std::string& value) { notes_[key] = value; }

  /// Writes results/<name>.meta.json and renames the CSV into place.
  void finish();

 private:
  void require_csv_open() const;
  /// Creates out_dir (and its parents) if missing; throws runtime_failure naming it.
  void ensure_out_dir();

  std::string name_;
  CLI::App* app_ = nullptr;
  std::string scale_text_;
  scale scale_ = scale::standard;
  std::string out_dir_;
  std::uint64_t seed_ = 1;
  std::string command_;
  csv_table csv_;
  std::list<csv_table> extra_csvs_;
  std::map<std::string, std::string> notes_;
  double start_seconds_ = 0;
  double load_before_ = -1;  ///< the 1-minute load average when the run started (-1: unknown)
};

/// Prints "[name] message" to stderr (progress; results go to files).
void progress(const std::string& name, const std::string& message);

/// True when `registered` (e.g. registry::contains_shuffle(algorithm)); otherwise says on stderr
/// that `algorithm` is skipped, notes skipped_<algorithm> in r's meta.json and returns false.
/// For series over algorithms that a build may lack (the walking permutation without CUDA).
inline bool registered_or_skipped(run& r, const std::string& algorithm, bool registered) {
  if (registered) return true;
  progress(r.name(), "skipping " + algorithm + ": not registered in this build");
  r.note("skipped_" + algorithm, "not registered in this build");
  return false;
}

/// Provenance of this machine and build as JSON members (no braces): commit,
/// date, host, cpu_model, cores, compiler, ...
std::string machine_json();

/// items joined with sep between them ("" for none).
std::string join(const std::vector<std::string>& items, const char* sep = ",");

/// Prints "<name>: <message>" to stderr and exits with status exit_usage (bad arguments).
[[noreturn]] void usage_exit(const std::string& name, const std::string& message);

/// Standard output of a shell command, trailing newlines and spaces removed;
/// empty when the command cannot be started.
std::string command_output(const std::string& command);

/// Escapes a string for a JSON string literal (without the quotes).
std::string json_escape(const std::string& s);

}  // namespace onepass::experiments
