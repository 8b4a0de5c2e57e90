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
