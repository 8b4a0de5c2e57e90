// The things that differ between the variants a comparison explains, each switched alone: which pairs
// are explained (each variant against the baseline; a DPU variant also against the plain RDMA NIC),
// which extra variants that takes, and their steps once simulated (report::PairSwitches).
#pragma once

#include "sim/offload/attribution.hpp"
#include "sim/offload/variant.hpp"
#include "sim/report/comparison.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::cli {

/// Adds a variant to the run (or finds one already there that simulates the same thing) and returns its
/// index; nullopt with `why` set where the device cannot run it.
using ScheduleVariant = std::function<std::optional<std::size_t>(const offload::Variant&, std::string& why)>;

struct PendingSwitch {
  offload::Difference difference;
  std::optional<std::size_t> run; // the variant with only this switched
  bool back = false;              // `run` is the second variant with it switched back
  std::string why_not;
};

struct PendingPair {
  std::size_t first = 0; // indices into the compared variants
  std::size_t second = 0;
  std::vector<PendingSwitch> switches;
};

/// The explained pairs of the first `compared` variants and, for each thing that differs, the variant
/// that switches it alone: the first with it switched, else the second with it switched back. A pair
/// that differs in one thing needs no other variant.
std::vector<PendingPair> plan_switches(const std::vector<offload::Variant>& variants, std::size_t compared,
                                       const offload::Requirements& req, const ScheduleVariant& schedule);

/// The pairs' switches with the simulated steps (`step_s[i]`: variant i's step).
std::vector<report::PairSwitches> measured_switches(const std::vector<PendingPair>& pairs,
                                                    const std::vector<offload::Variant>& variants,
                                                    const std::vector<double>& step_s,
                                                    const std::string& nic_name, const std::string& dpu_name);

} // namespace dpusim::cli
