#include "models/collectives/nccl_tuner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace dpusim::collectives {
namespace {

// NCCL 2.30's tuner constants (src/graph/tuning.cc at 5067397c, NCCL-TUNE-230 in the catalog's sources;
// docs/models/collectives.md says why they live here rather than in a catalog entry). Indexed
// [algorithm][protocol] in TunerAlgorithm and TunerProtocol order (LL, LL128, Simple).
using PerProtocol = std::array<double, 3>;
using PerAlgorithm = std::array<PerProtocol, 4>;
constexpr PerAlgorithm kBaseLatency{{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}}};
enum Hw { kNvlink, kPci, kNet };
constexpr std::array<PerAlgorithm, 3> kHwLatency{{
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 25}, {0, 0, 25}}},    // NVLink
    {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}}},       // PCI
    {{{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 20.9}}}, // network
}};
// [first index][nodes: 1, 2, more]; the first index is the GPU generation on one node, the host CPU
// (0 Intel or other, 1 AMD) across nodes.
using PerNodes = std::array<double, 3>;
constexpr std::array<PerNodes, 4> kLlMaxBw{
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}}};
// [generation][nodes: 1, 2, more]
constexpr std::array<PerNodes, 4> kPerChMaxRingLl128Bw{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
constexpr std::array<PerNodes, 4> kPerChMaxTreeLl128Bw{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
constexpr std::array<PerNodes, 4> kPerChMaxTreeBw{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
constexpr std::array<PerNodes, 4> kPerChMaxNvlsTreeBw{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
constexpr std::array<double, 4> kNvlsEfficiency{0.0, 0.0, 0.85, 0.74};
// The tree's correction for medium sizes, per protocol, by log2(bytes / 64) from 0 (64 B) to 23.
constexpr std::array<std::array<double, 24>, 3> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

int log2i(double x) {
  if (x < 1)
    return -1;
  int l = 0;
  while (x >= 2) {
    x /= 2;
    ++l;
  }
  return l;
}

std::size_t idx(TunerAlgorithm a) {
  return static_cast<std::size_t>(a);
}
std::size_t idx(TunerProtocol p) {
  return static_cast<std::size_t>(p);
}

int steps_of(CollectiveKind kind, int ranks) {
  if (kind == CollectiveKind::all_reduce)
    return 2 * (ranks - 1);
  if (kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::all_gather)
    return ranks - 1;
  return ranks;
}

bool applies(const TunerInput& in, TunerAlgorithm a, TunerProtocol p) {
  const bool nvls = a == TunerAlgorithm::nvls || a == TunerAlgorithm::nvls_tree;
  if (nvls && in.ranks < 3 * in.nodes)
    return false; // NCCL sets NVLS up only for more than two GPUs a node (ncclNvlsInit, NCCL-NVLS-INIT)
  const bool ar = in.kind == CollectiveKind::all_reduce;
  const bool rs_ag = in.kind == CollectiveKind::reduce_scatter || in.kind == CollectiveKind::all_gather;
  if (!ar && !rs_ag && !rooted(in.kind))
    return false; // NCCL's tuner weighs collectives only; an all-to-all is point-to-point sends
  if (rooted(in.kind) && a != TunerAlgorithm::ring)
    return false; // a broadcast or a reduce runs on the ring alone
  if (in.algorithm && *in.algorithm != a)
    return false;
  if (in.protocol && *in.protocol != p)
    return false;
  switch (a) {
  case TunerAlgorithm::tree:
    if (!ar || !in.tree_ok)
      return false;
    break;
  case TunerAlgorithm::ring:
    break;
  case TunerAlgorithm::nvls: // one node (across nodes only with CollNet, which is not simulated)
    if (in.nodes > 1 || !in.nvls || p != TunerProtocol::simple || in.channels < 2)
      return false;
    break;
  case TunerAlgorithm::nvls_tree:
    if (!ar || in.nodes == 1 || !in.nvls || p != TunerProtocol::simple || in.channels < 2)
      return false;
    break;
  }
  if ((p == TunerProtocol::ll && !in.ll) || (p == TunerProtocol::ll128 && !in.ll128))
    return false;
  if (p == TunerProtocol::ll128) {
    // Enabled by default on NVLink inside the node, and across nodes only on a GPUDirect path (up to PXN
    // on Hopper and later, PXB before): not through the host's memory as a socket transport runs.
    if (!in.nvlink || (in.nodes > 1 && !in.gpudirect))
      return false;
  }
  return true;
}

} // namespace

std::string_view tuner_algorithm_name(TunerAlgorithm a) {
  switch (a) {
  case TunerAlgorithm::tree:
    return "tree";
  case TunerAlgorithm::ring:
    return "ring";
  case TunerAlgorithm::nvls:
    return "nvls";
  case TunerAlgorithm::nvls_tree:
    return "nvls-tree";
  }
  return "ring";
}

GpuGeneration gpu_generation(double compute_capability) {
  if (compute_capability >= 10.0)
    return GpuGeneration::blackwell;
  if (compute_capability >= 9.0)
    return GpuGeneration::hopper;
  if (compute_capability >= 8.0)
    return GpuGeneration::ampere;
  return GpuGeneration::volta;
}

std::vector<TunerEntry> tuner_table(const TunerInput& in) {
  std::vector<TunerEntry> out;
  const int ranks = std::max(1, in.ranks);
  const int nodes = std::clamp(in.nodes, 1, ranks);
  const auto cc = static_cast<std::size_t>(in.generation);
  const std::size_t by_nodes = nodes <= 2 ? static_cast<std::size_t>(nodes - 1) : 2;
  const std::size_t ll_row = nodes == 1 ? cc : (in.amd_host ? 1 : 0);
  const double ll_max = kLlMaxBw[ll_row][by_nodes];
  const double channels = std::max(1, in.channels);
  const double bw_intra = in.intra_gbps / channels;
  const double bw_inter = in.inter_gbps / channels; // used across nodes only
  const double ppn = static_cast<double>(ranks) / nodes;
  const int steps = steps_of(in.kind, ranks);
  const bool ar = in.kind == CollectiveKind::all_reduce;
  const Hw intra_hw = in.nvlink ? kNvlink : kPci;
  for (const auto a :
       {TunerAlgorithm::tree, TunerAlgorithm::ring, TunerAlgorithm::nvls, TunerAlgorithm::nvls_tree})
    for (const auto p : {TunerProtocol::ll, TunerProtocol::ll128, TunerProtocol::simple}) {
      TunerEntry e{a, p, 0, 0};
      if (!applies(in, a, p)) {
        out.push_back(e);
        continue;
      }
      // Across nodes NCCL's ring and tree search finds one speed for the whole path (its logs print
      // bwIntra/bwInter equal): the NICs bound the NVLink side too. NVLS's own search keeps NVLink's.
      double bw = nodes <= 2 ? (nodes > 1 ? std::min(bw_intra, bw_inter) : bw_intra) : bw_inter;
      const bool nvls = a == TunerAlgorithm::nvls || a == TunerAlgorithm::nvls_tree;
      if (nvls) {
        double intra = bw_intra * kNvlsEfficiency[cc] * (channels - 1) / channels;
        intra *= ar ? 2.0 : (ppn - 1) / ppn; // an all-reduce pipelines two operations
        const double inter = (nodes == 1 ? in.nvlink_gbps / channels : bw_inter) *
                             ((nodes <= 2 && a == TunerAlgorithm::nvls_tree) ? 2 : 1);
        bw = std::min({intra, inter,
                       a == TunerAlgorithm::nvls_tree ? kPerChMaxNvlsTreeBw[cc][by_nodes]
                                                      : std::numeric_limits<double>::max()});
      }
      double bus = channels * bw;
      if (a == TunerAlgorithm::ring && p == TunerProtocol::ll)
        bus = std::min(ll_max, bus * 0.5);
      if (a == TunerAlgorithm::ring && p == TunerProtocol::ll128)
        bus = std::min(bus * 0.92, channels * kPerChMaxRingLl128Bw[cc][by_nodes]);
      if (a == TunerAlgorithm::tree && ar)
        bus = std::min(bus * 0.92, channels * kPerChMaxTreeBw[cc][by_nodes]);
      if (a == TunerAlgorithm::tree && p == TunerProtocol::ll)
        bus = std::min(bus / 3.8, ll_max);
      if (a == TunerAlgorithm::tree && p == TunerProtocol::ll128)
        bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                       channels * kPerChMaxTreeLl128Bw[cc][by_nodes]);
      // Bus bandwidth to algorithm bandwidth (NCCL leaves it as it is for a reduce-scatter or all-gather
      // that is not a ring).
      if (!(a != TunerAlgorithm::ring && !ar))
        bus *= (a == TunerAlgorithm::tree) ? 0.5 : static_cast<double>(ranks) / steps;
      e.bandwidth_gbps = bus;

      double lat = kBaseLatency[idx(a)][idx(p)];
      double intra_lat = kHwLatency[intra_hw][idx(a)][idx(p)];
      // With one rank per node every latency is exposed: the tree's network latency.
      const double inter_lat =
          ppn == 1 ? kHwLatency[kNet][idx(TunerAlgorithm::tree)][idx(p)] : kHwLatency[kNet][idx(a)][idx(p)];
      switch (a) {
      case TunerAlgorithm::ring: {
        if (rooted(in.kind)) {
          // Every one of its steps at the ring's hardware latency (Simple: the tree's), as NCCL counts a
          // broadcast's or a reduce's chunks where its channels are not all the same ring.
          const Hw hw = nodes == 1 ? intra_hw : kNet;
          const auto by = p == TunerProtocol::simple ? TunerAlgorithm::tree : TunerAlgorithm::ring;
          lat += steps * kHwLatency[hw][idx(by)][idx(p)];
          break;
        }
        double overhead = 0; // each inter-node step posts to the network (getNetOverhead)
        if (nodes > 1)
          overhead = (in.amd_host ? 2.0 : 1.0) * (p == TunerProtocol::simple ? 3.0 : 1.0);
        intra_lat = std::max(intra_lat, overhead);
        const int inter_steps = nodes == 1 ? 0 : (ar ? 2 * (nodes - 1) : nodes - 1);
        lat += (steps - inter_steps) * intra_lat + inter_steps * inter_lat;
        break;
      }
      case TunerAlgorithm::tree:
        lat += 2 * ((ranks / nodes - 1) * intra_lat + log2i(nodes) * inter_lat);
        break;
      case TunerAlgorithm::nvls:
        lat = intra_lat + (nodes > 1 ? inter_lat : 0.0);
        break;
      case TunerAlgorithm::nvls_tree:
        lat += intra_lat + 2 * log2i(nodes) * inter_lat;
        break;
      }
      e.latency_us = lat;
      out.push_back(e);
    }
  return out;
}

double tuner_time_us(const TunerInput& in, const TunerEntry& e, double bytes) {
  double bw = e.bandwidth_gbps;
  double lat = e.latency_us;
  if (bw <= 0)
    return -1.0;
  const int log_size = log2i(std::floor(bytes / 64));
  const bool ar = in.kind == CollectiveKind::all_reduce;
  const auto p = idx(e.protocol);
  if (e.algorithm == TunerAlgorithm::tree && ar && log_size >= 0 && log_size < 23)
    bw *= kTreeCorrection[p][static_cast<std::size_t>(log_size)];
  if (e.algorithm == TunerAlgorithm::nvls_tree && ar && log_size >= 0 && log_size < 24 &&
      in.generation == GpuGeneration::blackwell && in.x86_host)
    bw *= kTreeCorrection[p][static_cast<std::size_t>(log_size)];
  if (e.algorithm == TunerAlgorithm::ring && e.protocol == TunerProtocol::simple && in.nodes > 1 && ar &&
      bytes / (std::max(1, in.channels) * static_cast<double>(std::max(1, in.ranks))) >= 64)
    lat *= in.generation == GpuGeneration::volta ? 1.9 : 1.4; // the ring's plateau
  return lat + bytes / (1000 * bw);
}

std::optional<TunerEntry> tuner_choice(const TunerInput& in, double bytes) {
  std::optional<TunerEntry> best;
  double best_time = std::numeric_limits<double>::max();
  for (const auto& e : tuner_table(in)) {
    const double t = tuner_time_us(in, e, bytes);
    if (t >= 0 && t < best_time) {
      best_time = t;
      best = e;
    }
  }
  return best;
}

} // namespace dpusim::collectives
