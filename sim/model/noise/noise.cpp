// Variability of GPU work: per-task jitter of kernel time, a per-micro-batch delay, and persistently
// slow GPUs, all drawn from the scenario's seed (Boost.Random: the same draws on every platform). The
// iteration is simulated with and without them on the same platform: collectives and pipeline sends
// wait for their slowest member because they are simulated that way, and the difference is the
// straggler wait. Noise makes replicas differ, so every data-parallel replica is simulated.
#include "sim/model/noise/noise.hpp"

#include "sim/model/model.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <set>
#include <tuple>

namespace dpusim::model {
namespace {

constexpr std::string_view kSection = "noise";
constexpr double kMaxMeanDelay = 3600; // seconds

class NoiseModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "noise"; }
  [[nodiscard]] std::string_view summary() const override {
    return "GPU variability: kernel-time jitter, a per-micro-batch delay and persistently slow GPUs, drawn "
           "from the seed; the straggler wait it costs";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"noise", "section", "none", "variability of GPU work, drawn from the scenario's seed"},
        {"noise.gpu_jitter", "fraction", "0",
         "coefficient of variation of each GPU task's time (lognormal, mean 1), per GPU"},
        {"noise.gpu_delay", "section", "none", "an extra delay once per micro-batch and GPU"},
        {"noise.gpu_delay.distribution", "choice", "exponential", "exponential | lognormal"},
        {"noise.gpu_delay.mean", "duration", "required", "its mean, e.g. 2ms"},
        {"noise.gpu_delay.sigma", "number", "required with lognormal",
         "the standard deviation of the delay's logarithm, e.g. 1.0"},
        {"noise.slow_gpus", "section", "none", "persistently slow GPUs (thermal or power throttling)"},
        {"noise.slow_gpus.fraction", "fraction", "required",
         "each GPU's probability of being slow, in [0, 1]"},
        {"noise.slow_gpus.speed", "fraction", "required", "a slow GPU's speed, in (0, 1], e.g. 0.9"},
        {"noise.network_tail", "bool", "false",
         "draw each network step's software latency (host TCP, Arm forwarding) from the transport's "
         "lognormal: "
         "the step waits for its slowest hop"},
    };
  }
  [[nodiscard]] std::string_view section() const override { return kSection; }
  void read(yaml::Map m, scenario::Scenario& s) const override {
    m.declare(registry().keys_under(kSection));
    NoiseConfig n;
    if (auto j = m.optional("gpu_jitter"))
      n.gpu_jitter = j->as_number(-1e300, 1e300);
    if (auto d = m.optional("gpu_delay")) {
      auto dm = d->as_map();
      dm.declare(registry().keys_under("noise.gpu_delay"));
      NoiseConfig::Delay delay;
      if (auto dist = dm.optional("distribution"))
        delay.distribution = dist->as_choice({"exponential", "lognormal"});
      delay.mean_s = dm.required("mean", "the delay's mean, e.g. 2ms").as_quantity<units::Seconds>(true).si();
      if (delay.distribution == "lognormal")
        delay.sigma =
            dm.required("sigma", "the standard deviation of ln(delay), e.g. 1.0").as_number(-1e300, 1e300);
      dm.finish();
      n.gpu_delay = delay;
    }
    if (auto g = m.optional("slow_gpus")) {
      auto gm = g->as_map();
      gm.declare(registry().keys_under("noise.slow_gpus"));
      n.slow_fraction =
          gm.required("fraction", "a probability in [0, 1], e.g. 0.01").as_number(-1e300, 1e300);
      n.slow_speed = gm.required("speed", "a fraction of the GPUs' speed, e.g. 0.9").as_number(-1e300, 1e300);
      gm.finish();
    }
    if (auto t = m.optional("network_tail"))
      n.network_tail = t->as_bool();
    m.finish();
    s.extensions[std::string(kSection)] = n;
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto* n = s.extension<NoiseConfig>(kSection);
    if (n == nullptr)
      return;
    if (!(n->gpu_jitter >= 0 && n->gpu_jitter <= 1))
      out.emplace_back(
          "noise.gpu_jitter",
          fmt::format("must be a coefficient of variation in [0, 1], found {:g}", n->gpu_jitter));
    if (n->gpu_delay) {
      if (!(n->gpu_delay->mean_s <= kMaxMeanDelay))
        out.emplace_back("noise.gpu_delay.mean", fmt::format("must be at most {:g} s, found {:g} s",
                                                             kMaxMeanDelay, n->gpu_delay->mean_s));
      if (n->gpu_delay->distribution == "lognormal" && !(n->gpu_delay->sigma > 0 && n->gpu_delay->sigma <= 5))
        out.emplace_back("noise.gpu_delay.sigma",
                         fmt::format("must be in (0, 5], found {:g}", n->gpu_delay->sigma));
    }
    if (!(n->slow_fraction >= 0 && n->slow_fraction <= 1))
      out.emplace_back("noise.slow_gpus.fraction",
                       fmt::format("must be a probability in [0, 1], found {:g}", n->slow_fraction));
    if (!(n->slow_speed > 0 && n->slow_speed <= 1))
      out.emplace_back(
          "noise.slow_gpus.speed",
          fmt::format("must be a fraction in (0, 1] of the GPUs' speed, found {:g}", n->slow_speed));
  }
  [[nodiscard]] bool replicas_differ(const scenario::Scenario& s) const override {
    const auto* n = s.extension<NoiseConfig>(kSection);
    return n != nullptr && n->any();
  }
  [[nodiscard]] report::Explainer explainer() const override {
    report::Explainer e;
    e.also = [](const report::VariantResult& base, const report::VariantResult& r) {
      const double wb = base.value("straggler_wait_s");
      const double wr = r.value("straggler_wait_s");
      if (wb <= 0 && wr <= 0)
        return std::string();
      const double step_gain = base.metrics.step_time_s - r.metrics.step_time_s;
      const double tail_gain = wb - wr;
      // Offload narrows the tail only where the wait shrinks by a meaningful share of what it saves.
      if (std::abs(tail_gain) < 0.05 * std::max(wb, 1e-12) ||
          std::abs(tail_gain) < 0.05 * std::abs(step_gain))
        return fmt::format(
            " The straggler wait is {:.4f} s vs {:.4f} s per step: it comes from the GPUs' own variability, "
            "which {} leaves as it is, so offload does not narrow the tail here.",
            wr, wb, r.variant);
      return fmt::format(" The straggler wait is {:.4f} s vs {:.4f} s per step ({:+.0f}%).", wr, wb,
                         wb > 0 ? 100 * (wr - wb) / wb : 0.0);
    };
    return e;
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto* n = run.scenario.extension<NoiseConfig>(kSection);
    if (n == nullptr || !n->any())
      return;
    std::vector<std::string> parts;
    if (n->gpu_jitter > 0)
      parts.push_back(
          fmt::format("kernel-time jitter with a coefficient of variation of {:g}", n->gpu_jitter));
    if (n->gpu_delay && n->gpu_delay->mean_s > 0)
      parts.push_back(
          fmt::format("{} delay of mean {:g} ms per micro-batch",
                      n->gpu_delay->distribution == "exponential" ? "an exponential" : "a lognormal",
                      n->gpu_delay->mean_s * 1e3));
    if (n->slow_fraction > 0 && n->slow_speed < 1)
      parts.push_back(
          fmt::format("{:g}% of GPUs at {:.0f}% speed", 100 * n->slow_fraction, 100 * n->slow_speed));
    if (n->network_tail)
      parts.push_back(
          run.path.software_latency_s() > 0
              ? fmt::format("network steps' software latency drawn from its lognormal (median {:g} us, "
                            "sigma {:g})",
                            run.path.software_latency_s() * 1e6, run.path.latency_sigma())
              : std::string("no network tail: this variant's transport adds no software latency "
                            "(RDMA in NIC hardware)"));
    std::string what;
    for (std::size_t i = 0; i < parts.size(); ++i)
      what += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    r.notes.push_back(fmt::format(
        "noise: {} (seed {}); synchronous steps waited {:.4f} s per step for their slowest members beyond "
        "the "
        "noise-free schedule (straggler wait, {:.1f}% of the step); all {} data-parallel replicas were "
        "simulated",
        what, run.scenario.seed, r.value("straggler_wait_s"),
        r.metrics.step_time_s > 0 ? 100 * r.value("straggler_wait_s") / r.metrics.step_time_s : 0.0,
        run.scenario.workload.parallelism.dp));
  }
};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

} // namespace

