#include "hw_calib/discover/cpu_discovery.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/discover/system_root.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <set>
#include <utility>

namespace dpusim::calib {
namespace {

namespace fs = std::filesystem;

// "key : value" lines of the first processor block (and the model name, which is per block).
std::vector<std::pair<std::string, std::string>> cpuinfo_fields(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto line : split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      continue;
    out.emplace_back(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
  return out;
}

std::string first_value(const std::vector<std::pair<std::string, std::string>>& fields,
                        std::string_view key) {
  for (const auto& [k, v] : fields) {
    if (k == key)
      return v;
  }
  return {};
}

bool is_cpu_dir(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > 3 && name.compare(0, 3, "cpu") == 0 &&
         std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

std::string_view arm_part_name(std::string_view part) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kParts{{
      {"0xd08", "Cortex-A72"},
      {"0xd0c", "Neoverse-N1"},
      {"0xd40", "Neoverse-V1"},
      {"0xd41", "Cortex-A78"},
      {"0xd42", "Cortex-A78AE"},
      {"0xd44", "Cortex-X1"},
      {"0xd49", "Neoverse-N2"},
      {"0xd4f", "Neoverse-V2"},
      {"0xd8e", "Neoverse-N3"},
      {"0xd84", "Neoverse-V3"},
  }};
  const std::string p = to_lower(trim(part));
  for (const auto& [id, name] : kParts) {
    if (id == p)
      return name;
  }
  return {};
}

CpuInfo discover_cpu(const fs::path& root, std::string_view architecture) {
  CpuInfo cpu;
  const auto cpuinfo = read_text_file(under_root(root, "/proc/cpuinfo")).value_or("");
  const auto fields = cpuinfo_fields(cpuinfo);
  const std::string implementer = first_value(fields, "CPU implementer");
  cpu.architecture = !architecture.empty()                       ? std::string(architecture)
                     : !implementer.empty()                      ? "aarch64"
                     : !first_value(fields, "vendor_id").empty() ? "x86_64"
                                                                 : "unknown";
  if (!implementer.empty()) {
    cpu.vendor = implementer == "0x41" ? "ARM" : fmt::format("implementer {}", implementer);
    const std::string part = first_value(fields, "CPU part");
    const auto name = arm_part_name(part);
    cpu.model = !name.empty() ? std::string(name) : fmt::format("Arm part {}", part);
  } else {
    cpu.vendor = first_value(fields, "vendor_id");
    cpu.model = first_value(fields, "model name");
  }
  if (const auto mhz = parse_number(first_value(fields, "cpu MHz")))
    cpu.reported_frequency_hz = *mhz * 1e6;
  // Crypto-relevant ISA features: x86 "flags", Arm "Features".
  std::string flags = first_value(fields, "flags");
  if (flags.empty())
    flags = first_value(fields, "Features");
  static constexpr std::array<std::string_view, 10> kCrypto{
      "aes", "vaes", "pclmulqdq", "vpclmulqdq", "sha_ni", "avx512f", "pmull", "sha2", "sha3", "sve"};
  const auto tokens = split_whitespace(flags);
  for (const auto want : kCrypto) {
    if (std::find(tokens.begin(), tokens.end(), want) != tokens.end())
      cpu.crypto_features.emplace_back(want);
  }

  // Topology: logical CPUs that are online; physical cores = distinct (package, core) pairs.
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> packages;
  std::error_code ec;
  const fs::path cpu_root = under_root(root, "/sys/devices/system/cpu");
  for (const auto& entry : fs::directory_iterator(cpu_root, ec)) {
    if (!is_cpu_dir(entry.path()))
      continue;
    const auto online = read_first_line(entry.path() / "online");
    if (online && *online == "0")
      continue;
    ++cpu.logical_cpus;
    const auto core = read_first_line(entry.path() / "topology/core_id");
    const auto pkg = read_first_line(entry.path() / "topology/physical_package_id");
    if (core && pkg) {
      cores.emplace(*pkg, *core);
      packages.insert(*pkg);
    }
  }
  if (cpu.logical_cpus == 0) {
    // No sysfs topology (containers may hide it): count processor blocks.
    for (const auto& [k, v] : fields) {
      if (k == "processor")
        ++cpu.logical_cpus;
    }
  }
  cpu.physical_cores = cores.empty() ? cpu.logical_cpus : static_cast<int>(cores.size());
  cpu.sockets = packages.empty() ? 1 : static_cast<int>(packages.size());
  if (const auto khz = read_first_line(cpu_root / "cpu0/cpufreq/cpuinfo_max_freq"))
    if (const auto v = parse_number(*khz))
      cpu.max_frequency_hz = *v * 1e3;
  return cpu;
}

std::vector<NumaNode> discover_numa(const fs::path& root) {
  std::vector<NumaNode> nodes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(under_root(root, "/sys/devices/system/node"), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 5 || name.compare(0, 4, "node") != 0)
      continue;
    const auto id = parse_integer(std::string_view(name).substr(4));
    if (!id)
      continue;
    NumaNode node;
    node.id = static_cast<int>(*id);
    node.cpus = read_first_line(entry.path() / "cpulist").value_or("");
    // "Node 0 MemTotal:       32768000 kB"
    const std::string meminfo = read_text_file(entry.path() / "meminfo").value_or("");
    for (const auto line : split_lines(meminfo)) {
      const auto f = split_whitespace(line);
      if (f.size() >= 4 && f[2] == "MemTotal:")
        if (const auto kb = parse_number(f[3]))
          node.memory_bytes = *kb * 1024.0;
    }
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(), [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return nodes;
}

} // namespace dpusim::calib
