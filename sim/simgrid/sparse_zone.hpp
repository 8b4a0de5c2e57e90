// A SimGrid network zone that stores only the routes it is given, in a hash map keyed by the pair of
// endpoints. SimGrid's full zone keeps a dense hosts x hosts table (2.5 GiB at 16k GPUs) although an
// iteration uses a few tens of thousands of routes; this zone's memory is linear in the routes used.
// Asking for a route that was never declared is an error, as it is for the full zone.
#pragma once

#include <cstdint>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace dpusim::simgrid {

class SparseZone final : public ::simgrid::kernel::routing::NetZoneImpl {
public:
  explicit SparseZone(const std::string& name);

  void add_route(::simgrid::kernel::routing::NetPoint* src, ::simgrid::kernel::routing::NetPoint* dst,
                 ::simgrid::kernel::routing::NetPoint* gw_src, ::simgrid::kernel::routing::NetPoint* gw_dst,
                 const std::vector<::simgrid::s4u::LinkInRoute>& link_list, bool symmetrical) override;

  /// A route made of `spread` equal paths listed one after another: the caller shares a flow's bytes
  /// among them; its latency is that of one path (the mean of the paths').
  void add_spread_route(::simgrid::kernel::routing::NetPoint* src, ::simgrid::kernel::routing::NetPoint* dst,
                        const std::vector<::simgrid::s4u::LinkInRoute>& link_list, int spread);

  /// Routes declared so far.
  [[nodiscard]] std::size_t routes() const { return routes_.size(); }

protected:
  void get_local_route(const ::simgrid::kernel::routing::NetPoint* src,
                       const ::simgrid::kernel::routing::NetPoint* dst,
                       ::simgrid::kernel::routing::Route* into, double* latency) override;

private:
  struct Stored {
    std::vector<::simgrid::kernel::resource::StandardLinkImpl*> links;
    double latency = 0;
  };
  static std::uint64_t key(const ::simgrid::kernel::routing::NetPoint* src,
                           const ::simgrid::kernel::routing::NetPoint* dst);
  std::unordered_map<std::uint64_t, Stored> routes_;
};

} // namespace dpusim::simgrid
