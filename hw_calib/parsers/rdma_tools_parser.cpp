#include "hw_calib/parsers/rdma_tools_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>

namespace dpusim::calib {
namespace {

void require_ports(const std::vector<RdmaToolDevice>& devices, const char* tool) {
  for (const auto& d : devices)
    if (d.ports.empty())
      throw ParseError(tool, 0,
                       fmt::format("device {} has no port block: the output is incomplete", excerpt(d.name)));
}

} // namespace

std::vector<RdmaToolDevice> parse_ibv_devinfo(std::string_view text) {
  constexpr const char* kTool = "ibv_devinfo";
  std::vector<RdmaToolDevice> devices;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.empty())
      continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      if (devices.empty())
        throw ParseError(kTool, static_cast<int>(i + 1),
                         fmt::format("expected \"hca_id: <device>\", found \"{}\"", excerpt(line)));
      continue; // e.g. the GID lines of -v
    }
    const std::string key(trim(line.substr(0, colon)));
    const std::string value(trim(line.substr(colon + 1)));
    if (key == "hca_id") {
      devices.push_back(RdmaToolDevice{value, {}, {}});
      continue;
    }
    if (devices.empty())
      throw ParseError(kTool, static_cast<int>(i + 1),
                       fmt::format("expected \"hca_id: <device>\" first, found \"{}\"", excerpt(line)));
    auto& d = devices.back();
    if (key == "port") {
      const auto n = parse_integer(value);
      if (!n)
        throw ParseError(kTool, static_cast<int>(i + 1),
                         fmt::format("port \"{}\" is not a number", excerpt(value)));
      d.ports.push_back(RdmaToolPort{static_cast<int>(*n), {}});
    } else if (!d.ports.empty()) {
      d.ports.back().fields.emplace(key, value);
    } else {
      d.fields.emplace(key, value);
    }
  }
  if (devices.empty())
    throw ParseError(kTool, 0, "no \"hca_id:\" line: not ibv_devinfo output");
  require_ports(devices, kTool);
  return devices;
}

std::vector<RdmaToolDevice> parse_ibstat(std::string_view text) {
  constexpr const char* kTool = "ibstat";
  std::vector<RdmaToolDevice> devices;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.empty())
      continue;
    if (starts_with(line, "CA '") && line.ends_with("'")) {
      devices.push_back(RdmaToolDevice{std::string(line.substr(4, line.size() - 5)), {}, {}});
      continue;
    }
    if (devices.empty())
      throw ParseError(kTool, static_cast<int>(i + 1),
                       fmt::format("expected \"CA '<device>'\" first, found \"{}\"", excerpt(line)));
    auto& d = devices.back();
    if (starts_with(line, "Port ") && line.ends_with(":")) {
      const auto n = parse_integer(line.substr(5, line.size() - 6));
      if (!n)
        throw ParseError(kTool, static_cast<int>(i + 1), fmt::format("\"{}\" is not a port", excerpt(line)));
      d.ports.push_back(RdmaToolPort{static_cast<int>(*n), {}});
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      throw ParseError(kTool, static_cast<int>(i + 1),
                       fmt::format("expected \"<field>: <value>\", found \"{}\"", excerpt(line)));
    const std::string key(trim(line.substr(0, colon)));
    const std::string value(trim(line.substr(colon + 1)));
    if (!d.ports.empty())
      d.ports.back().fields.emplace(key, value);
    else
      d.fields.emplace(key, value);
  }
  if (devices.empty())
    throw ParseError(kTool, 0, "no \"CA '<device>'\" line: not ibstat output");
  require_ports(devices, kTool);
  return devices;
}

} // namespace dpusim::calib
