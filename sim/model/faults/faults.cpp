// What-if faults: slow nodes, degraded, failed and flapping leaf-spine links, failed spines. A
// tensor-parallel group runs in lockstep, so a group with a GPU on a slow node computes at that GPU's
// pace; a degraded link carries a share of its bandwidth; a flapping one nearly nothing while it is down.
// Pipeline sends and data-parallel collectives then wait for them as they are simulated, so the whole step
// pays what the fault costs (no expected-maximum formula). Slow nodes make replicas differ, so every
// data-parallel replica is simulated. See docs/models/faults.md.
#include "sim/model/faults/faults.hpp"

#include "models/base/unit_parse.hpp"
#include "sim/model/model.hpp"
#include "sim/model/pass.hpp"
#include "sim/model/registry.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace dpusim::model {
namespace {

constexpr std::string_view kSection = "faults";

/// The shortest period of a flapping link: it keeps the flaps' bandwidth changes few beside the flows'.
constexpr double kShortestFlapPeriodS = 0.01;

/// Where in its period each flapping link is when an iteration starts: uniform over the period, one draw
/// per entry from the step's seed (Scenario::step_draw_seed), so that over steps it sees every phase alike.
std::vector<double> flap_phases(const FaultsConfig& f, std::uint64_t seed) {
  boost::random::mt19937_64 rng(seed ^ 0x666c6170ULL);
  std::vector<double> out;
  for (const auto& d : f.flapping_links)
    out.push_back(boost::random::uniform_real_distribution<double>(0.0, d.every_s)(rng));
  return out;
}

/// Makes the platform's links named in `names` (those some route uses) flap as `d` says, from `phase`,
/// losing `share` of their bandwidth while down.
void add_flaps(engine::PlatformDecl& platform, const std::set<std::string>& names,
               const FaultsConfig::FlappingLink& d, double phase, double share) {
  for (std::size_t li = 0; li < platform.links.size(); ++li)
    if (names.contains(platform.links[li].name))
      platform.flaps.push_back({static_cast<std::int32_t>(li), d.down_s, d.every_s, phase, share});
}

/// Under adaptive routing (a pooled fabric, docs/models/routing.md) a pod's spines are one switch whose
/// link to each leaf stands for all that leaf's up-links: a fault takes its share of that link's rate, and
/// adaptive routing spreads the traffic over what is left. Each of a pod's S spines carries 1/S of a
/// pooled leaf link, and of the pod's pooled core link.
void shape_pooled(const FaultsConfig& f, const topology::Topology& topo, std::uint64_t seed,
                  engine::PlatformDecl& platform) {
  const auto shape = topology::fabric_shape(topo.layout());
  const double spines = std::max(1, shape.spines);
  const bool three = topo.tiers() == 3;
  auto pool = [&](int pod) { return three ? fmt::format("pod{}.spines", pod) : std::string("spines"); };
  auto pod_of = [&](int leaf) { return three ? leaf / std::max(1, shape.leaves_per_pod) : 0; };
  std::map<std::string, double> lost; // link name -> share of its rate gone
  auto lose = [&](const std::string& a, const std::string& b, double share) {
    lost[fmt::format("{}->{}", a, b)] += share;
    lost[fmt::format("{}->{}", b, a)] += share;
  };
  for (const auto& d : f.degraded_links)
    lose(fmt::format("leaf{}", d.leaf), pool(pod_of(d.leaf)),
         (1 - d.rate) * (d.spine < 0 ? 1.0 : 1.0 / spines));
  for (const auto& d : f.failed_links)
    lose(fmt::format("leaf{}", d.leaf), pool(pod_of(d.leaf)), 1.0 / spines);
  // Failed spines are of pod 0: every leaf of the pod loses its links to them, and the pod its core links.
  const double down = static_cast<double>(f.failed_spines.size()) / spines;
  if (down > 0) {
    for (int l = 0; l < std::min(shape.leaves, std::max(1, shape.leaves_per_pod)); ++l)
      lose(fmt::format("leaf{}", l), pool(0), down);
    if (three)
      lose(pool(0), "cores", down);
  }
  for (auto& link : platform.links)
    if (const auto it = lost.find(link.name); it != lost.end())
      link.bandwidth *= std::max(0.0, 1.0 - it->second);
  // A flapping link takes its share of the pooled link while it is down.
  const auto phases = flap_phases(f, seed);
  for (std::size_t i = 0; i < f.flapping_links.size(); ++i) {
    const auto& d = f.flapping_links[i];
    const std::string leaf = fmt::format("leaf{}", d.leaf);
    const std::string pooled = pool(pod_of(d.leaf));
    const double share = d.spine < 0 ? 1.0 : 1.0 / spines;
    add_flaps(platform, {leaf + "->" + pooled, pooled + "->" + leaf}, d, phases[i], share);
  }
}

/// The names of the spines a degraded link entry joins its leaf to (topology vertex names).
std::vector<std::string> spine_names(const topology::Topology& topo, const FaultsConfig::DegradedLink& d) {
  const int pods = std::max(1, topo.num_pods());
  const int spines = topo.num_spines() / pods;
  const int pod = topo.tiers() == 3 ? d.leaf / std::max(1, topo.num_leaves() / pods) : 0;
  std::vector<std::string> out;
  for (int s = 0; s < spines; ++s)
    if (d.spine < 0 || d.spine == s)
      out.push_back(topo.tiers() == 3 ? fmt::format("pod{}.spine{}", pod, s) : fmt::format("spine{}", s));
  return out;
}

/// The platform names of both directions of the links an entry joins its leaf to.
std::set<std::string> link_names(const topology::Topology& topo, const FaultsConfig::DegradedLink& d) {
  std::set<std::string> names;
  for (const auto& spine : spine_names(topo, d)) {
    names.insert(fmt::format("leaf{}->{}", d.leaf, spine));
    names.insert(fmt::format("{}->leaf{}", spine, d.leaf));
  }
  return names;
}

/// A degraded link must name a leaf and a spine the fabric has, at a rate in (0, 1].
void check_links(const scenario::Scenario& s, const catalog::Catalog& cat, const FaultsConfig& f,
                 Problems& out) {
  if (f.degraded_links.empty() && f.failed_spines.empty() && f.failed_links.empty() &&
      f.flapping_links.empty())
    return;
  const auto* node = cat.node(s.cluster.node);
  const auto* nic = cat.nic(s.cluster.nic);
  const auto* sw = cat.network_switch(s.cluster.fabric.switch_model);
  if (node == nullptr || nic == nullptr || sw == nullptr || s.cluster.nodes < 1 ||
      s.cluster.gpus_per_node < 1)
    return; // the cluster and fabric models say what is wrong
  topology::FabricShape shape;
  try {
    shape =
        topology::fabric_shape(scenario::cluster_layout(s.cluster, *node, *cat.gpu(node->gpu), *nic, *sw));
  } catch (const std::invalid_argument&) {
    return; // the fabric model says so
  }
  // A leaf-spine link the fabric has (`verb`: what the fault does to it); true when it exists.
  auto link_exists = [&](const std::string& key, const FaultsConfig::DegradedLink& d, std::string_view verb) {
    if (shape.tiers < 2)
      out.emplace_back(
          key, fmt::format("the cluster's nodes hang off one leaf: it has no leaf-spine link to {}", verb));
    else if (d.leaf < 0 || d.leaf >= shape.leaves)
      out.emplace_back(key + ".leaf", fmt::format("leaf {} does not exist: the fabric's leaves are 0 to {}",
                                                  d.leaf, shape.leaves - 1));
    else if (d.spine >= shape.spines)
      out.emplace_back(key + ".spine", fmt::format("spine {} does not exist: a pod's spines are 0 to {}",
                                                   d.spine, shape.spines - 1));
    else
      return true;
    return false;
  };
  for (std::size_t i = 0; i < f.degraded_links.size(); ++i) {
    const auto& d = f.degraded_links[i];
    const std::string key = fmt::format("faults.degraded_links[{}]", i);
    link_exists(key, d, "degrade");
    if (!(d.rate > 0 && d.rate <= 1))
      out.emplace_back(
          key + ".rate",
          fmt::format("must be a fraction in (0, 1] of the links' bandwidth, found {:g}", d.rate));
  }
  for (std::size_t i = 0; i < f.flapping_links.size(); ++i) {
    const auto& d = f.flapping_links[i];
    const std::string key = fmt::format("faults.flapping_links[{}]", i);
    link_exists(key, FaultsConfig::DegradedLink{d.leaf, d.spine, 0}, "flap");
    if (!(d.every_s >= kShortestFlapPeriodS))
      out.emplace_back(key + ".every",
                       fmt::format("must be at least {:g} ms, found {}: a link going down and up more often "
                                   "is a bad link (faults.degraded_links gives its average rate), and each "
                                   "change costs the simulation a re-solve of the flows",
                                   kShortestFlapPeriodS * 1e3,
                                   units::format(units::Seconds::from_si(d.every_s))));
    else if (!(d.every_s > d.down_s))
      out.emplace_back(
          key + ".every",
          fmt::format("must be longer than down ({:g} s), found {:g} s: a link down the whole time "
                      "is a failed link (faults.failed_links)",
                      d.down_s, d.every_s));
  }
  std::set<int> down;
  for (std::size_t i = 0; i < f.failed_spines.size(); ++i) {
    const int sp = f.failed_spines[i];
    const std::string key = fmt::format("faults.failed_spines[{}]", i);
    if (shape.tiers < 2)
      out.emplace_back(key, "the cluster's nodes hang off one leaf: it has no spine to fail");
    else if (sp < 0 || sp >= shape.spines)
      out.emplace_back(
          key, fmt::format("spine {} does not exist: a pod's spines are 0 to {}", sp, shape.spines - 1));
    else if (!down.insert(sp).second)
      out.emplace_back(key, fmt::format("spine {} is listed twice", sp));
  }
  if (shape.tiers >= 2 && static_cast<int>(down.size()) >= shape.spines)
    out.emplace_back(
        "faults.failed_spines",
        fmt::format("fails every one of the pod's {} spines: no leaf could reach another", shape.spines));
  std::map<int, std::set<int>> cut; // leaf -> spines it lost
  for (std::size_t i = 0; i < f.failed_links.size(); ++i) {
    const auto& d = f.failed_links[i];
    if (link_exists(fmt::format("faults.failed_links[{}]", i), d, "fail"))
      cut[d.leaf].insert(d.spine);
  }
  for (const auto& [leaf, spines] : cut) {
    std::set<int> lost = spines;
    lost.insert(down.begin(), down.end());
    if (static_cast<int>(lost.size()) >= shape.spines)
      out.emplace_back("faults.failed_links",
                       fmt::format("leaf {} loses every spine: its nodes could reach no other leaf", leaf));
  }
}

constexpr std::string_view kFaultFree = "fault-free";

class FaultsModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "faults"; }
  [[nodiscard]] std::string_view summary() const override {
    return "what-if faults: slow nodes, degraded, failed and flapping leaf-spine links, failed spines, paced "
           "through every synchronous step";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"faults", "section", "none", "what-if faults in the cluster"},
        {"faults.slow_nodes", "list of node indices", "none", "nodes (0-based) whose GPUs run slower"},
        {"faults.slow_speed", "fraction", "required with slow_nodes",
         "their GPUs' speed as a fraction of the catalog's, in (0, 1], e.g. 0.5"},
        {"faults.degraded_links", "list", "none", "leaf-spine links running below their rate"},
        {"faults.degraded_links[].leaf", "count", "required", "the leaf (0-based)"},
        {"faults.degraded_links[].spine", "count", "every spine of the leaf's pod",
         "the spine (0-based, within the pod)"},
        {"faults.degraded_links[].rate", "fraction", "required",
         "the share of the links' bandwidth left, in (0, 1], both directions"},
        {"faults.failed_spines", "list of spine indices", "none",
         "spines that are down (0-based; of pod 0 on three tiers): routes go around them"},
        {"faults.failed_links", "list", "none", "leaf-spine links that are down, both directions"},
        {"faults.failed_links[].leaf", "count", "required", "the leaf (0-based)"},
        {"faults.failed_links[].spine", "count", "required", "the spine (0-based, within the leaf's pod)"},
        {"faults.flapping_links", "list", "none",
         "leaf-spine links that go down for a while at regular intervals, both directions"},
        {"faults.flapping_links[].leaf", "count", "required", "the leaf (0-based)"},
        {"faults.flapping_links[].spine", "count", "every spine of the leaf's pod",
         "the spine (0-based, within the pod)"},
        {"faults.flapping_links[].down", "duration", "required",
         "how long the link is down each time, e.g. 50ms"},
        {"faults.flapping_links[].every", "duration", "required",
         "how often it goes down (the period, longer than down), e.g. 2s"},
    };
  }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    return {
        {"fault_cost_s", "s",
         "what the slow nodes and flapping links add to the step, against the same iteration without them on "
         "the same platform",
         true, false},
        {"fault_free_step_s", "s", "the step of that iteration without them", false, false},
        {"fault_cost_noisy", "flag", "1 where both steps carry the same noise draws, 0 where noise-free",
         false, false},
    };
  }
  [[nodiscard]] std::string_view section() const override { return kSection; }
  void read(yaml::Map m, scenario::Scenario& s) const override {
    m.declare(registry().keys_under(kSection)); // the keys above, declared once
    FaultsConfig f;
    if (auto nodes = m.optional("slow_nodes")) {
      for (const auto& item : nodes->as_sequence().items())
        f.slow_nodes.push_back(static_cast<int>(item.as_int(0, 1 << 16)));
      f.slow_speed = m.required("slow_speed", "a fraction of the GPUs' speed, e.g. 0.5").as_number(0, 1);
    }
    if (auto links = m.optional("degraded_links"))
      for (const auto& item : links->as_sequence().items()) {
        auto lm = item.as_map();
        lm.declare(registry().keys_under("faults.degraded_links[]"));
        FaultsConfig::DegradedLink d;
        d.leaf = static_cast<int>(lm.required("leaf", "the leaf's index").as_int(0, 1 << 20));
        if (auto sp = lm.optional("spine"))
          d.spine = static_cast<int>(sp->as_int(0, 1 << 20));
        d.rate = lm.required("rate", "the share of the bandwidth left, e.g. 0.5").as_number(0, 1);
        lm.finish();
        f.degraded_links.push_back(d);
      }
    if (auto spines = m.optional("failed_spines"))
      for (const auto& item : spines->as_sequence().items())
        f.failed_spines.push_back(static_cast<int>(item.as_int(0, 1 << 20)));
    if (auto links = m.optional("failed_links"))
      for (const auto& item : links->as_sequence().items()) {
        auto lm = item.as_map();
        lm.declare(registry().keys_under("faults.failed_links[]"));
        FaultsConfig::DegradedLink d;
        d.leaf = static_cast<int>(lm.required("leaf", "the leaf's index").as_int(0, 1 << 20));
        d.spine =
            static_cast<int>(lm.required("spine", "the spine's index within the pod").as_int(0, 1 << 20));
        d.rate = 0;
        lm.finish();
        f.failed_links.push_back(d);
      }
    if (auto links = m.optional("flapping_links"))
      for (const auto& item : links->as_sequence().items()) {
        auto lm = item.as_map();
        lm.declare(registry().keys_under("faults.flapping_links[]"));
        FaultsConfig::FlappingLink d;
        d.leaf = static_cast<int>(lm.required("leaf", "the leaf's index").as_int(0, 1 << 20));
        if (auto sp = lm.optional("spine"))
          d.spine = static_cast<int>(sp->as_int(0, 1 << 20));
        d.down_s = lm.required("down", "how long the link is down each time, e.g. 50ms")
                       .as_quantity<units::Seconds>()
                       .si();
        d.every_s =
            lm.required("every", "how often it goes down, e.g. 2s").as_quantity<units::Seconds>().si();
        lm.finish();
        f.flapping_links.push_back(d);
      }
    m.finish();
    if (f.slow_nodes.empty() && f.degraded_links.empty() && f.failed_spines.empty() &&
        f.failed_links.empty() && f.flapping_links.empty())
      m.node().fail("names no fault: give slow_nodes (with slow_speed), degraded_links, failed_spines, "
                    "failed_links or flapping_links");
    s.extensions[std::string(kSection)] = f;
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto* f = s.extension<FaultsConfig>(kSection);
    if (f == nullptr)
      return;
    std::set<int> seen;
    for (std::size_t i = 0; i < f->slow_nodes.size(); ++i) {
      const int n = f->slow_nodes[i];
      const std::string key = fmt::format("faults.slow_nodes[{}]", i);
      if (n < 0 || n >= s.cluster.nodes)
        out.emplace_back(key, fmt::format("node {} does not exist: the cluster's nodes are 0 to {}", n,
                                          s.cluster.nodes - 1));
      else if (!seen.insert(n).second)
        out.emplace_back(key, fmt::format("node {} is listed twice", n));
    }
    if (!(f->slow_speed > 0 && f->slow_speed <= 1))
      out.emplace_back(
          "faults.slow_speed",
          fmt::format("must be a fraction in (0, 1] of the GPUs' speed, found {:g}", f->slow_speed));
    check_links(s, cat, *f, out);
  }
  [[nodiscard]] bool replicas_differ(const scenario::Scenario& s) const override {
    const auto* f = s.extension<FaultsConfig>(kSection);
    return f != nullptr && !f->slow_nodes.empty() && f->slow_speed < 1;
  }
  void shape(plan::IterationPlan& plan, const plan::IterationContext& ctx) const override {
    const auto* f =
        ctx.host.scenario == nullptr ? nullptr : ctx.host.scenario->extension<FaultsConfig>(kSection);
    if (f == nullptr || f->slow_nodes.empty())
      return;
    const int per_node = ctx.host.scenario->cluster.gpus_per_node;
    const std::set<int> slow(f->slow_nodes.begin(), f->slow_nodes.end());
    for (auto& info : plan.info) {
      if (info.category != plan::TaskCategory::forward && info.category != plan::TaskCategory::backward &&
          info.category != plan::TaskCategory::optimizer)
        continue;
      // The group's kernels run in lockstep: one slow GPU paces all of them.
      if (std::any_of(info.gpus.begin(), info.gpus.end(), [&](int g) { return slow.contains(g / per_node); }))
        info.compute_s /= f->slow_speed;
    }
  }
  void add_failures(const scenario::Scenario& s, const topology::Topology& topo,
                    topology::Failures& out) const override {
    auto f = failures_of(s, topo);
    out.vertices.insert(out.vertices.end(), f.vertices.begin(), f.vertices.end());
    out.edges.insert(out.edges.end(), f.edges.begin(), f.edges.end());
  }
  /// Slow nodes change the tasks and flapping links go down on the platform: the same iteration without
  /// the slow nodes and with the flapping links up, on the same platform (with the same draws where there
  /// are any), tells what they cost per step. Degraded and failed links are the platform's and routes':
  /// their cost is the difference with a scenario without them.
  [[nodiscard]] std::vector<PassRequest> passes(const PassContext& run) const override {
    const auto& s = run.scenario;
    const auto* f = s.extension<FaultsConfig>(kSection);
    if (!has_slow_nodes(s) && (f == nullptr || f->flapping_links.empty()))
      return {};
    PassRequest r;
    r.name = kFaultFree;
    r.build = [this](PassBuild& b) {
      std::erase(b.extensions, static_cast<const plan::IterationExtension*>(this));
    };
    r.steady_links = f != nullptr && !f->flapping_links.empty();
    return {r};
  }
  void account(const PassContext& /*run*/, const PassSteps& steps, report::VariantResult& r) const override {
    if (!steps.passes.contains(std::string(kFaultFree)))
      return;
    const auto& healthy = steps.pass(std::string(kFaultFree));
    if (steps.base.drawn_s && healthy.drawn_s)
      add_fault_cost(*steps.base.drawn_s, *healthy.drawn_s, true, r);
    else
      add_fault_cost(steps.base.clean_s, healthy.clean_s, false, r);
  }
  void shape_platform(const scenario::Scenario& s, const topology::Topology& topo,
                      engine::PlatformDecl& platform) const override {
    const auto* f = s.extension<FaultsConfig>(kSection);
    if (f == nullptr)
      return;
    if (topo.layout().fabric.pooled) {
      shape_pooled(*f, topo, s.step_draw_seed(), platform);
      return;
    }
    for (const auto& d : f->degraded_links) {
      const auto names = link_names(topo, d);
      // Only links some route uses are in the platform: an unused degraded link changes nothing.
      for (auto& link : platform.links)
        if (names.contains(link.name))
          link.bandwidth *= d.rate;
    }
    const auto phases = flap_phases(*f, s.step_draw_seed());
    for (std::size_t i = 0; i < f->flapping_links.size(); ++i) {
      const auto& d = f->flapping_links[i];
      add_flaps(platform, link_names(topo, {d.leaf, d.spine, 0}), d, phases[i], 1.0);
    }
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto* f = run.scenario.extension<FaultsConfig>(kSection);
    if (f == nullptr)
      return;
    const bool pooled = run.topology.layout().fabric.pooled;
    const auto spine_of = [&](const FaultsConfig::DegradedLink& d) {
      return pooled ? fmt::format("spine {} of its pod", d.spine) : spine_names(run.topology, d).front();
    };
    for (const auto& d : f->degraded_links)
      r.notes.push_back(
          fmt::format("faults: the links between leaf{} and {} run at {:.0f}% of their rate, both "
                      "directions; {}",
                      d.leaf, d.spine < 0 ? std::string("every spine of its pod") : spine_of(d), 100 * d.rate,
                      pooled ? "adaptive routing spreads the leaf's traffic over what its up-links have left"
                             : "the flows routed over them share what is left"));
    if (!f->failed_spines.empty())
      r.notes.push_back(
          fmt::format("faults: spine{} {} down; {}", f->failed_spines.size() == 1 ? "" : "s",
                      fmt::join(f->failed_spines, ", "),
                      pooled ? "adaptive routing spreads over the spines left"
                             : fmt::format("routes go around {} and ECMP spreads over the spines left",
                                           f->failed_spines.size() == 1 ? "it" : "them")));
    const auto phases = flap_phases(*f, run.scenario.step_draw_seed());
    for (std::size_t i = 0; i < f->flapping_links.size(); ++i) {
      const auto& d = f->flapping_links[i];
      const FaultsConfig::DegradedLink at{d.leaf, d.spine, 0};
      r.notes.push_back(fmt::format(
          "faults: the links between leaf{} and {} go down for {} every {}, both directions, "
          "{} into the iteration and every period after (the step's draw: --samples N gives every phase "
          "alike); {}; routes do not "
          "change (a flap shorter than the fabric takes to route around it), and collectives timed once by "
          "a probe (tensor-, expert- and context-parallel) do not see it",
          d.leaf, d.spine < 0 ? std::string("every spine of its pod") : spine_of(at),
          units::format(units::Seconds::from_si(d.down_s)), units::format(units::Seconds::from_si(d.every_s)),
          units::format(units::Seconds::from_si(phases[i])),
          pooled ? "meanwhile adaptive routing spreads the leaf's traffic over its other up-links"
                 : "meanwhile the flows routed over them stall"));
    }
    for (const auto& d : f->failed_links)
      r.notes.push_back(fmt::format("faults: the link between leaf{} and {} is down; {}", d.leaf, spine_of(d),
                                    pooled ? "adaptive routing spreads over the leaf's other up-links"
                                           : "routes go around it"));
    const int dp = run.scenario.workload.parallelism.dp;
    const int shortcut = static_cast<int>(r.value("noise_replicas_simulated"));
    const bool noisy = r.value("fault_cost_noisy") > 0;
    const bool slow = !f->slow_nodes.empty() && f->slow_speed < 1;
    if (!f->slow_nodes.empty())
      // Under noise with its slowest-replicas shortcut, the noisy steps (with and without the slow nodes)
      // are simulated on the replicas that reach the synchronous points last: say so, as the noise note
      // does.
      r.notes.push_back(fmt::format(
          "faults: node{} {} with GPUs at {:.0f}% of their speed; tensor-parallel groups there compute at "
          "that pace and every synchronous step waits for them, so all {} data-parallel replicas were "
          "simulated{}",
          f->slow_nodes.size() == 1 ? "" : "s", fmt::join(f->slow_nodes, ", "), 100 * f->slow_speed, dp,
          shortcut > 0 && shortcut < dp
              ? fmt::format(" without noise; with noise, the {} of them that reach the synchronous points "
                            "last (the noise note)",
                            shortcut)
              : std::string()));
    const double healthy = r.value("fault_free_step_s");
    if (healthy <= 0)
      return;
    const std::size_t flaps = f->flapping_links.size();
    std::vector<std::string> what;
    if (slow)
      what.push_back(fmt::format("the slow node{}", f->slow_nodes.size() == 1 ? "" : "s"));
    if (flaps > 0)
      what.push_back(fmt::format("the flapping link{}", flaps == 1 ? "" : "s"));
    const bool one = what.size() == 1 && (slow ? f->slow_nodes.size() == 1 : flaps == 1);
    r.notes.push_back(fmt::format(
        "faults: {} cost {:.4f} s per step ({:+.1f}%) against the same iteration {} on the same platform "
        "({:.4f} s), {}",
        fmt::join(what, " and "), r.value("fault_cost_s"), 100 * r.value("fault_cost_s") / healthy,
        slow && flaps > 0 ? "without the slow nodes and with the links up"
        : slow            ? std::string("without ") + (one ? "it" : "them")
                          : std::string("with ") + (one ? "it" : "them") + " up",
        healthy,
        !noisy ? std::string("noise-free")
        : shortcut > 0 && shortcut < dp
            ? std::string("both with the same noise draws, each simulated on the data-parallel replicas "
                          "that reach its synchronous points last (the noise note)")
            : std::string("both with the same noise draws")));
  }
};

} // namespace

