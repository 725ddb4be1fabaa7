// cli/shuf_io.cpp — see shuf_io.hpp.
#include "shuf_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "cli_common.hpp"

namespace onepass::cli {

namespace {

std::string reason(int error) { return std::strerror(error); }

/// Closes a file descriptor we opened (not standard input) on scope exit.
struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd > 2) ::close(fd);
  }
};

// The temporary file of -o, removed by the signal handler if the run is interrupted.
char g_temporary[PATH_MAX + 1];
volatile sig_atomic_t g_have_temporary = 0;

extern "C" void remove_temporary_and_reraise(int sig) {
  if (g_have_temporary) ::unlink(g_temporary);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_cleanup_handlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = remove_temporary_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) {
    struct sigaction old;
    // Leave a signal the caller ignores (nohup) ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool same_file(const struct stat& a, int fd) {
  struct stat b;
  return ::fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

// ---------------------------------------------------------------------------------
// line_store

line_store::~line_store() { std::free(buffer_); }

void line_store::reserve(std::size_t capacity) {
  if (capacity <= capacity_) return;
  char* grown = static_cast<char*>(std::realloc(buffer_, capacity));
  if (!grown) throw std::bad_alloc();
  buffer_ = grown;
  capacity_ = capacity;
}

void line_store::grow_for(std::size_t extra) {
  if (capacity_ - size_ >= extra) return;
  // Geometric growth; the capacity not yet written is never touched, so it is not
  // resident, and glibc grows large blocks with mremap (no copy).
  reserve(std::max({size_ + extra, capacity_ * 2, std::size_t{1} << 16}));
}

void line_store::append_file(const std::string& path, char delim) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? std::string("standard input") : path;
  const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw run_error{name + ": " + reason(errno)};
  fd_closer closer{fd};
  append_from(fd, name, delim);
}

void line_store::append_copy(int fd, const std::string& name, char delim) {
  if (::lseek(fd, 0, SEEK_SET) < 0) throw run_error{name + ": read error: " + reason(errno)};
  append_from(fd, name, delim);
}

void line_store::append_from(int fd, const std::string& name, char delim) {
  const std::size_t start = size_;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const off_t position = ::lseek(fd, 0, SEEK_CUR);
    if (position >= 0 && st.st_size > position)  // exact size, + 1 for a missing final delimiter
      reserve(size_ + static_cast<std::size_t>(st.st_size - position) + 1);
  }
  for (;;) {
    if (size_ == capacity_) grow_for(1);
    const std::size_t room = std::min<std::size_t>(capacity_ - size_, std::size_t{1} << 30);
    const ssize_t got = ::read(fd, buffer_ + size_, room);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw run_error{name + ": read error: " + reason(errno)};
    }
    if (got == 0) break;
    size_ += static_cast<std::size_t>(got);
  }
  if (size_ > start && buffer_[size_ - 1] != delim) {
    grow_for(1);
    buffer_[size_++] = delim;
  }
}

void line_store::append_line(const std::string& text, char delim) {
  grow_for(text.size() + 1);
  echo_starts_.push_back(size_);
  std::memcpy(buffer_ + size_, text.data(), text.size());
  size_ += text.size();
  buffer_[size_++] = delim;
}

void line_store::finish(char delim) {
  if (finished_) return;
  finished_ = true;
  if (size_ < capacity_ && size_ > 0) {  // give back the slack of the last growth
    if (char* shrunk = static_cast<char*>(std::realloc(buffer_, size_))) {
      buffer_ = shrunk;
      capacity_ = size_;
    }
  }
  const bool echo = !echo_starts_.empty();
  lines_ = echo ? echo_starts_.size() : static_cast<std::uint64_t>(std::count(buffer_, buffer_ + size_, delim));
  wide_ = size_ > UINT32_MAX;
  // Line j is buffer_[offset[j], offset[j + 1]), its delimiter included.
  auto fill = [&](auto* offset) {
    using Off = std::remove_pointer_t<decltype(offset)>;
    if (echo) {
      for (std::uint64_t j = 0; j < lines_; ++j) offset[j] = static_cast<Off>(echo_starts_[j]);
    } else {
      std::uint64_t j = 0;
      offset[0] = 0;
      const char* p = buffer_;
      const char* end = buffer_ + size_;
      while (p != end) {
        const char* q = static_cast<const char*>(std::memchr(p, delim, static_cast<std::size_t>(end - p)));
        offset[++j] = static_cast<Off>(q - buffer_ + 1);  // every line ends with delim
        p = q + 1;
      }
    }
    offset[lines_] = static_cast<Off>(size_);
  };
  if (wide_) {
    offsets64_.reset(new std::uint64_t[lines_ + 1]);
    fill(offsets64_.get());
  } else {
    offsets32_.reset(new std::uint32_t[lines_ + 1]);
    fill(offsets32_.get());
  }
  std::vector<std::uint64_t>().swap(echo_starts_);
}

