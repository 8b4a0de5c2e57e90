#include "hw_calib/parsers/lscpu_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/json_text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>

namespace dpusim::calib {
namespace {

void read_json_fields(const YAML::Node& list, LscpuReport& r) {
  if (!list || !list.IsSequence())
    return;
  for (const auto& item : list) {
    if (!item.IsMap() || !item["field"])
      continue;
    std::string name = item["field"].Scalar();
    if (!name.empty() && name.back() == ':')
      name.pop_back();
    if (item["data"] && item["data"].IsScalar())
      r.fields.emplace(std::string(trim(name)), item["data"].Scalar());
    read_json_fields(item["children"], r);
  }
}

} // namespace

std::string LscpuReport::field(const std::string& name) const {
  const auto it = fields.find(name);
  return it == fields.end() ? std::string() : it->second;
}

std::optional<int> LscpuReport::physical_cores() const {
  // A count no machine exceeds (so that products cannot overflow); above it the field is no count.
  auto integer = [&](const char* name) -> std::optional<long long> {
    const auto v = field(name);
    const auto n = v.empty() ? std::nullopt : parse_integer(v);
    return n && *n <= (1LL << 20) ? n : std::nullopt;
  };
  const auto per_socket = integer("Core(s) per socket");
  const auto sockets = integer("Socket(s)");
  if (per_socket && sockets && *per_socket > 0 && *sockets > 0)
    return static_cast<int>(*per_socket * *sockets);
  const auto per_cluster = integer("Core(s) per cluster");
  const auto clusters = integer("Cluster(s)");
  if (per_cluster && *per_cluster > 0)
    return static_cast<int>(*per_cluster * (clusters && *clusters > 0 ? *clusters : 1));
  return std::nullopt;
}

LscpuReport parse_lscpu(std::string_view text) {
  LscpuReport r;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    const YAML::Node root = parse_json_text(text, "lscpu -J");
    if (!root["lscpu"] || !root["lscpu"].IsSequence())
      throw ParseError("lscpu -J", 0, "the JSON object has no \"lscpu\" array");
    r.json = true;
    read_json_fields(root["lscpu"], r);
  } else {
    auto lines = split_lines(text);
    // lscpu prints no closing line, so a last line without its newline may be cut inside its value
    // ("Core(s) per socket: 5" of 56): it is not read.
    if (!text.empty() && text.back() != '\n' && !lines.empty()) {
      r.unterminated_last_line = std::string(trim(lines.back()));
      lines.pop_back();
    }
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto line = lines[i];
      if (trim(line).empty())
        continue;
      const auto colon = line.find(':');
      if (colon == std::string_view::npos)
        throw ParseError("lscpu", static_cast<int>(i + 1),
                         fmt::format("expected \"Field: value\", found \"{}\"", excerpt(trim(line))));
      const std::string name(trim(line.substr(0, colon)));
      r.fields.emplace(name, std::string(trim(line.substr(colon + 1))));
      r.lines.emplace(name, static_cast<int>(i + 1));
    }
  }
  if (r.field("Architecture").empty() || r.field("CPU(s)").empty())
    throw ParseError(r.json ? "lscpu -J" : "lscpu", 0,
                     "no \"Architecture\" and \"CPU(s)\" fields: not lscpu output");
  return r;
}

} // namespace dpusim::calib
