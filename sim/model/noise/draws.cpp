#include "sim/model/noise/draws.hpp"

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <cmath>

namespace dpusim::model {

Draws::Draws(const NoiseConfig& config, const scenario::Scenario& scenario)
    // Which GPUs run slow is the job's draw; everything else is the step's.
    : n(config), s(scenario), slow_rng(mix(s.seed ^ 0x736c6f77ULL)),
      jitter_rng(mix(s.step_draw_seed() ^ 0x6a697474ULL)), delay_rng(mix(s.step_draw_seed() ^ 0x64656c61ULL)),
      tail_rng(mix(s.step_draw_seed() ^ 0x7461696cULL)), os_rng(mix(s.step_draw_seed() ^ 0x6f736e6fULL)),
      storage_rng(mix(s.step_draw_seed() ^ 0x73746f72ULL)),
      loader_rng(mix(s.step_draw_seed() ^ 0x6c6f6164ULL)),
      client_rng(mix(s.step_draw_seed() ^ 0x636c6e74ULL)),
      stall_rng(mix(s.step_draw_seed() ^ 0x7374616cULL)) {}

double Draws::node_stall(int node, const plan::TaskInfo& info, double window_s) {
  if (!n.stalls() || !(window_s > 0))
    return 0.0;
  const auto [it, fresh] =
      stalled_.try_emplace({node, info.stage, static_cast<int>(info.category), info.label}, 0.0);
  if (fresh) {
    // Beyond 10^4 stalls a window, the count is drawn from its normal limit.
    const double mean = window_s / n.node_stalls->every_s;
    double count = 0;
    if (mean > 1e4)
      count = std::max(0.0, boost::random::normal_distribution<double>(mean, std::sqrt(mean))(stall_rng));
    else
      count = boost::random::poisson_distribution<int>(mean)(stall_rng);
    it->second = count * n.node_stalls->duration_s;
  }
  return it->second;
}

} // namespace dpusim::model
