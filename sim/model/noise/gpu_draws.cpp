// The GPUs' own variability (slow GPUs, kernel-time jitter, a per-micro-batch delay) and launch threads
// late by OS noise or a node's stall, drawn into a noisy iteration's compute tasks (draws.hpp).
#include "sim/model/noise/draws.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace dpusim::model {

void draw_gpu_work(plan::IterationPlan& noisy, const OsNoise* os, Draws& d) {
  const auto& s = d.s;
  const int gpus_per_node = std::max(1, s.cluster.gpus_per_node);
  std::vector<double> speed(static_cast<std::size_t>(s.cluster.nodes * s.cluster.gpus_per_node), 1.0);
  if (d.n.slow_fraction > 0 && d.n.slow_speed < 1) {
    boost::random::uniform_01<double> u;
    for (auto& v : speed)
      v = u(d.slow_rng) < d.n.slow_fraction ? d.n.slow_speed : 1.0;
  }
  const double sigma2 = std::log1p(d.n.gpu_jitter * d.n.gpu_jitter);
  std::optional<boost::random::lognormal_distribution<double>> jitter; // mean 1
  if (d.n.gpu_jitter > 0)
    jitter.emplace(-sigma2 / 2, std::sqrt(sigma2));
  std::set<std::tuple<int, int, int>> delayed; // (replica, stage, micro-batch): one delay each
  const bool launch_noise = os != nullptr && os->launch_s_per_kernel > 0 && os->host.any();
  for (auto& info : noisy.info) {
    if (info.category != plan::TaskCategory::forward && info.category != plan::TaskCategory::backward &&
        info.category != plan::TaskCategory::optimizer)
      continue;
    // A forward's first task takes the micro-batch's delay (a combined step runs a forward too).
    const int fwd_micro = info.category == plan::TaskCategory::forward ? info.micro : info.fwd_micro;
    const bool fwd = fwd_micro >= 0 && delayed.insert({info.dp, info.stage, fwd_micro}).second;
    double factor = 0;
    double delay = 0;
    double late_launch = 0;
    // Each GPU's launch thread issues the task's kernels; the GPU waits for it only where its detours
    // push the launches past the time the noise-free schedule had for them.
    const double launch_work = !info.gpus.empty()
                                   ? info.host_core_s[static_cast<std::size_t>(plan::CpuUse::framework)] /
                                         static_cast<double>(info.gpus.size())
                                   : 0;
    const double launch_s = launch_noise ? launch_work : 0;
    const double window = std::max(info.compute_s, launch_work);
    for (int g : info.gpus) {
      double f = 1.0 / speed.at(static_cast<std::size_t>(g));
      if (jitter)
        f *= (*jitter)(d.jitter_rng);
      factor = std::max(factor, f);
      if (fwd && d.n.gpu_delay && d.n.gpu_delay->mean_s > 0) {
        const auto& spec = *d.n.gpu_delay;
        double x = 0;
        if (spec.distribution == "lognormal") {
          // Mean mean_s: mu = ln(mean) - sigma^2 / 2.
          boost::random::lognormal_distribution<double> ln(
              std::log(spec.mean_s) - spec.sigma * spec.sigma / 2, spec.sigma);
          x = ln(d.delay_rng);
        } else {
          boost::random::exponential_distribution<double> ex(1.0 / spec.mean_s);
          x = ex(d.delay_rng);
        }
        delay = std::max(delay, x);
      }
      // A stall of the GPU's node stops its launch thread as a detour does.
      const double stall = d.node_stall(g / gpus_per_node, info, window);
      if (launch_s > 0 || stall > 0) {
        const double issued = launch_work + (launch_s > 0 ? os->host.over(launch_s, d.os_rng) : 0) + stall;
        late_launch = std::max(late_launch, issued - window);
      }
    }
    if (!d.n.gpu())
      factor = 1;
    info.compute_s = info.compute_s * std::max(factor, 1e-12) + delay + std::max(0.0, late_launch);
  }
}

} // namespace dpusim::model
