#include "sim/datapath/data_path.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dpusim::datapath {

DataPath::DataPath(const Variant& variant, const scenario::Services& services, const scenario::Hardware& hw)
    : placement_(variant.placement), services_(services), host_(hw.cpu), arm_(hw.nic.arm),
      transport_(variant.transport()) {
  const bool encrypted = services.encryption != Encryption::none;
  const bool arm_encrypts = encrypted && placement_[Function::encryption] == Site::dpu_arm;
  const bool arm_switches = services.overlay && placement_[Function::vswitch] == Site::dpu_arm;
  through_arm_ = transport_ == Transport::host_tcp && (arm_encrypts || arm_switches);
  storage_on_frontend_ = storage_through_arm() && hw.frontend_dpu(Function::storage) != nullptr;
  storage_arm_ = hw.arm_for(Function::storage);
  storage_arm_device_ = storage_on_frontend_ ? hw.storage_nic->name : hw.nic.name;
  if (through_arm_ && !arm_)
    throw std::invalid_argument(hw.nic.name + " has no Arm cores for the functions placed on dpu_arm");
  if (storage_through_arm() && !storage_arm_)
    throw std::invalid_argument(hw.nic.name + " has no Arm cores for the storage client placed on dpu_arm");
  if (encrypted && placement_[Function::encryption] == Site::nic) {
    const auto& engine =
        services.encryption == Encryption::ipsec ? hw.nic.offloads.ipsec_rate : hw.nic.offloads.tls_rate;
    if (!engine)
      throw std::invalid_argument(hw.nic.name + " has no inline " +
                                  std::string(encryption_name(services.encryption)) + " engine");
    crypto_engine_ = engine->value;
  }
  // One connection's bytes are driven by the transport's threads on each end; software on the Arm
  // cores that processes the same stream is spread over as many cores (one flow per core under RSS).
  threads_ = std::max(1, hw.collective.socket_threads.value);
  arm_threads_ = arm_ ? std::min(threads_, arm_->cores.value) : threads_;
  // SNAP is SPDK on the Arm cores: its poll-mode datapath runs on the cores of its own core mask
  // (snap_cores), not on the host client's connections, and on no more cores than there are.
  if (storage_through_arm()) {
    if (!storage_arm_->snap_cores)
      throw std::invalid_argument(storage_arm_device_ +
                                  " gives no snap_cores for NVMe emulation on its Arm cores");
    snap_threads_ = std::min(storage_arm_->snap_cores->value, storage_arm_->cores.value);
  }
  if (transport_ == Transport::rdma && hw.nic.latency_p99) {
    // The median is the NIC's latency; sigma = ln(p99 / median) / z99.
    constexpr double kZ99 = 2.3263478740408408;
    const double median = hw.nic.latency.value.si();
    const double p99 = hw.nic.latency_p99->value.si();
    rdma_latency_s_ = 2 * median;
    rdma_sigma_ = median > 0 && p99 > median ? std::log(p99 / median) / kZ99 : 0.0;
  }
  if (transport_ == Transport::host_tcp) {
    latency_s_ = host_.tcp_latency_median.value.si();
    sigma_ = host_.tcp_latency_sigma.value;
  }
  if (through_arm_) {
    // Each end's Arm cores receive and resend every packet in software.
    latency_s_ += 2 * arm_->tcp_latency_median.value.si();
    sigma_ = std::max(sigma_, arm_->tcp_latency_sigma.value);
  }
}

void DataPath::add(std::vector<CpuWork>& out, Function f, Processor p, End e, double bytes,
                   units::DataRate rate, int threads) const {
  if (bytes <= 0)
    return;
  out.push_back({f, p, e, bytes / rate.si(), threads});
}

std::vector<CpuWork> DataPath::network_transfer(double payload) const {
  std::vector<CpuWork> out;
  if (transport_ != Transport::host_tcp)
    return out; // RoCE in NIC hardware, GPUDirect RDMA: no processor touches the bytes
  for (auto end : {End::sender, End::receiver}) {
    const auto& tcp_rate = end == End::sender ? host_.tcp_tx_rate_per_core : host_.tcp_rx_rate_per_core;
    add(out, Function::transport, Processor::host_cpu, end, payload, tcp_rate.value, threads_);
    if (services_.encryption != Encryption::none) {
      switch (placement_[Function::encryption]) {
      case Site::host: // AES-GCM in the kernel (IPsec ESP, kTLS) on the connection's cores
        add(out, Function::encryption, Processor::host_cpu, end, payload, host_.aes_gcm_rate_per_core.value,
            threads_);
        break;
      case Site::dpu_arm:
        add(out, Function::encryption, Processor::dpu_arm, end, payload, arm_->aes_gcm_rate_per_core.value,
            arm_threads_);
        break;
      case Site::nic: // inline engine: a rate limit on the path, no processor time
        break;
      }
    }
    if (services_.overlay) {
      switch (placement_[Function::vswitch]) {
      case Site::host: // VXLAN encapsulation and the OVS kernel datapath
        add(out, Function::vswitch, Processor::host_cpu, end, payload, host_.ovs_rate_per_core.value,
            threads_);
        break;
      case Site::dpu_arm:
        add(out, Function::vswitch, Processor::dpu_arm, end, payload, arm_->ovs_rate_per_core.value,
            arm_threads_);
        break;
      case Site::nic: // eSwitch (ASAP2): switched in hardware
        break;
      }
    }
    // Traffic that detours through the Arm cores only for encryption is still received and resent by
    // them: packet forwarding at the Arm's software-switching rate, charged to encryption.
    if (through_arm_ && !(services_.overlay && placement_[Function::vswitch] == Site::dpu_arm))
      add(out, Function::encryption, Processor::dpu_arm, end, payload, arm_->ovs_rate_per_core.value,
          arm_threads_);
  }
  return out;
}

std::vector<CpuWork> DataPath::storage_read(double bytes, int connections) const {
  return storage_client(bytes, connections, End::receiver);
}

std::vector<CpuWork> DataPath::storage_write(double bytes, int connections) const {
  return storage_client(bytes, connections, End::sender);
}

std::vector<CpuWork> DataPath::storage_client(double bytes, int connections, End end) const {
  std::vector<CpuWork> out;
  switch (placement_[Function::storage]) {
  case Site::host: // NFS / NVMe-oF over kernel TCP through a host bounce buffer, one core per connection
    add(out, Function::storage, Processor::host_cpu, end, bytes, host_.storage_client_rate_per_core.value,
        connections);
    break;
  case Site::dpu_arm: // NVMe emulation (SNAP): SPDK on the Arm cores, the host sees a local drive
    add(out, Function::storage, Processor::dpu_arm, end, bytes,
        storage_arm_->storage_client_rate_per_core.value, snap_threads_);
    break;
  case Site::nic: // NVMe-oF over RDMA / GPUDirect Storage: the NIC moves the bytes
    break;
  }
  return out;
}

namespace {
/// Standard normal quantile by bisection on erfc (exact to double precision, called once per collective).
double normal_quantile(double p) {
  double lo = -10;
  double hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
} // namespace

double DataPath::step_latency_s(int concurrent) const {
  if (latency_s_ <= 0)
    return 0;
  const double n = std::max(1, concurrent);
  return latency_s_ * std::exp(sigma_ * normal_quantile(n / (n + 1)));
}

CoreSeconds core_seconds(const std::vector<CpuWork>& work, Processor processor) {
  CoreSeconds out{};
  for (const auto& w : work)
    if (w.processor == processor)
      out[static_cast<std::size_t>(w.function)] += w.core_s;
  return out;
}

} // namespace dpusim::datapath
