// A temporary file that dpusim-calib created itself and removes when done, also when a probe is
// interrupted or fails: the storage probe never writes anywhere else. It is named as dpusim's other
// temporaries (models/base/atomic_file.hpp: `.<prefix>.dpusim-tmp-<host>-<pid>-XXXXXX`), so that one
// left by a kill -9 is recognised and removed by the next run (remove_stale_temporaries).
#pragma once

#include <filesystem>
#include <string>

namespace dpusim::calib {

class TempFile {
public:
  /// Creates the file in `dir` with mode 0600 (close-on-exec); throws std::runtime_error naming the
  /// directory.
  TempFile(const std::filesystem::path& dir, const std::string& prefix);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// The descriptor it was created with (read/write, buffered I/O).
  [[nodiscard]] int fd() const { return fd_; }

private:
  std::filesystem::path path_;
  int fd_ = -1;
};

} // namespace dpusim::calib
