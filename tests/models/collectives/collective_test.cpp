#include "models/collectives/collective.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace dpusim::collectives;

TEST(CollectiveVocabulary, GroupsSortedMembersByNode) {
  std::vector<int> gpus{9, 1, 8, 0, 17};
  const auto by_node = group_by_node(gpus, 8);
  EXPECT_EQ(gpus, (std::vector<int>{0, 1, 8, 9, 17}));
  ASSERT_EQ(by_node.size(), 3U);
  EXPECT_EQ(by_node.at(0), (std::vector<int>{0, 1}));
  EXPECT_EQ(by_node.at(1), (std::vector<int>{8, 9}));
  EXPECT_EQ(by_node.at(2), (std::vector<int>{17}));
  EXPECT_EQ(fewest_members(by_node), 1U);
  EXPECT_EQ(uniform_members(by_node), 0U);
}

TEST(CollectiveVocabulary, UniformMembersNeedTheSameCountEverywhere) {
  std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(uniform_members(group_by_node(gpus, 4)), 4U);
  EXPECT_EQ(uniform_members(group_by_node(gpus, 3)), 0U); // 3 + 3 + 2
  EXPECT_EQ(fewest_members(NodeMembers{}), 0U);
  EXPECT_EQ(uniform_members(NodeMembers{}), 0U);
}

TEST(CollectiveVocabulary, OneChannelPerNicUpToTheFewestMembers) {
  std::vector<int> gpus{0, 1, 2, 3, 8, 9, 10, 11};
  const auto by_node = group_by_node(gpus, 8);
  EXPECT_EQ(nic_channels(by_node, {.gpus = 8, .nics = 8}), 4);
  EXPECT_EQ(nic_channels(by_node, {.gpus = 8, .nics = 2}), 2);
  std::vector<int> one{0, 8};
  EXPECT_EQ(nic_channels(group_by_node(one, 8), {.gpus = 8, .nics = 8}), 1);
  EXPECT_EQ(nic_channels(NodeMembers{}, {.gpus = 8, .nics = 8}), 1);
}

TEST(CollectiveVocabulary, ChannelsSpreadOverTheMembersWithFewerNicsThanGpus) {
  // One NIC per GPU: channel c enters at member c.
  for (int c = 0; c < 8; ++c)
    EXPECT_EQ(channel_offset(c, 8, 8, false), static_cast<std::size_t>(c));
  // Four NICs for eight GPUs: entries 0, 2, 4, 6 (GPU i uses NIC i * 4 / 8, so every NIC is used).
  std::set<std::size_t> entries;
  for (int c = 0; c < 4; ++c)
    entries.insert(channel_offset(c, 8, 4, true));
  EXPECT_EQ(entries, (std::set<std::size_t>{0, 2, 4, 6}));
  // Not spread: consecutive members, wrapping round.
  EXPECT_EQ(channel_offset(5, 4, 8, false), 1U);
}

TEST(CollectiveVocabulary, ChannelChainsStartAtTheEntryOfEveryNode) {
  std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  const auto by_node = group_by_node(gpus, 4);
  const auto chains = channel_chains(by_node, 1, 4, {.gpus = 4, .nics = 4});
  ASSERT_EQ(chains.size(), 2U);
  EXPECT_EQ(chains[0], (std::vector<int>{1, 2, 3, 0}));
  EXPECT_EQ(chains[1], (std::vector<int>{5, 6, 7, 4}));
  // Two NICs for four GPUs: channel 1 of 2 enters at member 2.
  const auto spread = channel_chains(by_node, 1, 2, {.gpus = 4, .nics = 2});
  EXPECT_EQ(spread[0], (std::vector<int>{2, 3, 0, 1}));
}
