// The RDMA devices as rdma-core and infiniband-diags print them: `ibv_devinfo [-v]` ("hca_id: mlx5_0",
// then "key: value" lines, "port: 1" blocks with state, active_mtu, link_layer; libibverbs/examples/
// devinfo.c) and `ibstat` ("CA 'mlx5_0'", "Firmware version: ...", "Port 1:" blocks with State, Rate,
// Link layer; infiniband-diags/ibstat.c). Both give, per device, the firmware and, per port, the state,
// the link layer, the active MTU (ibv_devinfo) and the rate (ibstat, in Gb/s).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct RdmaToolPort {
  int number = 0;
  std::map<std::string, std::string> fields; // "state" -> "PORT_ACTIVE (4)", "Rate" -> "400", ...
};

struct RdmaToolDevice {
  std::string name;                          // "mlx5_0"
  std::map<std::string, std::string> fields; // "fw_ver" / "Firmware version" -> ...
  std::vector<RdmaToolPort> ports;
};

/// Throws ParseError when there is no "hca_id:" line or a device has no port.
std::vector<RdmaToolDevice> parse_ibv_devinfo(std::string_view text);
/// Throws ParseError when there is no "CA '<name>'" line or a device has no port.
std::vector<RdmaToolDevice> parse_ibstat(std::string_view text);

} // namespace dpusim::calib
