// The storage read tail, drawn into a noisy iteration's sample reads (draws.hpp).
#include "sim/model/noise/draws.hpp"

#include <algorithm>
#include <boost/random/lognormal_distribution.hpp>

namespace dpusim::model {

void draw_storage_reads(plan::IterationPlan& noisy, double storage_sigma, Draws& d) {
  // Sample reads: each load's read-latency task charged its loaders' reads at the median, tail_steps
  // reads one after another on each of tail_hops loaders; drawn, the load waits for its slowest loader.
  if (d.n.storage_tail && storage_sigma > 0) {
    boost::random::lognormal_distribution<double> read(0.0, storage_sigma); // median 1
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      if (info.category != plan::TaskCategory::data_load || task.kind != engine::TaskKind::delay ||
          info.tail_steps <= 0)
        continue;
      const double median = task.delay_s / info.tail_steps;
      double slowest = 0;
      for (int h = 0; h < info.tail_hops; ++h) {
        double sum = 0;
        for (int k = 0; k < info.tail_steps; ++k)
          sum += read(d.storage_rng);
        slowest = std::max(slowest, sum);
      }
      task.delay_s = median * slowest;
    }
  }
}

} // namespace dpusim::model
