#include "sim/simgrid/sparse_zone.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Link.hpp>
#include <stdexcept>

namespace dpusim::simgrid {

namespace routing = ::simgrid::kernel::routing;

SparseZone::SparseZone(const std::string& name) : NetZoneImpl(name) {}

std::uint64_t SparseZone::key(const routing::NetPoint* src, const routing::NetPoint* dst) {
  return (static_cast<std::uint64_t>(src->id()) << 32U) | static_cast<std::uint64_t>(dst->id());
}

void SparseZone::add_route(routing::NetPoint* src, routing::NetPoint* dst, routing::NetPoint* gw_src,
                           routing::NetPoint* gw_dst,
                           const std::vector<::simgrid::s4u::LinkInRoute>& link_list, bool symmetrical) {
  if (gw_src != nullptr || gw_dst != nullptr || symmetrical)
    throw std::logic_error("the sparse zone holds one-way routes between its own hosts only");
  Stored s;
  s.links = get_link_list_impl(link_list, false);
  for (const auto& l : link_list)
    s.latency += l.get_link()->get_latency();
  if (!routes_.emplace(key(src, dst), std::move(s)).second)
    throw std::logic_error(
        fmt::format("route from {} to {} declared twice", src->get_name(), dst->get_name()));
}

void SparseZone::add_spread_route(routing::NetPoint* src, routing::NetPoint* dst,
                                  const std::vector<::simgrid::s4u::LinkInRoute>& link_list, int spread) {
  if (spread < 1)
    throw std::logic_error("a route has at least one path");
  add_route(src, dst, nullptr, nullptr, link_list, false);
  routes_.at(key(src, dst)).latency /= spread;
}

void SparseZone::get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst,
                                 routing::Route* into, double* latency) {
  const auto it = routes_.find(key(src, dst));
  if (it == routes_.end())
    throw std::logic_error(fmt::format("no route declared from {} to {}", src->get_name(), dst->get_name()));
  into->link_list_.insert(into->link_list_.end(), it->second.links.begin(), it->second.links.end());
  if (latency != nullptr)
    *latency += it->second.latency;
}

} // namespace dpusim::simgrid
