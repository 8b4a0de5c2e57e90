#include "sim/plan/nccl_choice.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <utility>

namespace dpusim::plan {
namespace {

/// The tuner's protocols as the catalog names them.
constexpr std::pair<collectives::TunerProtocol, catalog::NcclProtocol> kProtocolNames[] = {
    {collectives::TunerProtocol::ll, catalog::NcclProtocol::ll},
    {collectives::TunerProtocol::ll128, catalog::NcclProtocol::ll128},
    {collectives::TunerProtocol::simple, catalog::NcclProtocol::simple}};

} // namespace

catalog::NcclProtocol protocol_of(collectives::TunerProtocol p) {
  for (const auto& [tuner, catalog] : kProtocolNames)
    if (tuner == p)
      return catalog;
  return catalog::NcclProtocol::simple;
}

std::optional<collectives::TunerProtocol> tuner_protocol(std::optional<catalog::NcclProtocol> p) {
  for (const auto& [tuner, catalog] : kProtocolNames)
    if (p == catalog)
      return tuner;
  return std::nullopt;
}

collectives::TunerInput tuner_input(const scenario::Hardware& hw, const topology::NodeLayout& node,
                                    offload::Transport transport, collectives::CollectiveKind kind, int nodes,
                                    int ranks_per_node, bool nvls_enable) {
  collectives::TunerInput in;
  in.kind = kind;
  in.nodes = nodes;
  in.ranks = nodes * ranks_per_node;
  in.generation = collectives::gpu_generation(hw.gpu.compute_capability.value);
  in.amd_host = hw.cpu.vendor == "amd";
  in.x86_host = hw.cpu.vendor == "amd" || hw.cpu.vendor == "intel";
  const int nics = std::max(1, std::min(ranks_per_node, topology::nics_per_host(node) * node.trays));
  // NCCL's search opens a ring per NIC and doubles the channels on NVLink systems (NCCL-SEARCH), at most
  // MAXCHANNELS (64, src/include/device.h).
  in.channels = std::min(64, nics * std::max(1, hw.collective.channels_per_nic.value));
  in.nvlink = node.nvlink_per_gpu.si() > 0;
  in.intra_gbps = (in.nvlink ? node.nvlink_per_gpu.si() * hw.gpu.nvlink_collective_efficiency.value
                             : hw.gpu.pcie_bandwidth.value.si()) /
                  1e9;
  in.nvlink_gbps = node.nvlink_per_gpu.si() / 1e9;
  in.inter_gbps = nics * node.nic_line_rate.si() * hw.nic.collective_efficiency.value / 1e9;
  in.nvls = nvls_enable && hw.gpu.nvls_efficiency.value > 0 && in.nvlink;
  in.gpudirect = transport == offload::Transport::rdma;
  in.tree_ok = nodes > 1; // dpusim's tree runs across nodes
  in.ll = hw.collective.protocol(catalog::NcclProtocol::ll).has_value();
  in.ll128 = hw.collective.protocol(catalog::NcclProtocol::ll128).has_value();
  return in;
}

collectives::TunerInput tuner_input(const scenario::Hardware& hw, const topology::NodeLayout& node,
                                    offload::Transport transport, collectives::CollectiveKind kind,
                                    const std::vector<int>& gpus) {
  std::map<int, int> per_node;
  for (const int g : gpus)
    ++per_node[g / std::max(1, node.gpus)];
  int most = 1;
  for (const auto& [n, count] : per_node)
    most = std::max(most, count);
  return tuner_input(hw, node, transport, kind, std::max<int>(1, static_cast<int>(per_node.size())), most);
}

void record_pick(std::vector<NcclPick>& picks, const collectives::TunerInput& in, const NcclChoice& c,
                 double bytes) {
  const int per_node = in.ranks / std::max(1, in.nodes);
  for (auto& p : picks)
    if (p.kind == in.kind && p.nodes == in.nodes && p.ranks_per_node == per_node && p.choice == c) {
      p.min_bytes = std::min(p.min_bytes, bytes);
      p.max_bytes = std::max(p.max_bytes, bytes);
      ++p.lowered;
      return;
    }
  picks.push_back({in.kind, in.nodes, per_node, c, bytes, bytes, 1});
}

namespace {

std::string size_text(double bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:.4g} {}", bytes, kUnits[u]);
}

} // namespace

std::string describe_picks(std::vector<NcclPick> picks) {
  std::stable_sort(picks.begin(), picks.end(), [](const NcclPick& a, const NcclPick& b) {
    return std::pair{a.nodes * a.ranks_per_node, a.nodes} > std::pair{b.nodes * b.ranks_per_node, b.nodes};
  });
  std::string out;
  for (const auto& p : picks) {
    const auto sizes = p.min_bytes == p.max_bytes
                           ? size_text(p.min_bytes)
                           : fmt::format("{} to {}", size_text(p.min_bytes), size_text(p.max_bytes));
    const int ranks = p.nodes * p.ranks_per_node;
    out += fmt::format("{}{} over {} rank{} on {} node{}, {}: {}, {}", out.empty() ? "" : "; ",
                       collectives::kind_name(p.kind), ranks, ranks == 1 ? "" : "s", p.nodes,
                       p.nodes == 1 ? "" : "s", sizes, collectives::tuner_algorithm_name(p.choice.tuned),
                       catalog::protocol_name(p.choice.protocol));
  }
  return out;
}

std::optional<NcclChoice> nccl_choice(collectives::TunerInput in, double bytes) {
  using collectives::TunerAlgorithm;
  auto picked = collectives::tuner_choice(in, bytes);
  if (!picked && in.algorithm != TunerAlgorithm::ring) { // as NCCL falls back: the ring
    in.algorithm = TunerAlgorithm::ring;
    picked = collectives::tuner_choice(in, bytes);
  }
  if (!picked)
    return std::nullopt;
  const auto algorithm = picked->algorithm == TunerAlgorithm::tree   ? CollectiveAlgorithm::tree
                         : picked->algorithm == TunerAlgorithm::ring ? CollectiveAlgorithm::ring
                                                                     : CollectiveAlgorithm::nvls;
  return NcclChoice{algorithm, protocol_of(picked->protocol), picked->algorithm};
}

} // namespace dpusim::plan
