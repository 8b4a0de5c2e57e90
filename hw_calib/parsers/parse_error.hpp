// A tool's output that does not have the documented format: names the tool, the line and what was
// expected, so that a version change of perftest or nccl-tests is diagnosed rather than misread.
#pragma once

#include <stdexcept>
#include <string>

namespace dpusim::calib {

class ParseError : public std::runtime_error {
public:
  ParseError(const std::string& tool, int line, const std::string& message);
  [[nodiscard]] const std::string& tool() const { return tool_; }
  [[nodiscard]] int line() const { return line_; }

private:
  std::string tool_;
  int line_;
};

} // namespace dpusim::calib
