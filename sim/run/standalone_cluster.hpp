// A scenario's cluster built for traffic alone, without a training job (`dpusim nccl-tests`,
// `dpusim traffic`): the same hardware, layout, fabric, routing, failures and offload variant a run of
// the scenario gets, and what lowers transfers onto it. The members refer to one another: it is built in
// place and never moved.
#pragma once

#include "models/calibration/profile.hpp"
#include "models/catalog/catalog.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/offload/variant.hpp"
#include "sim/plan/collective_lowering.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/router.hpp"

#include <optional>
#include <string>

namespace dpusim::run {

struct StandaloneCluster {
  /// `calibration`: a profile path overriding the scenario's (empty: the scenario's, if any). `pxn` false
  /// keeps NCCL's PXN off where the catalog has it on (NCCL_PXN_DISABLE=1): every GPU's traffic leaves
  /// through its own NIC.
  StandaloneCluster(const scenario::Scenario& s, const catalog::Catalog& cat, const offload::Variant& variant,
                    const std::string& calibration, bool pxn = true);
  StandaloneCluster(const StandaloneCluster&) = delete;
  StandaloneCluster& operator=(const StandaloneCluster&) = delete;

  /// The platform of every route asked for so far, shaped by the models (links other tenants or faults
  /// take).
  [[nodiscard]] engine::PlatformDecl platform() const;

  const scenario::Scenario& scenario;
  std::optional<calibration::Profile> profile;
  scenario::Hardware hw;
  topology::Topology topo;
  topology::Router router;
  datapath::DataPath path;
  platform::HostMap hosts;
  platform::RouteRegistry routes;
  plan::CollectiveLowering lowering;
};

} // namespace dpusim::run
