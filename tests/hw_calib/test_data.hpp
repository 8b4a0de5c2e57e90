// Reading the recorded tool outputs under tests/hw_calib/data/.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dpusim::calib::testing {

inline std::filesystem::path data_path(const std::string& relative) {
  return std::filesystem::path(DPUSIM_SOURCE_DIR) / "tests/hw_calib/data" / relative;
}

inline std::string read_fixture(const std::string& relative) {
  std::ifstream in(data_path(relative), std::ios::binary);
  if (!in)
    throw std::runtime_error("missing test fixture " + data_path(relative).string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace dpusim::calib::testing
