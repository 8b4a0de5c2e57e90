// dpusim nccl-tests: one collective alone on a scenario's cluster over a sweep of sizes, printed as
// nccl-tests prints it (docs/nccl-tests.md).
#include "models/base/atomic_file.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/nccl_tests_table.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/run/collective_sweep.hpp"

#include <fmt/format.h>
#include <iostream>

namespace dpusim::cli {

namespace {
const std::string kDefaultType = "float"; // nccl-tests' default element type
} // namespace

int command_nccl_tests(const std::vector<std::string>& args) {
  po::options_description options("Options (nccl-tests' flags where it has them)");
  options.add_options() //
      ("op", po::value<std::string>()->default_value(std::string(run::kSweepOps[0])),
       "the collective: all_reduce | all_gather | reduce_scatter | alltoall | sendrecv | broadcast | reduce "
       "| "
       "gather | scatter (nccl-tests' *_perf programs; root 0 where the op has one)")                     //
      ("minbytes,b", po::value<std::string>()->default_value("32M"), "smallest size (8, 64K, 32M, 8G)")   //
      ("maxbytes,e", po::value<std::string>()->default_value("32M"), "largest size")                      //
      ("stepfactor,f", po::value<std::string>(), "multiply the size by this factor (above 1) each step")  //
      ("stepbytes,i", po::value<std::string>(), "add this many bytes each step (without -f; default 1M)") //
      ("ngpus,g", po::value<int>(), "GPUs of each node taking part (default: all of the node's)")         //
      ("nodes", po::value<int>(), "nodes taking part, the cluster's first (default: all)")                //
      ("datatype,d", po::value<std::string>()->default_value(kDefaultType),
       "element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, "
       "f8e4m3, f8e5m2") //
      ("algo", po::value<std::string>(),
       "NCCL_ALGO: ring | tree | nvls (NVLSTree across nodes) | hierarchical (default: at each size what "
       "NCCL's tuner picks "
       "among ring, tree and NVLS, from its own latency and bandwidth model)") //
      ("proto", po::value<std::string>(),
       "NCCL_PROTO: Simple | LL | LL128 (default: at each size what NCCL's tuner picks for the "
       "algorithm; Simple for hierarchical, alltoall and sendrecv)") //
      ("ib-qps-per-connection", po::value<int>(),
       "NCCL_IB_QPS_PER_CONNECTION: queue pairs each connection spreads its bytes over, each hashed on "
       "its own path (default: the scenario's workload.communication.qps_per_connection, else the "
       "catalog's 1)") //
      ("nvls-enable", po::value<int>(),
       "NCCL_NVLS_ENABLE: 0 keeps NVLink SHARP out of the tuner's choice (and --algo nvls runs the ring); "
       "default 1 where the GPU has it") //
      ("variant", po::value<std::string>(),
       "offload variant: a name from the scenario or a placement (default: the scenario's baseline)");
  add_common_options(options);
  po::variables_map vm;
  if (!parse_command("nccl-tests", "SCENARIO.yaml [options]",
                     "Simulates one collective alone on the scenario's cluster (its nodes, NICs or DPUs, "
                     "fabric, routing and offload variant) over a sweep of message sizes, and prints the "
                     "table nccl-tests prints; writes <out>/<op>_perf.txt (that table) and "
                     "<out>/nccl-tests.csv.",
                     options, args, vm, true))
    return kOk;
  const auto cat = load_catalog(vm);
  const auto s = input::load_scenario(vm["scenario"].as<std::string>(), cat);
  const offload::Variant variant = variant_option(vm, s, cat);
  const auto* node = cat.node(s.cluster.node);
  const int node_gpus = s.cluster.gpus_per_node > 0 ? s.cluster.gpus_per_node : node->gpus.value;
  const auto sweep = sweep_from_options(vm, s.cluster.nodes, node_gpus);
  run::SweepOptions so = sweep.options;
  if (vm.count("calibration") != 0)
    so.calibration = vm["calibration"].as<std::string>();
  std::function<void(std::size_t, std::size_t)> progress;
  if (show_progress(vm))
    progress = [](std::size_t done, std::size_t total) {
      std::cerr << fmt::format("\r[{}/{}] sizes", done, total) << (done == total ? "\n" : "") << std::flush;
    };
  run::SweepResult result;
  try {
    result = run::run_collective_sweep(s, cat, variant, so, progress);
  } catch (const std::invalid_argument& e) { // a protocol the catalog's library entry lacks
    throw po::error(e.what());
  }

  const std::string table = render_nccl_tests_table(sweep, result, s, variant.name);
  OutputSet outputs(output_directory(vm, s.name));
  const auto txt = outputs.add(fmt::format("{}_perf.txt", run::sweep_op_name(so.op)), table);
  const auto csv = outputs.add("nccl-tests.csv", render_nccl_tests_csv(sweep, result, variant.name));
  outputs.publish();
  if (vm.count("quiet") == 0) {
    std::cout << table;
    std::cout << fmt::format("\nwrote {}\nwrote {}\n", txt.string(), csv.string());
  }
  return kOk;
}

} // namespace dpusim::cli
