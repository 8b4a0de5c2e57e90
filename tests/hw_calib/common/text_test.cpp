#include "hw_calib/common/cpu_time.hpp"
#include "hw_calib/common/sample_table.hpp"
#include "hw_calib/common/text.hpp"

#include <gtest/gtest.h>

using namespace dpusim::calib;

TEST(calib_Text, SplitsAndParsesStrictly) {
  const auto f = split_whitespace("  a\tbb   c ");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1], "bb");
  EXPECT_EQ(split_lines("x\r\ny\n").size(), 2u);
  EXPECT_EQ(split_on("a,,b", ',').size(), 3u);
  EXPECT_EQ(parse_number(" 2.5 "), 2.5);
  EXPECT_FALSE(parse_number("2.5x").has_value());
  EXPECT_FALSE(parse_number("nan").has_value());
  EXPECT_EQ(parse_integer("0x1021", 16), 0x1021);
  EXPECT_EQ(parse_integer("ff", 16), 255);
}

TEST(calib_CpuTime, ParsesProcStatAndMeasuresThreadTime) {
  const auto t = parse_proc_stat("cpu  100 0 50 1000 5 0 10 0 0 0\ncpu0 1 2 3 4 5 6 7 8\n", 100.0);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->user_s, 1.0);
  EXPECT_DOUBLE_EQ(t->busy_s(), 1.6);
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n", 100.0).has_value());
  EXPECT_TRUE(read_system_cpu_times().has_value());
  const CpuTimes before = thread_cpu_times();
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i)
    x = x + 1.0;
  const CpuTimes used = thread_cpu_times() - before;
  EXPECT_GT(used.total_s(), 0.0);
}

TEST(calib_SampleTable, RoundTripsThroughCsv) {
  SampleTable t;
  t.add("tx_window", 0, 131072, "cpu_s", 0.0125);
  t.add("tx_window", 1, 131072, "bytes", 1.5e9);
  const auto back = parse_sample_csv(t.to_csv());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.samples()[1].metric, "bytes");
  EXPECT_DOUBLE_EQ(back.samples()[1].value, 1.5e9);
  EXPECT_THROW(parse_sample_csv("a,b\n"), std::invalid_argument);
}
