// The training workload: the transformer, its batch and sequence length, precision, recomputation,
// ZeRO stage and the overlaps of its communication; the GPU compute rates a profile may calibrate.
#include "models/base/unit_parse.hpp"
#include "sim/model/model.hpp"
#include "sim/model/sections/degrees.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class WorkloadModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "workload"; }
  [[nodiscard]] std::string_view summary() const override {
    return "the transformer trained, its batch, precision, recomputation, ZeRO stage and overlaps; GPU "
           "compute";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.model", "catalog model or section", "required",
         "a catalog model, or inline {layers, hidden, heads, vocab, kv_heads, ffn, activation, "
         "tied_embeddings, "
         "position_embeddings, biases, dropout, head_dim, name; experts, top_k, expert_ffn, shared_experts, "
         "dense_layers, moe_every; kv_lora_rank, q_lora_rank, qk_rope_head_dim, v_head_dim; sliding_window, "
         "attention_chunk, full_attention_every, attention_sinks; qk_norm; mtp_layers}"},
        {"workload.seq_len", "count", "required", "tokens per sequence"},
        {"workload.global_batch", "count", "required",
         "sequences per iteration, a multiple of micro_batch x dp"},
        {"workload.micro_batch", "count", "required", "sequences per micro-batch"},
        {"workload.parallelism", "section", "required", "the parallel layout; its product is the GPU count"},
        {"workload.precision", "choice", "bf16",
         "bf16 | fp16 | fp8 | fp8-cs | mxfp8 | nvfp4: the linear layers' format (fp8: delayed "
         "scaling, fp8-cs: current scaling; mxfp8 and nvfp4 need Blackwell's tensor cores)"},
        {"workload.recompute", "choice", "none", "none | selective | full activation recomputation"},
        {"workload.sequence_parallel", "bool", "false", "Megatron sequence parallelism (needs tp > 1)"},
        {"workload.attention", "choice", "flash", "flash | unfused"},
        {"workload.overlap_grad_reduce", "bool", "true",
         "gradient reduction overlapped with the backward pass"},
        {"workload.overlap_param_gather", "bool", "true with zero 3, false with zero 1 or 2",
         "parameter all-gathers overlapped with the forward pass (ZeRO-3: the next layer's gathered ahead; "
         "ZeRO-1/2: each bucket gathered during the first micro-batch's forward)"},
        {"workload.align_param_gather", "bool", "false",
         "ZeRO-1/2 gathering in the forward pass, interleaved: every stage dispatches its gathers at the "
         "iteration's start"},
        {"workload.tp_comm_overlap", "bool", "false",
         "tensor-parallel communication overlapped with the GEMMs around it (Transformer Engine's "
         "userbuffers, Megatron-Core's --tp-comm-overlap; needs sequence_parallel)"},
        {"workload.overlap_p2p", "bool", "true", "pipeline sends run beside the sender's next computation"},
        {"workload.grad_reduce_dtype", "choice", "fp32", "fp32 | bf16 | fp16: gradients as reduced"},
        {"workload.fp8_param_gather", "bool", "false",
         "parameters kept in the FP8 format: gathered in it by the sharded optimizer, no 16-bit copy "
         "(Megatron's --fp8-param-gather; needs precision fp8, fp8-cs or mxfp8 and zero >= 1)"},
        {"workload.grad_bucket", "bytes", "max(40M, 1M x dp) parameters",
         "gradient bytes per all-reduce bucket"},
        {"workload.zero", "count", "0", "0 | 1 (optimizer state sharded) | 2 (+gradients) | 3 (+weights)"},
        {"workload.zero_buffers", "choice", "flat",
         "flat | per_peer: ZeRO-3 collectives take one tensor per peer"},
    };
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    return {
        {"gpu.hbm_efficiency", "gpu.hbm_efficiency",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           hw.gpu.hbm_efficiency = {v, c};
           return true;
         }},
        {"gpu.gemm_peak_achieved", "gpu.gemm (scaled), gpu.gemm_ceiling",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           hw.gpu.gemm = hw.gpu.gemm.scaled(v / hw.gpu.gemm.best().si());
           hw.gpu.gemm_ceiling = catalog::Cited<units::FlopRate>{units::FlopRate::from_si(v), c};
           return true;
         }},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto& w = s.workload;
    for (const auto& [key, value] :
         {std::pair{"workload.seq_len", w.seq_len}, std::pair{"workload.global_batch", w.global_batch},
          std::pair{"workload.micro_batch", w.micro_batch}})
      if (value < 1)
        out.push_back({key, fmt::format("must be at least 1, found {}", value)});
    if (w.zero_stage < 0 || w.zero_stage > 3)
      out.push_back({"workload.zero", fmt::format("must be 0, 1, 2 or 3, found {}", w.zero_stage)});
    if (w.zero_per_peer_buffers && w.zero_stage < 3)
      out.push_back({"workload.zero_buffers",
                     "zero_buffers: per_peer describes ZeRO-3's parameter gathers and "
                     "gradient reduce-scatters; set zero: 3 or remove the key"});
    if (w.fp8_param_gather && (w.zero_stage < 1 || !workload::low_precision(w.precision) ||
                               w.precision == workload::Precision::nvfp4))
      out.push_back(
          {"workload.fp8_param_gather",
           fmt::format("fp8_param_gather keeps the parameters in FP8 for the sharded optimizer to "
                       "gather: it needs precision fp8, fp8-cs or mxfp8 (found {}) and zero 1, 2 or 3 "
                       "(found {})",
                       workload::precision_name(w.precision), w.zero_stage)});
    if (w.overlap_param_gather && w.zero_stage < 1)
      out.push_back({"workload.overlap_param_gather",
                     "overlap_param_gather describes the parameter all-gathers of a sharded optimizer or "
                     "model; set zero: 1, 2 or 3, or remove the key"});
    if (w.zero_stage >= 1 && w.zero_stage < 3 && w.param_gather_overlapped() && !w.overlap_grad_reduce)
      out.push_back({"workload.overlap_param_gather",
                     "with zero 1 or 2, overlap_param_gather needs overlap_grad_reduce: true (Megatron-Core "
                     "asserts it); set overlap_grad_reduce: true or overlap_param_gather: false"});
    if (w.align_param_gather &&
        (w.zero_stage < 1 || w.zero_stage > 2 || !w.param_gather_overlapped() || w.virtual_stages < 2))
      out.push_back({"workload.align_param_gather",
                     "align_param_gather aligns the parameter gathers of zero 1 or 2 with "
                     "overlap_param_gather: true in an interleaved schedule (virtual_stages > 1; Megatron-LM "
                     "turns it off otherwise); set those or remove the key"});
    if (w.tp_comm_overlap && (!w.sequence_parallel || w.parallelism.tp < 2))
      out.push_back({"workload.tp_comm_overlap",
                     "tp_comm_overlap overlaps sequence parallelism's all-gathers and reduce-scatters with "
                     "the GEMMs (Megatron-LM asserts --sequence-parallel); set sequence_parallel: true with "
                     "tp > 1, or remove the key"});
    if (w.tp_comm_overlap && (w.model.moe() || w.model.mla()))
      out.push_back({"workload.tp_comm_overlap",
                     "tp_comm_overlap is modelled for dense layers with standard attention only; remove the "
                     "key for a mixture-of-experts model or latent attention"});
    const auto& p = w.parallelism;
    const auto per_step = static_cast<std::int64_t>(w.micro_batch) * p.dp; // 2^20 x 2^20 overflows an int
    if (degrees_positive(w) && w.global_batch % per_step != 0)
      out.push_back({"workload.global_batch",
                     fmt::format("must be a multiple of micro_batch x dp = {} x {} = {}, found {}",
                                 w.micro_batch, p.dp, per_step, w.global_batch)});
    const auto* node = cat.node(s.cluster.node);
    if (node == nullptr)
      return;
    const auto* gpu = cat.gpu(node->gpu);
    if (gpu->peak(w.precision) == nullptr)
      out.push_back(
          {"workload.precision", fmt::format("a {} has no {} tensor cores; it runs {}", gpu->name,
                                             workload::tensor_core_format(w.precision), gpu->precisions())});
    if (w.tp_comm_overlap && !gpu->sms)
      out.push_back(
          {"workload.tp_comm_overlap",
           fmt::format("tp_comm_overlap needs the GPU's SM count (the communication kernels take 16 "
                       "of them), and the catalog's {} has no sms; add it to the GPU's entry or "
                       "remove the key",
                       gpu->name)});
    if (w.zero_per_peer_buffers && !cat.cpu(node->cpu)->kernel_launch_cpu)
      out.push_back(
          {"workload.zero_buffers",
           fmt::format("per_peer needs the CPU time to launch one copy, and the catalog's {} has no "
                       "kernel_launch_cpu; add it to the CPU's entry or use zero_buffers: flat",
                       node->cpu)});
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& par = run.scenario.workload.parallelism;
    if (run.iteration.peer_copy_s > 0)
      r.notes.push_back(fmt::format(
          "ZeRO-3 with per-peer buffers: each rank launches one copy per peer ({}) and weight matrix around "
          "every parameter gather and gradient reduce-scatter, {:.2f} s of launches per iteration at {} each",
          par.dp * par.cp, run.iteration.peer_copy_s,
          units::format(units::Seconds::from_si(run.host.launch_s_per_kernel))));
  }
};

} // namespace

std::unique_ptr<Model> make_workload_model() {
  return std::make_unique<WorkloadModel>();
}

} // namespace dpusim::model
