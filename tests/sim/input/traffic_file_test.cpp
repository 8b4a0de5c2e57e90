// Traffic files: each pattern's flows, and every kind of bad group refused at its line with what is valid.
#include "models/base/input_error.hpp"
#include "sim/input/traffic_file.hpp"

#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace dpusim;
using input::parse_traffic;

namespace {

constexpr int kHosts = 64;

input::Traffic parse(const std::string& text, unsigned long long seed = 1) {
  return parse_traffic(text, "t.yaml", kHosts, seed);
}

/// The error a text gets, as "line:column key: message".
std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return std::to_string(e.where().line) + " " + e.key() + ": " + e.message();
  }
  return "no error";
}

} // namespace

TEST(TrafficFile, IncastSendsFromEachHostToOne) {
  const auto t = parse("traffic:\n  - {pattern: incast, hosts: 1-4, to: 0, bytes: 1MiB, start: 10us}\n");
  ASSERT_EQ(t.flows.size(), 4U);
  ASSERT_EQ(t.groups.size(), 1U);
  EXPECT_EQ(t.groups[0].name, "incast 1");
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.flows[i].src, static_cast<int>(i) + 1);
    EXPECT_EQ(t.flows[i].dst, 0);
    EXPECT_DOUBLE_EQ(t.flows[i].bytes, 1024.0 * 1024.0);
    EXPECT_DOUBLE_EQ(t.flows[i].start_s, 10e-6);
  }
}

TEST(TrafficFile, ShiftAndAllToAllCoverTheirPairs) {
  const auto t = parse("traffic:\n"
                       "  - {pattern: shift, hosts: [0, 2, \"8-9\"], by: 3, bytes: 1KB}\n"
                       "  - {pattern: all_to_all, hosts: 0-3, bytes: 1KB}\n");
  ASSERT_EQ(t.flows.size(), 4U + 12U);
  // Shift by 3 of 4 hosts is a shift back by one: 0->9, 2->0, 8->2, 9->8.
  const std::pair<int, int> shift[] = {{0, 9}, {2, 0}, {8, 2}, {9, 8}};
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(std::make_pair(t.flows[i].src, t.flows[i].dst), shift[i]);
  std::set<std::pair<int, int>> pairs;
  for (std::size_t i = 4; i < t.flows.size(); ++i) {
    EXPECT_EQ(t.flows[i].group, 1);
    EXPECT_NE(t.flows[i].src, t.flows[i].dst);
    pairs.emplace(t.flows[i].src, t.flows[i].dst);
  }
  EXPECT_EQ(pairs.size(), 12U);
}

TEST(TrafficFile, APermutationIsADerangementDrawnFromTheSeed) {
  const std::string text = "traffic:\n  - {pattern: permutation, hosts: 0-63, bytes: 1MiB}\n";
  const auto a = parse(text, 1);
  const auto b = parse(text, 1);
  const auto c = parse(text, 2);
  std::set<int> senders;
  std::set<int> receivers;
  bool differs = false;
  for (std::size_t i = 0; i < a.flows.size(); ++i) {
    EXPECT_NE(a.flows[i].src, a.flows[i].dst);
    senders.insert(a.flows[i].src);
    receivers.insert(a.flows[i].dst);
    EXPECT_EQ(a.flows[i].dst, b.flows[i].dst);
    differs |= a.flows[i].dst != c.flows[i].dst;
  }
  EXPECT_EQ(senders.size(), 64U);
  EXPECT_EQ(receivers.size(), 64U);
  EXPECT_TRUE(differs) << "another seed draws the same permutation";
  // A seed of its own overrides the run's.
  const auto own = parse("traffic:\n  - {pattern: permutation, hosts: 0-63, bytes: 1MiB, seed: 2}\n", 7);
  const auto same = parse("traffic:\n  - {pattern: permutation, hosts: 0-63, bytes: 1MiB, seed: 2}\n", 8);
  for (std::size_t i = 0; i < own.flows.size(); ++i)
    EXPECT_EQ(own.flows[i].dst, same.flows[i].dst);
}

