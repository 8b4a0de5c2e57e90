#include "sim/report/switches.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

namespace dpusim::report {

bool moves_step(const Switched& s, double first_step_s) {
  return s.change_s && std::abs(*s.change_s) >= kNamedShare * first_step_s;
}

bool named(const PairSwitches* p, std::string_view thing, double first_step_s) {
  if (p == nullptr)
    return false;
  for (const auto& s : p->switched)
    if (s.thing == thing)
      return moves_step(s, first_step_s);
  return false;
}

namespace {

std::string where(const std::string& value) {
  return value == "host"      ? std::string("the host")
         : value == "nic"     ? std::string("the NIC")
         : value == "dpu_arm" ? std::string("its Arm cores")
                              : "the " + value;
}

std::string what(const Switched& s, const std::string& first) {
  return s.thing == "device" ? fmt::format("{} ({}: {})", where(s.to), first, where(s.from))
                             : fmt::format("{} on {} ({}: {})", s.thing, where(s.to), first, where(s.from));
}

} // namespace

std::string render_switches(const PairSwitches& p, double first_step_s, double total_s) {
  if (p.switched.empty())
    return {};
  std::vector<std::string> items;
  double sum = 0;
  bool all = true;
  for (const auto& s : p.switched) {
    sum += s.change_s.value_or(0.0);
    all = all && s.change_s.has_value();
    std::string item = what(s, p.first);
    if (!s.change_s)
      item += fmt::format(": cannot run alone ({})", s.why_not);
    else
      item += fmt::format(" {:+.4f} s ({:+.1f}%{}{})", *s.change_s, 100 * *s.change_s / first_step_s,
                          s.back ? fmt::format(", as {} with it back", p.second) : std::string(),
                          moves_step(s, first_step_s) ? std::string() : ": nothing by itself");
    items.push_back(std::move(item));
  }
  std::string out = fmt::format(" What differs, each switched alone from {} towards {}: {}.", p.first,
                                p.second, fmt::join(items, "; "));
  // Things that act together (a tenant's QoS matters only once the transport leaves the host CPU): the
  // part of the difference no thing makes alone.
  if (all && p.switched.size() > 1 && std::abs(total_s - sum) >= kNamedShare * first_step_s)
    out +=
        fmt::format(" Together they move it {:+.4f} s ({:+.1f}%) beyond the sum of each alone: one matters "
                    "only with another.",
                    total_s - sum, 100 * (total_s - sum) / first_step_s);
  return out;
}

} // namespace dpusim::report
