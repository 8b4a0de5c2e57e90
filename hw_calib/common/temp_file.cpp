#include "hw_calib/common/temp_file.hpp"

#include "models/base/atomic_file.hpp"

#include <unistd.h>

namespace dpusim::calib {

TempFile::TempFile(const std::filesystem::path& dir, const std::string& prefix) {
  const Temporary t = create_temporary(dir, prefix);
  path_ = t.path;
  fd_ = t.fd;
}

TempFile::~TempFile() {
  if (fd_ >= 0)
    ::close(fd_);
  ::unlink(path_.c_str());
}

} // namespace dpusim::calib
