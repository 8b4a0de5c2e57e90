#include "hw_calib/parsers/device_tools_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace dpusim::calib {

GpuTopology parse_nvidia_smi_topo(std::string_view text) {
  constexpr const char* kTool = "nvidia-smi topo -m";
  GpuTopology t;
  const auto lines = split_lines(text);
  bool header = false, legend = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    const int line_no = static_cast<int>(i + 1);
    if (line.empty())
      continue;
    if (starts_with(line, "Legend:") || starts_with(line, "NIC Legend:")) {
      legend = true;
      continue;
    }
    const auto f = split_whitespace(line);
    if (legend) {
      // "NIC0: mlx5_0"
      if (f.size() == 2 && f[0].ends_with(":") && starts_with(f[0], "NIC"))
        t.nic_names[std::string(f[0].substr(0, f[0].size() - 1))] = std::string(f[1]);
      continue;
    }
    if (!header) {
      if (f.empty() || f[0] != "GPU0")
        continue; // text before the matrix
      for (const auto name : f) {
        if (name == "CPU")
          break; // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"
        t.devices.emplace_back(name);
      }
      header = true;
      continue;
    }
    if (f.empty() || std::find(t.devices.begin(), t.devices.end(), f[0]) == t.devices.end())
      throw ParseError(kTool, line_no,
                       fmt::format("expected a row of a device of the header ({} ...), found \"{}\"",
                                   t.devices.front(), excerpt(line)));
    if (f.size() < t.devices.size() + 1)
      throw ParseError(kTool, line_no,
                       fmt::format("expected {} entries after {}, found {} (cut short?)", t.devices.size(),
                                   excerpt(f[0]), f.size() - 1));
    const std::string row(f[0]);
    for (std::size_t k = 0; k < t.devices.size(); ++k)
      t.link[row][t.devices[k]] = std::string(f[k + 1]);
    if (f.size() > t.devices.size() + 1)
      t.cpu_affinity[row] = std::string(f[t.devices.size() + 1]);
    if (f.size() > t.devices.size() + 2)
      t.numa_affinity[row] = std::string(f[t.devices.size() + 2]);
  }
  if (!header || t.link.empty())
    throw ParseError(kTool, 0, "no matrix (a header starting with GPU0, then a row per device)");
  for (const auto& d : t.devices)
    if (!t.link.contains(d))
      throw ParseError(kTool, 0,
                       fmt::format("the matrix has no row for {}: the output is incomplete", excerpt(d)));
  return t;
}

std::vector<std::string> closest_nics(const GpuTopology& topo, const std::string& gpu) {
  const auto row = topo.link.find(gpu);
  if (row == topo.link.end())
    return {};
  for (const char* level : {"PIX", "PXB", "PHB"}) {
    std::vector<std::string> out;
    for (const auto& d : topo.devices) {
      if (starts_with(d, "GPU"))
        continue;
      const auto it = row->second.find(d);
      if (it != row->second.end() && it->second == level) {
        const auto name = topo.nic_names.find(d);
        out.push_back(name == topo.nic_names.end() ? d : name->second);
      }
    }
    if (!out.empty())
      return out;
  }
  return {};
}

std::vector<MstDevice> parse_mst_status(std::string_view text) {
  constexpr const char* kTool = "mst status -v";
  std::vector<MstDevice> out;
  const auto lines = split_lines(text);
  std::vector<std::string> columns;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.empty() || starts_with(line, "---"))
      continue;
    const auto f = split_whitespace(line);
    if (columns.empty()) {
      if (!f.empty() && f[0] == "DEVICE_TYPE")
        for (const auto c : f)
          columns.emplace_back(c);
      continue;
    }
    if (f.size() < 3)
      continue;
    // Columns may be empty (no RDMA device bound, no netdev): the PCI address and the names are told
    // apart by their shape rather than by position.
    MstDevice d;
    d.type = std::string(f[0]);
    for (std::size_t k = 1; k < f.size(); ++k) {
      const auto v = f[k];
      if (starts_with(v, "/dev/mst/") || starts_with(v, "mt"))
        d.mst = std::string(v);
      else if (v.find(':') != std::string_view::npos && v.find('.') != std::string_view::npos &&
               d.pci.empty())
        d.pci = std::string(v);
      else if (starts_with(v, "mlx") || starts_with(v, "ibp") || starts_with(v, "rocep"))
        d.rdma = std::string(v);
      else if (starts_with(v, "net-"))
        d.net = std::string(v);
      else if (parse_integer(v) || v == "-1")
        d.numa = std::string(v);
    }
    if (d.pci.empty())
      throw ParseError(kTool, static_cast<int>(i + 1),
                       fmt::format("a device row without a PCI address: \"{}\"", excerpt(line)));
    out.push_back(std::move(d));
  }
  if (columns.empty())
    throw ParseError(
        kTool, 0,
        "no \"DEVICE_TYPE MST PCI RDMA NET NUMA\" header: give the output of mst status -v (plain mst "
        "status does not name the PCI functions)");
  if (out.empty())
    throw ParseError(kTool, 0, "the device table has no rows (is mst started?)");
  return out;
}

std::map<std::string, std::string> parse_bfver(std::string_view text) {
  // The layout of bfver (Mellanox/bfscripts, bfver at 2c42ba6): for each boot partition or file it reads,
  // a line "--<path>" and "BlueField <component> version: <version>" lines (ATF, UEFI, BSP); a
  // BlueField-4 prints "BlueField SBIOS version:" and "BlueField SBIOS release date:" without a path;
  // then "OS Release Version: <bundle>" (or "Yocto Release Version:"). Blank lines separate them.
  std::map<std::string, std::string> out;
  std::string block;     // the current partition's or file's name: "mmcblk0boot1"
  std::string first;     // the first block's name
  bool versions = false; // a component version was read
  const auto name_of = [](std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
  };
  for (const auto raw : split_lines(text)) {
    const auto line = trim(raw);
    if (line.empty())
      continue;
    if (starts_with(line, "--") && line.size() > 2) {
      block = name_of(trim(line.substr(2)));
      if (block.empty())
        throw ParseError("bfver", 0, fmt::format("a partition line without a path: \"{}\"", line));
      if (out.contains("partitions." + block))
        throw ParseError("bfver", 0, fmt::format("{} is printed twice", block));
      out["partitions." + block] = std::string(trim(line.substr(2)));
      if (first.empty())
        first = block;
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      continue;
    const auto key = trim(line.substr(0, colon));
    const auto value = std::string(trim(line.substr(colon + 1)));
    if (starts_with(key, "BlueField ") && (key.ends_with(" version") || key.ends_with(" release date"))) {
      std::string component(trim(key.substr(10)));
      if (component.ends_with(" version"))
        component.resize(component.size() - 8);
      versions = true;
      // The first block's (bfver alone prints the primary partition's only) plainly, every block's under
      // its name.
      if (block.empty() || block == first)
        out[component] = value;
      if (!block.empty())
        out[block + "." + component] = value;
    } else if (key == "OS Release Version" || key == "Yocto Release Version") {
      out[key == "OS Release Version" ? "OS release" : "Yocto release"] = value;
    }
  }
  if (!versions)
    throw ParseError(
        "bfver", 0,
        "no \"BlueField <component> version: <version>\" line (ATF, UEFI, BSP or SBIOS): not bfver "
        "output");
  if (!first.empty())
    out["boot partition"] = first;
  return out;
}

} // namespace dpusim::calib
