// The loopback probes' recorded raw samples (tests/hw_calib/data/loopback/, taken from the run shipped in
// hw_calib/profiles/measured/kvm-xeon-2vcpu/) re-fit to the values that run wrote into its profile.
#include "../test_data.hpp"
#include "hw_calib/common/sample_table.hpp"
#include "hw_calib/fit/linear_fit.hpp"
#include "models/calibration/profile.hpp"

#include <gtest/gtest.h>
#include <map>

using namespace dpusim::calib;
using dpusim::calib::testing::read_fixture;

namespace {

const dpusim::calibration::Profile& shipped() {
  static const auto profile = dpusim::calibration::load_profile(
      std::string(DPUSIM_SOURCE_DIR) + "/hw_calib/profiles/measured/kvm-xeon-2vcpu/profile.yaml");
  return profile;
}

double refit_rate(const SampleTable& t, const std::string& series) {
  std::map<long long, std::pair<double, double>> windows; // index -> (bytes, cpu)
  for (const auto& s : t.samples()) {
    if (s.series != series)
      continue;
    if (s.metric == "bytes")
      windows[s.index].first = s.value;
    else if (s.metric == "cpu_user_s" || s.metric == "cpu_sys_s")
      windows[s.index].second += s.value;
  }
  std::vector<double> x, y;
  for (const auto& [i, w] : windows) {
    x.push_back(w.first);
    y.push_back(w.second);
  }
  return 1.0 / fit_linear(x, y).slope;
}

} // namespace

TEST(calib_RecordedSamples, TcpLoopbackStreamsRefitToTheProfile) {
  const SampleTable t = parse_sample_csv(read_fixture("loopback/tcp-loopback.csv"));
  const double tx = refit_rate(t, "tx_stream");
  const double rx = refit_rate(t, "rx_stream");
  EXPECT_NEAR(tx / shipped().find("host_cpu.tcp_tx_rate_per_core")->value, 1.0, 1e-4);
  EXPECT_NEAR(rx / shipped().find("host_cpu.tcp_rx_rate_per_core")->value, 1.0, 1e-4);
}

TEST(calib_RecordedSamples, CryptoWindowsGiveTheProfileRate) {
  const SampleTable t = parse_sample_csv(read_fixture("loopback/crypto.csv"));
  double bytes = 0, cpu = 0, wall = 0;
  for (const auto& s : t.samples()) {
    if (s.size_bytes != 16384)
      continue;
    if (s.metric == "bytes")
      bytes += s.value;
    else if (s.metric == "cpu_s")
      cpu += s.value;
    else if (s.metric == "wall_s")
      wall += s.value;
  }
  const double rate = bytes / (cpu > 0.5 * wall ? cpu : wall);
  EXPECT_NEAR(rate / shipped().find("host_cpu.aes_gcm_rate_per_core")->value, 1.0, 1e-4);
}
