#include "sim/input/traffic_file.hpp"

#include "models/base/input_file.hpp"
#include "models/base/yaml_reader.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace dpusim::input {

std::string_view traffic_pattern_name(TrafficPattern p) {
  return kTrafficPatterns[static_cast<std::size_t>(p)];
}

namespace {

/// The keys each pattern takes besides name, pattern, bytes, start and background.
const std::map<TrafficPattern, std::vector<std::string_view>>& pattern_keys() {
  static const std::map<TrafficPattern, std::vector<std::string_view>> keys = {
      {TrafficPattern::flow, {"from", "to"}},
      {TrafficPattern::incast, {"hosts", "to"}},
      {TrafficPattern::permutation, {"hosts", "seed"}},
      {TrafficPattern::shift, {"hosts", "by"}},
      {TrafficPattern::all_to_all, {"hosts"}},
      {TrafficPattern::all_reduce, {"hosts", "algorithm", "protocol"}},
      {TrafficPattern::all_gather, {"hosts", "algorithm", "protocol"}},
      {TrafficPattern::reduce_scatter, {"hosts", "algorithm", "protocol"}},
      {TrafficPattern::alltoall, {"hosts", "parts"}},
  };
  return keys;
}

constexpr std::string_view kGroupKeys[] = {"name",      "pattern",  "bytes", "start", "background",
                                           "hosts",     "from",     "to",    "by",    "seed",
                                           "algorithm", "protocol", "parts"};

int host_of(const yaml::Node& n, int hosts) {
  return static_cast<int>(n.as_int(0, hosts - 1));
}

/// "a-b" as the hosts a..b, or nullopt where the text is not of that form.
std::optional<std::pair<long long, long long>> range_of(const std::string& text) {
  const auto dash = text.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == text.size() || dash > 9 ||
      text.size() - dash > 10)
    return std::nullopt;
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  const std::string a = text.substr(0, dash);
  const std::string b = text.substr(dash + 1);
  if (!digits(a) || !digits(b))
    return std::nullopt;
  return std::pair{std::stoll(a), std::stoll(b)};
}

/// Hosts written as one host (3), a range ("0-31") or a list of either ([0, 2, "8-15"]).
void add_hosts(const yaml::Node& n, int hosts, std::vector<int>& out) {
  if (n.is_sequence()) {
    for (const auto& item : n.as_sequence().items()) {
      if (item.is_sequence())
        item.fail("a list of hosts holds hosts (3) and ranges (\"0-31\"), not lists");
      add_hosts(item, hosts, out);
    }
    return;
  }
  if (n.is_scalar()) {
    if (const auto r = range_of(n.as_string())) {
      if (r->first > r->second || r->second >= hosts)
        n.fail(fmt::format("the range \"{}\" must go up, within hosts 0-{} (one per GPU of the cluster)",
                           n.as_string(), hosts - 1));
      for (auto h = r->first; h <= r->second; ++h)
        out.push_back(static_cast<int>(h));
      return;
    }
  }
  out.push_back(static_cast<int>(n.as_int(0, hosts - 1)));
}

std::vector<int> hosts_of(const yaml::Node& n, int hosts, std::size_t at_least) {
  std::vector<int> out;
  add_hosts(n, hosts, out);
  std::set<int> seen;
  for (const int h : out)
    if (!seen.insert(h).second)
      n.fail(fmt::format("host {} is listed twice", h));
  if (out.size() < at_least)
    n.fail(fmt::format("needs at least {} hosts, found {}", at_least, out.size()));
  return out;
}

/// A random permutation of `hosts` with no host sending to itself (a derangement): shuffled until none
/// stays in place (about e shuffles on average), by a generator whose draws are the same everywhere.
std::vector<int> derangement(const std::vector<int>& hosts, unsigned long long seed) {
  boost::random::mt19937_64 rng(seed);
  std::vector<std::size_t> order(hosts.size());
  for (;;) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = order.size() - 1; i > 0; --i) {
      boost::random::uniform_int_distribution<std::size_t> pick(0, i);
      std::swap(order[i], order[pick(rng)]);
    }
    bool fixed = false;
    for (std::size_t i = 0; i < order.size() && !fixed; ++i)
      fixed = order[i] == i;
    if (!fixed)
      break;
  }
  std::vector<int> dst(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i)
    dst[i] = hosts[order[i]];
  return dst;
}

