#include "sim/report/attribution.hpp"

#include <gtest/gtest.h>

using namespace dpusim::report;

namespace {
Attribution example() {
  Attribution a{"s", "rdma-nic", "host-tcp", 10.0, 4.0, {}};
  a.rows.push_back({"transport", "host", "nic", std::nullopt, 5.0, "alone: needs \"encryption=nic\""});
  a.rows.push_back({"encryption", "host", "nic", 8.0, std::nullopt, ""});
  return a;
}
} // namespace

TEST(AttributionReport, ChangesAreMeasuredFromTheBaselineAloneAndFromTheTargetLast) {
  const auto a = example();
  EXPECT_DOUBLE_EQ(a.total_s(), -6.0);
  EXPECT_DOUBLE_EQ(*a.alone_change_s(a.rows[1]), -2.0);
  EXPECT_DOUBLE_EQ(*a.last_change_s(a.rows[0]), -1.0);
  EXPECT_FALSE(a.alone_change_s(a.rows[0]).has_value());
}

TEST(AttributionReport, TableShowsSharesAndWhatIsNotAdditive) {
  const auto text = render_attribution(example());
  EXPECT_NE(text.find("33%"), std::string::npos) << text; // encryption alone: -2 of -6
  EXPECT_NE(text.find("17%"), std::string::npos) << text; // transport last: -1 of -6
  // Alone: -6 - (-2) = -4 not explained (67%); last: -6 - (-1) = -5 (83%).
  EXPECT_NE(text.find("-4.0000"), std::string::npos) << text;
  EXPECT_NE(text.find("83%"), std::string::npos) << text;
  EXPECT_NE(text.find("needs \"encryption=nic\""), std::string::npos) << text;
}

TEST(AttributionReport, CsvQuotesNotesAndLeavesMissingRunsEmpty) {
  const auto csv = render_attribution_csv({example()});
  EXPECT_NE(csv.find("s,rdma-nic,host-tcp,transport,host,nic,,,,-1,0.166666667,\"alone: needs "
                     "\"\"encryption=nic\"\"\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("s,rdma-nic,host-tcp,encryption,host,nic,8,-2,0.333333333,,,\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("s,rdma-nic,host-tcp,all,,,4,-6,1,-6,1,\n"), std::string::npos) << csv;
}
