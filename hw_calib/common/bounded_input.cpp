#include "hw_calib/common/bounded_input.hpp"

#include "hw_calib/common/deadline.hpp"
#include "hw_calib/common/unique_fd.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dpusim::calib {

InputFileError::InputFileError(const std::string& file, int line, const std::string& message)
    : std::runtime_error(line > 0 ? fmt::format("{}, line {}: {}", file, line, message)
                                  : fmt::format("{}: {}", file, message)),
      file_(file), line_(line) {}

std::string excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t shown = 0;
  for (const char c : text) {
    if (shown >= max_chars) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      out += c;
    else if (c == '\t')
      out += ' ';
    else
      out += fmt::format("\\x{:02x}", u);
    ++shown;
  }
  return out;
}

namespace {

std::string size_text(std::size_t bytes) {
  return bytes >= (1u << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} KiB", bytes >> 10);
}

} // namespace

std::string read_bounded_text(const std::filesystem::path& path, const InputLimits& limits) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO that no process writes to must not block; reads then wait in poll().
  const UniqueFd fd(::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0)
    throw InputFileError(name, 0, fmt::format("cannot open it: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw InputFileError(name, 0, fmt::format("cannot read it: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    throw InputFileError(name, 0, "is a directory, not a tool's output");
  if (S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > limits.max_bytes)
    throw InputFileError(name, 0,
                         fmt::format("is {} bytes, more than the {} a tool's output may have", st.st_size,
                                     size_text(limits.max_bytes)));
  const bool pipe = S_ISFIFO(st.st_mode);
  const Deadline deadline = deadline_in(limits.time_limit_s);
  std::string text;
  std::array<char, 65536> buf{};
  int line = 1;
  std::size_t line_length = 0;
  bool waited_for_data = false;
  while (true) {
    const double left = seconds_between(Clock::now(), deadline);
    if (left <= 0)
      throw InputFileError(
          name, 0,
          text.empty() ? fmt::format("nothing could be read within {:g} s{}", limits.time_limit_s,
                                     pipe ? " (a pipe that no process writes to?)" : "")
                       : fmt::format("not complete after {:g} s ({} bytes read; the writer has not finished)",
                                     limits.time_limit_s, text.size()));
    if (pipe || waited_for_data) {
      // A FIFO without a writer reads as end of file at once; wait until a writer has sent data or
      // hung up, within the time limit.
      pollfd p{fd.get(), POLLIN, 0};
      const int timeout_ms = static_cast<int>(std::min(left * 1000.0, 1000.0)) + 1;
      const int ready = ::poll(&p, 1, timeout_ms);
      if (ready < 0 && errno != EINTR)
        throw InputFileError(name, 0, fmt::format("cannot read it: {}", std::strerror(errno)));
      if (ready <= 0)
        continue;
    }
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) {
        waited_for_data = true;
        continue;
      }
      throw InputFileError(name, 0, fmt::format("cannot read it: {}", std::strerror(errno)));
    }
    if (n == 0)
      break;
    if (text.size() + static_cast<std::size_t>(n) > limits.max_bytes)
      throw InputFileError(
          name, 0, fmt::format("has more than the {} a tool's output may have", size_text(limits.max_bytes)));
    const std::size_t from = text.size();
    text.append(buf.data(), static_cast<std::size_t>(n));
    for (std::size_t i = from; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '\0')
        throw InputFileError(
            name, line, fmt::format("binary data (a NUL byte at offset {}), not a tool's text output", i));
      if (c == '\n') {
        ++line;
        line_length = 0;
      } else if (++line_length > limits.max_line_bytes) {
        const auto nl = std::string_view(text).substr(0, i).rfind('\n');
        const std::size_t start = nl == std::string_view::npos ? 0 : nl + 1;
        throw InputFileError(name, line,
                             fmt::format("the line is longer than {} (\"{}\"), not a tool's output",
                                         size_text(limits.max_line_bytes),
                                         excerpt(std::string_view(text).substr(start, 80))));
      }
    }
  }
  return text;
}

} // namespace dpusim::calib