TEST(TrafficFile, ACollectiveGroupIsOneOperationAmongItsHosts) {
  const auto t =
      parse("traffic:\n"
            "  - {name: ring, pattern: all_reduce, hosts: [0, 8, \"16-17\"], bytes: 64MiB, start: 5us}\n"
            "  - {name: tree, pattern: all_gather, hosts: 0-3, bytes: 1MiB, algorithm: tree, "
            "protocol: ll128}\n"
            "  - {pattern: flow, from: 1, to: 2, bytes: 1KB}\n");
  EXPECT_EQ(t.flows.size(), 1U);
  EXPECT_EQ(t.flows[0].group, 2);
  ASSERT_EQ(t.collectives.size(), 2U);
  const auto& ring = t.collectives[0];
  EXPECT_EQ(ring.group, 0);
  EXPECT_EQ(ring.hosts, (std::vector<int>{0, 8, 16, 17}));
  EXPECT_DOUBLE_EQ(ring.bytes, 64.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(ring.start_s, 5e-6);
  EXPECT_EQ(ring.algorithm, "ring"); // NCCL_ALGO and NCCL_PROTO unless the group says
  EXPECT_EQ(ring.protocol, "simple");
  EXPECT_EQ(t.collectives[1].algorithm, "tree");
  EXPECT_EQ(t.collectives[1].protocol, "ll128");
  EXPECT_TRUE(input::collective_pattern(t.groups[1].pattern));
  EXPECT_FALSE(input::collective_pattern(t.groups[2].pattern));
}

TEST(TrafficFile, AnAlltoallGroupIsNcclsOperationAndAllToAllItsFlows) {
  const auto t = parse("traffic:\n"
                       "  - {name: op, pattern: alltoall, hosts: 0-7, bytes: 8MiB}\n"
                       "  - {name: flows, pattern: all_to_all, hosts: 0-7, bytes: 1MiB}\n");
  ASSERT_EQ(t.collectives.size(), 1U);
  EXPECT_EQ(t.collectives[0].algorithm, "direct");
  EXPECT_EQ(t.collectives[0].hosts.size(), 8U);
  EXPECT_EQ(t.flows.size(), 56U);
  EXPECT_FALSE(t.collectives[0].parts) << "absent: the fabric scenario's";
  EXPECT_EQ(
      parse("traffic:\n  - {pattern: alltoall, hosts: 0-7, bytes: 8MiB, parts: 7}\n").collectives[0].parts,
      7);
  EXPECT_NE(error_of("traffic:\n  - {pattern: alltoall, hosts: 0-7, bytes: 8MiB, algorithm: ring}\n")
                .find("2 traffic[0].algorithm: does not apply to pattern alltoall"),
            std::string::npos);
}

TEST(TrafficFile, BackgroundFlowsHaveNoSize) {
  const auto t = parse("traffic:\n"
                       "  - {name: timed, pattern: flow, from: 0, to: 1, bytes: 1MiB}\n"
                       "  - {name: others, pattern: shift, hosts: 2-5, background: true}\n");
  ASSERT_EQ(t.flows.size(), 5U);
  EXPECT_TRUE(t.groups[1].background);
  EXPECT_EQ(t.flows[1].bytes, 0);
}

TEST(TrafficFile, PxnIsNcclsUnlessTheFileTurnsItOff) {
  EXPECT_TRUE(parse("traffic:\n  - {pattern: flow, from: 0, to: 1, bytes: 1B}\n").pxn);
  EXPECT_FALSE(parse("pxn: false\ntraffic:\n  - {pattern: flow, from: 0, to: 1, bytes: 1B}\n").pxn);
  EXPECT_NE(error_of("pxn: maybe\ntraffic:\n  - {pattern: flow, from: 0, to: 1, bytes: 1B}\n").find("1 pxn:"),
            std::string::npos);
}

TEST(TrafficFile, BadGroupsAreRefusedAtTheirKey) {
  const std::pair<std::string, std::string> cases[] = {
      {"traffic: []\n", "1 traffic: must be a list of at least one group"},
      {"flows: []\n", "1 traffic: missing required key"},
      {"traffic:\n  - {pattern: incast, hosts: 0-3, to: 2, bytes: 1MiB}\n",
       "2 traffic[0].to: host 2 receives the incast"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 64, bytes: 1MiB}\n",
       "2 traffic[0].to: must be at most 63"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 1, bytes: 1MiB}\n",
       "2 traffic[0].to: a flow goes from one"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2, bytes: 0B}\n",
       "2 traffic[0].bytes: must be greater than zero"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2}\n", "2 traffic[0].bytes: missing required key"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2, bytes: 1MiB, start: -1us}\n",
       "2 traffic[0].start: must be zero or more"},
      {"traffic:\n  - {pattern: shift, hosts: 0-3, by: 4, bytes: 1MiB}\n",
       "2 traffic[0].by: must be at most 3"},
      {"traffic:\n  - {pattern: shift, hosts: 0-3, to: 1, bytes: 1MiB}\n",
       "2 traffic[0].to: does not apply to pattern shift"},
      {"traffic:\n  - {pattern: permutation, hosts: 9-2, bytes: 1MiB}\n",
       "2 traffic[0].hosts: the range \"9-2\""},
      {"traffic:\n  - {pattern: permutation, hosts: [1, 1], bytes: 1MiB}\n",
       "2 traffic[0].hosts: host 1 is listed twice"},
      {"traffic:\n  - {pattern: permutation, hosts: 1, bytes: 1MiB}\n",
       "2 traffic[0].hosts: needs at least 2"},
      {"traffic:\n  - {pattern: incast, hosts: [[1]], to: 0, bytes: 1MiB}\n", "not lists"},
      {"traffic:\n  - {pattern: permutaton, hosts: 0-3, bytes: 1MiB}\n", "did you mean \"permutation\""},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2, bytes: 1MiB, strat: 1us}\n", "did you mean \"start\""},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2, background: true, bytes: 1MiB}\n", "leave bytes out"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2, background: true}\n", "every group is background"},
      {"traffic:\n  - {name: a, pattern: flow, from: 1, to: 2, bytes: 1B}\n"
       "  - {name: a, pattern: flow, from: 2, to: 1, bytes: 1B}\n",
       "3 traffic[1]: a second group named \"a\""},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3, background: true}\n",
       "2 traffic[0].background: all_reduce is one collective operation"},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3}\n", "2 traffic[0].bytes: missing required key"},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3, bytes: 0B}\n",
       "2 traffic[0].bytes: must be greater than zero"},
      {"traffic:\n  - {pattern: reduce_scatter, hosts: 5, bytes: 1MiB}\n",
       "2 traffic[0].hosts: needs at least 2"},
      {"traffic:\n  - {pattern: all_gather, hosts: 0-64, bytes: 1MiB}\n",
       "2 traffic[0].hosts: the range \"0-64\""},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3, bytes: 1MiB, algorithm: nvls}\n",
       "2 traffic[0].algorithm:"},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3, bytes: 1MiB, protocol: LL129}\n",
       "2 traffic[0].protocol:"},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3, to: 1, bytes: 1MiB}\n",
       "2 traffic[0].to: does not apply to pattern all_reduce"},
      {"traffic:\n  - {pattern: flow, from: 1, to: 2, bytes: 1MiB, algorithm: ring}\n",
       "2 traffic[0].algorithm: does not apply to pattern flow"},
      {"traffic:\n  - {pattern: alltoall, hosts: 0-3, bytes: 1MiB, parts: 0}\n",
       "2 traffic[0].parts: must be at least 1"},
      {"traffic:\n  - {pattern: all_reduce, hosts: 0-3, bytes: 1MiB, parts: 4}\n",
       "2 traffic[0].parts: does not apply to pattern all_reduce"},
      {"traffic:\n  - {pattern: all_to_all, hosts: 0-3, bytes: 1MiB, parts: 4}\n",
       "2 traffic[0].parts: does not apply to pattern all_to_all"},
  };
  for (const auto& [text, expected] : cases)
    EXPECT_NE(error_of(text).find(expected), std::string::npos)
        << text << "\ngot: " << error_of(text) << "\nexpected: " << expected;
}

TEST(TrafficFile, AFileExpandingToTooManyFlowsIsRefusedBeforeItIsBuilt) {
  // Two all-to-alls among 1,000 hosts would be 1,998,000 flows.
  std::string text = "traffic:\n";
  for (int i = 0; i < 2; ++i)
    text += "  - {name: g" + std::to_string(i) + ", pattern: all_to_all, hosts: 0-999, bytes: 1B}\n";
  try {
    (void)parse_traffic(text, "t.yaml", 1000, 1);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("more than the 1000000"), std::string::npos) << e.message();
  }
}
