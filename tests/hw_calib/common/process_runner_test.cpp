#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/common/process_runner.hpp"

#include <chrono>
#include <gtest/gtest.h>
#include <signal.h>
#include <thread>

using namespace dpusim::calib;
using namespace std::chrono_literals;

TEST(calib_ProcessRunner, CapturesStdoutAndExitStatus) {
  const auto r = run_process({"echo", "hello", "world"});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "hello world\n");
  EXPECT_EQ(r.exit_code, 0);
}

TEST(calib_ProcessRunner, ArgumentsAreNotInterpretedByAShell) {
  // A shell would expand the variable and run the second command; execv passes the text through.
  const auto r = run_process({"echo", "$HOME;", "rm", "-rf", "/nonexistent"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.out, "$HOME; rm -rf /nonexistent\n");
}

TEST(calib_ProcessRunner, ReportsNonZeroExitAndMissingPrograms) {
  const auto r = run_process({"false"});
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 1);
  const auto missing = run_process({"dpusim-no-such-tool-xyz"});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.error.find("not found"), std::string::npos);
  EXPECT_FALSE(find_executable("dpusim-no-such-tool-xyz").has_value());
  EXPECT_TRUE(find_executable("sh").has_value());
}

TEST(calib_ProcessRunner, TimeLimitKillsTheWholeProcessGroup) {
  // The child starts a grandchild that would keep stdout open for 30 s; both must go at the limit.
  ProcessOptions opts;
  opts.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & sleep 30"}, opts);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(elapsed, 5.0);
  EXPECT_NE(r.describe().find("time limit"), std::string::npos);
}

TEST(calib_ProcessRunner, ToolThatLeavesAChildBehindDoesNotHang) {
  ProcessOptions opts;
  opts.timeout = 10s;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & echo done"}, opts);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "done\n");
  EXPECT_LT(elapsed, 5.0);
}

TEST(calib_ProcessRunner, StopRequestKillsTheChild) {
  clear_stop_request();
  std::thread stopper([] {
    std::this_thread::sleep_for(200ms);
    request_stop(SIGINT);
  });
  const auto r = run_process({"sleep", "30"});
  stopper.join();
  clear_stop_request();
  EXPECT_TRUE(r.interrupted);
  EXPECT_LT(r.wall_seconds, 5.0);
}

TEST(calib_BackgroundProcess, StopKillsAndReaps) {
  BackgroundProcess p({"sleep", "30"});
  ASSERT_TRUE(p.running());
  EXPECT_FALSE(p.wait_for(50ms).has_value());
  p.stop();
  EXPECT_FALSE(p.running());
  BackgroundProcess quick({"true"});
  EXPECT_EQ(quick.wait_for(5s), 0);
}
