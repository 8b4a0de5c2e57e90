#include "sim/cli/nccl_tests_table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <utility>

namespace dpusim::cli {

namespace {

constexpr std::size_t kMaxSizes = 10'000;

// nccl-tests' element types (src/common.cu) and their sizes.
constexpr std::array<std::pair<const char*, int>, 12> kTypes = {{{"int8", 1},
                                                                 {"uint8", 1},
                                                                 {"int32", 4},
                                                                 {"uint32", 4},
                                                                 {"int64", 8},
                                                                 {"uint64", 8},
                                                                 {"half", 2},
                                                                 {"float", 4},
                                                                 {"double", 8},
                                                                 {"bfloat16", 2},
                                                                 {"f8e4m3", 1},
                                                                 {"f8e5m2", 1}}};

/// All-gather, reduce-scatter, all-to-all, gather and scatter move a whole number of elements per rank,
/// and nccl-tests' count column is that per-rank count (its getCollByteCount's paramcount).
bool per_rank_count(run::SweepOp op) {
  return op == run::SweepOp::all_gather || op == run::SweepOp::reduce_scatter ||
         op == run::SweepOp::alltoall || run::root_sends(op);
}

/// Elements of a row and the bytes they make, rounded as nccl-tests rounds them (src/*.cu,
/// getCollByteCount).
std::pair<double, double> count_and_bytes(run::SweepOp op, double size, int type_bytes, int ranks) {
  double count = std::floor(size / type_bytes);
  if (per_rank_count(op))
    count = std::floor(count / ranks) * ranks;
  return {count, count * type_bytes};
}

/// The count column of a row of `bytes`: the elements of the operation, or of each rank's part.
double count_column(run::SweepOp op, double bytes, int type_bytes, int ranks) {
  const double count = std::floor(bytes / type_bytes);
  return per_rank_count(op) ? std::floor(count / std::max(1, ranks)) : count;
}

/// NCCL's environment variables take names in any case (NCCL_ALGO=Ring, NCCL_PROTO=ll128).
std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// A time in microseconds in nccl-tests' 7 columns.
std::string time_column(double us) {
  if (us < 1e4)
    return fmt::format("{:7.2f}", us);
  if (us < 1e5)
    return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.0f}", us);
}

} // namespace

std::optional<double> parse_nccl_size(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front())) == 0)
    return std::nullopt;
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0)
    ++digits;
  if (digits > 15)
    return std::nullopt;
  double v = std::stod(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  if (suffix == "K" || suffix == "k")
    v *= 1024.0;
  else if (suffix == "M" || suffix == "m")
    v *= 1024.0 * 1024.0;
  else if (suffix == "G" || suffix == "g")
    v *= 1024.0 * 1024.0 * 1024.0;
  else if (!suffix.empty())
    return std::nullopt;
  return v;
}

