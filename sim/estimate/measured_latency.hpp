// A calibration profile's measured all-reduce latency turned into the collective library's step
// latency: what each network step (a one-node run: each NVLink step) of the protocol NCCL runs at small
// sizes costs on the user's cluster, so that the all-reduce NCCL picks there on the profile's shape
// takes the measured time (docs/calibration.md, "The measured all-reduce latency").
#pragma once

#include "models/calibration/profile.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

namespace dpusim::estimate {

/// Where `hw.measured_allreduce` has a latency, sets the network (one node: NVLink) step latency of the
/// protocol NCCL picks at small sizes on the profile's ranks and nodes, so that the estimator's closed
/// forms (CommCosts: the latency the simulation charges that all-reduce) give the measured time; the
/// other protocols keep the catalog's. Records in the profile's calibrated value whether it was taken
/// and what it changed. Does nothing without one.
void take_measured_latency(scenario::Hardware& hw, const scenario::Scenario& s,
                           const offload::Variant& variant);

/// model::hardware_for, then take_measured_latency: the hardware a run, a sweep or an estimate uses.
scenario::Hardware calibrated_hardware(const scenario::Scenario& s, const catalog::Catalog& cat,
                                       const offload::Variant& variant, const calibration::Profile* profile,
                                       const std::string& profile_path, bool take_shape = false);

} // namespace dpusim::estimate
