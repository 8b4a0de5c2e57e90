// OS noise on the loaders' workers and the storage client's threads, drawn into a noisy iteration's
// host and Arm loads (draws.hpp). The launch threads' share is drawn with the GPU work (gpu_draws.cpp).
#include "sim/model/noise/draws.hpp"

namespace dpusim::model {

void draw_loader_detours(plan::IterationPlan& noisy, const OsNoise* os, Draws& d) {
  // The loaders' workers decode on host cores: their detours lengthen each worker's share, and the load
  // (whose work progresses together) waits for its slowest worker; the prefetch queue absorbs what it can.
  if (os != nullptr && os->host.any())
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      if (info.category != plan::TaskCategory::data_load || info.decode_loads <= 0)
        continue;
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      for (int k = info.decode_from; k < info.decode_from + info.decode_loads; ++k) {
        auto& load = task.loads.at(static_cast<std::size_t>(k));
        load.amount += os->host.over(load.amount, d.loader_rng);
      }
    }
}

void draw_client_detours(plan::IterationPlan& noisy, const OsNoise* os, Draws& d) {
  // The storage client's threads (a host client's kernel NFS / NVMe-oF work, one core per connection;
  // SNAP's polling threads on the Arm cores) lose their cores' detours too: each thread's share of a read
  // or a checkpoint write grows by its draw, on its core and on the connection it drives alike, and the
  // transfer waits for its slowest thread.
  if (os != nullptr && (os->host.any() || os->arm.any()))
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      if (info.client_loads <= 0)
        continue;
      const auto& detours = info.client_on_arm ? os->arm : os->host;
      if (!detours.any())
        continue;
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      const int per_thread = info.client_on_arm ? 1 : 2;
      for (int k = info.client_from; k + per_thread <= info.client_from + info.client_loads;
           k += per_thread) {
        const double added = detours.over(task.loads.at(static_cast<std::size_t>(k)).amount, d.client_rng);
        for (int j = k; j < k + per_thread; ++j)
          task.loads.at(static_cast<std::size_t>(j)).amount += added;
      }
    }
}

} // namespace dpusim::model
