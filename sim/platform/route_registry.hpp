// The routes and limiters a plan asks for, and the platform they make: one link per directed topology
// edge that some route uses, and the routes chosen by the variant — GPUDirect RDMA through the GPU's
// NIC, or kernel TCP staged through host memory (and through the DPU's Arm cores when encryption or the
// virtual switch runs there). A NIC's inline encryption engine is an extra link on encrypted paths. The
// hosts themselves are the HostMap's.
#pragma once

#include "sim/engine/platform_decl.hpp"
#include "sim/platform/host_map.hpp"
#include "sim/topology/layout.hpp"

#include <map>
#include <utility>
#include <vector>

namespace dpusim::platform {

enum class HopKind { nvlink, network };

struct RouteInfo {
  std::vector<std::int32_t> links; // topology edge ids (and engine links beyond them)
  double latency_s = 0;
  HopKind kind = HopKind::nvlink;
  std::vector<int> nics; // global NIC ids (node * nics + local) the route crosses
  /// `links` holds this many equal-cost paths one after another (one per connection, each hashed on its
  /// own); a flow's bytes are shared equally among them. `latency_s` and `nics` are of one path.
  int spread = 1;
};

class RouteRegistry {
public:
  RouteRegistry(const HostMap& hosts, const topology::Router& router);

  [[nodiscard]] const HostMap& hosts() const { return hosts_; }

  /// The route between two GPUs for this variant, registered for the platform on first request.
  const RouteInfo& route(int src_gpu, int dst_gpu);
  /// The route between any two hosts; `local_nic` picks the NIC of a node end that is not a GPU.
  const RouteInfo& route_hosts(engine::HostIndex src, engine::HostIndex dst, int local_nic = 0);
  /// A private host of `cores` cores of speed `rate` (work units per second) that nothing else uses: a
  /// load on it next to a load of the same amount on another host caps that load at `rate`, and the
  /// loads placed on it together at `cores x rate` (SimGrid's parallel-task model has no per-activity
  /// bound).
  engine::HostIndex add_limiter(double rate, int cores = 1);

  [[nodiscard]] engine::PlatformDecl build() const;
  [[nodiscard]] std::size_t route_count() const { return routes_.size(); }

private:
  [[nodiscard]] const topology::Topology& topo() const { return hosts_.topology(); }
  /// A NIC's encryption engine, as an extra link id beyond the topology's edges.
  [[nodiscard]] std::int32_t engine_link(int global_nic, bool transmit) const;
  RouteInfo describe(const std::vector<topology::EdgeId>& edges, HopKind kind) const;

  const HostMap& hosts_;
  const topology::Router& router_;
  std::map<std::pair<engine::HostIndex, engine::HostIndex>, RouteInfo> routes_;
  std::vector<std::pair<double, int>> limiters_; // (speed, cores) of the limiter hosts, after all others
};

} // namespace dpusim::platform
