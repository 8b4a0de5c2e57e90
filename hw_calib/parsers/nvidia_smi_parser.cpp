#include "hw_calib/parsers/nvidia_smi_parser.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

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
                         fmt::format("{} \"{}\" is not a number (use nounits)", key, v));
      return n;
    };
    auto integer = [&](const char* key) -> std::optional<int> {
      const auto n = num(key);
      return n ? std::optional<int>(static_cast<int>(*n)) : std::nullopt;
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

} // namespace dpusim::calib
