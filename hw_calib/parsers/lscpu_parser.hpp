// `lscpu` ("Field:   value" lines, util-linux sys-utils/lscpu.c) and `lscpu -J` ({"lscpu": [{"field":
// "Architecture:", "data": "x86_64"}, ...]}, with "children" in newer util-linux): the machine's shape.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace dpusim::calib {

struct LscpuReport {
  std::map<std::string, std::string> fields; // "Model name" -> "...", without the colon
  std::map<std::string, int> lines;          // where each field was (text output), for messages
  bool json = false;
  std::string unterminated_last_line; // a last line without newline, left unread (it may be cut short)
  [[nodiscard]] std::string field(const std::string& name) const;
  /// Sockets x cores per socket (or clusters x cores per cluster on Arm); nullopt when not printed.
  [[nodiscard]] std::optional<int> physical_cores() const;
};

/// Throws ParseError when neither "Architecture" nor "CPU(s)" is present.
LscpuReport parse_lscpu(std::string_view text);

} // namespace dpusim::calib
