#include "sim/run/variant_parts.hpp"

#include "sim/platform/host_map.hpp"
#include "sim/topology/topology.hpp"

namespace dpusim::run {

plan::HostSide host_side(const scenario::Scenario& s, const scenario::Hardware& hw, const offload::Variant& v,
                         const datapath::DataPath& path) {
  using offload::Function;
  using offload::Site;
  plan::HostSide h;
  h.scenario = &s;
  h.path = &path;
  h.data = s.workload.data;
  h.storage_read_rate = s.cluster.storage.read_rate.si();
  if (hw.storage_read_latency_median)
    h.storage_read_latency_s = hw.storage_read_latency_median->value.si();
  h.storage_connections = s.cluster.storage.client_connections;
  const auto& services = s.cluster.services;
  h.agent_cores = services.agent_cores;
  h.agent_site = v.placement[Function::agents];
  if (const auto& arm = hw.arm_for(Function::agents))
    h.arm_cores_per_host_core = hw.cpu.tcp_rx_rate_per_core.value.si() / arm->tcp_rx_rate_per_core.value.si();
  // The launch threads are simulated when something else competes for the host's cores; alone, one
  // core per GPU is always available to them.
  const auto req = s.requirements();
  const bool host_shared =
      v.transport() == offload::Transport::host_tcp ||
      (req.encryption != offload::Encryption::none && v.placement[Function::encryption] == Site::host) ||
      (req.overlay && v.placement[Function::vswitch] == Site::host) ||
      (req.storage && v.placement[Function::storage] == Site::host) ||
      (req.agents && v.placement[Function::agents] == Site::host) || (h.data && h.data->decode.si() > 0);
  if (hw.cpu.kernel_launch_cpu)
    h.launch_s_per_kernel = hw.cpu.kernel_launch_cpu->value.si();
  h.couple_launch = host_shared && h.launch_s_per_kernel > 0;
  return h;
}

platform::PathOptions path_options(const scenario::Hardware& hw, const datapath::DataPath& path) {
  platform::PathOptions o{path.transport(), path.through_arm(), path.crypto_engine()};
  const bool rdma = path.transport() == offload::Transport::rdma;
  o.pxn = rdma && hw.collective.pxn.value && hw.gpu.nvlink_bandwidth.value.si() > 0;
  // Each channel has a connection of its own; an RDMA connection splits its bytes over its queue pairs
  // (a socket connection is one TCP stream). Ethernet switches hash each of them on its own; InfiniBand
  // switches forward by destination, so all of them take one path.
  if (hw.fabric_switch.hashes_each_connection.value)
    o.connections =
        hw.collective.channels_per_nic.value * (rdma ? hw.collective.qps_per_connection.value : 1);
  return o;
}

std::vector<plan::StageCosts> stage_costs(const scenario::WorkloadConfig& w,
                                          const compute::GpuComputeModel& gpu) {
  std::vector<plan::StageCosts> costs;
  for (int vs = 0; vs < w.parallelism.pp * w.virtual_stages; ++vs)
    costs.push_back(plan::stage_costs(w, gpu, vs));
  return costs;
}

metrics::MetricsInputs metrics_inputs(const scenario::Scenario& s, const offload::Variant& variant,
                                      const scenario::Hardware& hw, const platform::HostMap& hosts) {
  metrics::MetricsInputs in;
  in.gpus = hosts.gpus();
  in.nodes = hosts.nodes();
  in.gpus_per_node = hosts.topology().layout().node.gpus; // as the GPUs are numbered
  in.host_cores = hw.node_host_cores();
  in.arm_cores =
      hosts.has_arm() && hw.nic.arm ? hw.nic.arm->cores.value * hosts.topology().layout().node.nics : 0;
  // A front-end DPU's Arm cores count where the variant runs something on them.
  if (hosts.has_frontend_arm() && scenario::runs_on_frontend(s, variant, hw))
    in.arm_cores += hw.storage_nic->arm->cores.value * hosts.trays();
  in.peak_flops = hw.gpu.peak(s.workload.precision)->value.si(); // checked by the workload model
  in.tokens_per_iteration = static_cast<double>(s.workload.global_batch) * s.workload.seq_len;
  return in;
}

report::VariantResult result_of(const scenario::Scenario& s, const offload::Variant& variant,
                                const scenario::Hardware& hw, const metrics::MetricsInputs& in,
                                const plan::IterationPlan& iteration) {
  auto r = report::identity_of(s, variant, hw);
  r.host_cores = in.host_cores;
  r.arm_cores = in.arm_cores;
  r.nodes = in.nodes;
  r.gpus = in.gpus;
  r.tp_collective_s = in.tp_collective_s;
  r.ep_collective_s = in.ep_collective_s;
  r.cp_collective_s = in.cp_collective_s;
  r.tp_collectives_reused = iteration.tp_collectives;
  r.ep_collectives_reused = iteration.ep_collectives;
  r.cp_collectives_reused = iteration.cp_collectives;
  return r;
}

} // namespace dpusim::run