class Reader {
public:
  Reader(int hosts, unsigned long long seed) : hosts_(hosts), seed_(seed) {}

  void group(yaml::Map g, Traffic& t) {
    g.declare(std::vector<std::string_view>(std::begin(kGroupKeys), std::end(kGroupKeys)));
    const auto pattern_node = g.required("pattern", "one of flow, incast, permutation, shift, all_to_all, "
                                                    "all_reduce, all_gather, reduce_scatter, alltoall");
    std::vector<std::string> patterns(std::begin(kTrafficPatterns), std::end(kTrafficPatterns));
    const auto pattern_name = pattern_node.as_choice(patterns);
    const auto pattern = static_cast<TrafficPattern>(
        std::find(patterns.begin(), patterns.end(), pattern_name) - patterns.begin());
    const auto& own = pattern_keys().at(pattern);
    for (const std::string_view key : {"hosts", "from", "to", "by", "seed", "algorithm", "protocol", "parts"})
      if (g.contains(key) && std::find(own.begin(), own.end(), key) == own.end())
        g.required(key).fail(
            fmt::format("does not apply to pattern {} (its keys: {})", pattern_name, fmt::join(own, ", ")));

    TrafficGroup group;
    group.pattern = pattern;
    const int index = static_cast<int>(t.groups.size());
    group.name =
        g.contains("name") ? g.required("name").as_string() : fmt::format("{} {}", pattern_name, index + 1);
    if (auto b = g.optional("background")) {
      group.background = b->as_bool();
      if (group.background && collective_pattern(pattern))
        b->fail(fmt::format("{} is one collective operation of a given size, not background traffic",
                            pattern_name));
    }
    double bytes = 0;
    if (auto b = g.optional("bytes")) {
      if (group.background)
        b->fail("a background group runs for as long as the others do and has no size: leave bytes out");
      bytes = b->as_quantity<units::Bytes>().si();
    } else if (!group.background) {
      (void)g.required("bytes", collective_pattern(pattern) ? "each rank's buffer, e.g. 256MiB"
                                                            : "the size of each flow, e.g. 16MiB");
    }
    double start = 0;
    if (auto s = g.optional("start")) {
      if (group.background)
        s->fail("a background group runs from the start: leave start out");
      start = s->as_quantity<units::Seconds>(true).si();
    }

    std::vector<std::pair<int, int>> pairs;
    switch (pattern) {
    case TrafficPattern::flow: {
      const int src = host_of(g.required("from", "the sending host"), hosts_);
      const auto to = g.required("to", "the receiving host");
      const int dst = host_of(to, hosts_);
      if (dst == src)
        to.fail(fmt::format("a flow goes from one host to another, and from is {} too", src));
      pairs.emplace_back(src, dst);
      break;
    }
    case TrafficPattern::incast: {
      const auto hosts_node = g.required("hosts", "the senders, e.g. 1-16");
      const auto senders = hosts_of(hosts_node, hosts_, 1);
      const auto to = g.required("to", "the receiving host");
      const int dst = host_of(to, hosts_);
      if (std::find(senders.begin(), senders.end(), dst) != senders.end())
        to.fail(fmt::format("host {} receives the incast and cannot be one of its senders", dst));
      for (const int src : senders)
        pairs.emplace_back(src, dst);
      break;
    }
    case TrafficPattern::permutation: {
      const auto hosts = hosts_of(g.required("hosts", "the hosts, e.g. 0-31"), hosts_, 2);
      unsigned long long seed = seed_ * 0x9e3779b97f4a7c15ULL + static_cast<unsigned long long>(index);
      if (auto s = g.optional("seed"))
        seed = static_cast<unsigned long long>(s->as_int(0, std::numeric_limits<std::int64_t>::max()));
      const auto dst = derangement(hosts, seed);
      for (std::size_t i = 0; i < hosts.size(); ++i)
        pairs.emplace_back(hosts[i], dst[i]);
      break;
    }
    case TrafficPattern::shift: {
      const auto hosts = hosts_of(g.required("hosts", "the hosts, e.g. 0-31"), hosts_, 2);
      const auto n = static_cast<long long>(hosts.size());
      long long by = 1;
      if (auto b = g.optional("by")) {
        by = b->as_int(1, n - 1);
      }
      for (long long i = 0; i < n; ++i)
        pairs.emplace_back(hosts[static_cast<std::size_t>(i)], hosts[static_cast<std::size_t>((i + by) % n)]);
      break;
    }
    case TrafficPattern::all_reduce:
    case TrafficPattern::all_gather:
    case TrafficPattern::reduce_scatter:
    case TrafficPattern::alltoall: {
      TrafficCollective c;
      c.group = index;
      c.hosts = hosts_of(g.required("hosts", "the ranks, e.g. 0-31"), hosts_, 2);
      c.bytes = bytes;
      c.start_s = start;
      if (pattern == TrafficPattern::alltoall)
        c.algorithm = "direct"; // NCCL's all-to-all: every rank's sends to every other at once
      if (auto a = g.optional("algorithm"))
        c.algorithm = a->as_choice(
            std::vector<std::string>(std::begin(kTrafficAlgorithms), std::end(kTrafficAlgorithms)));
      if (auto p = g.optional("protocol"))
        c.protocol = p->as_choice(
            std::vector<std::string>(std::begin(kTrafficProtocols), std::end(kTrafficProtocols)));
      if (auto p = g.optional("parts"))
        c.parts = static_cast<int>(p->as_int(1, 1024));
      t.collectives.push_back(std::move(c));
      break;
    }
    case TrafficPattern::all_to_all: {
      const auto hosts_node = g.required("hosts", "the hosts, e.g. 0-31");
      const auto hosts = hosts_of(hosts_node, hosts_, 2);
      const std::size_t n = hosts.size();
      if (n * (n - 1) > kMaxTrafficFlows - t.flows.size())
        hosts_node.fail(fmt::format("an all-to-all among {} hosts is {} flows, which with the {} before it "
                                    "are more than the {} a file may hold",
                                    n, n * (n - 1), t.flows.size(), kMaxTrafficFlows));
      for (const int src : hosts)
        for (const int dst : hosts)
          if (src != dst)
            pairs.emplace_back(src, dst);
      break;
    }
    }
    g.finish();
    if (pairs.size() > kMaxTrafficFlows - t.flows.size())
      g.node().fail(fmt::format("the file's groups make more than {} flows", kMaxTrafficFlows));
    for (const auto& [src, dst] : pairs)
      t.flows.push_back({index, src, dst, bytes, start});
    t.groups.push_back(std::move(group));
  }

private:
  int hosts_;
  unsigned long long seed_;
};

