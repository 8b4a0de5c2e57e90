#include "sim/report/variant_result.hpp"

#include "sim/offload/variant.hpp"

#include <fmt/format.h>
#include <span>
#include <yaml-cpp/yaml.h>

namespace dpusim::report {
namespace {

// Fixed significant digits: byte-identical output for identical results on any machine.
std::string num(double v) {
  return fmt::format("{:.9g}", v);
}

struct Field {
  const char* name;
  double metrics::IterationMetrics::*member;
};

constexpr Field kMetricFields[] = {
    {"step_time_s", &metrics::IterationMetrics::step_time_s},
    {"compute_s", &metrics::IterationMetrics::compute_s},
    {"exposed_comm_s", &metrics::IterationMetrics::exposed_comm_s},
    {"data_stall_s", &metrics::IterationMetrics::data_stall_s},
    {"host_cpu_stall_s", &metrics::IterationMetrics::host_cpu_stall_s},
    {"tp_comm_s", &metrics::IterationMetrics::tp_comm_s},
    {"ep_comm_s", &metrics::IterationMetrics::ep_comm_s},
    {"cp_comm_s", &metrics::IterationMetrics::cp_comm_s},
    {"dp_comm_s", &metrics::IterationMetrics::dp_comm_s},
    {"dp_exposed_s", &metrics::IterationMetrics::dp_exposed_s},
    {"host_cpu_core_s", &metrics::IterationMetrics::host_cpu_core_s},
    {"host_cpu_busy_cores", &metrics::IterationMetrics::host_cpu_busy_cores},
    {"host_cpu_peak_cores", &metrics::IterationMetrics::host_cpu_peak_cores},
    {"arm_core_s", &metrics::IterationMetrics::arm_core_s},
    {"arm_utilisation", &metrics::IterationMetrics::arm_utilisation},
    {"tflops_per_gpu", &metrics::IterationMetrics::tflops_per_gpu},
    {"mfu", &metrics::IterationMetrics::mfu},
    {"tokens_per_s", &metrics::IterationMetrics::tokens_per_s},
};

// Fields of the metrics that models own and write as their columns: carried between processes here.
constexpr Field kModelMetricFields[] = {
    {"checkpoint_step_s", &metrics::IterationMetrics::checkpoint_step_s},
    {"checkpoint_overhead_s", &metrics::IterationMetrics::checkpoint_overhead_s},
    {"step_with_checkpoints_s", &metrics::IterationMetrics::step_with_checkpoints_s},
};

} // namespace

void VariantResult::set_value(const std::string& name, double v) {
  for (auto& [n, x] : values)
    if (n == name) {
      x = v;
      return;
    }
  values.emplace_back(name, v);
}

double VariantResult::value(std::string_view name) const {
  for (const auto& [n, x] : values)
    if (n == name)
      return x;
  return 0;
}

std::string serialize(const VariantResult& r) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "scenario" << YAML::Value << r.scenario;
  out << YAML::Key << "variant" << YAML::Value << r.variant;
  out << YAML::Key << "device" << YAML::Value << r.device;
  out << YAML::Key << "placement" << YAML::Value << r.placement;
  out << YAML::Key << "on_dpu" << YAML::Value << r.on_dpu;
  out << YAML::Key << "host_cores" << YAML::Value << r.host_cores;
  out << YAML::Key << "arm_cores" << YAML::Value << r.arm_cores;
  out << YAML::Key << "seed" << YAML::Value << r.seed;
  out << YAML::Key << "step_seed" << YAML::Value << r.step_seed;
  out << YAML::Key << "nodes" << YAML::Value << r.nodes;
  out << YAML::Key << "gpus" << YAML::Value << r.gpus;
  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
  for (const auto fields :
       {std::span<const Field>(kMetricFields), std::span<const Field>(kModelMetricFields)})
    for (const auto& f : fields)
      out << YAML::Key << f.name << YAML::Value << num(r.metrics.*f.member);
  out << YAML::Key << "tasks" << YAML::Value << r.metrics.tasks;
  for (const auto& [key, values] : {std::pair{"host_busy_cores_by_use", &r.metrics.host_busy_cores_by_use},
                                    std::pair{"arm_busy_cores_by_use", &r.metrics.arm_busy_cores_by_use}}) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    for (std::size_t u = 0; u < plan::kCpuUses; ++u)
      out << YAML::Key << std::string(plan::cpu_use_name(static_cast<plan::CpuUse>(u))) << YAML::Value
          << num((*values)[u]);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "tp_collective_s" << YAML::Value << num(r.tp_collective_s);
  out << YAML::Key << "tp_collectives_reused" << YAML::Value << r.tp_collectives_reused;
  out << YAML::Key << "ep_collective_s" << YAML::Value << num(r.ep_collective_s);
  out << YAML::Key << "ep_collectives_reused" << YAML::Value << r.ep_collectives_reused;
  out << YAML::Key << "cp_collective_s" << YAML::Value << num(r.cp_collective_s);
  out << YAML::Key << "cp_collectives_reused" << YAML::Value << r.cp_collectives_reused;
  out << YAML::Key << "activities" << YAML::Value << r.activities;
  out << YAML::Key << "routes" << YAML::Value << r.routes;
  out << YAML::Key << "simulation_wall_s" << YAML::Value << num(r.simulation_wall_s);
  out << YAML::Key << "calibrated" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : r.calibrated)
    out << YAML::Flow << YAML::BeginSeq << c.key << c.value << c.provenance << (c.used ? "used" : "unused")
        << c.note << YAML::EndSeq;
  out << YAML::EndSeq;
  out << YAML::Key << "gpu_performance" << YAML::Value << r.gpu_performance;
  out << YAML::Key << "isolation" << YAML::Value << r.isolation;
  out << YAML::Key << "guarantee" << YAML::Value << num(r.guarantee);
  out << YAML::Key << "values" << YAML::Value << YAML::BeginSeq;
  for (const auto& [name, v] : r.values)
    out << YAML::Flow << YAML::BeginSeq << name << num(v) << YAML::EndSeq;
  out << YAML::EndSeq;
  out << YAML::Key << "notes" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : r.notes)
    out << n;
  out << YAML::EndSeq;
  out << YAML::Key << "hot_links" << YAML::Value << YAML::BeginSeq;
  for (const auto& h : r.hot_links)
    out << YAML::Flow << YAML::BeginSeq << h.link << h.tier << num(h.mean_utilisation)
        << num(h.peak_utilisation) << num(h.pause_fraction) << num(h.ecn_marked) << YAML::EndSeq;
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return out.c_str();
}

