// Attribution of a variant's difference to the functions it moves. Two sets of variants, as in an
// ablation study: each function moved alone from the baseline towards the target ("alone": what it buys
// by itself), and each function moved back from the target to the baseline's site ("last": what the
// target loses without it). Functions interact (with RDMA transport, encryption must be inline), so
// neither set need add up to the whole difference; the report shows the remainder.
#pragma once

#include "sim/offload/variant.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::offload {

/// One function moved between the baseline's site and the target's.
struct FunctionMove {
  Function function;
  Site from;     // the baseline's site
  Site to;       // the target's site
  Variant alone; // the baseline with only this function moved to `to`
  Variant last;  // the target with only this function moved back to `from`
};

/// The functions whose site differs between `base` and `target` and which the scenario uses
/// (transport always; storage, encryption, vswitch, agents when required), in the order of kFunctions.
/// Every variant runs on the target's device (NIC or DPU), so that a share is what the function buys on
/// the hardware the target would buy.
std::vector<FunctionMove> function_moves(const Variant& base, const Variant& target, const Requirements& req);

} // namespace dpusim::offload

namespace dpusim::offload {

/// One thing whose value differs between two variants: a function's site, or the network device (the
/// scenario's NIC or its DPU) that carries the node's traffic. What a device brings with it (a DPU's
/// tenant QoS, the reordering adaptive routing needs, its engines' rates) switches with it.
struct Difference {
  std::optional<Function> function; // absent: the device
  Site from{};                      // the first variant's site of the function
  Site to{};                        // the second's
  bool from_dpu = false;            // the first variant's device is the DPU
  bool to_dpu = false;              // the second's
  /// "transport", "storage", ... or "device".
  [[nodiscard]] std::string thing() const;
};

/// What differs between `a` and `b`: each function the scenario uses whose site differs (in the order
/// of kFunctions), then the device.
std::vector<Difference> differences(const Variant& a, const Variant& b, const Requirements& req);

/// `v` with `d` switched to its second variant's value (`to_second`) or back to the first's; named
/// "<v>+<function>=<site>" or "<v>+device=<nic|dpu>". Whether the device can run it is the caller's
/// check (unsupported()).
Variant switched(const Variant& v, const Difference& d, bool to_second);

} // namespace dpusim::offload
