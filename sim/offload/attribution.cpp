#include "sim/offload/attribution.hpp"

#include <fmt/format.h>

namespace dpusim::offload {

std::vector<FunctionMove> function_moves(const Variant& base, const Variant& target,
                                         const Requirements& req) {
  std::vector<FunctionMove> out;
  for (auto f : kFunctions) {
    if (!matters(f, req) || base.placement[f] == target.placement[f])
      continue;
    FunctionMove m{f, base.placement[f], target.placement[f], base, target};
    m.alone.placement.set(f, m.to);
    m.alone.name = fmt::format("{}+{}={}", base.name, function_name(f), site_name(m.to));
    m.alone.summary =
        fmt::format("{} with only {} moved to {}", base.name, function_name(f), site_name(m.to));
    m.alone.on_dpu = target.on_dpu;
    m.last.placement.set(f, m.from);
    m.last.name = fmt::format("{}+{}={}", target.name, function_name(f), site_name(m.from));
    m.last.summary = fmt::format("{} with {} back on {}", target.name, function_name(f), site_name(m.from));
    out.push_back(std::move(m));
  }
  return out;
}

} // namespace dpusim::offload

namespace dpusim::offload {

std::string Difference::thing() const {
  return function ? std::string(function_name(*function)) : std::string("device");
}

std::vector<Difference> differences(const Variant& a, const Variant& b, const Requirements& req) {
  std::vector<Difference> out;
  for (auto f : kFunctions)
    if (matters(f, req) && a.placement[f] != b.placement[f])
      out.push_back({f, a.placement[f], b.placement[f], a.on_dpu, b.on_dpu});
  if (a.on_dpu != b.on_dpu)
    out.push_back({std::nullopt, Site::host, Site::host, a.on_dpu, b.on_dpu});
  return out;
}

Variant switched(const Variant& v, const Difference& d, bool to_second) {
  Variant out = v;
  out.moved.clear();
  if (d.function) {
    const Site site = to_second ? d.to : d.from;
    out.placement.set(*d.function, site);
    out.name = fmt::format("{}+{}={}", v.name, function_name(*d.function), site_name(site));
    out.summary = fmt::format("{} with only {} on {}", v.name, function_name(*d.function), site_name(site));
  } else {
    out.on_dpu = to_second ? d.to_dpu : d.from_dpu;
    out.name = fmt::format("{}+device={}", v.name, out.on_dpu ? "dpu" : "nic");
    out.summary = fmt::format("{} on the {}", v.name, out.on_dpu ? "DPU" : "NIC");
  }
  return out;
}

} // namespace dpusim::offload