VariantResult deserialize(const std::string& text) {
  const YAML::Node n = YAML::Load(text);
  VariantResult r;
  r.scenario = n["scenario"].as<std::string>();
  r.variant = n["variant"].as<std::string>();
  r.device = n["device"].as<std::string>();
  r.placement = n["placement"].as<std::string>();
  r.on_dpu = n["on_dpu"].as<bool>();
  r.host_cores = n["host_cores"].as<int>();
  r.arm_cores = n["arm_cores"].as<int>();
  r.seed = n["seed"].as<std::uint64_t>();
  r.step_seed = n["step_seed"] ? n["step_seed"].as<std::uint64_t>() : r.seed;
  r.nodes = n["nodes"].as<int>();
  r.gpus = n["gpus"].as<int>();
  for (const auto fields :
       {std::span<const Field>(kMetricFields), std::span<const Field>(kModelMetricFields)})
    for (const auto& f : fields)
      r.metrics.*f.member = n["metrics"][f.name].as<double>();
  r.metrics.tasks = n["metrics"]["tasks"].as<std::size_t>();
  for (std::size_t u = 0; u < plan::kCpuUses; ++u) {
    const std::string use(plan::cpu_use_name(static_cast<plan::CpuUse>(u)));
    r.metrics.host_busy_cores_by_use[u] = n["metrics"]["host_busy_cores_by_use"][use].as<double>();
    r.metrics.arm_busy_cores_by_use[u] = n["metrics"]["arm_busy_cores_by_use"][use].as<double>();
  }
  r.tp_collective_s = n["tp_collective_s"].as<double>();
  r.tp_collectives_reused = n["tp_collectives_reused"].as<int>();
  r.ep_collective_s = n["ep_collective_s"].as<double>();
  r.ep_collectives_reused = n["ep_collectives_reused"].as<int>();
  r.cp_collective_s = n["cp_collective_s"].as<double>();
  r.cp_collectives_reused = n["cp_collectives_reused"].as<int>();
  r.activities = n["activities"].as<std::size_t>();
  r.routes = n["routes"].as<std::size_t>();
  r.simulation_wall_s = n["simulation_wall_s"].as<double>();
  for (const auto& c : n["calibrated"])
    r.calibrated.push_back({c[0].as<std::string>(), c[1].as<std::string>(), c[2].as<std::string>(),
                            c[3].as<std::string>() == "used", c[4].as<std::string>()});
  r.gpu_performance = n["gpu_performance"].as<std::string>();
  r.isolation = n["isolation"].as<std::string>();
  r.guarantee = n["guarantee"].as<double>();
  for (const auto& v : n["values"])
    r.values.emplace_back(v[0].as<std::string>(), v[1].as<double>());
  for (const auto& note : n["notes"])
    r.notes.push_back(note.as<std::string>());
  for (const auto& h : n["hot_links"])
    r.hot_links.push_back({h[0].as<std::string>(), h[1].as<std::string>(), h[2].as<double>(),
                           h[3].as<double>(), h[4].as<double>(), h[5].as<double>()});
  return r;
}

