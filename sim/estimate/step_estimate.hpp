// The planner's fast tier: one training step estimated without SimGrid. The same stage costs as the
// simulation (plan::stage_costs: GPU kernel seconds, FLOPs, buckets), the same 1F1B or interleaved
// schedule (plan::pipeline_schedule), evaluated as a list schedule in which every operation starts
// once its stream and its inputs are free, with communication times from closed forms
// (estimate::CommCosts). Exact for compute and pipeline order; what it cannot see is contention
// between operations (and one seed's ECMP luck: it takes the expected collisions), and the models that
// exist to show contention or variability are refused (NotEstimated) so that such a point is always
// simulated.
// docs/models/estimator.md.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

#include <stdexcept>
#include <string>

namespace dpusim::estimate {

/// What the estimator does not model; its message says what (the point is simulated instead).
class NotEstimated : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct StepEstimate {
  double step_time_s = 0;
  double compute_s = 0;       // GPU kernel seconds of the busiest stage's GPUs
  double tp_comm_s = 0;       // its tensor-parallel collectives
  double cp_comm_s = 0;       // its context-parallel exchanges not hidden by attention
  double dp_comm_s = 0;       // its data-parallel reductions, end to end
  double dp_exposed_s = 0;    // of them, after its last backward
  double data_stall_s = 0;    // first-stage GPUs waiting for their input micro-batches
  double tp_collective_s = 0; // one tensor-parallel all-reduce
  double cp_collective_s = 0; // one context-parallel all-gather
  double ep_collective_s = 0; // one expert-parallel all-to-all (every expert group of a stage at once)
  double model_flops = 0;     // all GPUs, one step
  double hw_flops = 0;        // all GPUs, one step (recomputation included)
  double host_core_s = 0;     // all nodes: launch threads and kernel TCP
  double arm_core_s = 0;      // all DPUs: their share of the transport's functions
};

/// Throws NotEstimated for what it does not model: noise, congestion, faults, other tenants. (A
/// checkpoint adds nothing to the plain step: estimated_result adds its write, synchronous or
/// asynchronous, checkpoint_estimate.hpp.)
StepEstimate estimate_step(const scenario::Scenario& s, const scenario::Hardware& hw);

/// The scenario's first variant, estimated: the result `dpusim plan` turns into a row (its metrics and
/// identity as a simulation's would have them, a note that it is an estimate).
report::VariantResult estimated_result(const scenario::Scenario& s, const catalog::Catalog& cat);

} // namespace dpusim::estimate