std::optional<plan::IterationPlan> noisy_iteration(const scenario::Scenario& s,
                                                   const plan::IterationPlan& clean,
                                                   const datapath::DataPath& path) {
  const auto* n = s.extension<NoiseConfig>(kSection);
  if (n == nullptr || !n->any())
    return std::nullopt;
  plan::IterationPlan noisy = clean;
  // One stream per source, so that turning one on does not move the draws of another.
  boost::random::mt19937_64 slow_rng(mix(s.seed ^ 0x736c6f77ULL));
  boost::random::mt19937_64 jitter_rng(mix(s.seed ^ 0x6a697474ULL));
  boost::random::mt19937_64 delay_rng(mix(s.seed ^ 0x64656c61ULL));
  boost::random::mt19937_64 tail_rng(mix(s.seed ^ 0x7461696cULL));
  std::vector<double> speed(static_cast<std::size_t>(s.cluster.nodes * s.cluster.gpus_per_node), 1.0);
  if (n->slow_fraction > 0 && n->slow_speed < 1) {
    boost::random::uniform_01<double> u;
    for (auto& v : speed)
      v = u(slow_rng) < n->slow_fraction ? n->slow_speed : 1.0;
  }
  const double sigma2 = std::log1p(n->gpu_jitter * n->gpu_jitter);
  std::optional<boost::random::lognormal_distribution<double>> jitter; // mean 1
  if (n->gpu_jitter > 0)
    jitter.emplace(-sigma2 / 2, std::sqrt(sigma2));
  std::set<std::tuple<int, int, int>> delayed; // (replica, stage, micro-batch): one delay each
  // Network tails: each step of a communication's latency waits for the slowest of its concurrent hops'
  // software latency, drawn, in place of the expected largest one the plan charged.
  if (n->network_tail && path.software_latency_s() > 0 && path.latency_sigma() > 0) {
    boost::random::lognormal_distribution<double> hop(std::log(path.software_latency_s()),
                                                      path.latency_sigma());
    for (std::size_t id = 0; id < noisy.info.size(); ++id) {
      const auto& info = noisy.info[id];
      if (info.category != plan::TaskCategory::latency || info.tail_steps <= 0)
        continue;
      double drawn = 0;
      for (int k = 0; k < info.tail_steps; ++k) {
        double slowest = 0;
        for (int h = 0; h < info.tail_hops; ++h)
          slowest = std::max(slowest, hop(tail_rng));
        drawn += slowest;
      }
      auto& task = noisy.graph.mutable_task(static_cast<engine::TaskId>(id));
      task.delay_s =
          std::max(0.0, task.delay_s - info.tail_steps * path.step_latency_s(info.tail_hops) + drawn);
    }
  }
  for (auto& info : noisy.info) {
    if (info.category != plan::TaskCategory::forward && info.category != plan::TaskCategory::backward &&
        info.category != plan::TaskCategory::optimizer)
      continue;
    const bool fwd = info.category == plan::TaskCategory::forward &&
                     delayed.insert({info.dp, info.stage, info.micro}).second;
    double factor = 0;
    double delay = 0;
    for (int g : info.gpus) {
      double f = 1.0 / speed.at(static_cast<std::size_t>(g));
      if (jitter)
        f *= (*jitter)(jitter_rng);
      factor = std::max(factor, f);
      if (fwd && n->gpu_delay && n->gpu_delay->mean_s > 0) {
        const auto& d = *n->gpu_delay;
        double x = 0;
        if (d.distribution == "lognormal") {
          // Mean mean_s: mu = ln(mean) - sigma^2 / 2.
          boost::random::lognormal_distribution<double> ln(std::log(d.mean_s) - d.sigma * d.sigma / 2,
                                                           d.sigma);
          x = ln(delay_rng);
        } else {
          boost::random::exponential_distribution<double> ex(1.0 / d.mean_s);
          x = ex(delay_rng);
        }
        delay = std::max(delay, x);
      }
    }
    info.compute_s = info.compute_s * std::max(factor, 1e-12) + delay;
  }
  return noisy;
}

void add_straggler_wait(double noisy_step_s, double clean_step_s, report::VariantResult& r) {
  r.set_value("straggler_wait_s", std::max(0.0, noisy_step_s - clean_step_s));
}

std::unique_ptr<Model> make_noise_model() {
  return std::make_unique<NoiseModel>();
}

} // namespace dpusim::model
