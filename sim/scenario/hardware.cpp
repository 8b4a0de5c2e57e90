#include "sim/scenario/hardware.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace dpusim::scenario {
namespace {

void apply_profile(Hardware& hw, const calibration::Profile& profile, const std::string& path) {
  using catalog::Citation;
  for (const auto& p : profile.parameters) {
    const auto* def = calibration::find_parameter(p.key);
    CalibratedValue cv{p.key, calibration::format_parameter_value(*def, p.value),
                       std::string(calibration::provenance_name(p.provenance)), true};
    const Citation cite{Citation::Kind::calibration, fmt::format("{} ({}, {})", p.key, cv.provenance, path)};
    auto set_rate = [&](catalog::Cited<units::DataRate>& field) {
      field = {units::DataRate::from_si(p.value), cite};
    };
    auto set_time = [&](catalog::Cited<units::Seconds>& field) {
      field = {units::Seconds::from_si(p.value), cite};
    };
    const std::string& k = p.key;
    catalog::CpuSpec* arm = hw.nic.arm ? &*hw.nic.arm : nullptr;
    if (k == "host_cpu.cores") {
      hw.cpu.cores = {std::max(1, static_cast<int>(std::lround(p.value / hw.node.cpu_sockets.value))), cite};
    } else if (k == "host_cpu.core_clock") {
      hw.cpu.base_clock = {units::Frequency::from_si(p.value), cite};
    } else if (k == "host_cpu.tcp_tx_rate_per_core") {
      set_rate(hw.cpu.tcp_tx_rate_per_core);
    } else if (k == "host_cpu.tcp_rx_rate_per_core") {
      set_rate(hw.cpu.tcp_rx_rate_per_core);
    } else if (k == "host_cpu.tcp_latency_median") {
      set_time(hw.cpu.tcp_latency_median);
    } else if (k == "host_cpu.tcp_latency_sigma") {
      hw.cpu.tcp_latency_sigma = {p.value, cite};
    } else if (k == "host_cpu.aes_gcm_rate_per_core") {
      set_rate(hw.cpu.aes_gcm_rate_per_core);
    } else if (arm != nullptr && k == "dpu_arm.cores") {
      arm->cores = {static_cast<int>(std::lround(p.value)), cite};
    } else if (arm != nullptr && k == "dpu_arm.core_clock") {
      arm->base_clock = {units::Frequency::from_si(p.value), cite};
    } else if (arm != nullptr && k == "dpu_arm.tcp_tx_rate_per_core") {
      set_rate(arm->tcp_tx_rate_per_core);
    } else if (arm != nullptr && k == "dpu_arm.tcp_rx_rate_per_core") {
      set_rate(arm->tcp_rx_rate_per_core);
    } else if (arm != nullptr && k == "dpu_arm.aes_gcm_rate_per_core") {
      set_rate(arm->aes_gcm_rate_per_core);
    } else if (k == "nic.rdma_bandwidth") {
      hw.nic.rdma_efficiency = {std::min(1.0, p.value / hw.nic.line_rate.value.si()), cite};
    } else if (k == "nic.rdma_latency") {
      set_time(hw.nic.latency);
    } else if (k == "collective.network_efficiency") {
      hw.nic.collective_efficiency = {p.value, cite};
    } else if (k == "collective.nvlink_efficiency") {
      hw.gpu.nvlink_collective_efficiency = {p.value, cite};
    } else if (k == "gpu.hbm_efficiency") {
      hw.gpu.hbm_efficiency = {p.value, cite};
    } else if (k == "gpu.gemm_peak_achieved") {
      hw.gpu.gemm = hw.gpu.gemm.scaled(p.value / hw.gpu.gemm.best().si());
      hw.gpu.gemm_ceiling = catalog::Cited<units::FlopRate>{units::FlopRate::from_si(p.value), cite};
    } else {
      cv.used = false;
    }
    hw.calibrated.push_back(std::move(cv));
  }
}

} // namespace

Hardware resolve_hardware(const Scenario& s, const catalog::Catalog& cat, const offload::Variant& variant,
                          const calibration::Profile* profile, const std::string& profile_path) {
  Hardware hw;
  hw.node = *cat.node(s.cluster.node);
  hw.gpu = *cat.gpu(hw.node.gpu);
  hw.cpu = *cat.cpu(hw.node.cpu);
  hw.nic = variant.on_dpu ? *cat.nic(s.cluster.dpu) : *cat.nic(s.cluster.nic);
  hw.collective = *cat.collective("nccl");
  hw.fabric_switch = *cat.network_switch(s.cluster.fabric.switch_model);
  if (profile != nullptr) {
    hw.profile_path = profile_path;
    apply_profile(hw, *profile, profile_path);
  }
  return hw;
}

} // namespace dpusim::scenario
