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

/// A port block's number (ibv_devinfo's "port: 1", ibstat's "Port 1:"): HCAs number their ports from 1,
/// and none has more than 255.
RdmaToolPort port_block(const char* tool, std::string_view number, std::size_t line, std::string_view text) {
  const auto n = parse_integer(number);
  if (!n || *n < 0 || *n > 255)
    throw ParseError(tool, static_cast<int>(line + 1),
                     fmt::format("\"{}\" gives no port number from 0 to 255", excerpt(text)));
  return RdmaToolPort{static_cast<int>(*n), {}};
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
      d.ports.push_back(port_block(kTool, value, i, line));
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
      d.ports.push_back(port_block(kTool, line.substr(5, line.size() - 6), i, line));
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
