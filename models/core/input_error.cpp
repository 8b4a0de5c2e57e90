#include "models/core/input_error.hpp"

#include <fmt/format.h>

namespace dpusim {
namespace {
std::string render(const Location& where, const std::string& key, const std::string& message) {
  std::string out = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0)
    out += fmt::format(":{}:{}", where.line, where.column);
  out += ": error: ";
  if (!key.empty())
    out += fmt::format("{}: ", key);
  out += message;
  return out;
}
} // namespace

InputError::InputError(Location where, std::string key, std::string message)
    : std::runtime_error(render(where, key, message)), where_(std::move(where)), key_(std::move(key)),
      message_(std::move(message)) {}

} // namespace dpusim