// ---------------------------------------------------------------------------------
// input_files

namespace {

/// Calls block(data, size) for successive blocks of `path` ("-": standard input from
/// `stdin_start`) until EOF or until block returns false.
/// Calls block(data, size) for each chunk of up to 1 MiB read from fd, from where it is,
/// until the end or until block returns false. Throws run_error "NAME: read error: ...".
template <class Block>
void read_fd(int fd, const std::string& name, Block&& block) {
  constexpr std::size_t size = std::size_t{1} << 20;
  std::unique_ptr<char[]> buffer(new char[size]);
  for (;;) {
    const ssize_t got = ::read(fd, buffer.get(), size);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw run_error{name + ": read error: " + reason(errno)};
    }
    if (got == 0 || !block(buffer.get(), static_cast<std::size_t>(got))) return;
  }
}

template <class Block>
void read_blocks(const std::string& path, long long stdin_start, Block&& block) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? std::string("standard input") : path;
  const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw run_error{name + ": " + reason(errno)};
  fd_closer closer{fd};
  if (is_stdin && ::lseek(fd, static_cast<off_t>(stdin_start), SEEK_SET) < 0)
    throw run_error{name + ": read error: " + reason(errno)};
  // Standard input is left where it started, for the next pass (or line_store).
  struct rewind {
    bool is_stdin;
    long long start;
    ~rewind() {
      if (is_stdin) ::lseek(0, static_cast<off_t>(start), SEEK_SET);
    }
  } rewinder{is_stdin, stdin_start};
  read_fd(fd, name, block);
}

}  // namespace

input_files::input_files(std::vector<std::string> paths)
    : paths_(std::move(paths)), in_place_(paths_.size(), false), spilled_(paths_.size(), -1) {
  bool stdin_seen = false;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const bool is_stdin = paths_[i] == "-";
    struct stat st;
    const bool ok = is_stdin ? ::fstat(0, &st) == 0 : ::stat(paths_[i].c_str(), &st) == 0;
    // Read twice in place: a regular file; standard input only when named once and seekable
    // (a second "-" is empty: standard input is read once, as GNU does). Errors are
    // reported when reading.
    bool in_place = ok && S_ISREG(st.st_mode) && !(is_stdin && stdin_seen);
    if (in_place && is_stdin) {
      const off_t position = ::lseek(0, 0, SEEK_CUR);
      if (position < 0) in_place = false;
      stdin_start_ = position;
    }
    in_place_[i] = in_place;
    rereadable_ = rereadable_ && in_place;
    stdin_seen = stdin_seen || is_stdin;
  }
}

input_files::~input_files() {
  for (int fd : spilled_)
    if (fd >= 0) ::close(fd);
}

namespace {

/// The directory of the spilled copies: $TMPDIR when set and not empty, else /tmp.
std::string spill_directory() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? std::string(t) : std::string("/tmp");
}

/// Writes all of [data, data + size) to fd; false with errno on failure.
bool write_fully(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t put = ::write(fd, data, size);
    if (put < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += put;
    size -= static_cast<std::size_t>(put);
  }
  return true;
}

}  // namespace

