// A probe measures one aspect of the machine and returns profile parameters (with provenance and fit
// quality), raw samples (written to <out>/raw/<probe>.csv), notes and the versions of the tools it used.
// Probes are plain functions registered in probe_registry(); the `run` command calls them in order.
#pragma once

#include "hw_calib/discover/machine_info.hpp"
#include "hw_calib/measurement/result.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

/// Settings from the command line, shared by all probes; each probe reads the ones it needs.
struct ProbeSettings {
  double duration_s = 10;    // measurement time of one probe (its time limit is larger, see below)
  double time_limit_s = 120; // hard limit of one probe, children killed at the limit
  std::string peer_host;     // empty: loopback
  int peer_port = 18515;
  std::string peer_token; // the peer's pre-shared token (--token-file or DPUSIM_CALIB_TOKEN)
  // storage
  std::filesystem::path storage_dir;                 // where the probe creates its temporary file
  std::optional<std::filesystem::path> storage_file; // an existing file or device, read only
  std::string storage_tool = "auto";                 // auto | builtin | fio
  double storage_size_bytes = 1024.0 * 1024 * 1024;
  // memory
  double memcpy_max_bytes = 512.0 * 1024 * 1024;
  // nccl
  std::optional<std::filesystem::path> nccl_output; // parse this file instead of running all_reduce_perf
  std::optional<double> nccl_link_rate_Bps;         // line rate to turn bus bandwidth into efficiency
  std::string nccl_scope = "network";               // network | nvlink
  int nccl_gpus = 0;                                // -g for all_reduce_perf; 0 = number of GPUs found
  // gpu
  std::optional<std::filesystem::path> gpu_csv; // parse this file instead of running dpusim-calib-gpu
  std::filesystem::path helper_dir;             // where dpusim-calib-gpu is looked for first
  // rdma
  std::string rdma_device; // -d for perftest; empty: perftest's default
};

/// What a probe may use while running: the settings, the discovered machine, the profile role whose
/// parameters it writes, and the time limit it must respect.
class ProbeContext {
public:
  ProbeContext(const ProbeSettings& settings, const MachineInfo& machine, std::string probe_name);
  [[nodiscard]] const ProbeSettings& settings() const { return settings_; }
  [[nodiscard]] const MachineInfo& machine() const { return machine_; }
  [[nodiscard]] const std::string& role() const { return machine_.role; }
  [[nodiscard]] const std::string& probe() const { return probe_; }
  /// Seconds left before the probe's time limit.
  [[nodiscard]] double time_left_s() const;
  /// Throws Interrupted on SIGINT/SIGTERM and ProbeTimeout past the time limit; call it in loops.
  void check() const;

private:
  const ProbeSettings& settings_;
  const MachineInfo& machine_;
  std::string probe_;
  std::chrono::steady_clock::time_point deadline_;
};

class ProbeTimeout : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

using ProbeFunction = ProbeResult (*)(const ProbeContext&);

struct ProbeDef {
  std::string_view name;
  std::string_view description;
  ProbeFunction run;
};

/// In the order `run` executes them by default.
std::span<const ProbeDef> probe_registry();
const ProbeDef* find_probe(std::string_view name);
std::vector<std::string> probe_names();

} // namespace dpusim::calib
