// Explanations name a cause only where the thing it rests on, switched alone, moves the step.
#include "sim/report/comparison.hpp"
#include "sim/report/switches.hpp"

#include <gtest/gtest.h>

using namespace dpusim::report;

namespace {

VariantResult result(const std::string& name, const std::string& device, bool on_dpu, double step) {
  VariantResult r;
  r.variant = name;
  r.device = device;
  r.on_dpu = on_dpu;
  r.nodes = 2;
  r.host_cores = 112;
  r.metrics.step_time_s = step;
  r.metrics.compute_s = 1.0;
  r.metrics.exposed_comm_s = step - 1.0;
  r.metrics.dp_comm_s = step - 1.0;
  return r;
}

/// A model that credits the device with every gain over a variant on the NIC.
Explainer crediting_the_device() {
  Explainer e;
  e.cause = [](const VariantResult&, const VariantResult&, double) {
    return std::string(" the DPU's QoS does it.");
  };
  return e;
}

Comparison two(double device_change_s) {
  Comparison c{"nic", {result("nic", "connectx-7", false, 3.0), result("dpu", "bluefield-3", true, 2.0)}, {}};
  c.switches.push_back({"nic", "dpu", {{"device", "connectx-7", "bluefield-3", false, device_change_s, ""}}});
  return c;
}

} // namespace

TEST(Switches, AModelsCauseIsNamedOnlyWhereItsThingMovesTheStepAlone) {
  const std::vector<Explainer> explainers{crediting_the_device()};
  const auto named_text = explain(two(-1.0), explainers).front();
  EXPECT_NE(named_text.find("the DPU's QoS does it."), std::string::npos) << named_text;
  EXPECT_NE(named_text.find("the bluefield-3 (nic: the connectx-7) -1.0000 s (-33.3%)"), std::string::npos)
      << named_text;
  // The same step change, but the device alone moves nothing: the model's cause is not named.
  const auto not_named = explain(two(0.001), explainers).front();
  EXPECT_EQ(not_named.find("QoS"), std::string::npos) << not_named;
  EXPECT_NE(not_named.find("+0.0010 s (+0.0%: nothing by itself)"), std::string::npos) << not_named;
  // Without the switches measured, nothing is named either.
  auto unmeasured = two(-1.0);
  unmeasured.switches.clear();
  EXPECT_EQ(explain(unmeasured, explainers).front().find("QoS"), std::string::npos);
}

TEST(Switches, SaysWhatCannotRunAloneAndWhatWasMeasuredSwitchedBack) {
  PairSwitches p{"host-tcp", "rdma-nic", {}};
  p.switched.push_back({"transport", "host", "nic", true, -2.0, ""});
  p.switched.push_back({"encryption", "host", "nic", false, std::nullopt, "no inline engine"});
  const auto text = render_switches(p, 10.0, -2.0);
  EXPECT_NE(
      text.find("transport on the NIC (host-tcp: the host) -2.0000 s (-20.0%, as rdma-nic with it back)"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("encryption on the NIC (host-tcp: the host): cannot run alone (no inline engine)"),
            std::string::npos)
      << text;
  EXPECT_TRUE(named(&p, "transport", 10.0));
  EXPECT_FALSE(named(&p, "encryption", 10.0));
  EXPECT_FALSE(named(&p, "device", 10.0));
  EXPECT_FALSE(named(nullptr, "transport", 10.0));
  EXPECT_TRUE(render_switches({"a", "b", {}}, 1.0, 0.0).empty());
}

TEST(Switches, SaysWhatTheThingsMoveTogetherBeyondEachAlone) {
  // Host TCP to a DPU with tenant QoS: the DPU alone changes nothing (host TCP is bound by its cores), the
  // transport alone -2 s, both -3 s: the QoS matters only once the transport has left the host.
  PairSwitches p{"host-tcp", "dpu", {}};
  p.switched.push_back({"transport", "host", "nic", false, -2.0, ""});
  p.switched.push_back({"device", "connectx-7", "bluefield-3", false, 0.0, ""});
  const auto text = render_switches(p, 10.0, -3.0);
  EXPECT_NE(text.find("Together they move it -1.0000 s (-10.0%) beyond the sum of each alone"),
            std::string::npos)
      << text;
  EXPECT_EQ(render_switches(p, 10.0, -2.0).find("Together"), std::string::npos);
  // Where one thing could not be measured, no remainder is claimed.
  p.switched[1].change_s.reset();
  p.switched[1].why_not = "no DPU";
  EXPECT_EQ(render_switches(p, 10.0, -3.0).find("Together"), std::string::npos);
}
