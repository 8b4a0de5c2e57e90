#include "sim/scenario/rank_memory.hpp"

#include <algorithm>
#include <cmath>

namespace dpusim::scenario {

workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage_out) {
  const auto& p = w.parallelism;
  workload::MemoryBreakdown worst;
  for (int s = 0; s < p.pp; ++s) {
    workload::MemoryConfig c;
    c.micro_batch = w.micro_batch;
    c.seq_len = w.seq_len;
    c.tp = p.tp;
    c.pp = p.pp;
    c.dp = p.dp;
    c.ep = p.ep;
    c.cp = p.cp;
    c.sequence_parallel = w.sequence_parallel;
    c.recompute = w.recompute;
    c.attention = w.attention;
    c.zero_stage = w.zero_stage;
    c.layers_on_rank = workload::stage_layers(p, w.model.layers, s);
    c.holds_embedding = s == 0 || (s == p.pp - 1 && !w.model.tied_embeddings) || (s == p.pp - 1 && p.pp > 1);
    // 1F1B keeps up to (pp - stage) micro-batches of activations alive; interleaving keeps more of
    // them, each on a 1/v share of the stage's layers (Megatron: warm-up of 2(pp-s-1) + (v-1)pp chunks).
    if (w.virtual_stages > 1)
      c.in_flight_micro_batches = static_cast<int>(
          std::ceil(std::min<double>(2.0 * (p.pp - s - 1) + (w.virtual_stages - 1) * p.pp + 1,
                                     static_cast<double>(w.micro_batches()) * w.virtual_stages) /
                    w.virtual_stages));
    else
      c.in_flight_micro_batches = std::min(p.pp - s, std::max(1, w.micro_batches()));
    const auto m = workload::rank_memory(w.model, c);
    if (m.total() > worst.total()) {
      worst = m;
      if (stage_out != nullptr)
        *stage_out = s;
    }
  }
  return worst;
}

} // namespace dpusim::scenario