NcclTestsSweep sweep_from_options(const po::variables_map& vm, int cluster_nodes, int node_gpus) {
  NcclTestsSweep sw;
  const auto op_name = vm["op"].as<std::string>();
  const auto op = run::parse_sweep_op(op_name);
  if (!op)
    throw po::error(fmt::format("--op {}: nccl-tests has no such test that dpusim simulates; valid: {}",
                                op_name, fmt::join(run::kSweepOps, ", ")));
  sw.options.op = *op;
  const auto size_of = [&](const char* name) {
    const auto text = vm[name].as<std::string>();
    const auto v = parse_nccl_size(text);
    if (!v || *v <= 0)
      throw po::error(fmt::format("--{} {}: expected a size in bytes above 0, with an optional K, M or G "
                                  "(8, 64K, 32M, 8G)",
                                  name, text));
    return *v;
  };
  const double lo = size_of("minbytes");
  const double hi = size_of("maxbytes");
  if (hi < lo)
    throw po::error(fmt::format("--maxbytes {} is below --minbytes {}: the sizes would go down",
                                vm["maxbytes"].as<std::string>(), vm["minbytes"].as<std::string>()));
  if (vm.count("stepfactor") != 0 && vm.count("stepbytes") != 0)
    throw po::error("give -f (a factor) or -i (an increment), not both");
  if (vm.count("stepfactor") != 0) {
    const auto text = vm["stepfactor"].as<std::string>();
    char* end = nullptr;
    const double f = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(f) || f <= 1)
      throw po::error(fmt::format("-f {}: the step factor must be a number above 1", text));
    sw.factor = f;
  } else {
    const auto text = vm.count("stepbytes") != 0 ? vm["stepbytes"].as<std::string>() : std::string("1M");
    const auto v = parse_nccl_size(text);
    if (!v || *v <= 0)
      throw po::error(fmt::format("-i {}: the step must be a size in bytes above 0", text));
    sw.step_bytes = *v;
  }
  for (double size = lo; size <= hi;
       size = sw.factor ? std::floor(size * *sw.factor) : size + sw.step_bytes) {
    sw.options.sizes.push_back(size);
    if (sw.options.sizes.size() > kMaxSizes)
      throw po::error(fmt::format("the sweep holds more than {} sizes: raise -f or -i", kMaxSizes));
    if (sw.factor && std::floor(size * *sw.factor) <= size) // a factor just above 1 on a small size
      throw po::error(fmt::format("-f {} does not grow {} bytes: raise it", *sw.factor, size));
  }
  sw.options.nodes = cluster_nodes;
  if (vm.count("nodes") != 0) {
    sw.options.nodes = vm["nodes"].as<int>();
    if (sw.options.nodes < 1 || sw.options.nodes > cluster_nodes)
      throw po::error(fmt::format("--nodes {}: the cluster has {} node{}", sw.options.nodes, cluster_nodes,
                                  cluster_nodes == 1 ? "" : "s"));
  }
  sw.options.gpus_per_node = node_gpus;
  if (vm.count("ngpus") != 0) {
    sw.options.gpus_per_node = vm["ngpus"].as<int>();
    if (sw.options.gpus_per_node < 1 || sw.options.gpus_per_node > node_gpus)
      throw po::error(fmt::format("-g {}: each node has {} GPUs", sw.options.gpus_per_node, node_gpus));
  }
  if (sw.options.nodes * sw.options.gpus_per_node < 2)
    throw po::error("a collective needs at least 2 ranks: give more nodes (--nodes) or GPUs (-g)");
  if (vm.count("proto") != 0) {
    const std::string name = lowercase(vm["proto"].as<std::string>());
    for (const auto p : catalog::kNcclProtocols)
      if (lowercase(std::string(catalog::protocol_name(p))) == name)
        sw.options.protocol = p;
    if (!sw.options.protocol)
      throw po::error(fmt::format("--proto {}: valid: Simple, LL, LL128", vm["proto"].as<std::string>()));
  }
  if (vm.count("algo") != 0) {
    // NCCL_ALGO's own name for NVLS across nodes is NVLSTree: the same algorithm here (nvls on one node).
    auto name = lowercase(vm["algo"].as<std::string>());
    if (name == "nvlstree")
      name = "nvls";
    const auto algo = plan::parse_algorithm(name);
    if (!algo || *algo == plan::CollectiveAlgorithm::tuned)
      throw po::error(fmt::format("--algo {}: valid: ring, tree, nvls (or nvlstree), hierarchical",
                                  vm["algo"].as<std::string>()));
    sw.options.algorithm = *algo;
  }
  if (vm.count("ib-qps-per-connection") != 0) {
    const int qps = vm["ib-qps-per-connection"].as<int>();
    if (qps < 1 || qps > 128)
      throw po::error(fmt::format("--ib-qps-per-connection {}: must be between 1 and 128", qps));
    sw.options.qps_per_connection = qps;
  }
  if (vm.count("nvls-enable") != 0) {
    const int nvls = vm["nvls-enable"].as<int>();
    if (nvls != 0 && nvls != 1)
      throw po::error(fmt::format("--nvls-enable {}: valid: 0, 1", nvls));
    sw.options.nvls_enable = nvls == 1;
  }
  sw.type = vm["datatype"].as<std::string>();
  const auto type =
      std::find_if(kTypes.begin(), kTypes.end(), [&](const auto& t) { return sw.type == t.first; });
  if (type == kTypes.end())
    throw po::error(
        fmt::format("-d {}: valid: int8, uint8, int32, uint32, int64, uint64, half, float, double, "
                    "bfloat16, f8e4m3, f8e5m2",
                    sw.type));
  sw.type_bytes = type->second;
  // The bytes each row moves, rounded to whole elements as nccl-tests rounds them.
  const int ranks = sw.options.nodes * sw.options.gpus_per_node;
  for (auto& size : sw.options.sizes)
    size = count_and_bytes(sw.options.op, size, sw.type_bytes, ranks).second;
  return sw;
}

