// Turning recorded tool outputs into the parameters a live `run` would measure: each file's format is
// recognised from its content, parsed, checked (a bandwidth of 0 or below, a table with no rows or cut
// short, a latency sweep without small messages, a single-GPU collective run, ...) and fitted with the
// same code as the probes. A check that makes the whole file useless is an InputFileError naming the
// file and the line; one that only rules out a parameter leaves it out and says why in `warnings`.
#pragma once

#include "hw_calib/measurement/result.hpp"
#include "hw_calib/parsers/format_detection.hpp"
#include "hw_calib/parsers/inventory.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct IngestOptions {
  std::string role = "host_cpu";            // the role of role-prefixed parameters (cores, tcp, crypto)
  std::optional<double> nccl_link_rate_Bps; // for the collective efficiency
  std::string nccl_scope = "network";       // network | nvlink
};

struct IngestedFile {
  std::string path;
  std::string checksum; // "sha256:<hex>"
  InputFormat format = InputFormat::nccl_tests;
  std::string probe;  // the probe whose parameters and raw samples it gives; empty for inventory
  ProbeResult result; // parameters, raw samples, tool versions, summary lines
  std::vector<std::string> warnings;          // parameters left out and why
  std::map<std::string, std::string> machine; // inventory, in the profile's machine keys
};

/// The role a file points to, when it does: "dpu_arm" for bfver (it runs on a BlueField's Arm cores)
/// and for lscpu of a BlueField's Arm cores (Cortex-A78AE or Cortex-A72 on aarch64).
std::optional<std::string> role_hint(InputFormat format, std::string_view text);

/// Parses and checks one file's text; throws InputFileError naming `path`.
IngestedFile ingest_text(const std::string& path, std::string_view text, const IngestOptions& options);

/// The smallest message a latency is fitted from must be at most this (bytes); above it the
/// intercept of an alpha-beta fit is extrapolated, not measured.
inline constexpr double kRdmaSmallMessageBytes = 4096;
inline constexpr double kNcclSmallMessageBytes = 65536;

} // namespace dpusim::calib
