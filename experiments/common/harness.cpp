#include "harness.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <thread>
#include <utility>

#include <tbb/info.h>

#include "onepass/error.hpp"

#ifndef ONEPASS_SOURCE_DIR
#define ONEPASS_SOURCE_DIR "."
#endif

namespace onepass::experiments {

namespace {

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

std::string env_or(const char* key, const std::string& fallback) {
  const char* v = std::getenv(key);
  return (v && *v) ? std::string(v) : fallback;
}

/// Why directory `dir` cannot receive the outputs, or "" when it can: it is a writable
/// directory, or it does not exist yet and its nearest existing ancestor is a writable
/// directory (then run::ensure_out_dir creates it when the first file is written).
std::string out_dir_problem(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path target = dir.empty() ? fs::path(".") : fs::path(dir);
  fs::path probe = target;
  for (;;) {
    std::error_code ec;
    const fs::file_status st = fs::status(probe, ec);
    if (fs::exists(st)) {
      const std::string what = probe == target ? std::string("it") : "'" + probe.string() + "'";
      if (!fs::is_directory(st)) return what + " exists and is not a directory";
      if (::access(probe.c_str(), W_OK | X_OK) != 0) return what + " is not writable (" + std::strerror(errno) + ")";
      return "";
    }
    const fs::path parent = probe.parent_path();
    if (parent.empty()) {
      probe = ".";
    } else if (parent == probe) {
      return "no part of it exists";
    } else {
      probe = parent;
    }
  }
}

/// The experiment's name, for the terminate handler.
std::string& program_name() {
  static std::string name = "experiment";
  return name;
}

/// Last resort for an exception nothing caught: one line naming the program and the
/// error, then exit status 1 (runtime failure) instead of std::terminate's abort.
[[noreturn]] void report_uncaught() {
  std::string what = "unknown error";
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
  }
  std::cerr << program_name() << ": error: " << what << std::endl;
  std::_Exit(1);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(pos + 2);
    }
  }
  return "unknown";
}

}  // namespace

const char* to_string(scale s) {
  switch (s) {
    case scale::smoke: return "smoke";
    case scale::paper: return "paper";
    default: return "default";
  }
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : sep) + item;
  return s;
}

void usage_exit(const std::string& name, const std::string& message) {
  std::cerr << name << ": " << message << "\n";
  std::exit(exit_usage);
}

