#include "models/collectives/point_to_point.hpp"

#include <gtest/gtest.h>

using namespace dpusim::collectives;

TEST(PointToPointStructure, ASendIsOneHopUnlessNothingMoves) {
  const auto hop = send(3, 11, 5e8);
  ASSERT_TRUE(hop.has_value());
  EXPECT_EQ(hop->src, 3);
  EXPECT_EQ(hop->dst, 11);
  EXPECT_DOUBLE_EQ(hop->bytes, 5e8);
  EXPECT_FALSE(send(3, 3, 5e8).has_value());
  EXPECT_FALSE(send(3, 11, 0).has_value());
  EXPECT_FALSE(send(3, 11, -1).has_value());
}

TEST(PointToPointStructure, SendRecvKeepsThePairsThatMoveInOrder) {
  const auto sends = send_recv({{0, 8}, {4, 4}, {9, 1}}, 1e6);
  ASSERT_EQ(sends.size(), 2U);
  EXPECT_EQ(sends[0].src, 0);
  EXPECT_EQ(sends[0].dst, 8);
  EXPECT_EQ(sends[1].src, 9);
  EXPECT_EQ(sends[1].dst, 1);
  EXPECT_DOUBLE_EQ(sends[1].bytes, 1e6);
  EXPECT_TRUE(send_recv({{0, 8}}, 0).empty());
  EXPECT_TRUE(send_recv({}, 1e6).empty());
}
