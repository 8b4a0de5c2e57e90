#include "models/catalog/collective_spec.hpp"

#include "models/catalog/entry_reader.hpp"

#include <fmt/format.h>
#include <utility>

namespace dpusim::catalog {
namespace {

/// A tree's network step latency, or the ring's (`ring`) where the entry gives none.
Cited<units::Seconds> tree_step(EntryReader& r, const std::string& key, const Cited<units::Seconds>& ring) {
  if (auto tree = r.optional_quantity<units::Seconds>(key))
    return *tree;
  return {ring.value, {Citation::Kind::assumption, fmt::format("{} not given: the ring's", key)}};
}

} // namespace

CollectiveSpec read_collective(EntryReader& r) {
  using units::Seconds;
  CollectiveSpec c;
  c.name = r.name();
  c.description = r.description();
  c.step_latency_nvlink = r.quantity<Seconds>("step_latency_nvlink");
  c.step_latency_pcie = r.quantity<Seconds>("step_latency_pcie");
  c.step_latency_network = r.quantity<Seconds>("step_latency_network");
  c.tree_step_latency_network = tree_step(r, "tree_step_latency_network", c.step_latency_network);
  c.base_latency = r.quantity<Seconds>("base_latency");
  c.socket_threads = r.count("socket_threads", 1, 64);
  c.channels_per_nic = r.count("channels_per_nic", 1, 64);
  c.qps_per_connection = r.count("qps_per_connection", 1, 128);
  c.pxn = r.flag("pxn");
  for (const auto& [prefix, into] : {std::pair{"ll", &c.ll}, std::pair{"ll128", &c.ll128}}) {
    const std::string p(prefix);
    auto step_nvlink = r.optional_quantity<Seconds>(p + "_step_latency_nvlink");
    auto step_pcie = r.optional_quantity<Seconds>(p + "_step_latency_pcie");
    auto step_network = r.optional_quantity<Seconds>(p + "_step_latency_network");
    auto base = r.optional_quantity<Seconds>(p + "_base_latency");
    auto share = r.optional_number(p + "_bandwidth_share", 0.01, 1.0);
    const int given = (step_nvlink ? 1 : 0) + (step_pcie ? 1 : 0) + (step_network ? 1 : 0) + (base ? 1 : 0) +
                      (share ? 1 : 0);
    if (given == 5)
      *into = ProtocolCosts{*step_nvlink,  *step_pcie,
                            *step_network, *base,
                            *share,        tree_step(r, p + "_tree_step_latency_network", *step_network)};
    else if (given > 0)
      r.map().node().fail(fmt::format("the {} protocol needs all five of {}_step_latency_nvlink, "
                                      "{}_step_latency_pcie, {}_step_latency_network, {}_base_latency and "
                                      "{}_bandwidth_share",
                                      p == "ll" ? "LL" : "LL128", p, p, p, p, p));
  }
  return c;
}

std::string_view protocol_name(NcclProtocol p) {
  switch (p) {
  case NcclProtocol::simple:
    return "Simple";
  case NcclProtocol::ll:
    return "LL";
  case NcclProtocol::ll128:
    return "LL128";
  }
  return "?";
}

std::optional<ProtocolCosts> CollectiveSpec::protocol(NcclProtocol p) const {
  switch (p) {
  case NcclProtocol::simple:
    return ProtocolCosts{step_latency_nvlink,
                         step_latency_pcie,
                         step_latency_network,
                         base_latency,
                         Cited<double>{1.0, base_latency.cite},
                         tree_step_latency_network};
  case NcclProtocol::ll:
    return ll;
  case NcclProtocol::ll128:
    return ll128;
  }
  return std::nullopt;
}

} // namespace dpusim::catalog
