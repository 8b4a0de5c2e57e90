#include "models/base/input_error.hpp"

#include <fmt/format.h>

namespace dpusim {
namespace {
/// A message is one line of text: control characters that came in with the user's values (newlines,
/// NULs, escapes) are shown escaped, and a value pasted in whole is cut short.
std::string one_line(const std::string& text) {
  constexpr std::size_t kMax = 2000;
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '\n')
      out += "\\n";
    else if (u == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
    if (out.size() > kMax)
      return out + "...";
  }
  return out;
}

std::string render(const Location& where, const std::string& key, const std::string& message) {
  std::string out = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0)
    out += fmt::format(":{}:{}", where.line, where.column);
  out += ": error: ";
  if (!key.empty())
    out += fmt::format("{}: ", key);
  out += message;
  return one_line(out);
}
} // namespace

InputError::InputError(Location where, std::string key, std::string message)
    : std::runtime_error(render(where, key, message)), where_(std::move(where)), key_(std::move(key)),
      message_(one_line(message)) {}

} // namespace dpusim
