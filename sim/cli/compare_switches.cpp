#include "sim/cli/compare_switches.hpp"

namespace dpusim::cli {

std::vector<PendingPair> plan_switches(const std::vector<offload::Variant>& variants, std::size_t compared,
                                       const offload::Requirements& req, const ScheduleVariant& schedule) {
  std::vector<std::pair<std::size_t, std::size_t>> explained;
  for (std::size_t t = 1; t < compared; ++t)
    explained.emplace_back(0, t);
  // The plain RDMA NIC, whatever the scenario calls it (report::explain compares DPUs with it).
  const auto nic = offload::parse_variant("rdma-nic").placement;
  for (std::size_t n = 1; n < compared; ++n)
    if (!variants[n].on_dpu && variants[n].placement == nic) {
      for (std::size_t t = 1; t < compared; ++t)
        if (variants[t].on_dpu)
          explained.emplace_back(n, t);
      break;
    }
  std::vector<PendingPair> out;
  for (const auto& [a, b] : explained) {
    PendingPair p{a, b, {}};
    const auto diffs = offload::differences(variants[a], variants[b], req);
    for (const auto& d : diffs) {
      PendingSwitch ps{d, std::nullopt, false, {}};
      if (diffs.size() == 1) {
        ps.run = b; // the one thing that differs, switched alone, is the second variant itself
      } else {
        std::string why;
        ps.run = schedule(offload::switched(variants[a], d, true), why);
        if (!ps.run) {
          std::string why_back;
          ps.run = schedule(offload::switched(variants[b], d, false), why_back);
          ps.back = ps.run.has_value();
          if (!ps.run)
            ps.why_not = why;
        }
      }
      p.switches.push_back(std::move(ps));
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<report::PairSwitches> measured_switches(const std::vector<PendingPair>& pairs,
                                                    const std::vector<offload::Variant>& variants,
                                                    const std::vector<double>& step_s,
                                                    const std::string& nic_name,
                                                    const std::string& dpu_name) {
  std::vector<report::PairSwitches> out;
  for (const auto& p : pairs) {
    report::PairSwitches ps{variants[p.first].name, variants[p.second].name, {}};
    for (const auto& s : p.switches) {
      const auto& d = s.difference;
      report::Switched sw;
      sw.thing = d.thing();
      sw.from = d.function ? std::string(offload::site_name(d.from)) : (d.from_dpu ? dpu_name : nic_name);
      sw.to = d.function ? std::string(offload::site_name(d.to)) : (d.to_dpu ? dpu_name : nic_name);
      sw.back = s.back;
      sw.why_not = s.why_not;
      if (s.run)
        sw.change_s = s.back ? step_s[p.second] - step_s[*s.run] : step_s[*s.run] - step_s[p.first];
      ps.switched.push_back(std::move(sw));
    }
    out.push_back(std::move(ps));
  }
  return out;
}

} // namespace dpusim::cli
