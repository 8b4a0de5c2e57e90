// Attribution of a variant's difference to the functions it moves. Two sets of variants, as in an
// ablation study: each function moved alone from the baseline towards the target ("alone": what it buys
// by itself), and each function moved back from the target to the baseline's site ("last": what the
// target loses without it). Functions interact (with RDMA transport, encryption must be inline), so
// neither set need add up to the whole difference; the report shows the remainder.
#pragma once

#include "sim/offload/variant.hpp"

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