VariantResult identity_of(const scenario::Scenario& s, const offload::Variant& variant,
                          const scenario::Hardware& hw) {
  VariantResult r;
  r.scenario = s.name;
  r.variant = variant.name;
  r.device = hw.nic.name;
  r.placement = offload::placement_text(variant.placement);
  r.on_dpu = variant.on_dpu;
  r.host_cores = hw.node_host_cores();
  r.seed = s.seed;
  r.step_seed = s.step_draw_seed();
  r.calibrated = hw.calibrated;
  r.gpu_performance = hw.gpu_performance;
  return r;
}

std::string csv_header(const std::vector<Column>& model_columns) {
  std::string h = "scenario,variant,device,seed,nodes,gpus";
  for (const auto& f : kMetricFields)
    h += fmt::format(",{}", f.name);
  for (const auto& c : model_columns)
    h += fmt::format(",{}", c.name);
  for (const char* where : {"host", "arm"})
    for (std::size_t u = 0; u < plan::kCpuUses; ++u)
      h += fmt::format(",{}_cores_{}", where, plan::cpu_use_name(static_cast<plan::CpuUse>(u)));
  h += ",speedup_vs_baseline,calibrated_parameters,placement";
  return h + "\n";
}

std::string csv_row(const VariantResult& r, double speedup, const std::vector<Column>& model_columns) {
  std::string row =
      fmt::format("{},{},{},{},{},{}", r.scenario, r.variant, r.device, r.seed, r.nodes, r.gpus);
  for (const auto& f : kMetricFields)
    row += "," + num(r.metrics.*f.member);
  for (const auto& c : model_columns)
    row += "," + num(c.value(r));
  for (const auto* by_use : {&r.metrics.host_busy_cores_by_use, &r.metrics.arm_busy_cores_by_use})
    for (double cores : *by_use)
      row += "," + num(cores);
  int used = 0;
  for (const auto& c : r.calibrated)
    used += c.used ? 1 : 0;
  row += fmt::format(",{},{},{}", num(speedup), used, r.placement);
  return row + "\n";
}

} // namespace dpusim::report
