// `ethtool -k IFACE` (show features): "name: on|off" with optional " [fixed]" (cannot be changed) or
// " [requested on]" annotations; child features are indented by a tab. From it, the inline-crypto
// capabilities of a NIC: IPsec crypto offload (esp-hw-offload), kTLS offload (tls-hw-tx/rx-offload) and
// MACsec offload (macsec-hw-offload).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace dpusim::calib {

struct EthtoolFeature {
  bool on = false;
  bool fixed = false; // "[fixed]": the driver cannot change it (off [fixed] = not supported)
};

struct EthtoolFeatures {
  std::string interface;
  std::map<std::string, EthtoolFeature> features;
  /// Present and not "off [fixed]": the hardware can do it (it may be switched off).
  [[nodiscard]] bool supports(const std::string& name) const;
  [[nodiscard]] bool enabled(const std::string& name) const;
};

struct InlineCrypto {
  bool ipsec = false;  // esp-hw-offload
  bool tls_tx = false; // tls-hw-tx-offload
  bool tls_rx = false; // tls-hw-rx-offload
  bool macsec = false; // macsec-hw-offload
  [[nodiscard]] bool any() const { return ipsec || tls_tx || tls_rx || macsec; }
  /// "ipsec, tls-tx" or "none".
  [[nodiscard]] std::string describe() const;
};

/// `ethtool -i IFACE` (driver information): "driver: mlx5_core", "version: ...",
/// "firmware-version: 28.39.1002 (MT_0000000838)", "bus-info: 0000:3b:00.0" and the supports-* lines
/// (ethtool.c dump_drvinfo).
struct EthtoolDriverInfo {
  std::string driver;
  std::string version;
  std::string firmware_version;
  std::string bus_info;
};
/// Throws ParseError without the "driver:" and "bus-info:" lines.
EthtoolDriverInfo parse_ethtool_driver_info(std::string_view text);

/// Throws ParseError when the text is not `ethtool -k` output.
EthtoolFeatures parse_ethtool_features(std::string_view text);
InlineCrypto inline_crypto_capabilities(const EthtoolFeatures& features);

} // namespace dpusim::calib
