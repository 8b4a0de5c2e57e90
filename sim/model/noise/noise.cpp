// Variability of GPU work: per-task jitter of kernel time, a per-micro-batch delay, and persistently
// slow GPUs; which GPUs are slow is the job's draw (the scenario's seed), the rest the step's (step_seed)
// (Boost.Random: the same draws on every platform). The iteration is simulated with and without them on the
// same platform: collectives and pipeline sends wait for their slowest member because they are simulated that
// way, and the difference is the straggler wait. Noise makes replicas differ, so every data-parallel replica
// is simulated.
#include "sim/model/noise/noise.hpp"

#include "models/base/unit_parse.hpp"
#include "models/calibration/parameters.hpp"
#include "sim/model/model.hpp"
#include "sim/model/noise/draws.hpp"
#include "sim/model/pass.hpp"
#include "sim/model/plan_size.hpp"
#include "sim/model/registry.hpp"
#include "sim/plan/replica_subset.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace dpusim::model {
namespace {

/// The Arm complex whose OS noise the variant's Arm-side work meets: the training DPUs' where traffic
/// crosses them, else the front-end DPUs' where SNAP runs there (one figure for both: the catalog's DPUs
/// are one BlueField), else the training device's.
const std::optional<catalog::CpuSpec>& arm_of_noise(const scenario::Hardware& hw,
                                                    const datapath::DataPath& path) {
  return path.storage_on_frontend() && !path.through_arm() ? hw.arm_for(offload::Function::storage)
                                                           : hw.nic.arm;
}

constexpr std::string_view kSection = "noise";
constexpr double kMaxMeanDelay = 3600; // seconds

/// The straggler wait of each source, in words ("" unless at least two sources were broken down).
std::string sources_words(const report::VariantResult& r);

/// Where a value comes from, short: the catalog's source keys, "assumption", or the calibration profile.
std::string cite_words(const catalog::Citation& c) {
  switch (c.kind) {
  case catalog::Citation::Kind::source:
    return "catalog, " + c.text.substr(0, c.text.find(" ("));
  case catalog::Citation::Kind::assumption:
    return "catalog assumption";
  case catalog::Citation::Kind::calibration:
    return "calibration: " + c.text;
  }
  return c.text;
}

/// The part of the straggler wait the GPUs' own variability makes (all of it where nothing else is on).
double gpu_share(const report::VariantResult& r) {
  for (const auto& [k, v] : r.values)
    if (k == "straggler_wait_gpu_s")
      return v;
  return 0;
}

class NoiseModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "noise"; }
  [[nodiscard]] std::string_view summary() const override {
    return "GPU variability: kernel-time jitter, a per-micro-batch delay and persistently slow GPUs, drawn "
           "from the seed; the straggler wait it costs";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"noise", "section", "none",
         "variability of GPU work: which GPUs run slow from the seed, the rest from step_seed"},
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
        {"noise.os_noise", "bool", "false",
         "draw OS detours on host and Arm cores from their calibrated os_noise_fraction and os_noise_p99, "
         "grown by the kernel networking work the variant leaves there: they delay launch threads, the "
         "software of network hops, the loaders' decoding and the storage client's threads"},
        {"noise.storage_tail", "bool", "false",
         "draw each sample read's latency from the storage's lognormal (cluster.storage.read_latency or the "
         "calibrated storage.read_latency_median and _p99) in place of its median: the prefetch queue "
         "absorbs what it can"},
        {"noise.node_stalls", "section", "none",
         "stalls that stop every host core of a node at once (a daemon, a firmware interrupt, memory "
         "reclaim): the node's launch threads, loaders and host storage client wait them out"},
        {"noise.node_stalls.every", "duration", "required",
         "the mean time between two stalls of one node (a Poisson process per node), e.g. 10s"},
        {"noise.node_stalls.duration", "duration", "required", "each stall's length, e.g. 5ms"},
        {"noise.replicas", "choice", "auto",
         "which data-parallel replicas are simulated: all | slowest (the few that reach each synchronous "
         "point last stand for the others) | auto (all where the plan is small, else slowest)"},
    };
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    using Hw = scenario::Hardware;
    using Cite = catalog::Citation;
    return {
        {"host_cpu.os_noise_fraction", "cpu.os_noise_fraction",
         [](Hw& hw, double v, const Cite& c) {
           hw.cpu.os_noise_fraction = catalog::Cited<double>{v, c};
           return true;
         }},
        {"host_cpu.os_noise_p99", "cpu.os_noise_p99",
         [](Hw& hw, double v, const Cite& c) {
           hw.cpu.os_noise_p99 = catalog::Cited<units::Seconds>{units::Seconds::from_si(v), c};
           return true;
         }},
        {"dpu_arm.os_noise_fraction", "nic.arm.os_noise_fraction",
         [](Hw& hw, double v, const Cite& c) {
           if (!hw.nic.arm)
             return false;
           hw.nic.arm->os_noise_fraction = catalog::Cited<double>{v, c};
           return true;
         }},
        {"dpu_arm.os_noise_p99", "nic.arm.os_noise_p99",
         [](Hw& hw, double v, const Cite& c) {
           if (!hw.nic.arm)
             return false;
           hw.nic.arm->os_noise_p99 = catalog::Cited<units::Seconds>{units::Seconds::from_si(v), c};
           return true;
         }},
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
    if (auto o = m.optional("os_noise"))
      n.os_noise = o->as_bool();
    if (auto st = m.optional("storage_tail"))
      n.storage_tail = st->as_bool();
    if (auto ns = m.optional("node_stalls")) {
      auto sm = ns->as_map();
      sm.declare(registry().keys_under("noise.node_stalls"));
      NoiseConfig::NodeStalls stalls;
      stalls.every_s = sm.required("every", "the mean time between a node's stalls, e.g. 10s")
                           .as_quantity<units::Seconds>()
                           .si();
      stalls.duration_s =
          sm.required("duration", "each stall's length, e.g. 5ms").as_quantity<units::Seconds>().si();
      sm.finish();
      n.node_stalls = stalls;
    }
    if (auto rp = m.optional("replicas")) {
      const auto mode = rp->as_choice({"auto", "all", "slowest"});
      n.replicas = mode == "all"       ? NoiseConfig::Replicas::all
                   : mode == "slowest" ? NoiseConfig::Replicas::slowest
                                       : NoiseConfig::Replicas::automatic;
    }
    m.finish();
    s.extensions[std::string(kSection)] = n;
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto* n = s.extension<NoiseConfig>(kSection);
    if (n == nullptr)
      return;
    if (n->os_noise)
      check_os_noise(s, cat, out);
    if (n->storage_tail && !(s.workload.data && s.workload.data->sample.si() > 0))
      out.emplace_back("noise.storage_tail",
                       "draws the latency of sample reads, and this scenario reads none: give workload.data "
                       "{sample, decode, workers} and cluster.storage, or remove storage_tail");
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
    if (const auto& st = n->node_stalls) {
      if (!(st->duration_s > 0 && st->duration_s <= kMaxMeanDelay))
        out.emplace_back(
            "noise.node_stalls.duration",
            fmt::format("must be above 0 and at most {:g} s, found {:g} s", kMaxMeanDelay, st->duration_s));
      else if (!(st->duration_s >= 1e-6))
        out.emplace_back("noise.node_stalls.duration",
                         fmt::format("must be at least 1 us (shorter detours are OS noise: noise.os_noise), "
                                     "found {:g} s",
                                     st->duration_s));
      else if (!(st->every_s > st->duration_s && st->every_s >= 1e-3 && st->every_s <= 1e7))
        out.emplace_back(
            "noise.node_stalls.every",
            fmt::format("must be longer than the stall's duration ({:g} s), at least 1 ms and at most 1e7 s, "
                        "found {:g} s",
                        st->duration_s, st->every_s));
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
    return n != nullptr && n->any() && !slowest_replicas_only(s);
  }
  [[nodiscard]] bool builds_every_replica(const scenario::Scenario& s) const override {
    return slowest_replicas_only(s);
  }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    return {
        {"straggler_wait_s", "s", "how much longer the noisy step is than the noise-free one", true, false},
        {"straggler_wait_gpu_s", "s", "of it, the GPUs' own variability's share", false, true},
        {"straggler_wait_os_s", "s", "of it, OS noise's share (node stalls included)", false, true},
        {"straggler_wait_network_s", "s", "of it, the network software tail's share", false, true},
        {"straggler_wait_storage_s", "s", "of it, the storage read tail's share", false, true},
        {"os_noise_host_fraction", "fraction", "the share of each host core OS noise takes in this variant",
         false, false},
        {"os_noise_arm_fraction", "fraction", "the share of each DPU Arm core OS noise takes in this variant",
         false, false},
        {"noise_replicas_simulated", "count",
         "the data-parallel replicas the noisy step was simulated on (the slowest-replicas shortcut)", false,
         false},
    };
  }
  [[nodiscard]] bool alters_passes(const scenario::Scenario& s) const override {
    return noise_of(s) != nullptr;
  }
  [[nodiscard]] std::unique_ptr<Perturbation> perturbation(const RunContext& run,
                                                           const metrics::IterationMetrics& clean,
                                                           const metrics::MetricsInputs& in) const override {
    return noise_perturbation(run, clean, in);
  }
  [[nodiscard]] report::Explainer explainer() const override {
    report::Explainer e;
    e.also = [](const report::VariantResult& base, const report::VariantResult& r) {
      const double wb = base.value("straggler_wait_s");
      const double wr = r.value("straggler_wait_s");
      if (wb <= 0 && wr <= 0)
        return std::string();
      // The part of each wait that offload can act on: OS noise on the cores and the network's software
      // tail; the GPUs' own variability stays whatever the variant.
      const double gpu_b = gpu_share(base);
      const double gpu_r = gpu_share(r);
      const double step_gain = base.metrics.step_time_s - r.metrics.step_time_s;
      const double tail_gain = wb - wr;
      const bool gpu_made = gpu_b >= 0.5 * wb && gpu_r >= 0.5 * wr;
      if (gpu_made && (std::abs(tail_gain) < 0.05 * std::max(wb, 1e-12) ||
                       std::abs(tail_gain) < 0.05 * std::abs(step_gain)))
        return fmt::format(
            " The straggler wait is {:.4f} s vs {:.4f} s per step: it comes from the GPUs' own variability, "
            "which {} leaves as it is, so offload does not narrow the tail here.",
            wr, wb, r.variant);
      if (std::abs(tail_gain) < 0.05 * std::max(wb, 1e-12))
        return fmt::format(" The straggler wait is {:.4f} s vs {:.4f} s per step: its sources weigh the same "
                           "on both, so offload does not narrow the tail here.",
                           wr, wb);
      std::string words = fmt::format(" The straggler wait is {:.4f} s vs {:.4f} s per step ({:+.0f}%)", wr,
                                      wb, wb > 0 ? 100 * (wr - wb) / wb : 0.0);
      if (const auto by = sources_words(base); !by.empty()) {
        words += fmt::format(": {}'s comes from {}", base.variant, by);
        if (tail_gain > 0 && wr > 0 && gpu_r >= 0.5 * wr)
          words += fmt::format(", and what is left of it comes from the GPUs ({:.4f} s), which offload does "
                               "not touch",
                               gpu_r);
      }
      return words + ".";
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
    if (n->network_tail && run.path.rdma_latency_sigma() > 0)
      parts.push_back(fmt::format("each network step's RDMA latency drawn from the NIC's lognormal (median "
                                  "{:g} us a hop, sigma {:.3g}, from its 99th percentile: {})",
                                  run.path.rdma_hop_latency_s() * 1e6, run.path.rdma_latency_sigma(),
                                  cite_words(run.hardware.nic.latency_p99->cite)));
    else if (n->network_tail)
      parts.push_back(
          run.path.software_latency_s() > 0
              ? fmt::format("network steps' software latency drawn from its lognormal (median {:g} us, "
                            "sigma {:g})",
                            run.path.software_latency_s() * 1e6, run.path.latency_sigma())
              : std::string("no network tail: this variant's transport adds no software latency "
                            "(RDMA in NIC hardware) and the NIC gives no latency tail (calibrate "
                            "nic.rdma_latency_p99: dpusim-calib run --probes rdma)"));
    if (n->os_noise)
      parts.push_back(os_noise_words(run, r));
    if (n->storage_tail)
      parts.push_back(storage_words(run));
    if (n->stalls())
      parts.push_back(fmt::format(
          "node-wide stalls of {:g} ms, one every {:g} s on average on each node (a Poisson process; set by "
          "the scenario), stopping the node's launch threads, loaders and host storage client at once "
          "(a GPU waits where its launches fall behind the work it had queued)",
          n->node_stalls->duration_s * 1e3, n->node_stalls->every_s));
    std::string what;
    for (std::size_t i = 0; i < parts.size(); ++i)
      what += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    r.notes.push_back(fmt::format(
        "noise: {} (seed {}); synchronous steps waited {:.4f} s per step for their slowest members beyond "
        "the "
        "noise-free schedule (straggler wait, {:.1f}% of the step); {}",
        what, run.scenario.seed, r.value("straggler_wait_s"),
        r.metrics.step_time_s > 0 ? 100 * r.value("straggler_wait_s") / r.metrics.step_time_s : 0.0,
        replicas_words(run, r)));
    if (const auto by = sources_words(r); !by.empty())
      if (r.value("straggler_wait_s") > 1e-6)
        r.notes.push_back(
            "noise: the straggler wait by source, " + by +
            " (each source simulated alone with the same draws, the total shared in proportion)");
  }

private:
  static void check_os_noise(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) {
    {
      const auto* node = cat.node(s.cluster.node);
      const auto* cpu = node ? cat.cpu(node->cpu) : nullptr;
      if (cpu != nullptr && (!cpu->os_noise_fraction || !cpu->os_noise_p99))
        out.emplace_back("noise.os_noise",
                         fmt::format("needs the host CPU's OS noise, and the catalog's {} has no "
                                     "os_noise_fraction or os_noise_p99: add them to its entry, or calibrate "
                                     "host_cpu.os_noise_fraction and host_cpu.os_noise_p99 "
                                     "(dpusim-calib run --probes os-noise)",
                                     cpu->name));
      else if (cpu != nullptr && !(cpu->os_noise_fraction->value > 0))
        out.emplace_back("noise.os_noise",
                         fmt::format("needs an OS noise fraction above 0 for its detours' shape; the "
                                     "catalog's {} gives {:g}",
                                     cpu->name, cpu->os_noise_fraction->value));
    }
  }

  static std::string replicas_words(const RunView& run, const report::VariantResult& r) {
    const int dp = run.scenario.workload.parallelism.dp;
    if (!slowest_replicas_only(run.scenario))
      return fmt::format("all {} data-parallel replicas were simulated", dp);
    const auto k = static_cast<int>(r.value("noise_replicas_simulated"));
    return fmt::format(
        "{} of the {} data-parallel replicas were simulated, those that reach the synchronous "
        "points last by their drawn GPU time and delays, each standing for {:.3g} (noise.replicas: "
        "all simulates every one)",
        k, dp, k > 0 ? static_cast<double>(dp) / k : 0.0);
  }

  static std::string storage_words(const RunView& run) {
    const auto& hw = run.hardware;
    if (!hw.storage_read_latency_median || !hw.storage_read_latency_p99)
      return "no storage tail: no read latency to draw from (give cluster.storage.read_latency {median, "
             "p99}, or calibrate storage.read_latency_median and _p99 with dpusim-calib run --probes storage "
             "--storage-file on the training file system)";
    const double sigma = storage_latency_sigma(hw);
    const auto& med = *hw.storage_read_latency_median;
    const auto& p99 = *hw.storage_read_latency_p99;
    return fmt::format("each sample read's latency drawn from the storage's lognormal (median {}, 99th "
                       "percentile {}, sigma {:.3g}; {}), each load waiting for its slowest loader{}",
                       units::format(med.value), units::format(p99.value), sigma,
                       med.cite.text.rfind("set by the scenario", 0) == 0 ? "cluster.storage.read_latency"
                                                                          : cite_words(med.cite),
                       sigma > 0 ? "" : " (the percentile equals the median: no tail)");
  }

  static std::string os_noise_words(const RunView& run, const report::VariantResult& r) {
    const auto& cpu = run.hardware.cpu;
    if (!cpu.os_noise_fraction || !cpu.os_noise_p99)
      return "no host OS noise (the CPU has no os_noise parameters)";
    std::string w = fmt::format("host OS noise of {:.3g}% per core with a 99th-percentile detour of {:g} us "
                                "per {:g} us quantum ({}; {})",
                                100 * cpu.os_noise_fraction->value, cpu.os_noise_p99->value.si() * 1e6,
                                calibration::kOsNoiseQuantumS * 1e6, cite_words(cpu.os_noise_fraction->cite),
                                cite_words(cpu.os_noise_p99->cite));
    if ((cpu.os_noise_fraction->cite.kind == catalog::Citation::Kind::calibration) !=
        (cpu.os_noise_p99->cite.kind == catalog::Citation::Kind::calibration))
      w += " (one of the pair calibrated and the other from the catalog: the detours' shape comes from both, "
           "so calibrate both with dpusim-calib run --probes os-noise)";
    if (const double f = r.value("os_noise_host_fraction"); f > cpu.os_noise_fraction->value)
      w += fmt::format(", raised to {:.3g}% by the kernel networking and storage work the variant "
                       "leaves on the host's cores",
                       100 * f);
    bool decode = false;
    bool host_client = false;
    bool arm_client = false;
    for (const auto& info : run.iteration.info) {
      decode = decode || info.decode_loads > 0;
      (info.client_on_arm ? arm_client : host_client) |= info.client_loads > 0;
    }
    const auto& arm = arm_of_noise(run.hardware, run.path);
    if ((run.path.through_arm() || arm_client) && arm && arm->os_noise_fraction && arm->os_noise_p99)
      w += fmt::format("; Arm-core OS noise of {:.3g}% ({})", 100 * r.value("os_noise_arm_fraction"),
                       cite_words(arm->os_noise_fraction->cite));
    const bool rdma = run.path.transport() == offload::Transport::rdma;
    std::vector<std::string> reach;
    if (!rdma)
      reach.emplace_back("each network hop's software");
    reach.emplace_back("the launch threads");
    if (decode)
      reach.emplace_back("the loaders' decoding");
    if (host_client)
      reach.emplace_back("the host storage client's threads");
    std::string listed;
    for (std::size_t k = 0; k < reach.size(); ++k)
      listed += (k == 0 ? "" : k + 1 == reach.size() ? " and " : ", ") + reach[k];
    if (arm_client)
      listed += "; on the Arm cores, SNAP's storage threads";
    w += rdma ? "; RDMA in NIC hardware puts no host software on the network steps, so the detours reach "
                "only " +
                    listed
              : "; the detours reach " + listed;
    return w;
  }
};