std::string command_output(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string machine_json() {
  const std::string src = ONEPASS_SOURCE_DIR;
  // The commit: $ONEPASS_COMMIT when set (a copy of the tree without its own git
  // history, e.g. on a lent GPU machine), else git's HEAD, but only when the source
  // directory is itself the top of a checkout (not a copy nested in another one).
  const char* given = std::getenv("ONEPASS_COMMIT");
  const std::string top = command_output("cd '" + src + "' && git rev-parse --show-toplevel 2>/dev/null");
  const std::string here = command_output("cd '" + src + "' && pwd -P");
  const bool own_checkout = !top.empty() && top == here;
  std::string commit = given && *given ? std::string(given)
                       : own_checkout  ? command_output("git -C '" + src + "' rev-parse HEAD 2>/dev/null")
                                       : std::string();
  if (commit.empty()) commit = "unknown";
  const bool dirty =
      own_checkout && !command_output("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null").empty();
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  std::time_t t = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::ostringstream j;
  j << "  \"commit\": \"" << json_escape(commit) << "\",\n"
    << "  \"worktree_dirty\": " << (dirty ? "true" : "false") << ",\n"
    << "  \"date\": \"" << date << "\",\n"
    << "  \"host\": \"" << json_escape(host) << "\",\n"
    << "  \"cpu_model\": \"" << json_escape(cpu_model()) << "\",\n"
    << "  \"cores\": " << std::thread::hardware_concurrency() << ",\n"
    << "  \"tbb_concurrency\": " << tbb::info::default_concurrency() << ",\n"
#if defined(__clang__)
    << "  \"compiler\": \"clang " << json_escape(__clang_version__) << "\",\n"
#elif defined(__GNUC__)
    << "  \"compiler\": \"g++ " << json_escape(__VERSION__) << "\",\n"
#else
    << "  \"compiler\": \"unknown\",\n"
#endif
#ifdef ONEPASS_BUILD_FLAGS
    << "  \"cxx_flags\": \"" << json_escape(ONEPASS_BUILD_FLAGS) << "\",\n"
#endif
#ifdef NDEBUG
    << "  \"build\": \"release\"";
#else
    << "  \"build\": \"debug\"";
#endif
  return j.str();
}

/// The 1-minute load average (getloadavg), or -1 where the system does not give it.
static double load_average() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

void progress(const std::string& name, const std::string& message) {
  std::cerr << "[" << name << "] " << message << std::endl;
}

run::run(std::string name, CLI::App& app) : name_(std::move(name)), app_(&app) {
  scale_text_ = env_or("SCALE", "default");
  out_dir_ = env_or("RESULTS_DIR", "results");
  app.add_option("--scale", scale_text_, "smoke | default | paper (default: $SCALE or default)")
      ->check(CLI::IsMember({"smoke", "default", "paper"}));
  app.add_option("--out-dir", out_dir_,
                 "directory for <name>.csv and <name>.meta.json (default: $RESULTS_DIR or results)");
  app.add_option("--seed", seed_, "base seed; sample k uses seed + k");
}

void run::parse(int argc, char** argv) {
  program_name() = name_;
  std::set_terminate(report_uncaught);
  try {
    app_->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app_->exit(e);  // prints CLI11's message (or the help)
    std::exit(code == 0 ? exit_success : exit_usage);
  }
  // $SCALE is not seen by CLI11's check, so validate it here too.
  if (scale_text_ != "smoke" && scale_text_ != "default" && scale_text_ != "paper") {
    usage_exit(name_, "--scale/SCALE must be one of smoke, default, paper; got '" + scale_text_ + "'");
  }
  scale_ = scale_text_ == "smoke" ? scale::smoke : (scale_text_ == "paper" ? scale::paper : scale::standard);
  // The output directory is checked now and created only when the first file is written,
  // so that a run refused for its other arguments leaves nothing behind.
  const std::string problem = out_dir_problem(out_dir_);
  if (!problem.empty()) usage_exit(name_, "--out-dir '" + out_dir_ + "': " + problem);
  for (int i = 0; i < argc; ++i) command_ += (i ? " " : "") + std::string(argv[i]);
  start_seconds_ = now_seconds();
  load_before_ = load_average();
  progress(name_, std::string("scale ") + to_string(scale_) + ", seed " + std::to_string(seed_) + ", writing to " +
                      out_dir_);
}

void csv_table::open(std::string path, const std::vector<std::string>& columns) {
  require(!columns.empty(), "run::open_csv", "columns", "must not be empty");
  path_ = std::move(path);
  columns_ = columns;
  out_.open(path_ + ".partial", std::ios::trunc);
  if (!out_) throw runtime_failure("cannot write " + path_ + ".partial");
  for (std::size_t i = 0; i < columns.size(); ++i) out_ << (i ? "," : "") << columns[i];
  out_ << "\n";
}

void csv_table::write_line(const std::string& line, std::size_t count) {
  require(out_.is_open(), "run::row", "csv", "must be opened with open_csv first");
  require(count == columns_.size(), "run::row", "values",
          "must number " + std::to_string(columns_.size()) + " (the header), got " + std::to_string(count));
  out_ << line << "\n";
}

void csv_table::commit() {
  if (!out_.is_open()) return;
  out_.close();
  if (!out_) throw runtime_failure("cannot write " + path_ + ".partial");
  std::filesystem::rename(path_ + ".partial", path_);
}

void run::open_csv(const std::vector<std::string>& columns) {
  require(!columns.empty(), "run::open_csv", "columns", "must not be empty");  // before the directory is made
  ensure_out_dir();
  csv_.open(out_dir_ + "/" + name_ + ".csv", columns);
}

csv_table& run::open_extra_csv(const std::string& suffix, const std::vector<std::string>& columns) {
  require(!columns.empty(), "run::open_extra_csv", "columns", "must not be empty");
  ensure_out_dir();
  extra_csvs_.emplace_back();
  extra_csvs_.back().open(out_dir_ + "/" + name_ + suffix + ".csv", columns);
  return extra_csvs_.back();
}

void run::require_csv_open() const {
  require(csv_.is_open(), "run::row", "csv", "must be opened with open_csv first");
}

void run::finish() {
  const double seconds = now_seconds() - start_seconds_;
  std::ostringstream j;
  j << "{\n  \"experiment\": \"" << json_escape(name_) << "\",\n"
    << "  \"command\": \"" << json_escape(command_) << "\",\n"
    << "  \"scale\": \"" << to_string(scale_) << "\",\n"
    << "  \"seed\": " << seed_ << ",\n"
    << "  \"run_seconds\": " << seconds << ",\n";
  // The 1-minute load average before and after the run (issue 32: a CPU table measured on a
  // machine loaded above its core count is flagged by the report).
  const double load_after = load_average();
  if (load_before_ >= 0) j << "  \"loadavg_before\": " << load_before_ << ",\n";
  if (load_after >= 0) j << "  \"loadavg_after\": " << load_after << ",\n";
  for (const auto& kv : notes_) j << "  \"" << json_escape(kv.first) << "\": \"" << json_escape(kv.second) << "\",\n";
  j << machine_json() << "\n}\n";
  const std::string meta_path = out_dir_ + "/" + name_ + ".meta.json";
  ensure_out_dir();
  {
    std::ofstream meta(meta_path + ".partial", std::ios::trunc);
    meta << j.str();
    if (!meta) throw runtime_failure("cannot write " + meta_path + ".partial");
  }
  csv_.commit();
  for (auto& table : extra_csvs_) table.commit();
  std::filesystem::rename(meta_path + ".partial", meta_path);
  progress(name_, "done in " + std::to_string(seconds) + " s");
}

void run::ensure_out_dir() {
  std::error_code ec;
  std::filesystem::create_directories(out_dir_.empty() ? std::string(".") : out_dir_, ec);
  if (ec) throw runtime_failure("cannot create the output directory '" + out_dir_ + "': " + ec.message());
}

}  // namespace onepass::experiments
