#include "sim/report/column.hpp"

namespace dpusim::report {

bool matches(const Output& o, std::string_view name) {
  const auto hole = o.name.find("{}");
  if (hole == std::string_view::npos)
    return o.name == name;
  const auto head = o.name.substr(0, hole);
  const auto tail = o.name.substr(hole + 2);
  if (name.size() <= head.size() + tail.size() || !name.starts_with(head) || !name.ends_with(tail))
    return false;
  for (const char c : name.substr(head.size(), name.size() - head.size() - tail.size()))
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  return true;
}

} // namespace dpusim::report
