// Discovery reads /proc and /sys under a root directory: "/" on a live system, a recorded tree in tests.
#pragma once

#include <filesystem>
#include <string_view>

namespace dpusim::calib {

/// `absolute` ("/sys/class/net") under `root`.
inline std::filesystem::path under_root(const std::filesystem::path& root, std::string_view absolute) {
  return root / std::filesystem::path(absolute).relative_path();
}

} // namespace dpusim::calib
