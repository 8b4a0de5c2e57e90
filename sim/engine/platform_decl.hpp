// The simulated platform as plain data: hosts (with a speed per core and a core count), directed links
// and the routes between the host pairs that exchange bytes. Built from the topology graph by
// sim/platform/; turned into SimGrid objects only inside sim/simgrid/.
#pragma once

#include "sim/engine/task_graph.hpp"

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

struct PlatformDecl {
  std::vector<HostDecl> hosts;
  std::vector<LinkDecl> links;
  std::vector<RouteDecl> routes;
};

} // namespace dpusim::engine
