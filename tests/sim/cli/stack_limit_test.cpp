// dpusim raises its soft stack limit for SimGrid's recursive solver (sim/cli/stack_limit.hpp).
#include "sim/cli/stack_limit.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

TEST(StackLimit, AnEightMebibyteLimitIsRaisedToTheSimulationsStack) {
  rlimit r{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &r), 0);
  if (r.rlim_max != RLIM_INFINITY && r.rlim_max < dpusim::cli::kSimulationStack)
    GTEST_SKIP() << "the hard stack limit is below " << dpusim::cli::kSimulationStack;
  rlimit low = r;
  low.rlim_cur = rlim_t{8} << 20;
  ASSERT_EQ(setrlimit(RLIMIT_STACK, &low), 0);
  EXPECT_EQ(dpusim::cli::raise_stack_limit(), dpusim::cli::kSimulationStack);
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &r), 0);
  EXPECT_EQ(r.rlim_cur, dpusim::cli::kSimulationStack);
  // A larger limit is left as it is.
  rlimit high = r;
  high.rlim_cur = dpusim::cli::kSimulationStack * 2;
  if (r.rlim_max == RLIM_INFINITY || r.rlim_max >= high.rlim_cur) {
    ASSERT_EQ(setrlimit(RLIMIT_STACK, &high), 0);
    EXPECT_EQ(dpusim::cli::raise_stack_limit(), dpusim::cli::kSimulationStack * 2);
  }
}
