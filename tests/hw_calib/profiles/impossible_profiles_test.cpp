// The simulator's profile reader refuses values no hardware has: an efficiency of 0, rates, latencies
// and core counts of 0 or below. Each is an input error (exit status 2 in dpusim) naming the parameter
// and its line, rather than a simulation that never ends or fails half-way.
#include "../test_data.hpp"
#include "models/base/input_error.hpp"
#include "models/calibration/profile.hpp"

#include <fstream>
#include <gtest/gtest.h>

using dpusim::calib::testing::ScratchDir;

namespace {

std::string error_loading(const std::string& key, const std::string& value) {
  const ScratchDir dir;
  const auto path = dir.path() / "profile.yaml";
  {
    std::ofstream out(path);
    out << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: host_cpu\nparameters:\n"
        << "  " << key << ":\n    value: " << value << "\n    provenance: measured\n";
  }
  try {
    (void)dpusim::calibration::load_profile(path.string());
  } catch (const dpusim::InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST(calib_ImpossibleProfiles, AreInputErrorsNamingTheParameter) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases{
      {"collective.network_efficiency", "0", "an efficiency above 0"},
      {"collective.nvlink_efficiency", "0.0", "an efficiency above 0"},
      {"gpu.hbm_efficiency", "-0.2", "between 0 and 1"},
      {"collective.network_efficiency", "1.5", "between 0 and 1"},
      {"nic.rdma_bandwidth", "0Gbps", "expected a positive data rate"},
      {"nic.rdma_bandwidth", "-400Gbps", "expected a positive data rate"},
      {"host_cpu.tcp_tx_rate_per_core", "0bps", "expected a positive data rate"},
      {"nic.rdma_latency", "0us", "expected a positive duration"},
      {"nic.rdma_latency", "-1us", "expected a positive duration"},
      {"gpu.gemm_peak_achieved", "0TFLOPS", "expected a positive compute rate"},
      {"host_cpu.core_clock", "-2GHz", "expected a positive frequency"},
      {"host_cpu.cores", "0", "a whole number of at least 1"},
      {"storage.random_read_iops", "0", "a positive number"},
  };
  for (const auto& [key, value, expected] : cases) {
    const auto message = error_loading(key, value);
    EXPECT_NE(message.find(expected), std::string::npos) << key << " = " << value << ": " << message;
    EXPECT_NE(message.find("profile.yaml:7"), std::string::npos) << key << " = " << value << ": " << message;
    EXPECT_NE(message.find(key), std::string::npos) << key << " = " << value << ": " << message;
  }
  // A small positive efficiency is a (poor) measurement, not an impossible one.
  EXPECT_EQ(error_loading("collective.network_efficiency", "0.05"), "no error");
}
