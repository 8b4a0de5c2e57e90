// Node-wide stalls of the loaders' workers and the host storage client's threads (draws.hpp; the GPUs'
// launch threads wait them out in gpu_draws.cpp).
#include "sim/model/noise/draws.hpp"

#include <algorithm>

namespace dpusim::model {

void draw_stalled_loads(plan::IterationPlan& noisy, Draws& d) {
  const int gpus_per_node = std::max(1, d.s.cluster.gpus_per_node);
  // A node's stall stops its loaders' workers and its host storage client's threads together: each of
  // their loads waits it out.
  if (d.n.stalls())
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      const int client = info.client_on_arm ? 0 : info.client_loads;
      if ((info.decode_loads <= 0 && client <= 0) || info.gpus.empty())
        continue;
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      const auto stalled_loads = [&](auto&& each) {
        for (int k = info.decode_from; k < info.decode_from + info.decode_loads; ++k)
          each(task.loads.at(static_cast<std::size_t>(k)));
        for (int k = info.client_from; k < info.client_from + client; ++k)
          each(task.loads.at(static_cast<std::size_t>(k)));
      };
      double window = 0;
      stalled_loads([&](const engine::Load& l) { window = std::max(window, l.amount); });
      const double stall = d.node_stall(info.gpus.front() / gpus_per_node, info, window);
      stalled_loads([&](engine::Load& l) { l.amount += stall; });
    }
}

} // namespace dpusim::model
