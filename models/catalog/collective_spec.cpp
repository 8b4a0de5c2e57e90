#include "models/catalog/collective_spec.hpp"

#include "models/catalog/entry_reader.hpp"

namespace dpusim::catalog {

CollectiveSpec read_collective(EntryReader& r) {
  using units::Seconds;
  CollectiveSpec c;
  c.name = r.name();
  c.description = r.description();
  c.step_latency_nvlink = r.quantity<Seconds>("step_latency_nvlink");
  c.step_latency_pcie = r.quantity<Seconds>("step_latency_pcie");
  c.step_latency_network = r.quantity<Seconds>("step_latency_network");
  c.base_latency = r.quantity<Seconds>("base_latency");
  c.socket_threads = r.count("socket_threads", 1, 64);
  c.channels_per_nic = r.count("channels_per_nic", 1, 64);
  c.qps_per_connection = r.count("qps_per_connection", 1, 128);
  c.pxn = r.flag("pxn");
  return c;
}

} // namespace dpusim::catalog
