#include "hw_calib/parsers/inventory.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/device_tools_parser.hpp"
#include "hw_calib/parsers/ethtool_parser.hpp"
#include "hw_calib/parsers/nvidia_smi_parser.hpp"
#include "hw_calib/parsers/rdma_tools_parser.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dpusim::calib {

std::map<std::string, std::string> inventory_entries(InputFormat format, std::string_view text) {
  std::map<std::string, std::string> machine;
  switch (format) {
  case InputFormat::ethtool_features: {
    const auto e = parse_ethtool_features(text);
    machine["nic." + key_part(e.interface) + ".inline_crypto"] = inline_crypto_capabilities(e).describe();
    break;
  }
  case InputFormat::ethtool_driver: {
    const auto e = parse_ethtool_driver_info(text);
    const std::string p = "pci." + key_part(e.bus_info) + ".";
    machine[p + "driver"] = e.driver;
    if (!e.version.empty())
      machine[p + "driver_version"] = e.version;
    if (!e.firmware_version.empty())
      machine[p + "firmware"] = e.firmware_version;
    break;
  }
  case InputFormat::nvidia_smi_query:
  case InputFormat::nvidia_smi_table: {
    const auto gpus =
        format == InputFormat::nvidia_smi_query ? parse_nvidia_smi_query(text) : parse_nvidia_smi_table(text);
    for (const auto& g : gpus) {
      const std::string p = fmt::format("gpu.{}.", g.index);
      machine[p + "name"] = g.name;
      if (!g.pci_bus_id.empty())
        machine[p + "pci"] = g.pci_bus_id;
      if (g.memory_total_bytes)
        machine[p + "memory"] = fmt::format("{:g}GiB", *g.memory_total_bytes / 1073741824.0);
      if (!g.driver_version.empty())
        machine["gpu.driver"] = g.driver_version;
    }
    machine["gpu.count"] = std::to_string(gpus.size());
    break;
  }
  case InputFormat::nvidia_smi_topo: {
    const auto t = parse_nvidia_smi_topo(text);
    for (const auto& d : t.devices) {
      if (!starts_with(d, "GPU"))
        continue;
      const std::string p = "gpu." + d.substr(3) + ".";
      const auto nics = closest_nics(t, d);
      if (!nics.empty()) {
        machine[p + "closest_nics"] = fmt::format("{}", fmt::join(nics, " "));
        // The level of the first of them ("PIX": the same PCIe switch as the GPU).
        for (const auto& [col, level] : t.link.at(d))
          if (!starts_with(col, "GPU") &&
              (t.nic_names.contains(col) ? t.nic_names.at(col) : col) == nics.front())
            machine[p + "nic_path"] = level;
      }
      for (const auto& [col, level] : t.link.at(d))
        if (starts_with(col, "GPU") && starts_with(level, "NV")) {
          machine[p + "nvlink"] = level;
          break;
        }
      if (t.cpu_affinity.contains(d))
        machine[p + "cpu_affinity"] = t.cpu_affinity.at(d);
      if (t.numa_affinity.contains(d))
        machine[p + "numa_node"] = t.numa_affinity.at(d);
    }
    break;
  }
  case InputFormat::ibv_devinfo:
  case InputFormat::ibstat: {
    const bool devinfo = format == InputFormat::ibv_devinfo;
    const auto devices = devinfo ? parse_ibv_devinfo(text) : parse_ibstat(text);
    for (const auto& d : devices) {
      const std::string p = "rdma." + key_part(d.name) + ".";
      const char* fw = devinfo ? "fw_ver" : "Firmware version";
      if (d.fields.contains(fw))
        machine[p + "firmware"] = d.fields.at(fw);
      if (devinfo && d.fields.contains("board_id"))
        machine[p + "board_id"] = d.fields.at("board_id");
      if (!devinfo && d.fields.contains("CA type"))
        machine[p + "hca_type"] = d.fields.at("CA type");
      for (const auto& port : d.ports) {
        const std::string pp = fmt::format("{}port{}.", p, port.number);
        auto put = [&](const char* field, const char* key) {
          if (port.fields.contains(field))
            machine[pp + key] = port.fields.at(field);
        };
        if (devinfo) {
          put("state", "state");
          put("active_mtu", "active_mtu");
          put("link_layer", "link_layer");
          put("active_width", "active_width");
          put("active_speed", "active_speed");
        } else {
          put("State", "state");
          put("Link layer", "link_layer");
          if (port.fields.contains("Rate"))
            machine[pp + "rate"] = port.fields.at("Rate") + "Gbps";
        }
      }
    }
    break;
  }
  case InputFormat::mst_status: {
    for (const auto& d : parse_mst_status(text)) {
      const std::string p = "mst." + key_part(d.pci) + ".";
      machine[p + "type"] = d.type;
      if (!d.rdma.empty())
        machine[p + "rdma"] = d.rdma;
      if (!d.net.empty())
        machine[p + "net"] = d.net.substr(4);
      if (!d.numa.empty())
        machine[p + "numa_node"] = d.numa;
      if (starts_with(d.type, "BlueField")) {
        const auto gen = d.type.substr(9, d.type.find('(') - 9);
        machine["bluefield.generation"] = fmt::format("BlueField-{}", gen.empty() ? "1" : gen);
      }
    }
    break;
  }
  case InputFormat::bfver: {
    // The first partition's versions as bluefield.versions.*, each partition's under its name.
    const auto words = [](std::string k) {
      std::replace(k.begin(), k.end(), ' ', '_');
      return k;
    };
    for (const auto& [key, value] : parse_bfver(text)) {
      const auto dot = key.find('.');
      if (key == "boot partition")
        machine["bluefield.boot_partition"] = value;
      else if (key == "OS release" || key == "Yocto release")
        machine["bluefield.os_release"] = value;
      else if (key.starts_with("partitions."))
        machine["bluefield.partitions." + key_part(key.substr(11)) + ".path"] = value;
      else if (dot != std::string::npos)
        machine["bluefield.partitions." + key_part(key.substr(0, dot)) + "." + words(key.substr(dot + 1))] =
            value;
      else
        machine["bluefield.versions." + words(key)] = value;
    }
    break;
  }
  default:
    break;
  }
  return machine;
}

} // namespace dpusim::calib
