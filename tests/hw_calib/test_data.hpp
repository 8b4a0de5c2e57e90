// Reading the recorded tool outputs under tests/hw_calib/data/, and scratch directories for live tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <stdlib.h>
#include <string>

namespace dpusim::calib::testing {

/// A temporary directory of the test's own (mkdtemp), removed with everything in it at the end.
class ScratchDir {
public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dpusim-calib-test.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed in " + std::filesystem::temp_directory_path().string());
    path_ = tmpl;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

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
