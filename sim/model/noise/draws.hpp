// The draws of one noisy iteration (noise.cpp's noisy_iteration), one function per source, each on its
// own random stream so that turning one source on does not move the draws of another. They run in a
// fixed order on the same Draws: OS noise's stream is shared by the network hops and the launch threads,
// and a node's stalls, drawn once per node and task label, by its loaders, storage client and GPUs.
#pragma once

#include "models/base/seed_mix.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/model/noise/noise.hpp"
#include "sim/model/noise/os_noise.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <boost/random/mersenne_twister.hpp>
#include <map>
#include <string_view>
#include <tuple>

namespace dpusim::model {

struct Draws {
  Draws(const NoiseConfig& config, const scenario::Scenario& scenario);

  const NoiseConfig& n;
  const scenario::Scenario& s;
  boost::random::mt19937_64 slow_rng;
  boost::random::mt19937_64 jitter_rng;
  boost::random::mt19937_64 delay_rng;
  boost::random::mt19937_64 tail_rng;
  boost::random::mt19937_64 os_rng;
  boost::random::mt19937_64 storage_rng;
  boost::random::mt19937_64 loader_rng; // OS noise on the loaders
  boost::random::mt19937_64 client_rng; //   and on the storage client
  boost::random::mt19937_64 stall_rng;  // node-wide stalls

  /// The stall time `node`'s cores lose over a task's window (a Poisson count of stalls of the given
  /// length), drawn once per node and task label, so that every task of that label on the node (its
  /// replicas', which run at the same time) waits out the same stalls. 0 without stalls.
  double node_stall(int node, const plan::TaskInfo& info, double window_s);

private:
  std::map<std::tuple<int, int, int, std::string_view>, double> stalled_;
};

/// RDMA in NIC hardware: the drawn excess of each hop over the NIC latency's median (network_tail.cpp).
void draw_rdma_tail(plan::IterationPlan& noisy, const datapath::DataPath& path, Draws& d);
/// Software hops: each step waits for its slowest hop, drawn from the transport's lognormal and the
/// detours of its two ends' cores (network_tail.cpp).
void draw_hop_latencies(plan::IterationPlan& noisy, const datapath::DataPath& path, const OsNoise* os,
                        Draws& d);
/// Sample reads drawn from the storage's lognormal; a load waits for its slowest loader (storage_tail.cpp).
void draw_storage_reads(plan::IterationPlan& noisy, double storage_sigma, Draws& d);
/// The loaders' decoding workers' detours (os_noise_draws.cpp).
void draw_loader_detours(plan::IterationPlan& noisy, const OsNoise* os, Draws& d);
/// The storage client's threads' detours, host or Arm (os_noise_draws.cpp).
void draw_client_detours(plan::IterationPlan& noisy, const OsNoise* os, Draws& d);
/// Node-wide stalls of the loaders' workers and the host storage client's threads (node_stalls.cpp).
void draw_stalled_loads(plan::IterationPlan& noisy, Draws& d);
/// GPU work: slow GPUs, jitter, the per-micro-batch delay, and launch threads late by OS noise or a
/// node's stall (gpu_draws.cpp).
void draw_gpu_work(plan::IterationPlan& noisy, const OsNoise* os, Draws& d);

} // namespace dpusim::model
