// A temporary file that dpusim-calib created itself (mkstemp) and removes when done, also when a probe
// is interrupted or fails: the storage probe never writes anywhere else.
#pragma once

#include <filesystem>
#include <string>

namespace dpusim::calib {

class TempFile {
public:
  /// Creates `<dir>/<prefix>XXXXXX` with mode 0600; throws std::runtime_error naming the directory.
  TempFile(const std::filesystem::path& dir, const std::string& prefix);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// The descriptor mkstemp opened (read/write, buffered I/O).
  [[nodiscard]] int fd() const { return fd_; }

private:
  std::filesystem::path path_;
  int fd_ = -1;
};

} // namespace dpusim::calib
