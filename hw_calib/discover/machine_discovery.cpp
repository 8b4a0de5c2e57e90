#include "hw_calib/discover/machine_discovery.hpp"

#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/discover/bluefield_detection.hpp"
#include "hw_calib/discover/core_clock.hpp"
#include "hw_calib/discover/cpu_discovery.hpp"
#include "hw_calib/discover/network_discovery.hpp"
#include "hw_calib/parsers/inventory.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace dpusim::calib {
namespace {

namespace fs = std::filesystem;

void add_ethtool_features(MachineInfo& m, const DiscoverOptions& o) {
  if (m.nics.empty())
    return;
  if (!find_executable("ethtool")) {
    m.notes.emplace_back("ethtool not installed: inline-crypto features of the NICs were not read");
    return;
  }
  ProcessOptions po;
  po.timeout = o.tool_timeout;
  if (const auto v = run_process({"ethtool", "--version"}, po); v.ok())
    m.tools["ethtool"] = std::string(trim(v.out));
  for (auto& nic : m.nics) {
    const auto r = run_process({"ethtool", "-k", nic.name}, po);
    if (!r.ok())
      continue;
    try {
      nic.crypto = inline_crypto_capabilities(parse_ethtool_features(r.out));
    } catch (const ParseError& e) {
      m.notes.push_back(fmt::format("ethtool -k {}: {}", nic.name, e.what()));
    }
  }
}

void add_gpus(MachineInfo& m, const DiscoverOptions& o) {
  if (!find_executable("nvidia-smi")) {
    m.notes.emplace_back("nvidia-smi not found: no NVIDIA GPU reported");
    return;
  }
  ProcessOptions po;
  po.timeout = o.tool_timeout;
  const auto r = run_process(
      {"nvidia-smi", fmt::format("--query-gpu={}", kNvidiaSmiQueryFields), "--format=csv,nounits"}, po);
  if (!r.ok()) {
    m.notes.push_back(fmt::format("nvidia-smi failed ({}): {}", r.describe(), std::string(trim(r.err))));
    return;
  }
  try {
    m.gpus = parse_nvidia_smi_query(r.out);
    if (!m.gpus.empty())
      m.tools["nvidia-driver"] = m.gpus.front().driver_version;
  } catch (const ParseError& e) {
    m.notes.emplace_back(e.what());
  }
}

std::optional<MlxconfigQuery> query_mlxconfig(MachineInfo& m, const DiscoverOptions& o) {
  std::string pci;
  for (const auto& d : m.rdma) {
    if (!d.pci_slot.empty()) {
      pci = d.pci_slot;
      break;
    }
  }
  if (pci.empty() || !find_executable("mlxconfig") || ::geteuid() != 0)
    return std::nullopt;
  ProcessOptions po;
  po.timeout = o.tool_timeout;
  const auto r =
      run_process({"mlxconfig", "-d", pci, "q", "INTERNAL_CPU_MODEL", "INTERNAL_CPU_OFFLOAD_ENGINE"}, po);
  if (!r.ok()) {
    m.notes.push_back(fmt::format("mlxconfig -d {} q failed: {}", pci, r.describe()));
    return std::nullopt;
  }
  m.tools["mlxconfig"] = "present";
  return parse_mlxconfig_query(r.out);
}

// Runs one inventory tool and files what it prints under the machine keys `ingest` uses for its output.
void add_inventory(MachineInfo& m, const DiscoverOptions& o, const std::vector<std::string>& argv,
                   InputFormat format) {
  const std::string command = fmt::format("{}", fmt::join(argv, " "));
  if (!find_executable(argv.front()))
    return;
  ProcessOptions po;
  po.timeout = o.tool_timeout;
  const auto r = run_process(argv, po);
  if (!r.ok()) {
    m.notes.push_back(fmt::format("{} failed ({})", command, r.describe()));
    return;
  }
  try {
    for (auto& [k, v] : inventory_entries(format, r.out))
      m.inventory[k] = v;
  } catch (const ParseError& e) {
    m.notes.push_back(fmt::format("{}: {}", command, e.what()));
  }
}

void add_inventories(MachineInfo& m, const DiscoverOptions& o) {
  for (const auto& nic : m.nics)
    if (!nic.pci_slot.empty())
      add_inventory(m, o, {"ethtool", "-i", nic.name}, InputFormat::ethtool_driver);
  if (!m.gpus.empty())
    add_inventory(m, o, {"nvidia-smi", "topo", "-m"}, InputFormat::nvidia_smi_topo);
  if (!m.rdma.empty())
    add_inventory(m, o, {"ibv_devinfo"}, InputFormat::ibv_devinfo);
  if (m.cpu.architecture == "aarch64")
    add_inventory(m, o, {"bfver"}, InputFormat::bfver);
}

} // namespace

MachineInfo discover_machine(const DiscoverOptions& o) {
  MachineInfo m;
  const bool live = o.root == fs::path("/");
  std::string arch;
  if (live) {
    utsname u{};
    if (::uname(&u) == 0) {
      arch = u.machine;
      m.hostname = u.nodename;
      m.kernel = u.release;
    }
  } else {
    m.hostname = read_first_line(o.root / "proc/sys/kernel/hostname").value_or("");
    m.kernel = read_first_line(o.root / "proc/sys/kernel/osrelease").value_or("");
  }
  m.cpu = discover_cpu(o.root, arch);
  m.numa = discover_numa(o.root);
  m.nics = discover_nics(o.root);
  m.rdma = discover_rdma(o.root);
  if (m.rdma.empty())
    m.notes.emplace_back("no RDMA device (/sys/class/infiniband is empty or absent)");
  std::optional<MlxconfigQuery> mlx;
  if (o.run_tools && live) {
    add_ethtool_features(m, o);
    add_gpus(m, o);
    add_inventories(m, o);
    mlx = query_mlxconfig(m, o);
  }
  m.bluefield = detect_bluefield(m.cpu.architecture, read_platform_name(o.root), m.nics, m.rdma, mlx);
  m.role = m.bluefield.side == BlueFieldSide::arm ? "dpu_arm" : "host_cpu";
  if (o.measure_clock) {
    if (const auto clock = measure_core_clock(o.clock_duration))
      m.measured_core_clock_hz = clock->hz;
    else
      m.notes.push_back(
          fmt::format("core clock not measured: no measurement loop for {}", m.cpu.architecture));
  }
  return m;
}

} // namespace dpusim::calib
