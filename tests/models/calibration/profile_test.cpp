#include "models/base/input_error.hpp"
#include "models/calibration/profile.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace dpusim::calibration;

TEST(Profile, RoundTripsThroughYaml) {
  Profile p;
  p.created = "2026-11-29T12:00:00Z";
  p.machine["cpu.model"] = "Test CPU";
  p.machine["cpu.cores"] = "8";
  p.tools["dpusim-calib"] = "0.1.0";
  ProfileParam rx;
  rx.key = "host_cpu.tcp_rx_rate_per_core";
  rx.value = 4.5e9;
  rx.provenance = Provenance::fitted;
  rx.probe = "tcp";
  rx.samples = "raw/tcp.csv";
  rx.fit = FitQuality{"linear", 12, {{"r2", 0.99}}};
  p.set(rx);
  const auto dir = std::filesystem::temp_directory_path() / "dpusim_profile_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "profile.yaml").string();
  save_profile(p, path);
  const Profile q = load_profile(path);
  ASSERT_NE(q.find("host_cpu.tcp_rx_rate_per_core"), nullptr);
  EXPECT_NEAR(q.find("host_cpu.tcp_rx_rate_per_core")->value, 4.5e9, 1e3);
  EXPECT_EQ(q.machine.at("cpu.model"), "Test CPU");
  EXPECT_EQ(q.find("host_cpu.tcp_rx_rate_per_core")->fit->samples, 12);
  std::filesystem::remove_all(dir);
}

TEST(Profile, RejectsUnknownParametersWithSuggestion) {
  const auto dir = std::filesystem::temp_directory_path() / "dpusim_profile_bad";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "bad.yaml").string();
  std::ofstream(path) << "dpusim_profile: 1\ncomplete: true\ncreated: x\nrole: host_cpu\nparameters:\n"
                         "  host_cpu.tcp_rx_rate_per_cor:\n    value: 40Gbps\n    provenance: measured\n";
  try {
    (void)load_profile(path);
    FAIL() << "expected an error";
  } catch (const dpusim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean \"host_cpu.tcp_rx_rate_per_core\""), std::string::npos)
        << e.what();
    EXPECT_EQ(e.where().line, 7);
  }
  std::filesystem::remove_all(dir);
}
