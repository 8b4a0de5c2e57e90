#include "sim/report/run_info.hpp"

#include "models/workload/memory.hpp"
#include "models/workload/transformer.hpp"
#include "sim/topology/fabric_kind.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <utility>

namespace dpusim::report {
namespace {

using Inputs = std::vector<std::pair<std::string, std::string>>;

Inputs key_inputs(const scenario::Scenario& s, const Comparison& c, const std::optional<Sampling>& sampling) {
  const auto& cl = s.cluster;
  const auto& w = s.workload;
  const auto& r0 = c.results.front();
  Inputs in;
  in.emplace_back("cluster", fmt::format("{} x {} ({} GPUs), NIC {}, DPU {}", r0.nodes, cl.node, r0.gpus,
                                         cl.nic, cl.dpu.empty() ? "none" : cl.dpu));
  const auto& f = cl.fabric;
  in.emplace_back("fabric", fmt::format("{}, {} tiers, {:g} Gb/s links, {:g} us, oversubscription {:g}:1",
                                        topology::fabric_kind_name(f.kind),
                                        f.tiers == 0 ? std::string("automatic") : std::to_string(f.tiers),
                                        units::in_gbit_per_s(f.link), units::in_microseconds(f.latency),
                                        f.oversubscription));
  const auto& sv = cl.services;
  if (sv.encryption != offload::Encryption::none || sv.overlay || sv.agent_cores > 0)
    in.emplace_back("services", fmt::format("encryption {}, overlay {}, agent cores {:g} per node",
                                            offload::encryption_name(sv.encryption),
                                            sv.overlay ? "yes" : "no", sv.agent_cores));
  if (cl.storage.servers > 0)
    in.emplace_back("storage", fmt::format("{} servers, {:g} Gb/s each, {} client connections per node",
                                           cl.storage.servers, units::in_gbit_per_s(cl.storage.link),
                                           cl.storage.client_connections));
  if (cl.tenants.flows > 0)
    in.emplace_back("other tenants", fmt::format("{} bulk flows per leaf{}", cl.tenants.flows,
                                                 cl.tenants.dpu_qos ? ", DPU rate limits" : ""));
  in.emplace_back("model", fmt::format("{} ({} layers, hidden {}, {} heads)", w.model.name, w.model.layers,
                                       w.model.hidden, w.model.heads));
  in.emplace_back("batch", fmt::format("global {} sequences of {} tokens, micro-batch {}", w.global_batch,
                                       w.seq_len, w.micro_batch));
  const auto& p = w.parallelism;
  std::string par = fmt::format("TP {} x PP {} x DP {}", p.tp, p.pp, p.dp);
  if (p.ep > 1)
    par += fmt::format(", EP {}", p.ep);
  if (p.cp > 1)
    par += fmt::format(", CP {}", p.cp);
  if (w.zero_stage > 0)
    par += fmt::format(", ZeRO stage {}", w.zero_stage);
  in.emplace_back("parallelism", par);
  in.emplace_back("precision",
                  fmt::format("{}, recompute {}, collectives {}", workload::precision_name(w.precision),
                              workload::recompute_name(w.recompute), w.collective_algorithm));
  if (w.data)
    in.emplace_back("input pipeline",
                    fmt::format("{} loader workers, {:g} ms decode per sample, prefetch {}", w.data->workers,
                                units::in_milliseconds(w.data->decode), w.data->prefetch));
  if (w.checkpoint)
    in.emplace_back("checkpoints", fmt::format("every {}, {}", w.checkpoint->describe(),
                                               w.checkpoint->async ? "async" : "sync"));
  in.emplace_back("seed", sampling      ? sampling_text(s, *sampling)
                          : s.step_seed ? fmt::format("{} (step seed {})", s.seed, *s.step_seed)
                                        : std::to_string(s.seed));
  in.emplace_back("calibration", r0.calibrated.empty()
                                     ? std::string("none: catalog values")
                                     : fmt::format("{} values from the profile", r0.calibrated.size()));
  return in;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

std::string json_list(const std::vector<std::string>& items, std::string_view indent) {
  if (items.empty())
    return "[]";
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += fmt::format("{}\n{}  {}", i == 0 ? "" : ",", indent, json_string(items[i]));
  return out + fmt::format("\n{}]", indent);
}

std::string trimmed(std::string text) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

// What was simulated flow by flow and what reused, without the wall-clock time (not reproducible).
std::string simulated(const VariantResult& r) {
  std::string text = trimmed(render_simulation_summary(r));
  const auto wall = text.rfind(", ");
  return wall == std::string::npos ? text : text.substr(0, wall);
}

} // namespace

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (u < 0x20)
        out += fmt::format("\\u{:04x}", u);
      else
        out += ch;
    }
  }
  return out + "\"";
}

