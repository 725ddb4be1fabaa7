// cli/shuf_io.hpp — input and output of `onepass shuf` / `onepass unshuf`.
//
// line_store keeps every input line in ONE contiguous byte buffer, each line followed
// by its delimiter ('\n', or NUL with -z), plus an array of L + 1 line start offsets,
// 32-bit while the buffer is below 4 GiB and 64-bit above. No per-line object. The
// shuffle itself streams the bijection (shuf_command.cpp), so a run of `onepass shuf`
// holds (line bytes + delimiter) + 4 bytes per line, plus fixed-size buffers.
//
// Measured peak resident memory (/usr/bin/time, maximum resident set size, minus the
// same program's peak on an empty file) on 2^24 = 16,777,216 empty lines read from a
// file, x86-64, glibc; tests/cli/measure_memory.sh ONEPASS 24 reproduces it:
//   GNU coreutils shuf 9.1           : 279,760 KiB, 17.0 bytes per line
//   onepass shuf (streams the order) :  96,072 KiB,  5.6 bytes per line (5.1 at 2^26)
//   onepass unshuf (+ inverse index) : 160,636 KiB,  9.5 bytes per line (9.1 at 2^26)
// i.e. 1 byte of text + 4 bytes of offset (+ 4 bytes of inverse index for unshuf), plus
// a fixed 8 MiB batch of bijection images. Above 4 GiB of text the offsets are 8 bytes.
// Baselines chosen with --algorithm other than variable_philox / lcg need two 8-byte
// index arrays more (the registry's out-of-place uint64 interface).
//
// -n K on regular files (input_files): where holding only the K chosen lines takes
// less than half the memory of holding all, the files are read twice instead: once to
// count the lines, once to keep the K lines the order picks (about 40 bytes + the line
// per chosen line). The output is the same. Inputs that cannot be read twice (a pipe,
// a terminal, standard input from either) are first copied into a temporary file in
// $TMPDIR (else /tmp), unlinked as soon as it is made, so nothing is left behind even
// when the process is killed (when none can be made there, the input is held as before): `-n K` from a pipe then holds the K chosen lines, not the
// input, at the cost of the input's size on disk (GNU uses reservoir sampling, whose
// order is not ours: the K lines must be the first K of the order of all the lines).
//
// output_file writes standard output, or with -o FILE a temporary file in FILE's
// directory that is renamed over FILE once everything is written (FILE may be one of
// the inputs: they are read completely before the output is opened). On failure, or on
// SIGINT/SIGTERM/SIGHUP, the temporary file is removed and FILE is left as it was. When
// the disk is full (ENOSPC, EDQUOT) while an existing FILE is being replaced, FILE is
// written in place instead, as GNU does: truncated, the temporary file's content copied
// into it and the temporary file removed, then the rest written to FILE; a failure after
// that point leaves FILE incomplete (as GNU's would).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace onepass::cli {

/// Every input line, contiguous; see the header comment.
class line_store {
 public:
  line_store() = default;
  line_store(const line_store&) = delete;
  line_store& operator=(const line_store&) = delete;
  ~line_store();

  /// Appends the content of `path` ("-" = standard input), then `delim` if the file is
  /// not empty and does not end with it. Throws run_error "PATH: <reason>".
  void append_file(const std::string& path, char delim);
  /// Appends the whole content of the open regular file `fd` (from offset 0; `name` in
  /// messages), then `delim` as append_file does.
  void append_copy(int fd, const std::string& name, char delim);
  /// Appends one line (for -e): `text` and `delim`, even if `text` contains `delim`.
  void append_line(const std::string& text, char delim);
  /// Builds the offsets; after it, no more appends. Throws run_error when out of memory.
  void finish(char delim);

  /// Number of lines L.
  std::uint64_t size() const { return lines_; }
  /// True when the offsets are 64-bit (buffer of 4 GiB or more).
  bool wide() const { return wide_; }
  const char* data() const { return buffer_; }
  const std::uint32_t* offsets32() const { return offsets32_.get(); }
  const std::uint64_t* offsets64() const { return offsets64_.get(); }

