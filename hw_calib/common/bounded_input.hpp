// Reading a recorded tool output given by the user, bounded in size, line length and time whatever the
// path names: a regular file, a pipe or FIFO (also one that no process writes to), a character device
// such as /dev/zero, or a file with one endless line. Binary data (a NUL byte) is refused as soon as it
// is seen. Errors quote at most a short, printable excerpt of what was read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dpusim::calib {

struct InputLimits {
  std::size_t max_bytes = 32u << 20; // a multi-node nccl-tests log with NCCL_DEBUG=INFO fits
  std::size_t max_line_bytes = 64u << 10;
  double time_limit_s = 10; // for the whole file, including waiting for a pipe's writer
};

/// An input file that cannot be used: names the file and, when known, the line (1-based; 0: none).
class InputFileError : public std::runtime_error {
public:
  InputFileError(const std::string& file, int line, const std::string& message);
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }

private:
  std::string file_;
  int line_;
};

/// The whole text of `path`; throws InputFileError when it is not readable, not text, too large, has a
/// line longer than the limit or is not complete within the time limit.
std::string read_bounded_text(const std::filesystem::path& path, const InputLimits& limits = {});

/// At most `max_chars` characters of `text`, non-printable bytes shown as \xNN, "..." when cut.
std::string excerpt(std::string_view text, std::size_t max_chars = 60);

} // namespace dpusim::calib
