#include "sim/model/calibration_machine.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace dpusim::model {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

/// The words of `s` that hold a digit, lower case, trademarks and punctuation around them dropped.
std::vector<std::string> model_tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string word;
  const auto keep = [&out](const std::string& w) {
    if (w.size() >= 3 && std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isdigit(c); }))
      out.push_back(lower(w));
  };
  // A hyphenated word whole ("connectx-7") and its parts ("a100-sxm4-80gb": "a100", "sxm4", "80gb").
  const auto flush = [&] {
    while (!word.empty() && (word.back() == '-' || word.back() == '.'))
      word.pop_back();
    keep(word);
    if (word.find('-') != std::string::npos)
      for (std::size_t from = 0; from <= word.size();) {
        const auto dash = std::min(word.find('-', from), word.size());
        keep(word.substr(from, dash - from));
        from = dash + 1;
      }
    word.clear();
  };
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || ((c == '-' || c == '.') && !word.empty()))
      word += c;
    else
      flush();
  }
  flush();
  return out;
}

} // namespace

bool names_the_part(std::string_view reported, std::string_view catalog_description) {
  const auto description = model_tokens(catalog_description);
  for (const auto& t : model_tokens(reported))
    if (std::find(description.begin(), description.end(), t) != description.end())
      return true;
  return false;
}

std::vector<std::string> machine_differences(const calibration::Profile& profile,
                                             const scenario::Hardware& hw) {
  std::vector<std::string> out;
  const auto said = [&](const std::string& what, const std::string& reported, const std::string& entry,
                        const std::string& description) {
    if (reported.empty() || names_the_part(reported, description))
      return;
    out.push_back(
        fmt::format("the calibration profile's {} is reported as \"{}\", not the scenario's {} ({}): "
                    "its measured figures are applied as they are; measure on the parts you simulate "
                    "to rely on them",
                    what, reported, entry, description));
  };
  const auto& m = profile.machine;
  if (profile.role == "host_cpu")
    if (const auto it = m.find("cpu.model"); it != m.end())
      said("host CPU", it->second, hw.cpu.name, hw.cpu.description);
  for (const auto& [key, value] : m) {
    // gpu.<index>.name, from nvidia-smi; one sentence for the first GPU that differs.
    if (key.rfind("gpu.", 0) == 0 && key.size() > 9 && key.compare(key.size() - 5, 5, ".name") == 0) {
      const auto before = out.size();
      said("GPU", value, hw.gpu.name, hw.gpu.description);
      if (out.size() != before)
        break;
    }
  }
  if (hw.nic.kind == catalog::DeviceKind::nic)
    for (const auto& [key, value] : m) {
      // nic.<name>.pci_id: "15b3:1021 (ConnectX-7)", the device's name from the PCI ID.
      const auto open = value.find('(');
      if (key.rfind("nic.", 0) != 0 || key.size() < 7 || key.compare(key.size() - 7, 7, ".pci_id") != 0 ||
          open == std::string::npos)
        continue;
      said("NIC", value.substr(open + 1, value.find(')', open) - open - 1), hw.nic.name, hw.nic.description);
      break;
    }
  return out;
}

} // namespace dpusim::model
