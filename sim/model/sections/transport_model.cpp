// The inter-node transport: kernel TCP on host cores (or on a DPU's Arm cores for what runs there),
// or RoCE in NIC hardware with GPUDirect RDMA; the rates and latencies a profile may calibrate.
#include "sim/model/model.hpp"

#include <cmath>
#include <memory>

namespace dpusim::model {
namespace {

using Hw = scenario::Hardware;
using Cite = catalog::Citation;

template <catalog::Cited<units::DataRate> catalog::CpuSpec::*Field>
bool host_rate(Hw& hw, double v, const Cite& c) {
  hw.cpu.*Field = {units::DataRate::from_si(v), c};
  return true;
}

template <catalog::Cited<units::DataRate> catalog::CpuSpec::*Field>
bool arm_rate(Hw& hw, double v, const Cite& c) {
  if (!hw.nic.arm)
    return false;
  (*hw.nic.arm).*Field = {units::DataRate::from_si(v), c};
  return true;
}

class TransportModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "transport"; }
  [[nodiscard]] std::string_view summary() const override {
    return "kernel TCP on host (or Arm) cores, or RoCE with GPUDirect RDMA in the NIC";
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    using catalog::CpuSpec;
    return {
        {"host_cpu.tcp_tx_rate_per_core", "cpu.tcp_tx_rate_per_core",
         host_rate<&CpuSpec::tcp_tx_rate_per_core>},
        {"host_cpu.tcp_rx_rate_per_core", "cpu.tcp_rx_rate_per_core",
         host_rate<&CpuSpec::tcp_rx_rate_per_core>},
        {"host_cpu.tcp_latency_median", "cpu.tcp_latency_median",
         [](Hw& hw, double v, const Cite& c) {
           hw.cpu.tcp_latency_median = {units::Seconds::from_si(v), c};
           return true;
         }},
        {"host_cpu.tcp_latency_sigma", "cpu.tcp_latency_sigma",
         [](Hw& hw, double v, const Cite& c) {
           hw.cpu.tcp_latency_sigma = {v, c};
           return true;
         }},
        {"dpu_arm.cores", "nic.arm.cores",
         [](Hw& hw, double v, const Cite& c) {
           if (!hw.nic.arm)
             return false;
           hw.nic.arm->cores = {static_cast<int>(std::lround(v)), c};
           return true;
         },
         [](const Hw& hw) -> std::optional<double> {
           if (!hw.nic.arm)
             return std::nullopt;
           return hw.nic.arm->cores.value;
         }},
        // The Arm cores that do one host core's work (agents placed there) are the ratio of receive rates.
        {"dpu_arm.tcp_rx_rate_per_core", "nic.arm.tcp_rx_rate_per_core",
         arm_rate<&CpuSpec::tcp_rx_rate_per_core>},
        {"dpu_arm.tcp_latency_median", "nic.arm.tcp_latency_median",
         [](Hw& hw, double v, const Cite& c) {
           if (!hw.nic.arm)
             return false;
           hw.nic.arm->tcp_latency_median = {units::Seconds::from_si(v), c};
           return true;
         }},
        {"dpu_arm.tcp_latency_sigma", "nic.arm.tcp_latency_sigma",
         [](Hw& hw, double v, const Cite& c) {
           if (!hw.nic.arm)
             return false;
           hw.nic.arm->tcp_latency_sigma = {v, c};
           return true;
         }},
        {"nic.rdma_bandwidth", "nic.rdma_efficiency (bandwidth over line rate)",
         [](Hw& hw, double v, const Cite& c) {
           hw.nic.rdma_efficiency = {std::min(1.0, v / hw.nic.line_rate.value.si()), c};
           return true;
         }},
        {"nic.rdma_latency", "nic.latency",
         [](Hw& hw, double v, const Cite& c) {
           hw.nic.latency = {units::Seconds::from_si(v), c};
           return true;
         }},
        {"nic.rdma_latency_p99", "nic.latency_p99",
         [](Hw& hw, double v, const Cite& c) {
           hw.nic.latency_p99 = catalog::Cited<units::Seconds>{units::Seconds::from_si(v), c};
           return true;
         }},
    };
  }
};

} // namespace

std::unique_ptr<Model> make_transport_model() {
  return std::make_unique<TransportModel>();
}

} // namespace dpusim::model
