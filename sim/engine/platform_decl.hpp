// The simulated platform as plain data: hosts (with a speed per core and a core count), directed links
// and the routes between the host pairs that exchange bytes. Built from the topology graph by
// sim/platform/; turned into SimGrid objects only inside sim/simgrid/.
#pragma once

#include "sim/engine/task_graph.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::engine {

struct HostDecl {
  std::string name;
  double speed = 1.0; // work units per second per core
  int cores = 1;
};

struct LinkDecl {
  std::string name;
  double bandwidth = 0; // bytes per second
  double latency = 0;   // seconds
};

struct RouteDecl {
  HostIndex src = 0;
  HostIndex dst = 0;
  std::vector<std::int32_t> links; // indexes into PlatformDecl::links, in order
  /// `links` is this many equal paths one after another (connections hashed each on its own); the bytes
  /// of a flow between the pair are shared equally among them, and its latency is that of one path.
  int spread = 1;
};

/// A link that goes down for `down_s` every `every_s` seconds of each executed iteration (a flapping link),
/// losing `share` of its bandwidth meanwhile: all of it where the link is down, a part where the link
/// stands for several (a pooled spine link). Shares of flaps on one link that are down at once add up.
/// Relative to the start of each execution, the link is down in [phase_s + k every_s, phase_s + k every_s +
/// down_s) for every integer k.
struct LinkFlapDecl {
  std::int32_t link = 0; // index into PlatformDecl::links
  double down_s = 0;
  double every_s = 0;
  double phase_s = 0; // in [0, every_s)
  double share = 1;   // in (0, 1]
};

struct PlatformDecl {
  std::vector<HostDecl> hosts;
  std::vector<LinkDecl> links;
  std::vector<RouteDecl> routes;
  std::vector<LinkFlapDecl> flaps;
};

} // namespace dpusim::engine
