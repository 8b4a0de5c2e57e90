#include "hw_calib/parsers/json_text.hpp"

#include "hw_calib/parsers/parse_error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>

namespace dpusim::calib {

YAML::Node parse_json_text(std::string_view text, const char* tool) {
  std::size_t start = std::string_view::npos;
  int line_no = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && (i == 0 || text[i - 1] == '\n')) {
      start = i;
      break;
    }
    if (text[i] == '\n')
      ++line_no;
  }
  if (start == std::string_view::npos)
    throw ParseError(tool, 0, "no JSON object found (no line starts with '{')");
  std::string json(text.substr(start));
  std::replace(json.begin(), json.end(), '\t', ' ');
  YAML::Node root;
  try {
    root = YAML::Load(json);
  } catch (const YAML::Exception& e) {
    throw ParseError(tool, line_no + e.mark.line, fmt::format("malformed JSON (cut short?): {}", e.msg));
  }
  if (!root.IsMap())
    throw ParseError(tool, line_no, "the JSON text is not an object");
  return root;
}

} // namespace dpusim::calib
