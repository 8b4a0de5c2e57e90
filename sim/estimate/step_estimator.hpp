// The estimator's step (estimate_step's work, docs/models/estimator.md): the stage costs and the
// closed forms of the step's communications are set up once; each pipeline stage's operations then run
// in schedule order, an operation starting once its stream is free and its input has arrived, stages
// advancing in turn until every operation has run; then each stage's gradient reduction, optimizer and
// parameter gather, and the step's totals.
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/estimate/comm_costs.hpp"
#include "sim/estimate/stage_collectives.hpp"
#include "sim/estimate/step_estimate.hpp"
#include "sim/estimate/zero3_chains.hpp"
#include "sim/plan/pipeline_schedule.hpp"
#include "sim/plan/stage_costs.hpp"

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace dpusim::estimate {

class StepEstimator {
public:
  /// The scenario's first variant on `hw`; both outlive the estimator.
  StepEstimator(const scenario::Scenario& s, const scenario::Hardware& hw);
  StepEstimator(const StepEstimator&) = delete;
  StepEstimator& operator=(const StepEstimator&) = delete;
  /// Runs the step once.
  StepEstimate run();

private:
  /// A pipeline stage's progress and what its GPUs spent.
  struct Stage {
    std::size_t next = 0; // its next operation
    StageStream stream;
    double last_backward = 0;
    std::vector<int> chunk_order; // chunks in the order their last backward completed their buckets
    double kernel_s = 0;
    double tp_s = 0;
    double cp_s = 0;
    double gather_end = 0;          // ZeRO-1/2 gathering during the first forward: its last gather's end
    double forward_gather_comm = 0; //   and their time
    double dp_comm = 0;
    double dp_end = 0;
  };

  void cost_stages();
  void cost_model_parallel_collectives();
  void cost_sends();

  void schedule();
  /// Runs stage `st`'s next operation if its inputs are known; false where it is done or waits.
  bool run_next(int st);
  /// Whether `o`'s input (from the stage before or after) is known, and then raises `ready` to it.
  bool input_known(int st, const plan::PipelineOp& o, double& ready) const;
  /// The first stage's forward of a micro-batch: its input pipeline's load, waited for.
  double wait_for_data(const plan::PipelineOp& op, const Stage& stage, double ready);
  /// Runs `op` (and `with`, a combined step's backward) from `start`; returns its end.
  double run_op(int st, const plan::PipelineOp& op, const plan::PipelineOp* with, double start, double ready);
  double run_weight_op(Stage& stage, int vs, const plan::PipelineOp& op, double start);
  double run_combined(Stage& stage, int vs, const plan::PipelineOp& op, const plan::PipelineOp& with, int st,
                      double start);
  double run_zero3_forward(int st, int vs, int micro, double start, double ready);
  double run_zero3_backward(int st, int vs, double start, double ready);
  double run_gathering_forward(int st, int vs, double start);
  double run_last_backward(Stage& stage, int vs, int chunk, double start);
  /// Books a forward's GPU time and its communications on its stage.
  void count_forward(Stage& stage, const plan::StageCosts& c);
  /// After an operation: the backward's books, the stream, and blocking sends.
  void finish_op(int st, const plan::PipelineOp& op, const plan::PipelineOp* with, double end);

  void reduce_gradients();
  void add_step_totals();

  [[nodiscard]] std::size_t at(int vs, int mb) const {
    return static_cast<std::size_t>(vs) * static_cast<std::size_t>(m_) + static_cast<std::size_t>(mb);
  }
  [[nodiscard]] const plan::StageCosts& costs(int vs) const { return costs_[static_cast<std::size_t>(vs)]; }
  [[nodiscard]] int virtual_stage(int st, int chunk) const;
  /// The send from virtual stage vs to vs + 1 (and its gradients back).
  [[nodiscard]] double send_s(int vs) const;
  /// What `all` fused tensor-parallel all-reduces add, `bwd` of them in a backward pass proper.
  [[nodiscard]] double tp_time(int all, int bwd) const;
  /// One context-parallel exchange's time not hidden by `c`'s attention.
  [[nodiscard]] double cp_each(const plan::StageCosts& c) const;
  /// A combined step of the forward of virtual stage vf beside the backward of vb (kept by pair).
  double combined_step_s(int vf, int vb);

  const scenario::Scenario& s_;
  const scenario::WorkloadConfig& w_;
  const workload::Parallelism& p_;
  const scenario::Hardware& hw_;
  datapath::DataPath path_;
  topology::ClusterLayout layout_;
  CommCosts comm_;
  CollectiveAlgorithm algo_;
  std::unique_ptr<NcclCommCosts> nccl_; // under NCCL's own choice: each collective's cost at its size
  StageCollectives collectives_;
  Zero3Chains zero3_chains_;
  int v_;
  int m_;
  int chunks_;
  bool zero3_;
  bool reduce_;
  bool gather_in_forward_;
  StepEstimate e_;
  std::vector<plan::StageCosts> costs_;
  double ep_core_s_per_use_ = 0; // host core-seconds of one all-to-all of every expert group
  workload::TpEach tp_each_;
  std::vector<CommCost> send_to_next_;
  std::vector<std::vector<plan::PipelineOp>> ops_;
  std::map<std::pair<int, int>, double> combined_s_;
  std::vector<Stage> stages_;
  std::vector<double> fwd_end_;
  std::vector<double> bwd_end_;
  std::vector<std::vector<double>> bucket_ready_;
  double ep_uses_ = 0; // all-to-alls of one replica's stages, forward and backward
  double load_s_ = 0;
  std::vector<double> load_end_;
  double data_stall_ = 0;
};

} // namespace dpusim::estimate