std::string sources_words(const report::VariantResult& r) {
  std::string out;
  int found = 0;
  for (auto src : kNoiseSources) {
    const std::string key = fmt::format("straggler_wait_{}_s", noise_source_name(src));
    if (std::none_of(r.values.begin(), r.values.end(), [&](const auto& v) { return v.first == key; }))
      continue;
    const char* what = src == NoiseSource::gpu       ? "the GPUs' variability"
                       : src == NoiseSource::os      ? "OS noise"
                       : src == NoiseSource::network ? "the network's software tail"
                                                     : "the storage read tail";
    out += fmt::format("{}{} {:.4f} s", out.empty() ? "" : ", ", what, r.value(key));
    ++found;
  }
  return found > 1 ? out : std::string();
}

} // namespace

std::string_view noise_source_name(NoiseSource src) {
  switch (src) {
  case NoiseSource::gpu:
    return "gpu";
  case NoiseSource::os:
    return "os";
  case NoiseSource::network:
    return "network";
  case NoiseSource::storage:
    return "storage";
  }
  return "gpu";
}

std::vector<NoiseSource> sources_of(const NoiseConfig& n) {
  std::vector<NoiseSource> out;
  if (n.gpu())
    out.push_back(NoiseSource::gpu);
  if (n.os_noise || n.stalls())
    out.push_back(NoiseSource::os);
  if (n.network_tail)
    out.push_back(NoiseSource::network);
  if (n.storage_tail)
    out.push_back(NoiseSource::storage);
  return out;
}

