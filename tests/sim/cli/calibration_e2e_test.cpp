// Calibrate this machine with dpusim-calib, then simulate the quickstart's host-TCP baseline with that
// profile: the simulator must take its TCP cost per byte from the measurement, and say so.
#include "models/calibration/profile.hpp"
#include "tests/support/subprocess.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

std::vector<std::string> csv_row(const fs::path& file, std::size_t row, std::vector<std::string>* header) {
  std::ifstream in(file);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ','))
      cells.push_back(c);
    rows.push_back(cells);
  }
  *header = rows.at(0);
  return rows.at(row);
}

double column(const std::vector<std::string>& header, const std::vector<std::string>& row,
              const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name)
      return std::stod(row.at(i));
  ADD_FAILURE() << "no column " << name;
  return 0;
}

} // namespace

TEST(CalibrationEndToEnd, MeasuredTcpCostDrivesTheSimulation) {
  TempDir tmp;
  const std::string profile_dir = tmp.path() + "/profile";
  const auto cal =
      run_command({DPUSIM_CALIB_BINARY, "run", "--probes", "tcp", "--quick", "--out", profile_dir});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const auto profile = dpusim::calibration::load_profile(profile_dir + "/profile.yaml");
  const auto* tx = profile.find("host_cpu.tcp_tx_rate_per_core");
  const auto* rx = profile.find("host_cpu.tcp_rx_rate_per_core");
  ASSERT_NE(tx, nullptr);
  ASSERT_NE(rx, nullptr);

  const std::string scenario = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml";
  const auto plain = run_command({DPUSIM_BINARY, "run", scenario, "--out", tmp.path() + "/plain", "--quiet"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto measured = run_command({DPUSIM_BINARY, "run", scenario, "--out", tmp.path() + "/measured",
                                     "--calibration", profile_dir + "/profile.yaml"});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  EXPECT_NE(measured.out.find("host_cpu.tcp_rx_rate_per_core"), std::string::npos) << measured.out;
  EXPECT_NE(measured.out.find("(measured"), std::string::npos) << measured.out;

  std::vector<std::string> h;
  const auto a = csv_row(fs::path(tmp.path()) / "plain/run.csv", 1, &h);
  const auto b = csv_row(fs::path(tmp.path()) / "measured/run.csv", 1, &h);
  EXPECT_GE(column(h, b, "calibrated_parameters"), 2.0);
  // The same bytes cross the TCP stack in both runs, so host CPU time scales with the cost per byte:
  // (1/tx + 1/rx) measured over the catalog's (1/70.6 + 1/42.2 Gb/s per core).
  const double catalog_cost = 8.0 / 70.6e9 + 8.0 / 42.2e9;
  const double measured_cost = 1.0 / tx->value + 1.0 / rx->value;
  auto transport_core_s = [&](const std::vector<std::string>& row) {
    return column(h, row, "host_cores_transport") * column(h, row, "step_time_s");
  };
  EXPECT_NEAR(transport_core_s(b) / transport_core_s(a), measured_cost / catalog_cost,
              1e-6 * measured_cost / catalog_cost);
}

TEST(CalibrationEndToEnd, MeasuredOsNoiseDrivesTheNoiseModelAndTheReportSaysSo) {
  TempDir tmp;
  const std::string profile_dir = tmp.path() + "/profile";
  const auto cal =
      run_command({DPUSIM_CALIB_BINARY, "run", "--probes", "os-noise,tcp", "--quick", "--out", profile_dir});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const auto profile = dpusim::calibration::load_profile(profile_dir + "/profile.yaml");
  const auto* fraction = profile.find("host_cpu.os_noise_fraction");
  const auto* p99 = profile.find("host_cpu.os_noise_p99");
  ASSERT_NE(fraction, nullptr);
  ASSERT_NE(p99, nullptr);

  const std::string scenario = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/host-tcp-os-noise.yaml";
  const auto r = run_command({DPUSIM_BINARY, "run", scenario, "--variant", "host-tcp", "--out",
                              tmp.path() + "/measured", "--calibration", profile_dir + "/profile.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The note quotes the measured pair, as measured, with where it came from.
  char words[160];
  std::snprintf(words, sizeof words,
                "host OS noise of %.3g%% per core with a 99th-percentile detour of %g us",
                100 * fraction->value, p99->value * 1e6);
  EXPECT_NE(r.out.find(words), std::string::npos) << words << "\n" << r.out;
  EXPECT_NE(r.out.find("(calibration: "), std::string::npos) << r.out;
}

TEST(CalibrationEndToEnd, ARunWithImplausibleMeasurementsSaysSo) {
  // The loaded 2-core VM's profile: 71% OS noise, an 8.1 ms p99 detour. Applied as measured, and said.
  TempDir tmp;
  dpusim::calibration::Profile p;
  p.created = "2026-12-04T00:00:00Z";
  p.role = "host_cpu";
  for (const auto& [key, value] : std::vector<std::pair<std::string, double>>{
           {"host_cpu.os_noise_fraction", 0.71}, {"host_cpu.os_noise_p99", 8.1e-3}}) {
    dpusim::calibration::ProfileParam param;
    param.key = key;
    param.value = value;
    param.source = "fixed-work-quantum benchmark";
    param.probe = "os-noise";
    p.set(param);
  }
  const std::string profile = tmp.path() + "/profile.yaml";
  dpusim::calibration::save_profile(p, profile);
  const std::string scenario = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/host-tcp-os-noise.yaml";
  const auto r = run_command({DPUSIM_BINARY, "run", scenario, "--variant", "host-tcp", "--out",
                              tmp.path() + "/out", "--calibration", profile});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("calibration: the profile's host_cpu.os_noise_fraction = 71.0% is outside its "
                       "plausible range (at most 10.0%)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("calibration: the profile's host_cpu.os_noise_p99 = 8.1ms"), std::string::npos)
      << r.out;
}
