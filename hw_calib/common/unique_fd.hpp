// A file descriptor closed when it goes out of scope.
#pragma once

#include <unistd.h>

namespace dpusim::calib {

class UniqueFd {
public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

private:
  int fd_;
};

} // namespace dpusim::calib
