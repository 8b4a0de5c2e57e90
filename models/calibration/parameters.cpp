#include "models/calibration/parameters.hpp"

#include "models/base/unit_parse.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <string>

namespace dpusim::calibration {
namespace {

// Keep in the order a user reads them in docs/calibration.md.
constexpr std::array kRegistry{
    // Host CPU (x86 host or, with role dpu_arm, the BlueField Arm complex).
    ParamDef{"host_cpu.cores", ParamKind::count, "physical cores available to the host", "discover",
             "host CPU: SimGrid host core count"},
    ParamDef{"host_cpu.core_clock", ParamKind::frequency, "sustained core clock", "discover",
             "not used by the simulator: work is in seconds at the measured per-core rates (kept as the "
             "machine's shape)"},
    ParamDef{"host_cpu.tcp_tx_rate_per_core", ParamKind::data_rate,
             "kernel TCP send throughput one core sustains (CPU-bound)", "tcp",
             "host-tcp transport: send-side CPU cycles per byte"},
    ParamDef{"host_cpu.tcp_rx_rate_per_core", ParamKind::data_rate,
             "kernel TCP receive throughput one core sustains (CPU-bound)", "tcp",
             "host-tcp transport: receive-side CPU cycles per byte"},
    ParamDef{"host_cpu.tcp_latency_median", ParamKind::duration, "request/response one-way latency, median",
             "tcp", "host-tcp transport: per-message software latency"},
    ParamDef{"host_cpu.tcp_latency_sigma", ParamKind::number,
             "lognormal shape (sigma) fitted to the TCP latency samples", "tcp",
             "host-tcp transport: slowest of concurrent hops' software latencies"},
    ParamDef{
        "host_cpu.tcp_latency_p99", ParamKind::duration, "request/response one-way latency, 99th percentile",
        "tcp",
        "not used by the simulator: the tail comes from the fitted sigma (the noise model is not built yet)"},
    ParamDef{
        "host_cpu.tcp_latency_p999", ParamKind::duration,
        "request/response one-way latency, 99.9th percentile", "tcp",
        "not used by the simulator: the tail comes from the fitted sigma (the noise model is not built yet)"},
    ParamDef{"host_cpu.aes_gcm_rate_per_core", ParamKind::data_rate, "AES-256-GCM throughput of one core",
             "crypto", "encryption placed on the host: CPU cycles per byte"},
    ParamDef{"host_cpu.memcpy_bandwidth", ParamKind::data_rate, "single-thread memcpy bandwidth", "memory",
             "not used by the simulator: no model copies through host memory by the byte yet"},
    ParamDef{"host_cpu.os_noise_fraction", ParamKind::fraction,
             "fraction of a fixed work quantum lost to OS interference (mean)", "os-noise",
             "noise.os_noise: mean share of each host core lost to detours (docs/models/noise.md)"},
    ParamDef{"host_cpu.os_noise_p99", ParamKind::duration, "99th percentile of the per-quantum detour",
             "os-noise", "noise.os_noise: the shape (lognormal sigma) of the host's detours"},
    // Same quantities measured on a BlueField's Arm side.
    ParamDef{"dpu_arm.cores", ParamKind::count, "Arm cores of the DPU", "discover",
             "DPU Arm complex core count"},
    ParamDef{"dpu_arm.core_clock", ParamKind::frequency, "Arm core clock", "discover",
             "not used by the simulator: work is in seconds at the measured per-core rates (kept as the "
             "machine's shape)"},
    ParamDef{"dpu_arm.tcp_tx_rate_per_core", ParamKind::data_rate, "kernel TCP send throughput per Arm core",
             "tcp",
             "not used by the simulator: the Arm data path is charged at its forwarding and crypto rates"},
    ParamDef{
        "dpu_arm.tcp_rx_rate_per_core", ParamKind::data_rate, "kernel TCP receive throughput per Arm core",
        "tcp",
        "agents placed on dpu_arm: Arm cores per host core of agent work (ratio to the host's receive rate)"},
    ParamDef{"dpu_arm.tcp_latency_median", ParamKind::duration,
             "request/response one-way latency on the Arm side, median", "tcp",
             "traffic through the Arm cores: per-message software latency on each end"},
    ParamDef{"dpu_arm.tcp_latency_sigma", ParamKind::number,
             "lognormal shape (sigma) fitted to the Arm side's TCP latency samples", "tcp",
             "traffic through the Arm cores: slowest of concurrent hops' software latencies"},
    ParamDef{
        "dpu_arm.tcp_latency_p99", ParamKind::duration,
        "request/response one-way latency on the Arm side, 99th percentile", "tcp",
        "not used by the simulator: the tail comes from the fitted sigma (the noise model is not built yet)"},
    ParamDef{
        "dpu_arm.tcp_latency_p999", ParamKind::duration,
        "request/response one-way latency on the Arm side, 99.9th percentile", "tcp",
        "not used by the simulator: the tail comes from the fitted sigma (the noise model is not built yet)"},
    ParamDef{"dpu_arm.aes_gcm_rate_per_core", ParamKind::data_rate, "AES-256-GCM throughput of one Arm core",
             "crypto", "encryption placed on dpu_arm"},
    ParamDef{"dpu_arm.memcpy_bandwidth", ParamKind::data_rate,
             "single-thread memcpy bandwidth on the Arm side", "memory",
             "not used by the simulator: no model copies through Arm memory by the byte yet"},
    ParamDef{"dpu_arm.os_noise_fraction", ParamKind::fraction,
             "fraction of a fixed work quantum lost to OS interference on the Arm cores (mean)", "os-noise",
             "noise.os_noise: mean share of each Arm core lost to detours, on traffic through the Arm cores"},
    ParamDef{"dpu_arm.os_noise_p99", ParamKind::duration,
             "99th percentile of the per-quantum detour on the Arm cores", "os-noise",
             "noise.os_noise: the shape (lognormal sigma) of the Arm cores' detours"},
    // NIC / RDMA.
    ParamDef{"nic.rdma_bandwidth", ParamKind::data_rate, "RDMA write bandwidth at large messages (beta)",
             "rdma", "rdma transports: achievable per-NIC bandwidth"},
    ParamDef{"nic.rdma_latency", ParamKind::duration, "RDMA write one-way latency at small messages (alpha)",
             "rdma", "rdma transports: per-message latency"},
    ParamDef{
        "nic.rdma_latency_p99", ParamKind::duration,
        "RDMA write one-way latency at the smallest message, 99th percentile", "rdma",
        "noise.network_tail: the lognormal tail of RDMA's per-hop latency (its median is nic.rdma_latency)"},
    ParamDef{"nic.rdma_send_bandwidth", ParamKind::data_rate, "RDMA send bandwidth at large messages (beta)",
             "rdma", "not used by the simulator: collectives and sends are charged at the RDMA write rate"},
    ParamDef{"nic.rdma_send_latency", ParamKind::duration,
             "RDMA send one-way latency at small messages (alpha)", "rdma",
             "not used by the simulator: collectives and sends are charged at the RDMA write latency"},
    // Collectives (nccl-tests).
    ParamDef{"collective.network_efficiency", ParamKind::fraction,
             "ring all-reduce bus bandwidth over NIC line rate at large messages", "nccl",
             "collective lowering: inter-node protocol efficiency"},
    ParamDef{"collective.nvlink_efficiency", ParamKind::fraction,
             "ring all-reduce bus bandwidth over NVLink bandwidth at large messages (one node)", "nccl",
             "collective lowering: intra-node protocol efficiency"},
    ParamDef{"collective.allreduce_bus_bandwidth", ParamKind::data_rate,
             "all-reduce bus bandwidth (nccl-tests busbw) at the largest message size", "nccl",
             "not used by the simulator: the efficiencies are taken instead (a busbw of one scope is not a "
             "link rate)"},
    ParamDef{"collective.allreduce_latency", ParamKind::duration,
             "all-reduce time at small messages (alpha of an alpha-beta fit over sizes)", "nccl",
             "collective lowering: with collective.allreduce_ranks and .allreduce_nodes, the network (one "
             "node: NVLink) step latency of the protocol NCCL runs at small sizes, set to give this time on "
             "that shape (across nodes: RDMA variants)"},
    ParamDef{"collective.allreduce_ranks", ParamKind::count,
             "ranks of the all-reduce run the collective parameters came from", "nccl",
             "collective lowering: the shape collective.allreduce_latency was measured on"},
    ParamDef{"collective.allreduce_nodes", ParamKind::count,
             "hosts of the all-reduce run the collective parameters came from", "nccl",
             "collective lowering: the shape collective.allreduce_latency was measured on"},
    // GPU.
    ParamDef{"gpu.gemm_peak_achieved", ParamKind::flop_rate,
             "best achieved bf16 GEMM throughput over the sweep", "gpu",
             "compute model: ceiling of the achieved-throughput curve"},
    ParamDef{"gpu.hbm_efficiency", ParamKind::fraction,
             "achieved fraction of peak HBM bandwidth in memory-bound framework kernels", "gpu",
             "compute model: time of norms, softmax, dropout, activations, optimizer"},
    ParamDef{"gpu.h2d_bandwidth", ParamKind::data_rate, "host-to-device copy bandwidth (pinned)", "gpu",
             "not used by the simulator: staging copies ride the PCIe links of the topology"},
    ParamDef{"gpu.d2h_bandwidth", ParamKind::data_rate, "device-to-host copy bandwidth (pinned)", "gpu",
             "not used by the simulator: staging copies ride the PCIe links of the topology"},
    // Storage.
    ParamDef{"storage.read_bandwidth", ParamKind::data_rate, "sequential read bandwidth of the data path",
             "storage",
             "not used by the simulator: the servers' rates come from the scenario (cluster.storage)"},
    ParamDef{"storage.read_rate_per_core", ParamKind::data_rate,
             "read bandwidth one host core sustains on the storage client path", "storage",
             "not used by the simulator: the host storage client's rate comes from the catalog's CPU entry"},
    ParamDef{"storage.random_read_iops", ParamKind::number, "4 KiB random read operations per second",
             "storage", "not used by the simulator: sample reads are charged by bytes, not operations"},
    ParamDef{"storage.read_latency_median", ParamKind::duration,
             "median completion latency of one random read at queue depth 1", "storage",
             "input pipeline: each sample read waits this long before its bytes flow (cluster.storage."
             "read_latency in the scenario takes precedence)"},
    ParamDef{"storage.read_latency_p99", ParamKind::duration,
             "99th percentile of the completion latency of one random read at queue depth 1", "storage",
             "noise model (noise.storage_tail): the tail each sample read's latency is drawn from"},
};

} // namespace

std::span<const ParamDef> parameter_registry() {
  return kRegistry;
}

const ParamDef* find_parameter(std::string_view key) {
  for (const auto& def : kRegistry) {
    if (def.key == key)
      return &def;
  }
  return nullptr;
}

std::string_view kind_name(ParamKind kind) {
  switch (kind) {
  case ParamKind::data_rate:
    return "data rate (e.g. 38.2Gbps)";
  case ParamKind::duration:
    return "duration (e.g. 12us)";
  case ParamKind::frequency:
    return "frequency (e.g. 2.0GHz)";
  case ParamKind::flop_rate:
    return "compute rate (e.g. 780TFLOPS)";
  case ParamKind::data_size:
    return "data size (e.g. 64MiB)";
  case ParamKind::count:
    return "whole number";
  case ParamKind::fraction:
    return "fraction between 0 and 1";
  case ParamKind::number:
    return "positive number";
  }
  return "value";
}

namespace {

// The unit parser takes 0 and negative quantities (a scenario may need them); no rate, time, clock or
// size a profile measures can be 0 or below, and a simulation given one would never finish.
double positive(const ParamDef& def, const std::string& text, double si) {
  if (!(si > 0))
    throw units::UnitError(fmt::format("expected a positive {}, found \"{}\"", kind_name(def.kind), text));
  return si;
}

} // namespace

double parse_parameter_value(const ParamDef& def, const std::string& text) {
  using namespace units;
  switch (def.kind) {
  case ParamKind::data_rate:
    return positive(def, text, parse_quantity<DataRate>(text).si());
  case ParamKind::duration:
    return positive(def, text, parse_quantity<Seconds>(text).si());
  case ParamKind::frequency:
    return positive(def, text, parse_quantity<Frequency>(text).si());
  case ParamKind::flop_rate:
    return positive(def, text, parse_quantity<FlopRate>(text).si());
  case ParamKind::data_size:
    return positive(def, text, parse_quantity<Bytes>(text).si());
  case ParamKind::count:
  case ParamKind::fraction:
  case ParamKind::number: {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v))
      throw UnitError(fmt::format("expected a {}, found \"{}\"", kind_name(def.kind), text));
    if (def.kind == ParamKind::count && (v < 1 || v != std::floor(v)))
      throw UnitError(fmt::format("expected a whole number of at least 1, found \"{}\"", text));
    if (def.kind == ParamKind::fraction && (v < 0 || v > 1))
      throw UnitError(fmt::format("expected a fraction between 0 and 1, found \"{}\"", text));
    // An efficiency scales a rate: at 0 every transfer or kernel it applies to would never end.
    if (def.kind == ParamKind::fraction && v <= 0 && def.key.ends_with("_efficiency"))
      throw UnitError(fmt::format("expected an efficiency above 0 (at most 1), found \"{}\": at 0 nothing it "
                                  "applies to would ever finish",
                                  text));
    if (def.kind == ParamKind::number && v <= 0)
      throw UnitError(fmt::format("expected a positive number, found \"{}\"", text));
    return v;
  }
  }
  throw UnitError("unknown parameter kind");
}

std::string format_parameter_value(const ParamDef& def, double si_value) {
  using namespace units;
  switch (def.kind) {
  case ParamKind::data_rate:
    return format(DataRate::from_si(si_value));
  case ParamKind::duration:
    return format(Seconds::from_si(si_value));
  case ParamKind::frequency:
    return format(Frequency::from_si(si_value));
  case ParamKind::flop_rate:
    return format(FlopRate::from_si(si_value));
  case ParamKind::data_size:
    return format(Bytes::from_si(si_value));
  case ParamKind::count:
    return fmt::format("{:.0f}", si_value);
  case ParamKind::fraction:
  case ParamKind::number:
    return fmt::format("{:.6g}", si_value);
  }
  return fmt::format("{:g}", si_value);
}

} // namespace dpusim::calibration
