#include "hw_calib/parsers/ethtool_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>
#include <vector>

namespace dpusim::calib {

bool EthtoolFeatures::supports(const std::string& name) const {
  const auto it = features.find(name);
  return it != features.end() && (it->second.on || !it->second.fixed);
}

bool EthtoolFeatures::enabled(const std::string& name) const {
  const auto it = features.find(name);
  return it != features.end() && it->second.on;
}

std::string InlineCrypto::describe() const {
  std::vector<std::string> parts;
  if (ipsec)
    parts.emplace_back("ipsec");
  if (tls_tx)
    parts.emplace_back("tls-tx");
  if (tls_rx)
    parts.emplace_back("tls-rx");
  if (macsec)
    parts.emplace_back("macsec");
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

EthtoolFeatures parse_ethtool_features(std::string_view text) {
  EthtoolFeatures out;
  const auto lines = split_lines(text);
  bool header = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.empty())
      continue;
    if (starts_with(line, "Features for ")) {
      header = true;
      auto name = line.substr(std::string_view("Features for ").size());
      if (!name.empty() && name.back() == ':')
        name.remove_suffix(1);
      out.interface = std::string(name);
      continue;
    }
    if (!header)
      throw ParseError("ethtool -k", static_cast<int>(i + 1), "expected \"Features for <interface>:\" first");
    const auto colon = line.find(": ");
    if (colon == std::string_view::npos)
      throw ParseError("ethtool -k", static_cast<int>(i + 1),
                       fmt::format("expected \"<feature>: on|off\", found \"{}\"", excerpt(line)));
    const auto value = trim(line.substr(colon + 2));
    EthtoolFeature f;
    if (starts_with(value, "on"))
      f.on = true;
    else if (!starts_with(value, "off"))
      throw ParseError("ethtool -k", static_cast<int>(i + 1),
                       fmt::format("feature value must be \"on\" or \"off\", found \"{}\"", excerpt(value)));
    f.fixed = value.find("[fixed]") != std::string_view::npos;
    out.features[std::string(line.substr(0, colon))] = f;
  }
  if (!header)
    throw ParseError("ethtool -k", 0, "empty output");
  return out;
}

EthtoolDriverInfo parse_ethtool_driver_info(std::string_view text) {
  EthtoolDriverInfo info;
  bool driver = false, bus = false;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.empty())
      continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      throw ParseError("ethtool -i", static_cast<int>(i + 1),
                       fmt::format("expected \"<field>: <value>\", found \"{}\"", excerpt(line)));
    const auto key = line.substr(0, colon);
    const std::string value(trim(line.substr(colon + 1)));
    if (key == "driver") {
      info.driver = value;
      driver = true;
    } else if (key == "version") {
      info.version = value;
    } else if (key == "firmware-version") {
      info.firmware_version = value;
    } else if (key == "bus-info") {
      info.bus_info = value;
      bus = true;
    }
  }
  if (!driver || !bus || info.driver.empty())
    throw ParseError("ethtool -i", 0, "no \"driver:\" and \"bus-info:\" lines: not ethtool -i output");
  return info;
}

InlineCrypto inline_crypto_capabilities(const EthtoolFeatures& f) {
  InlineCrypto c;
  c.ipsec = f.supports("esp-hw-offload");
  c.tls_tx = f.supports("tls-hw-tx-offload");
  c.tls_rx = f.supports("tls-hw-rx-offload");
  c.macsec = f.supports("macsec-hw-offload");
  return c;
}

} // namespace dpusim::calib
