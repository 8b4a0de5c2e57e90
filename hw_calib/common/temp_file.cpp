#include "hw_calib/common/temp_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

namespace dpusim::calib {

TempFile::TempFile(const std::filesystem::path& dir, const std::string& prefix) {
  std::string tmpl = (dir / (prefix + "XXXXXX")).string();
  fd_ = ::mkstemp(tmpl.data());
  if (fd_ < 0)
    throw std::runtime_error(
        fmt::format("cannot create a temporary file in {}: {}", dir.string(), std::strerror(errno)));
  path_ = tmpl;
}

TempFile::~TempFile() {
  if (fd_ >= 0)
    ::close(fd_);
  ::unlink(path_.c_str());
}

} // namespace dpusim::calib