Traffic parse(const yaml::Node& root, int hosts, unsigned long long seed) {
  Traffic t;
  t.file = root.file();
  if (!root.is_map())
    root.fail("a traffic file is a mapping whose key traffic: lists groups of flows (docs/traffic.md)");
  yaml::Map top = root.as_map();
  top.declare({"traffic", "pxn"});
  if (auto pxn = top.optional("pxn"))
    t.pxn = pxn->as_bool();
  const auto list = top.required("traffic", "a list of groups of flows");
  if (!list.is_sequence() || list.as_sequence().size() == 0)
    list.fail("must be a list of at least one group of flows (docs/traffic.md)");
  Reader reader(hosts, seed);
  std::set<std::string> names;
  for (const auto& item : list.as_sequence().items()) {
    reader.group(item.as_map(), t);
    if (!names.insert(t.groups.back().name).second)
      item.fail(fmt::format("a second group named \"{}\": each group needs a name of its own",
                            t.groups.back().name));
  }
  top.finish();
  if (std::all_of(t.groups.begin(), t.groups.end(), [](const TrafficGroup& g) { return g.background; }))
    list.fail("every group is background traffic: at least one group needs flows of a given size to time");
  return t;
}

} // namespace

Traffic parse_traffic(const std::string& text, const std::string& name, int hosts, unsigned long long seed) {
  return parse(yaml::parse_text(text, name), hosts, seed);
}

Traffic load_traffic(const std::string& path, int hosts, unsigned long long seed) {
  return parse(yaml::parse_text(read_input_file(path, "a traffic file"), path), hosts, seed);
}

} // namespace dpusim::input