std::string render_run_info(const scenario::Scenario& s, const Comparison& c, const RunContext& run) {
  std::string out = "{\n";
  out += fmt::format("  \"format\": 1,\n  \"command\": {},\n  \"samples\": {},\n", json_string(run.command),
                     run.sampling ? run.sampling->steps : 0);
  if (run.sampling) // steps of each launch above, launches here
    out += fmt::format("  \"launches\": {},\n", run.sampling->launches);
  out += fmt::format("  \"files\": {},\n", json_list(run.files, "  "));
  out += fmt::format("  \"scenario\": {{\n    \"name\": {},\n    \"description\": {},\n    \"file\": {},\n"
                     "    \"seed\": {},\n    \"text\": {}\n  }},\n",
                     json_string(s.name), json_string(s.description), json_string(s.file), s.seed,
                     json_string(read_text(s.file)));
  out += "  \"inputs\": [";
  const auto inputs = key_inputs(s, c, run.sampling);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    out += fmt::format("{}\n    [{}, {}]", i == 0 ? "" : ",", json_string(inputs[i].first),
                       json_string(inputs[i].second));
  out += "\n  ],\n";
  out += fmt::format("  \"baseline\": {},\n", json_string(c.baseline));
  out += fmt::format("  \"explanations\": {},\n", json_list(run.explanations, "  "));
  // What each explanation rests on: every thing that differs between two explained variants, switched
  // alone, and the step change it makes (null where neither variant can run it alone).
  out += "  \"switches\": [";
  std::size_t n = 0;
  for (const auto& p : c.switches)
    for (const auto& w : p.switched)
      out += fmt::format(
          "{}\n    {{\"first\": {}, \"second\": {}, \"thing\": {}, \"from\": {}, \"to\": {}, "
          "\"back\": {}, \"change_s\": {}, \"why_not\": {}}}",
          n++ == 0 ? "" : ",", json_string(p.first), json_string(p.second), json_string(w.thing),
          json_string(w.from), json_string(w.to), w.back ? "true" : "false",
          w.change_s ? fmt::format("{:.9g}", *w.change_s) : std::string("null"), json_string(w.why_not));
  out += n == 0 ? "],\n" : "\n  ],\n";
  out += "  \"variants\": [";
  for (std::size_t i = 0; i < c.results.size(); ++i) {
    const auto& r = c.results[i];
    std::string values;
    for (std::size_t k = 0; k < r.values.size(); ++k)
      values += fmt::format("{}{}: {}", k == 0 ? "" : ", ", json_string(r.values[k].first),
                            std::isfinite(r.values[k].second) ? fmt::format("{:.9g}", r.values[k].second)
                                                              : std::string("null"));
    std::string hot;
    for (std::size_t k = 0; k < r.hot_links.size(); ++k) {
      const auto& h = r.hot_links[k];
      hot += fmt::format("{}\n        {{\"link\": {}, \"tier\": {}, \"mean_utilisation\": {:.6g}, "
                         "\"peak_utilisation\": {:.6g}, \"pause_fraction\": {:.6g}, \"ecn_marked\": {:.6g}}}",
                         k == 0 ? "" : ",", json_string(h.link), json_string(h.tier), h.mean_utilisation,
                         h.peak_utilisation, h.pause_fraction, h.ecn_marked);
    }
    const std::string hot_links =
        r.hot_links.empty() ? std::string() : fmt::format(",\n      \"hot_links\": [{}\n      ]", hot);
    out += fmt::format("{}\n    {{\n      \"name\": {},\n      \"device\": {},\n      \"placement\": {},\n"
                       "      \"simulated\": {},\n      \"gpu_performance\": {},\n      \"calibration\": "
                       "{},\n      \"values\": {{{}}},\n"
                       "      \"notes\": {}{}\n    }}",
                       i == 0 ? "" : ",", json_string(r.variant), json_string(r.device),
                       json_string(r.placement), json_string(simulated(r)), json_string(r.gpu_performance),
                       json_string(trimmed(render_calibration(r))), values, json_list(r.notes, "      "),
                       hot_links);
  }
  out += "\n  ]\n}\n";
  return out;
}

} // namespace dpusim::report
