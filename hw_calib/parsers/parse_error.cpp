#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>

namespace dpusim::calib {

ParseError::ParseError(const std::string& tool, int line, const std::string& message)
    : std::runtime_error(line > 0 ? fmt::format("{} output, line {}: {}", tool, line, message)
                                  : fmt::format("{} output: {}", tool, message)),
      tool_(tool), line_(line) {}

} // namespace dpusim::calib
