// A platform of catalog hardware with its collective lowering, for tests that simulate collectives
// flow by flow (one simulation per test process: SimGrid's engine is a singleton).
#pragma once

#include "sim/plan/collective_lowering.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/simgrid/simulator.hpp"
#include "sim/topology/router.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <memory>
#include <string>

namespace dpusim::testing {

struct Setup {
  std::string node = "dgx-h100";
  int nodes = 1;
  int gpus = 0;          // per node (0: the node's)
  int nics = 0;          // per node (0: the node's)
  int pcie_switches = 0; // per node (0: the node's)
  double nic_gbit = 0;   // NIC line rate (0: the NIC's)
  offload::Transport transport = offload::Transport::rdma;
  topology::FabricKind fabric = topology::FabricKind::fat_tree;
  std::uint64_t seed = 1;
  bool pxn = false;    // NCCL's PXN (off: each GPU sends through its own NIC)
  int connections = 1; // connections each GPU-to-GPU route is hashed as
  double oversubscription = 1.0;
  topology::Routing routing = topology::Routing::ecmp; // adaptive: pooled where the NIC places out of order;
                                                       // pinned: by the destination's slice
};

struct Rig {
  const catalog::Catalog& cat = bundled_catalog();
  scenario::Hardware hw;
  topology::ClusterLayout layout;
  std::unique_ptr<topology::Topology> topo;
  std::unique_ptr<topology::Router> router;
  std::unique_ptr<platform::HostMap> hosts;
  std::unique_ptr<platform::RouteRegistry> platform;
  std::unique_ptr<datapath::DataPath> path;
  std::unique_ptr<plan::CollectiveLowering> lowering;

  explicit Rig(const Setup& s) {
    hw.node = *cat.node(s.node);
    hw.gpu = *cat.gpu(hw.node.gpu);
    hw.cpu = *cat.cpu(hw.node.cpu);
    hw.nic = *cat.nic(hw.node.nic);
    hw.collective = *cat.collective("nccl");
    hw.fabric_switch = *cat.network_switch("qm9700");
    if (s.gpus > 0)
      hw.node.gpus.value = s.gpus;
    if (s.nics > 0)
      hw.node.nics.value = s.nics;
    if (s.pcie_switches > 0)
      hw.node.pcie_switches.value = s.pcie_switches;
    if (s.nic_gbit > 0)
      hw.nic.line_rate.value = units::gbit_per_s(s.nic_gbit);
    scenario::ClusterConfig cc;
    cc.nodes = s.nodes;
    cc.fabric.link = units::gbit_per_s(400);
    cc.fabric.latency = units::microseconds(1);
    cc.fabric.kind = s.fabric;
    cc.fabric.oversubscription = s.oversubscription;
    cc.fabric.routing = s.routing;
    layout = scenario::cluster_layout(cc, hw.node, hw.gpu, hw.nic, hw.fabric_switch);
    topo = std::make_unique<topology::Topology>(topology::Topology::build(layout));
    router = std::make_unique<topology::Router>(*topo, s.seed, topology::Failures{}, s.routing);
    platform::PathOptions options{s.transport, false, std::nullopt};
    options.pxn = s.pxn;
    options.connections = s.connections;
    hosts = std::make_unique<platform::HostMap>(*topo, hw, options);
    platform = std::make_unique<platform::RouteRegistry>(*hosts, *router);
    path = std::make_unique<datapath::DataPath>(
        offload::parse_variant(s.transport == offload::Transport::host_tcp ? "host-tcp" : "rdma-nic"),
        scenario::Services{}, hw);
    lowering = std::make_unique<plan::CollectiveLowering>(*platform, hw, *path);
  }

  /// Seconds from the start of the operation to the end of its last phase.
  double simulate(const plan::Lowered& low) {
    engine::TaskGraph g;
    const auto frag = plan::append_to_graph(g, low, {});
    simgrid::Simulator sim(platform->build());
    const auto timings = sim.execute(g);
    return timings[static_cast<std::size_t>(frag.last)].end;
  }

  [[nodiscard]] double nvlink() const { return hw.gpu.nvlink_bandwidth.value.si(); }
  [[nodiscard]] double nic() const { return hw.nic.line_rate.value.si(); }
  [[nodiscard]] double base() const { return hw.collective.base_latency.value.si(); }
  /// One step over NVLink or the network: the library's per-step latency plus the route's.
  [[nodiscard]] double alpha_nvlink(int src, int dst) const {
    return hw.collective.step_latency_nvlink.value.si() + platform->route(src, dst).latency_s;
  }
  [[nodiscard]] double alpha_network(int src, int dst) const {
    return hw.collective.step_latency_network.value.si() + platform->route(src, dst).latency_s;
  }
};

} // namespace dpusim::testing
