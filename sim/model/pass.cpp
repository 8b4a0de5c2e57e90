#include "sim/model/pass.hpp"

#include "sim/topology/topology.hpp"

#include <fmt/format.h>
#include <memory>
#include <stdexcept>

namespace dpusim::model {

const PassStep& PassSteps::pass(const std::string& name) const {
  const auto it = passes.find(name);
  if (it == passes.end())
    throw std::logic_error("no pass named '" + name +
                           "' was run: a model reads only the passes it asked for");
  return it->second;
}

std::function<double(std::int32_t)> link_capacity(const topology::Topology& topo,
                                                  const engine::PlatformDecl& platform) {
  auto rates = std::make_shared<std::map<std::string, double>>();
  for (const auto& l : platform.links)
    rates->emplace(l.name, l.bandwidth);
  return [&topo, rates](std::int32_t e) {
    const auto& g = topo.graph();
    const auto it =
        rates->find(fmt::format("{}->{}", g[topo.edge_source(e)].name, g[topo.edge_target(e)].name));
    return it != rates->end() ? it->second : topo.edge(e).bandwidth.si();
  };
}

} // namespace dpusim::model