topology::Failures failures_of(const scenario::Scenario& s, const topology::Topology& topo) {
  topology::Failures out;
  const auto* f = s.extension<FaultsConfig>(kSection);
  if (f == nullptr || (f->failed_spines.empty() && f->failed_links.empty()))
    return out;
  if (topo.layout().fabric.pooled)
    return out; // their share of the pooled links' rate is taken away instead (shape_pooled)
  std::set<std::string> spines;
  for (int sp : f->failed_spines)
    spines.insert(spine_names(topo, {0, sp, 0}).front());
  std::set<std::string> links;
  for (const auto& d : f->failed_links) {
    const auto name = spine_names(topo, d).front();
    links.insert(fmt::format("leaf{}->{}", d.leaf, name));
    links.insert(fmt::format("{}->leaf{}", name, d.leaf));
  }
  const auto& g = topo.graph();
  for (topology::VertexId v = 0; v < boost::num_vertices(g); ++v)
    if (spines.contains(g[v].name))
      out.vertices.push_back(v);
  for (int e = 0; e < topo.num_edges(); ++e)
    if (links.contains(fmt::format("{}->{}", g[topo.edge_source(e)].name, g[topo.edge_target(e)].name)))
      out.edges.push_back(e);
  return out;
}

bool has_slow_nodes(const scenario::Scenario& s) {
  const auto* f = s.extension<FaultsConfig>(kSection);
  return f != nullptr && !f->slow_nodes.empty() && f->slow_speed < 1;
}

void add_fault_cost(double step_s, double healthy_step_s, bool noisy, report::VariantResult& r) {
  r.set_value("fault_cost_s", step_s - healthy_step_s);
  r.set_value("fault_free_step_s", healthy_step_s);
  r.set_value("fault_cost_noisy", noisy ? 1 : 0);
}

std::unique_ptr<Model> make_faults_model() {
  return std::make_unique<FaultsModel>();
}

} // namespace dpusim::model
