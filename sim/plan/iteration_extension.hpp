// What the training schedule hands to the models that add host-side work to an iteration (the input
// pipeline, checkpoints, agents, other tenants' traffic): the replicas it simulated, what each replica's
// input pipeline feeds, and the tasks the iteration's end waits for.
#pragma once

#include "models/workload/parallelism.hpp"
#include "sim/engine/task_graph.hpp"

#include <functional>
#include <vector>

namespace dpusim::plan {

class CollectiveLowering;
class HostWork;
struct HostSide;
struct IterationPlan;
struct StageCosts;
enum class CollectiveAlgorithm;

/// What one data-parallel replica's input pipeline feeds.
struct ReplicaInput {
  int replica = 0;
  int first_gpu = 0; // the GPU whose node loads the replica's samples
  int micro_batch = 1;
  double weight = 1;                 // replicas this one stands for
  std::vector<engine::TaskId> slots; // by micro-batch: the task after which its queue slot frees (-1: none)
  std::vector<engine::TaskId> forwards; // by micro-batch: its first forward task
};

struct IterationContext {
  const HostSide& host;
  int replicas = 0; // data-parallel replicas whose schedule was simulated
  std::function<ReplicaInput(int replica)> replica_input;
  std::vector<engine::TaskId>& finals; // the iteration ends after all of these: add to it
};

/// A model that adds tasks to the iteration once the training schedule is built; extensions run in
/// the registry's order.
/// What a model needs to build the probe of a synchronous collective that the schedule fuses into its
/// compute tasks: simulated once alone on the platform, its duration reused for every occurrence.
struct ProbeContext {
  const workload::Parallelism& parallelism;
  const StageCosts& first_stage; // the first virtual stage's costs: the bytes of each collective
  CollectiveLowering& lowering;
  CollectiveAlgorithm algorithm;
  IterationPlan& plan; // its probe graphs: probe (tensor-parallel), ep_probe, cp_probe
};

class IterationExtension {
public:
  virtual ~IterationExtension() = default;
  /// Before the schedule is built: the probe graphs this model's collectives need. None by default.
  virtual void add_probes(ProbeContext& ctx) const { (void)ctx; }
  virtual void add_tasks(HostWork& work, const IterationContext& ctx) const = 0;
  /// Once every extension has added its tasks: changes the work of the plan's tasks (a slow GPU's
  /// kernels take longer). Nothing by default.
  virtual void shape(IterationPlan& plan, const IterationContext& ctx) const {
    (void)plan;
    (void)ctx;
  }
};

} // namespace dpusim::plan