void input_files::spill() {
  if (rereadable_) return;
  const std::string directory = spill_directory();
  // Every temporary file first, before anything is read: if one cannot be made, nothing
  // was consumed and the caller holds the input as before (rereadable() stays false).
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    if (in_place_[i]) continue;
    std::string pattern = directory + "/.onepass-shuf-input-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) {
      for (int& f : spilled_)
        if (f >= 0) ::close(f), f = -1;
      return;
    }
    ::unlink(name.data());  // gone from the directory at once: nothing is left behind
    spilled_[i] = fd;
  }
  bool stdin_read = false;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const bool is_stdin = paths_[i] == "-";
    if (in_place_[i] || (is_stdin && stdin_read)) {  // a second "-": an empty copy
      stdin_read = stdin_read || is_stdin;
      continue;
    }
    stdin_read = stdin_read || is_stdin;
    const std::string source = is_stdin ? std::string("standard input") : paths_[i];
    const int in = is_stdin ? 0 : ::open(paths_[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) throw run_error{source + ": " + reason(errno)};
    fd_closer closer{in};
    read_fd(in, source, [&](const char* data, std::size_t size) {  // from where it is (a pipe cannot seek)
      if (!write_fully(spilled_[i], data, size))
        throw run_error{directory + ": cannot write the temporary copy of " + source + " for -n: " + reason(errno)};
      return true;
    });
  }
  rereadable_ = true;
}

template <class Block>
void input_files::read_input(std::size_t i, Block&& block) const {
  if (spilled_[i] < 0) {
    read_blocks(paths_[i], stdin_start_, block);
    return;
  }
  const std::string name = (paths_[i] == "-" ? std::string("standard input") : paths_[i]) + " (its temporary copy)";
  if (::lseek(spilled_[i], 0, SEEK_SET) < 0) throw run_error{name + ": read error: " + reason(errno)};
  read_fd(spilled_[i], name, block);
}

void input_files::append_all(char delim, line_store& store) const {
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    if (spilled_[i] >= 0)
      store.append_copy(spilled_[i], paths_[i] == "-" ? std::string("standard input") : paths_[i], delim);
    else
      store.append_file(paths_[i], delim);
  }
}

std::uint64_t input_files::count_lines(char delim, std::uint64_t& bytes) const {
  std::uint64_t lines = 0;
  bytes = 0;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    char last = delim;
    read_input(i, [&](const char* data, std::size_t size) {
      lines += static_cast<std::uint64_t>(std::count(data, data + size, delim));
      bytes += size;
      last = data[size - 1];
      return true;
    });
    if (last != delim) ++lines, ++bytes;  // an unterminated last line
  }
  return lines;
}

void input_files::extract(char delim, const std::vector<std::uint64_t>& wanted, line_store& store) const {
  std::uint64_t line = 0;  // number of the line being read
  std::size_t next = 0;    // wanted[next] is the next line to keep
  std::string current;     // the kept line so far (it may span blocks)
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    if (next == wanted.size()) break;
    bool partial = false;  // bytes of an unterminated line seen
    read_input(i, [&](const char* data, std::size_t size) {
      const char* p = data;
      const char* end = data + size;
      while (p != end && next != wanted.size()) {
        const char* q = static_cast<const char*>(std::memchr(p, delim, static_cast<std::size_t>(end - p)));
        const char* stop = q ? q : end;
        if (line == wanted[next]) current.append(p, static_cast<std::size_t>(stop - p));
        if (!q) {
          partial = true;
          break;
        }
        if (line == wanted[next]) {
          store.append_line(current, delim);
          current.clear();
          ++next;
        }
        ++line;
        partial = false;
        p = q + 1;
      }
      return next != wanted.size();
    });
    if (partial && next != wanted.size()) {  // the file's last line has no delimiter
      if (line == wanted[next]) {
        store.append_line(current, delim);
        current.clear();
        ++next;
      }
      ++line;
    }
  }
  if (next != wanted.size()) throw run_error{"the input files changed while they were read (-n reads them twice)"};
}

// ---------------------------------------------------------------------------------
// output_file

output_file::output_file() = default;

