// JSON tool outputs (fio, iperf3 -J, lscpu -J) read with yaml-cpp: JSON is YAML 1.2 flow syntax, except
// that YAML does not allow tabs where JSON does (iperf3 indents with tabs). A tab can only stand between
// tokens in valid JSON (inside a string it must be escaped as \t), so tabs are turned into spaces first.
#pragma once

#include <string_view>
#include <yaml-cpp/yaml.h>

namespace dpusim::calib {

/// The JSON object that starts at the first line beginning with '{' (text before it, such as fio's
/// notes, is skipped). Throws ParseError naming `tool` and the line when there is none or it is malformed.
YAML::Node parse_json_text(std::string_view text, const char* tool);

} // namespace dpusim::calib
