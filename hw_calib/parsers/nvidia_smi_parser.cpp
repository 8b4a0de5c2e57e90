#include "hw_calib/parsers/nvidia_smi_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>

namespace dpusim::calib {

std::vector<NvidiaGpu> parse_nvidia_smi_query(std::string_view text) {
  const auto lines = split_lines(text);
  std::map<std::string, std::size_t> col;
  std::vector<NvidiaGpu> gpus;
  std::size_t ncols = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i + 1);
    if (trim(lines[i]).empty())
      continue;
    const auto fields = split_on(lines[i], ',');
    if (col.empty()) {
      for (std::size_t k = 0; k < fields.size(); ++k) {
        auto name = trim(fields[k]);
        if (const auto b = name.find(" ["); b != std::string_view::npos)
          name = name.substr(0, b);
        col[std::string(name)] = k;
      }
      if (!col.contains("name") || !col.contains("index"))
        throw ParseError("nvidia-smi", line_no,
                         "expected a CSV header with \"index\" and \"name\" (run with --format=csv,nounits)");
      ncols = fields.size();
      continue;
    }
    if (fields.size() != ncols)
      throw ParseError("nvidia-smi", line_no,
                       fmt::format("expected {} fields, found {}", ncols, fields.size()));
    auto text_of = [&](const char* key) -> std::string {
      const auto it = col.find(key);
      if (it == col.end())
        return {};
      const auto v = trim(fields[it->second]);
      if (v.empty() || v.front() == '[') // [N/A], [Not Supported]
        return {};
      return std::string(v);
    };
    auto num = [&](const char* key) -> std::optional<double> {
      const std::string v = text_of(key);
      if (v.empty())
        return std::nullopt;
      const auto n = parse_number(v);
      if (!n)
        throw ParseError("nvidia-smi", line_no,
                         fmt::format("{} \"{}\" is not a number (use nounits)", key, excerpt(v)));
      return n;
    };
    // A whole number a GPU's field can hold (an index, a PCIe generation or width): anything else is not
    // nvidia-smi's output.
    auto integer = [&](const char* key) -> std::optional<int> {
      const auto n = num(key);
      if (!n)
        return std::nullopt;
      if (!(*n >= 0 && *n <= 1e6 && *n == std::floor(*n)))
        throw ParseError("nvidia-smi", line_no,
                         fmt::format("{} {} is not a whole number from 0 to 1000000", key, *n));
      return static_cast<int>(*n);
    };
    NvidiaGpu g;
    g.index = integer("index").value_or(static_cast<int>(gpus.size()));
    g.name = text_of("name");
    g.pci_bus_id = text_of("pci.bus_id");
    if (const auto m = num("memory.total"))
      g.memory_total_bytes = *m * 1048576.0;
    g.pcie_gen_current = integer("pcie.link.gen.current");
    g.pcie_gen_max = integer("pcie.link.gen.max");
    g.pcie_width_current = integer("pcie.link.width.current");
    g.pcie_width_max = integer("pcie.link.width.max");
    if (const auto c = num("clocks.max.sm"))
      g.max_sm_clock_hz = *c * 1e6;
    g.power_limit_w = num("power.limit");
    g.driver_version = text_of("driver_version");
    gpus.push_back(std::move(g));
  }
  if (col.empty())
    throw ParseError("nvidia-smi", 0, "empty output");
  return gpus;
}

std::vector<NvidiaGpu> parse_nvidia_smi_table(std::string_view text) {
  constexpr const char* kTool = "nvidia-smi";
  const auto lines = split_lines(text);
  std::string driver;
  bool banner = false;
  std::vector<NvidiaGpu> gpus;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    if (line.find("NVIDIA-SMI") != std::string_view::npos) {
      banner = true;
      if (const auto d = line.find("Driver Version:"); d != std::string_view::npos) {
        const auto f = split_whitespace(line.substr(d + 15));
        if (!f.empty())
          driver = std::string(f[0]);
      }
      continue;
    }
    if (line.find("Processes:") != std::string_view::npos)
      break;
    if (!banner || !starts_with(line, "|"))
      continue;
    const auto cells = split_on(line, '|');
    if (cells.size() < 4)
      continue;
    const auto first = split_whitespace(cells[1]);
    if (first.size() < 3 || !parse_integer(first[0]))
      continue;
    // "   0  NVIDIA H100 80GB HBM3          On  ": index, name, persistence mode.
    NvidiaGpu g;
    g.index = static_cast<int>(*parse_integer(first[0]));
    std::string name;
    for (std::size_t k = 1; k + 1 < first.size(); ++k)
      name += (name.empty() ? "" : " ") + std::string(first[k]);
    g.name = name;
    const auto bus = split_whitespace(cells[2]);
    if (!bus.empty())
      g.pci_bus_id = std::string(bus[0]);
    g.driver_version = driver;
    // The box's second line: "| N/A   27C    P0    69W / 700W |      4MiB / 81559MiB | ... |".
    if (i + 1 >= lines.size())
      throw ParseError(kTool, static_cast<int>(i + 1),
                       fmt::format("the box of GPU {} ends after its first line (cut short?)", g.index));
    const auto next = split_on(trim(lines[i + 1]), '|');
    if (next.size() < 4)
      throw ParseError(kTool, static_cast<int>(i + 2),
                       fmt::format("expected the power and memory line of GPU {}", g.index));
    const auto memory = split_whitespace(next[2]);
    if (memory.size() >= 3 && memory[2].ends_with("MiB"))
      if (const auto m = parse_number(memory[2].substr(0, memory[2].size() - 3)))
        g.memory_total_bytes = *m * 1048576.0;
    const auto power = next[1].find('/');
    if (power != std::string_view::npos) {
      const auto f = split_whitespace(next[1].substr(power + 1));
      if (!f.empty() && f[0].ends_with("W"))
        g.power_limit_w = parse_number(f[0].substr(0, f[0].size() - 1));
    }
    gpus.push_back(std::move(g));
    ++i;
  }
  if (!banner)
    throw ParseError(kTool, 0, "no \"NVIDIA-SMI ... Driver Version\" banner");
  if (gpus.empty())
    throw ParseError(kTool, 0, "no GPU box (\"|   0  <name> ... | <bus id> ...\") before the processes");
  return gpus;
}

} // namespace dpusim::calib
