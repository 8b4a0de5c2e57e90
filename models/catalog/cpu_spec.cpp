#include "models/catalog/cpu_spec.hpp"

#include "models/catalog/entry_reader.hpp"

namespace dpusim::catalog {

CpuSpec read_cpu(EntryReader& r) {
  using namespace units;
  CpuSpec c;
  c.name = r.name();
  c.description = r.description();
  c.cores = r.count("cores", 1, 4096);
  if (auto v = r.map().optional("vendor"))
    c.vendor = v->as_choice({"intel", "amd", "nvidia"});
  c.base_clock = r.quantity<Frequency>("base_clock");
  c.tcp_tx_rate_per_core = r.quantity<DataRate>("tcp_tx_rate_per_core");
  c.tcp_rx_rate_per_core = r.quantity<DataRate>("tcp_rx_rate_per_core");
  c.tcp_latency_median = r.quantity<Seconds>("tcp_latency_median");
  c.tcp_latency_sigma = r.number("tcp_latency_sigma", 0.0, 5.0);
  c.aes_gcm_rate_per_core = r.quantity<DataRate>("aes_gcm_rate_per_core");
  c.ovs_rate_per_core = r.quantity<DataRate>("ovs_rate_per_core");
  c.storage_client_rate_per_core = r.quantity<DataRate>("storage_client_rate_per_core");
  c.kernel_launch_cpu = r.optional_quantity<Seconds>("kernel_launch_cpu");
  c.os_noise_fraction = r.optional_number("os_noise_fraction", 0.0, 0.9);
  c.os_noise_p99 = r.optional_quantity<Seconds>("os_noise_p99");
  c.memory_bandwidth = r.quantity<DataRate>("memory_bandwidth");
  c.tdp = r.optional_quantity<Power>("tdp");
  return c;
}

} // namespace dpusim::catalog
