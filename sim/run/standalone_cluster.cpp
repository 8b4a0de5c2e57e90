#include "sim/run/standalone_cluster.hpp"

#include "sim/estimate/measured_latency.hpp"
#include "sim/model/registry.hpp"
#include "sim/run/variant_parts.hpp"
#include "sim/scenario/cluster_layout.hpp"

#include <utility>

namespace dpusim::run {

namespace {

std::string profile_path(const scenario::Scenario& s, const std::string& calibration) {
  return calibration.empty() ? s.calibration : calibration;
}

std::optional<calibration::Profile> profile_of(const scenario::Scenario& s, const std::string& calibration) {
  const auto path = profile_path(s, calibration);
  if (path.empty())
    return std::nullopt;
  return calibration::load_profile(path);
}

/// The cluster as a run of the scenario builds it: the models shape its layout (other tenants' share of
/// the up-links, ...).
topology::Topology topology_of(const scenario::Scenario& s, const offload::Variant& variant,
                               const scenario::Hardware& hw) {
  auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                         hw.storage_nic ? &*hw.storage_nic : nullptr);
  for (const auto& m : model::registry().models())
    m->shape_layout(s, variant, layout);
  return topology::Topology::build(layout);
}

/// The links the models fail (faults).
topology::Failures failures_of(const scenario::Scenario& s, const topology::Topology& topo) {
  topology::Failures failures;
  for (const auto& m : model::registry().models())
    m->add_failures(s, topo, failures);
  return failures;
}

platform::PathOptions options_of(const scenario::Hardware& hw, const datapath::DataPath& path, bool pxn) {
  auto o = path_options(hw, path);
  o.pxn = o.pxn && pxn;
  return o;
}

} // namespace

StandaloneCluster::StandaloneCluster(const scenario::Scenario& s, const catalog::Catalog& cat,
                                     const offload::Variant& variant, const std::string& calibration,
                                     bool pxn)
    : scenario(s), profile(profile_of(s, calibration)),
      hw(estimate::calibrated_hardware(s, cat, variant, profile ? &*profile : nullptr,
                                       profile_path(s, calibration), false)),
      topo(topology_of(s, variant, hw)), router(topo, s.seed, failures_of(s, topo), s.cluster.fabric.routing),
      path(variant, s.cluster.services, hw), hosts(topo, hw, options_of(hw, path, pxn)),
      routes(hosts, router), lowering(routes, hw, path) {
  lowering.set_alltoall_parts(s.workload.alltoall_parts);
}

engine::PlatformDecl StandaloneCluster::platform() const {
  auto platform = routes.build();
  for (const auto& m : model::registry().models())
    m->shape_platform(scenario, topo, platform);
  return platform;
}

} // namespace dpusim::run
