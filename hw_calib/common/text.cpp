#include "hw_calib/common/text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace dpusim::calib {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0)
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0)
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos)
      break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
      ++i;
    if (i > start)
      out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::vector<std::string_view> split_on(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto pos = s.find(sep);
    out.push_back(s.substr(0, pos));
    if (pos == std::string_view::npos)
      break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string key_part(std::string name) {
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<double> parse_number(std::string_view s) {
  const std::string buf(trim(s));
  if (buf.empty())
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size() || errno == ERANGE || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::optional<long long> parse_integer(std::string_view s, int base) {
  const std::string buf(trim(s));
  if (buf.empty())
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(buf.c_str(), &end, base);
  if (end != buf.c_str() + buf.size() || errno == ERANGE)
    return std::nullopt;
  return v;
}

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return ss.str();
}

std::optional<std::string> read_first_line(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text)
    return std::nullopt;
  const auto lines = split_lines(*text);
  if (lines.empty())
    return std::string();
  return std::string(trim(lines.front()));
}

} // namespace dpusim::calib