 private:
  void reserve(std::size_t capacity);
  void grow_for(std::size_t extra);
  void append_from(int fd, const std::string& name, char delim);  // from fd's position to its end

  char* buffer_ = nullptr;  // malloc/realloc: large growth is an mremap, without a copy
  std::size_t size_ = 0, capacity_ = 0;
  std::uint64_t lines_ = 0;
  bool wide_ = false;
  bool finished_ = false;
  std::vector<std::uint64_t> echo_starts_;  // -e only: line starts (a line may contain the delimiter)
  std::unique_ptr<std::uint32_t[]> offsets32_;
  std::unique_ptr<std::uint64_t[]> offsets64_;
};

/// The input files of -n K, read twice (count, then extract) instead of held.
class input_files {
 public:
  /// `paths`: "-" is standard input.
  explicit input_files(std::vector<std::string> paths);
  ~input_files();
  input_files(const input_files&) = delete;
  input_files& operator=(const input_files&) = delete;
  /// True when every input can be read twice: a regular file, "-" at most once, or a
  /// spilled copy (spill()).
  bool rereadable() const { return rereadable_; }
  /// Copies every input that cannot be read twice into its own unlinked temporary file in
  /// $TMPDIR (else /tmp), read from there afterwards; then rereadable(). When a temporary
  /// file cannot be made, nothing is read and rereadable() stays false (hold the input
  /// instead). Throws run_error "PATH: <reason>" for an input that cannot be read and
  /// "DIRECTORY: cannot write the temporary copy of PATH for -n: <reason>" when a copy
  /// cannot be written (the input read so far is then lost: a pipe cannot be read again).
  void spill();
  /// Appends every input to `store` (as line_store::append_file would), spilled copies from
  /// their temporary files.
  void append_all(char delim, line_store& store) const;
  /// Pass 1: the number of lines (as line_store counts them) and of bytes.
  std::uint64_t count_lines(char delim, std::uint64_t& bytes) const;
  /// Pass 2: appends to `store` (append_line) the lines whose 0-based numbers are in
  /// `wanted` (strictly increasing), in that order. Throws run_error if the files
  /// changed since count_lines.
  void extract(char delim, const std::vector<std::uint64_t>& wanted, line_store& store) const;

 private:
  template <class Block>
  void read_input(std::size_t i, Block&& block) const;

  std::vector<std::string> paths_;
  std::vector<bool> in_place_;  // per input: can be read twice where it is (no copy needed)
  std::vector<int> spilled_;    // per input: the temporary copy's descriptor, or -1
  bool rereadable_ = true;
  long long stdin_start_ = 0;  // where standard input starts (a redirected regular file)
};

/// Buffered output to standard output or, with a path, to a file replaced atomically.
class output_file {
 public:
  /// Standard output.
  output_file();
  /// `path` (-o): see the header comment. Throws run_error "PATH: <reason>".
  explicit output_file(const std::string& path);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  /// Without commit(): removes the temporary file, FILE untouched.
  ~output_file();

  void put(const char* data, std::size_t size) {
    if (size > capacity - used_) {
      flush();
      if (size >= capacity) {
        write_all(data, size);
        return;
      }
    }
    std::memcpy(buffer_.get() + used_, data, size);
    used_ += size;
  }
  void put_number(std::uint64_t v, char delim);
  /// Flushes, closes and renames the temporary file over FILE. Throws run_error.
  void commit();

 private:
  static constexpr std::size_t capacity = std::size_t{1} << 20;
  void flush();
  void write_all(const char* data, std::size_t size);
  void write_in_place(int error);
  [[noreturn]] void write_failed(int error);

  std::unique_ptr<char[]> buffer_{new char[capacity]};
  std::size_t used_ = 0;
  int fd_ = 1;
  std::string path_;       // FILE, for messages; empty for standard output
  std::string target_;     // FILE with its symbolic links resolved (the rename target)
  std::string temporary_;  // the temporary file, empty when writing FILE directly
  bool replacing_ = false; // an existing FILE is replaced: fsync before the rename
};

}  // namespace onepass::cli