NoiseConfig only(const NoiseConfig& n, NoiseSource src) {
  NoiseConfig o;
  switch (src) {
  case NoiseSource::gpu:
    o = n;
    o.network_tail = false;
    o.os_noise = false;
    o.storage_tail = false;
    o.node_stalls.reset();
    break;
  case NoiseSource::os:
    o.os_noise = n.os_noise;
    o.node_stalls = n.node_stalls;
    break;
  case NoiseSource::network:
    o.network_tail = n.network_tail;
    break;
  case NoiseSource::storage:
    o.storage_tail = n.storage_tail;
    break;
  }
  return o;
}

const NoiseConfig* noise_of(const scenario::Scenario& s) {
  return s.extension<NoiseConfig>(kSection);
}

std::optional<OsNoise> os_noise_for(const scenario::Scenario& s, const scenario::Hardware& hw,
                                    const datapath::DataPath& path, const metrics::IterationMetrics& clean,
                                    const metrics::MetricsInputs& in, double launch_s_per_kernel) {
  const auto* n = noise_of(s);
  if (n == nullptr || !n->os_noise || !hw.cpu.os_noise_fraction || !hw.cpu.os_noise_p99)
    return std::nullopt;
  using plan::CpuUse;
  // Kernel work that the NIC's interrupts drive (softirq receive processing and the socket, datapath and
  // crypto work around it) runs on whichever cores RSS and irqbalance steer it to, spread over all of
  // them: each core, a launch thread's included, loses its share of the time.
  const auto kernel_work = [](const plan::CpuUseSeconds& busy) {
    return busy[static_cast<std::size_t>(CpuUse::transport)] +
           busy[static_cast<std::size_t>(CpuUse::storage)] +
           busy[static_cast<std::size_t>(CpuUse::encryption)] +
           busy[static_cast<std::size_t>(CpuUse::vswitch)];
  };
  OsNoise os;
  os.launch_s_per_kernel = launch_s_per_kernel;
  os.host_load = in.host_cores > 0 ? kernel_work(clean.host_busy_cores_by_use) / in.host_cores : 0;
  os.host = Detours(hw.cpu.os_noise_fraction->value, hw.cpu.os_noise_p99->value.si(), os.host_load);
  if (path.transport() == offload::Transport::host_tcp)
    os.host_hop_s = hw.cpu.tcp_latency_median.value.si();
  const auto& arm = arm_of_noise(hw, path);
  if (arm && arm->os_noise_fraction && arm->os_noise_p99) {
    os.arm_load = in.arm_cores > 0 ? kernel_work(clean.arm_busy_cores_by_use) / in.arm_cores : 0;
    os.arm = Detours(arm->os_noise_fraction->value, arm->os_noise_p99->value.si(), os.arm_load);
    if (path.through_arm())
      os.arm_hop_s = arm->tcp_latency_median.value.si();
  }
  return os;
}

double storage_latency_sigma(const scenario::Hardware& hw) {
  if (!hw.storage_read_latency_median || !hw.storage_read_latency_p99)
    return 0;
  const double median = hw.storage_read_latency_median->value.si();
  const double p99 = hw.storage_read_latency_p99->value.si();
  return median > 0 && p99 > median ? std::log(p99 / median) / kZ99 : 0.0;
}

std::unique_ptr<Model> make_noise_model() {
  return std::make_unique<NoiseModel>();
}

} // namespace dpusim::model
