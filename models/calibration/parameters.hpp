// The calibratable model parameters: one registry shared by the simulator (which applies a profile's
// values to the hardware a scenario resolves) and dpusim-calib (which measures and writes them).
// A key is "<role>.<parameter>"; the role says which component of a node it describes.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace dpusim::calibration {

/// The work quantum over which os_noise_fraction and os_noise_p99 are measured (dpusim-calib's
/// fixed-work-quantum probe) and over which the noise model draws its detours.
inline constexpr double kOsNoiseQuantumS = 100e-6;

enum class ParamKind {
  data_rate, // "38.2Gbps"
  duration,  // "12us"
  frequency, // "2.0GHz"
  flop_rate, // "780TFLOPS"
  data_size, // "64MiB"
  count,     // a whole number
  fraction,  // a number in [0, 1]
  number,    // a dimensionless positive number
};

struct ParamDef {
  std::string_view key; // e.g. "host_cpu.tcp_rx_rate_per_core"
  ParamKind kind;
  std::string_view description; // what it means, in one line
  std::string_view probe;       // the dpusim-calib probe that measures it ("tcp", "crypto", ...)
  std::string_view model_use;   // which model consumes it
};

std::span<const ParamDef> parameter_registry();
const ParamDef* find_parameter(std::string_view key);
std::string_view kind_name(ParamKind kind);
/// Checks that `text` is a valid value for the parameter; returns the value in SI units or throws
/// units::UnitError with a message that says what is expected.
double parse_parameter_value(const ParamDef& def, const std::string& text);
/// Formats an SI value the way the profile writes it ("38.2Gbps").
std::string format_parameter_value(const ParamDef& def, double si_value);

} // namespace dpusim::calibration