std::string render_nccl_tests_table(const NcclTestsSweep& sweep, const run::SweepResult& result,
                                    const scenario::Scenario& s, const std::string& variant) {
  const auto& o = sweep.options;
  const std::string op(run::sweep_op_name(o.op));
  const bool reduces = o.op == run::SweepOp::all_reduce || o.op == run::SweepOp::reduce_scatter ||
                       o.op == run::SweepOp::reduce;
  const int root = run::rooted(o.op) ? 0 : -1; // nccl-tests' default root, -1 where the op has none
  std::string out = fmt::format(
      "# dpusim nccl-tests: simulated on {} ({}), {} node{} x {} GPUs, variant {} "
      "({}), {}, {}\n",
      s.name, s.cluster.node, o.nodes, o.nodes == 1 ? "" : "s", o.gpus_per_node, variant, result.device,
      o.algorithm ? fmt::format("algorithm {}", result.algorithm)
                  : std::string("algorithm at each size NCCL's tuner's pick"),
      o.protocol ? fmt::format("protocol {}", catalog::protocol_name(*o.protocol))
                 : std::string("protocol at each size NCCL's tuner's pick for it (nccl-tests.csv "
                               "names both)"));
  for (const auto& cv : result.calibrated)
    out += fmt::format("# dpusim calibration {}: {}\n", result.profile, scenario::describe(cv));
  out += fmt::format("# Collective test starting: {}_perf\n", op);
  out += fmt::format("# nThread 1 nGpus 1 minBytes {:.0f} maxBytes {:.0f} step: {} warmup iters: 0 iters: 1 "
                     "agg iters: 1 validation: 0 graph: 0\n",
                     o.sizes.front(), o.sizes.back(),
                     sweep.factor ? fmt::format("{:g}(factor)", *sweep.factor)
                                  : fmt::format("{:.0f}(bytes)", sweep.step_bytes));
  out += "#\n# Using devices\n";
  for (int r = 0; r < result.ranks; ++r)
    out += fmt::format("#  Rank {:>2} Group  0 Pid {:>6} on {:>8} device {:>2} [0x00] {}\n", r, 0,
                       fmt::format("n{}", r / o.gpus_per_node), r % o.gpus_per_node, s.cluster.node);
  out += "#\n";
  out += "#                                                              out-of-place                       "
         "in-place          \n";
  out += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
         "algbw   busbw #wrong\n";
  out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  "
         "(GB/s)  (GB/s)       \n";
  const double factor = run::bus_bandwidth_factor(o.op, result.ranks);
  double busbw_sum = 0;
  for (const auto& row : result.rows) {
    const double count = count_column(o.op, row.bytes, sweep.type_bytes, result.ranks);
    const double algbw = row.time_s > 0 ? row.bytes / row.time_s / 1e9 : 0.0;
    const double busbw = algbw * factor;
    busbw_sum += 2 * busbw;
    const std::string half =
        fmt::format("  {}  {:6.2f}  {:6.2f}  {:>5}", time_column(row.time_s * 1e6), algbw, busbw, 0);
    out += fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>6}  {:>6}{}{}\n", row.bytes, count, sweep.type,
                       reduces ? "sum" : "none", root, half, half);
  }
  out += "# Out of bounds values : 0 OK\n";
  out += fmt::format("# Avg bus bandwidth    : {:g} \n",
                     result.rows.empty() ? 0.0 : busbw_sum / (2.0 * result.rows.size()));
  out += "#\n";
  out += fmt::format("# Collective test concluded: {}_perf\n#\n", op);
  return out;
}

std::string render_nccl_tests_csv(const NcclTestsSweep& sweep, const run::SweepResult& result,
                                  const std::string& variant) {
  const auto& o = sweep.options;
  std::string out = "op,ranks,nodes,gpus_per_node,variant,device,algorithm,size_bytes,count,type,time_us,"
                    "algbw_GBps,busbw_GBps,protocol\n";
  const double factor = run::bus_bandwidth_factor(o.op, result.ranks);
  for (const auto& row : result.rows) {
    const double algbw = row.time_s > 0 ? row.bytes / row.time_s / 1e9 : 0.0;
    out += fmt::format("{},{},{},{},{},{},{},{:.0f},{:.0f},{},{:.9g},{:.9g},{:.9g},{}\n",
                       run::sweep_op_name(o.op), result.ranks, o.nodes, o.gpus_per_node, variant,
                       result.device, row.algorithm, row.bytes,
                       count_column(o.op, row.bytes, sweep.type_bytes, result.ranks), sweep.type,
                       row.time_s * 1e6, algbw, algbw * factor, catalog::protocol_name(row.protocol));
  }
  return out;
}

} // namespace dpusim::cli
