#include "hw_calib/probes/crypto_probe.hpp"
#include "hw_calib/probes/gpu_probe.hpp"
#include "hw_calib/probes/memory_probe.hpp"
#include "hw_calib/probes/nccl_probe.hpp"
#include "hw_calib/probes/os_noise_probe.hpp"
#include "hw_calib/probes/probe.hpp"
#include "hw_calib/probes/rdma_probe.hpp"
#include "hw_calib/probes/storage_probe.hpp"
#include "hw_calib/probes/tcp_probe.hpp"

#include <array>

namespace dpusim::calib {
namespace {

constexpr std::array kProbes{
    ProbeDef{"tcp",
             "kernel TCP send/receive throughput per core and request/response latency (loopback or --peer)",
             run_tcp_probe},
    ProbeDef{"rdma", "RDMA write/send bandwidth and latency over message sizes (perftest)", run_rdma_probe},
    ProbeDef{"crypto", "AES-256-GCM throughput per core over buffer sizes (OpenSSL EVP)", run_crypto_probe},
    ProbeDef{"storage", "sequential and random read throughput and CPU per byte (O_DIRECT, or fio)",
             run_storage_probe},
    ProbeDef{"os-noise", "fixed-work-quantum jitter on every CPU", run_os_noise_probe},
    ProbeDef{"memory", "single-thread memcpy bandwidth over buffer sizes", run_memory_probe},
    ProbeDef{"gpu", "host<->device copy bandwidth and bf16 GEMM throughput (CUDA helper)", run_gpu_probe},
    ProbeDef{"nccl", "all-reduce bus bandwidth over message sizes (nccl-tests)", run_nccl_probe},
};

} // namespace

std::span<const ProbeDef> probe_registry() {
  return kProbes;
}

const ProbeDef* find_probe(std::string_view name) {
  for (const auto& p : kProbes) {
    if (p.name == name)
      return &p;
  }
  return nullptr;
}

std::vector<std::string> probe_names() {
  std::vector<std::string> out;
  for (const auto& p : kProbes)
    out.emplace_back(p.name);
  return out;
}

} // namespace dpusim::calib