output_file::output_file(const std::string& path) : path_(path) {
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  struct stat link;
  const bool dangling = !exists && ::lstat(path.c_str(), &link) == 0;
  // Written directly, as GNU does: devices, FIFOs, files with other hard links, the
  // file our stdout/stderr already write to, a dangling symbolic link; and whenever
  // no temporary file can be made next to FILE.
  bool direct = dangling || (exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1 || same_file(st, 1) ||
                                        same_file(st, 2)));
  if (exists && S_ISDIR(st.st_mode)) throw run_error{path + ": " + reason(EISDIR)};
  if (!direct) {
    if (exists) {
      // The rename would replace a file we may not write: check like GNU's open would.
      const int probe = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (probe < 0) throw run_error{path + ": " + reason(errno)};
      ::close(probe);
      char resolved[PATH_MAX];
      if (::realpath(path.c_str(), resolved)) target_ = resolved;  // keep symbolic links as they are
      else direct = true;
    } else {
      target_ = path;
    }
  }
  if (!direct) {
    std::string pattern = directory_of(target_) + "/.onepass-shuf-XXXXXX";
    if (pattern.size() <= PATH_MAX) {
      install_cleanup_handlers();
      std::memcpy(g_temporary, pattern.c_str(), pattern.size() + 1);
      const int fd = ::mkostemp(g_temporary, O_CLOEXEC);
      if (fd >= 0) {
        g_have_temporary = 1;
        fd_ = fd;
        temporary_ = g_temporary;
        replacing_ = exists;
        if (exists) {
          if (::fchown(fd, st.st_uid, st.st_gid) != 0) { /* not ours to give: keep our own */ }
          ::fchmod(fd, st.st_mode & 07777);
        } else {
          const mode_t mask = ::umask(0);
          ::umask(mask);
          ::fchmod(fd, 0666 & ~mask);
        }
      } else {
        direct = true;
      }
    } else {
      direct = true;
    }
  }
  if (direct) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) throw run_error{path + ": " + reason(errno)};
  }
}

output_file::~output_file() {
  if (fd_ > 2) ::close(fd_);
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    g_have_temporary = 0;
  }
}

void output_file::put_number(std::uint64_t v, char delim) {
  if (capacity - used_ < 24) flush();
  char* p = buffer_.get() + used_;
  const auto r = std::to_chars(p, p + 23, v);
  *r.ptr = delim;
  used_ += static_cast<std::size_t>(r.ptr + 1 - p);
}

void output_file::flush() {
  write_all(buffer_.get(), used_);
  used_ = 0;
}

void output_file::write_all(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t put = ::write(fd_, data, std::min<std::size_t>(size, std::size_t{1} << 30));
    if (put < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      if ((error == ENOSPC || error == EDQUOT) && replacing_ && !temporary_.empty()) {
        write_in_place(error);
        continue;
      }
      write_failed(error);
    }
    data += put;
    size -= static_cast<std::size_t>(put);
  }
}

void output_file::write_in_place(int error) {
  // The disk cannot hold FILE and its replacement at once: write FILE itself, as GNU does
  // (its lines are all in memory by now). Truncating FILE frees its blocks; what the
  // temporary file holds so far is copied over, the temporary file removed, and the rest
  // is written to FILE directly.
  const int fd = ::open(target_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) write_failed(error);
  const int temporary = fd_;
  fd_closer closer{temporary};
  fd_ = fd;
  replacing_ = false;
  if (::lseek(temporary, 0, SEEK_SET) < 0) write_failed(errno);
  read_fd(temporary, temporary_, [&](const char* data, std::size_t size) {
    write_all(data, size);
    return true;
  });
  ::unlink(temporary_.c_str());
  temporary_.clear();
  g_have_temporary = 0;
}

void output_file::write_failed(int error) {
  throw run_error{(path_.empty() ? std::string() : path_ + ": ") + "write error: " + reason(error)};
}

void output_file::commit() {
  flush();
  if (fd_ <= 2) return;  // standard output: nothing to close here
  if (replacing_ && ::fsync(fd_) != 0) write_failed(errno);  // the old content stays until the new is safe
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) write_failed(errno);
  if (!temporary_.empty()) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0)
      throw run_error{path_ + ": cannot rename the temporary file " + temporary_ + " over it: " + reason(errno)};
    temporary_.clear();
    g_have_temporary = 0;
  }
}

}  // namespace onepass::cli
