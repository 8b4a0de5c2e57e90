// The network's software tail and OS noise on network hops, drawn into a noisy iteration's latency
// tasks (draws.hpp).
#include "sim/model/noise/draws.hpp"

#include <algorithm>
#include <boost/random/lognormal_distribution.hpp>
#include <cmath>

namespace dpusim::model {

void draw_rdma_tail(plan::IterationPlan& noisy, const datapath::DataPath& path, Draws& d) {
  const bool rdma_tail = d.n.network_tail && path.rdma_latency_sigma() > 0 && path.rdma_hop_latency_s() > 0;
  // RDMA in NIC hardware: the platform's links charge each hop the NIC latency's median; its tail (from
  // the NIC's 99th percentile) adds the drawn excess over it, and the step waits for its slowest hop.
  if (rdma_tail) {
    boost::random::lognormal_distribution<double> hop(0.0, path.rdma_latency_sigma()); // median 1
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      if (info.category != plan::TaskCategory::latency || info.tail_steps <= 0)
        continue;
      double excess = 0;
      for (int k = 0; k < info.tail_steps; ++k) {
        double slowest = 0;
        for (int h = 0; h < info.tail_hops; ++h)
          slowest = std::max(slowest, hop(d.tail_rng));
        excess += path.rdma_hop_latency_s() * (slowest - 1);
      }
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      task.delay_s = std::max(0.0, task.delay_s + excess);
    }
  }
}

void draw_hop_latencies(plan::IterationPlan& noisy, const datapath::DataPath& path, const OsNoise* os,
                        Draws& d) {
  // Network steps: each step of a communication's latency waits for the slowest of its concurrent hops.
  // With the network tail, a hop's software latency is drawn (in place of the expected largest one the
  // plan charged); with OS noise, the detours on the cores of its two ends add to it.
  const bool tail = d.n.network_tail && path.software_latency_s() > 0 && path.latency_sigma() > 0;
  const bool hop_noise = os != nullptr && (os->host_hop_s > 0 || os->arm_hop_s > 0);
  if (tail || hop_noise) {
    boost::random::lognormal_distribution<double> hop(std::log(std::max(path.software_latency_s(), 1e-300)),
                                                      std::max(path.latency_sigma(), 1e-12));
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      if (info.category != plan::TaskCategory::latency || info.tail_steps <= 0)
        continue;
      double drawn = 0;
      for (int k = 0; k < info.tail_steps; ++k) {
        double slowest = 0;
        for (int h = 0; h < info.tail_hops; ++h) {
          double t = tail ? hop(d.tail_rng) : 0;
          if (hop_noise)
            for (int end = 0; end < 2; ++end)
              t += os->host.over(os->host_hop_s, d.os_rng) + os->arm.over(os->arm_hop_s, d.os_rng);
          slowest = std::max(slowest, t);
        }
        drawn += slowest;
      }
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      const double planned = tail ? info.tail_steps * path.step_latency_s(info.tail_hops) : 0;
      task.delay_s = std::max(0.0, task.delay_s - planned + drawn);
    }
  }
}

} // namespace dpusim::model
