#include "sim/report/comparison.hpp"

#include "sim/offload/variant.hpp"
#include "sim/report/switches.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace dpusim::report {

const PairSwitches* Comparison::switches_of(const std::string& first, const std::string& second) const {
  for (const auto& p : switches)
    if (p.first == first && p.second == second)
      return &p;
  return nullptr;
}

double Comparison::speedup(const VariantResult& r) const {
  const auto& base = results.front();
  return r.metrics.effective_step_s() > 0 ? base.metrics.effective_step_s() / r.metrics.effective_step_s()
                                          : 0.0;
}

namespace {

struct Col {
  std::string head;
  std::vector<std::string> cells;
};

std::string layout_columns(const std::vector<Col>& cols, std::size_t left_aligned) {
  std::string out;
  const std::size_t rows = cols.empty() ? 0 : cols.front().cells.size();
  auto line = [&](auto cell) {
    std::string l;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      std::size_t w = cols[i].head.size();
      for (const auto& s : cols[i].cells)
        w = std::max(w, s.size());
      const std::string text = cell(cols[i]);
      l += i < left_aligned ? fmt::format("{:<{}}", text, w) : fmt::format("{:>{}}", text, w);
      if (i + 1 < cols.size())
        l += "  ";
    }
    out += l + "\n";
  };
  line([](const Col& col) { return col.head; });
  for (std::size_t r = 0; r < rows; ++r)
    line([r](const Col& col) { return col.cells[r]; });
  return out;
}

std::string use_name(std::size_t u) {
  return std::string(plan::cpu_use_name(static_cast<plan::CpuUse>(u)));
}

} // namespace

std::string render_table(const Comparison& c) {
  std::vector<Col> cols;
  for (const char* head :
       {"variant", "device", "step s", "compute s", "exposed comm s", "data stall s", "cpu stall s",
        "host cores/node", "peak", "arm util", "TFLOP/s/GPU", "MFU", "speed-up"})
    cols.push_back({head, {}});
  for (const auto& r : c.results) {
    const auto& m = r.metrics;
    cols[0].cells.push_back(r.variant +
                            (r.variant == c.baseline && c.results.size() > 1 ? " (baseline)" : ""));
    cols[1].cells.push_back(r.device);
    cols[2].cells.push_back(fmt::format("{:.4f}", m.step_time_s));
    cols[3].cells.push_back(fmt::format("{:.4f}", m.compute_s));
    cols[4].cells.push_back(fmt::format("{:.4f}", m.exposed_comm_s));
    cols[5].cells.push_back(fmt::format("{:.4f}", m.data_stall_s));
    cols[6].cells.push_back(fmt::format("{:.4f}", m.host_cpu_stall_s));
    cols[7].cells.push_back(fmt::format("{:.2f}", m.host_cpu_busy_cores));
    cols[8].cells.push_back(fmt::format("{:.1f}", m.host_cpu_peak_cores));
    cols[9].cells.push_back(r.arm_cores > 0 ? fmt::format("{:.0f}%", 100 * m.arm_utilisation) : "-");
    cols[10].cells.push_back(fmt::format("{:.1f}", m.tflops_per_gpu));
    cols[11].cells.push_back(fmt::format("{:.1f}%", 100 * m.mfu));
    cols[12].cells.push_back(fmt::format("{:.3f}x", c.speedup(r)));
  }
  // With checkpoints, the step including them (what the speed-up compares) goes after the plain step.
  if (std::any_of(c.results.begin(), c.results.end(),
                  [](const VariantResult& r) { return r.metrics.step_with_checkpoints_s > 0; })) {
    Col ck{"step+ckpt s", {}};
    for (const auto& r : c.results)
      ck.cells.push_back(fmt::format("{:.4f}", r.metrics.effective_step_s()));
    cols.insert(cols.begin() + 3, std::move(ck));
  }
  return layout_columns(cols, 2);
}

std::string render_cores_table(const Comparison& c) {
  // Only the uses some variant spends time on.
  std::vector<Col> cols{{"cores per node by use", {}}};
  std::vector<std::pair<bool, std::size_t>> shown; // (arm, use)
  for (bool arm : {false, true})
    for (std::size_t u = 0; u < plan::kCpuUses; ++u)
      for (const auto& r : c.results)
        if ((arm ? r.metrics.arm_busy_cores_by_use : r.metrics.host_busy_cores_by_use)[u] > 5e-3) {
          shown.emplace_back(arm, u);
          cols.push_back({fmt::format("{} {}", arm ? "arm" : "host", use_name(u)), {}});
          break;
        }
  if (shown.empty())
    return {};
  for (const auto& r : c.results) {
    cols[0].cells.push_back(r.variant);
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const auto& [arm, u] = shown[i];
      cols[i + 1].cells.push_back(fmt::format(
          "{:.2f}", (arm ? r.metrics.arm_busy_cores_by_use : r.metrics.host_busy_cores_by_use)[u]));
    }
  }
  // What the host figures leave out, beside them (docs/metrics.md).
  return layout_columns(cols, 1) +
         "(host framework: the kernel-launch threads alone, 5 us a kernel; the rest of each training process "
         "on the host, its Python loop and data loader's main thread, is left out: no cited measurement)\n";
}

namespace {

std::string breakdown(const metrics::IterationMetrics& m) {
  return fmt::format("{:.4f} / {:.4f} / {:.4f} / {:.4f}", m.compute_s, m.exposed_comm_s, m.data_stall_s,
                     m.host_cpu_stall_s);
}

/// Why `slow` takes longer than `fast`, from the component of the step that grew most; a mechanism is
/// named only where the thing it rests on moves the step by itself (`sw`, the pair's switches).
std::string cause(const VariantResult& slow_r, const VariantResult& fast_r,
                  const std::vector<Explainer>& explainers, const PairSwitches* sw, double first_step_s) {
  const auto moves = [&](std::string_view thing) { return named(sw, thing, first_step_s); };
  const auto& slow = slow_r.metrics;
  const auto& fast = fast_r.metrics;
  const double comm = slow.exposed_comm_s - fast.exposed_comm_s;
  const double data = slow.data_stall_s - fast.data_stall_s;
  const double cpu = slow.host_cpu_stall_s - fast.host_cpu_stall_s;
  const double total = slow.step_time_s - fast.step_time_s;
  auto host = [](const metrics::IterationMetrics& m, plan::CpuUse u) {
    return m.host_busy_cores_by_use[static_cast<std::size_t>(u)];
  };
  auto arm = [](const metrics::IterationMetrics& m, plan::CpuUse u) {
    return m.arm_busy_cores_by_use[static_cast<std::size_t>(u)];
  };
  std::string s;
  if (comm > data && comm > cpu && moves("device"))
    for (const auto& e : explainers)
      if (e.cause != nullptr)
        if (auto why = e.cause(slow_r, fast_r, comm / total); !why.empty())
          return why;
  if (data >= comm && data >= cpu) {
    s = fmt::format(
        " {:.0f}% of the difference is GPUs waiting for input: {}'s input pipeline cannot keep "
        "up (per node: decoding {:.1f} host cores, storage client {:.1f} host and {:.1f} Arm cores, "
        "{:.1f} of {} host cores busy in all){}.",
        100 * data / total, slow_r.variant, host(slow, plan::CpuUse::data_loading),
        host(slow, plan::CpuUse::storage), arm(slow, plan::CpuUse::storage), slow.host_cpu_busy_cores,
        slow_r.host_cores, slow_r.notes.empty() ? std::string() : "; see the notes on " + slow_r.variant);
  } else if (cpu >= comm) {
    s = fmt::format(
        " {:.0f}% of the difference is host-CPU stall: {} keeps {:.1f} of {} host cores busy per node, "
        "so the framework's launch threads get less than the core each needs and the GPUs wait.",
        100 * cpu / total, slow_r.variant, slow.host_cpu_busy_cores, slow_r.host_cores);
  } else {
    s = fmt::format(" {:.0f}% of the difference is exposed communication", 100 * comm / total);
    const double tcp = host(slow, plan::CpuUse::transport);
    const double host_crypto = host(slow, plan::CpuUse::encryption) + host(slow, plan::CpuUse::vswitch);
    const double arm_path = arm(slow, plan::CpuUse::encryption) + arm(slow, plan::CpuUse::vswitch) -
                            arm(fast, plan::CpuUse::encryption) - arm(fast, plan::CpuUse::vswitch);
    if (arm_path > 0.05 && (moves("encryption") || moves("vswitch")))
      s += fmt::format(
          ": {}'s connections pass through the DPU's Arm cores (encryption {:.1f}, virtual switch "
          "{:.1f} Arm cores per node, {:.0f}% of all Arm cores busy on average); each connection runs "
          "no faster than the Arm cores driving it, which process fewer bytes per second than a host "
          "core, so its data-parallel reduction takes {:.1f}x as long.",
          slow_r.variant, arm(slow, plan::CpuUse::encryption), arm(slow, plan::CpuUse::vswitch),
          100 * slow.arm_utilisation, slow.dp_comm_s / std::max(1e-12, fast.dp_comm_s));
    else if (slow.arm_utilisation > 0.8 && slow.arm_core_s > fast.arm_core_s &&
             (moves("storage") || moves("agents")))
      s += fmt::format(": {}'s DPU Arm cores are {:.0f}% busy with the functions placed on them "
                       "(storage {:.1f}, agents {:.1f} cores per node), which slows everything they serve.",
                       slow_r.variant, 100 * slow.arm_utilisation, arm(slow, plan::CpuUse::storage),
                       arm(slow, plan::CpuUse::agents));
    else if (tcp > host(fast, plan::CpuUse::transport) + 0.05 && moves("transport"))
      s += fmt::format(
          ": {} moves inter-node bytes through the host kernel TCP stack ({:.1f} cores per node{}), "
          "and each connection runs no faster than the cores driving it, so its data-parallel "
          "reduction takes {:.1f}x as long.",
          slow_r.variant, tcp,
          host_crypto > 0.05 ? fmt::format(", plus {:.1f} for encryption and switching", host_crypto)
                             : std::string(),
          slow.dp_comm_s / std::max(1e-12, fast.dp_comm_s));
    else
      s += fmt::format(": {}'s data-parallel reduction takes {:.1f}x as long as {}'s{}.", slow_r.variant,
                       slow.dp_comm_s / std::max(1e-12, fast.dp_comm_s), fast_r.variant,
                       slow_r.notes.empty() ? std::string() : " (see the notes on " + slow_r.variant + ")");
  }
  const double ep = slow.ep_comm_s - fast.ep_comm_s;
  if (ep > 0.05 * total)
    s += fmt::format(" The experts' all-to-alls account for {:.0f}% of it ({:.4f} s vs {:.4f} s per step): "
                     "every MoE layer waits for its dispatch and combine.",
                     100 * ep / total, slow.ep_comm_s, fast.ep_comm_s);
  return s;
}

std::string difference(const VariantResult& base, const VariantResult& r,
                       const std::vector<Explainer>& explainers, const PairSwitches* sw) {
  const auto& a = base.metrics;
  const auto& b = r.metrics;
  const double change = b.step_time_s / a.step_time_s - 1.0;
  std::string s = fmt::format(
      "{} vs {}: step {:.4f} s vs {:.4f} s ({:+.1f}%); compute / exposed communication / "
      "data stall / host-CPU stall {} s vs {} s.",
      r.variant, base.variant, b.step_time_s, a.step_time_s, 100 * change, breakdown(b), breakdown(a));
  if (a.checkpoint_step_s > 0 && b.checkpoint_step_s > 0)
    s += fmt::format(" Including checkpoints: {:.4f} s vs {:.4f} s per step ({:+.1f}%); the iteration that "
                     "writes one takes {:.4f} s vs {:.4f} s.",
                     b.effective_step_s(), a.effective_step_s(),
                     100 * (b.effective_step_s() / a.effective_step_s() - 1.0), b.checkpoint_step_s,
                     a.checkpoint_step_s);
  const double freed = a.host_cpu_busy_cores - b.host_cpu_busy_cores;
  if (std::abs(freed) >= 0.05)
    s += fmt::format(
        " Host CPU: {:.1f} vs {:.1f} busy cores per node; {} {:.1f} per node ({:.1f}% of its {} host "
        "cores), {:.0f} across the {} nodes (the cores of {:.1f} nodes).",
        b.host_cpu_busy_cores, a.host_cpu_busy_cores, freed > 0 ? "frees" : "costs", std::abs(freed),
        100 * std::abs(freed) / std::max(1, r.host_cores), r.host_cores, std::abs(freed) * r.nodes, r.nodes,
        std::abs(freed) * r.nodes / std::max(1, r.host_cores));
  if (r.arm_cores > 0 && b.arm_core_s > 0)
    s += fmt::format(" DPU Arm cores: {:.0f}% busy ({:.1f} of {} per node).", 100 * b.arm_utilisation,
                     b.arm_utilisation * r.arm_cores, r.arm_cores);
  const bool faster = change < 0;
  if (std::abs(change) >= 0.005)
    s += faster ? cause(base, r, explainers, sw, a.step_time_s)
                : cause(r, base, explainers, sw, a.step_time_s);
  if (sw != nullptr)
    s += render_switches(*sw, a.step_time_s, b.step_time_s - a.step_time_s);
  if (std::abs(change) < 0.03) {
    s += " The step changes by less than 3%:";
    const double stall = std::min(a.data_stall_s, b.data_stall_s);
    if (stall > 0.05 * a.step_time_s)
      s += fmt::format(" the GPUs of both wait for input ({:.4f} s vs {:.4f} s), so the input pipeline, not "
                       "what this variant moves, sets the pace;",
                       b.data_stall_s, a.data_stall_s);
    for (const auto& e : explainers)
      if (e.unchanged != nullptr)
        s += e.unchanged(base, r);
    s += fmt::format(" GPU compute is {:.0f}% of it", 100 * a.compute_s / a.step_time_s);
    if (a.tp_comm_s > 0.005 * a.step_time_s)
      s += fmt::format(" and tensor-parallel collectives over NVLink, identical in every variant, {:.0f}%",
                       100 * a.tp_comm_s / a.step_time_s);
    s += fmt::format("; the inter-node gradient reduction takes at most {:.1f}% of the step, of which "
                     "{:.4f} s vs {:.4f} s are left after the last backward pass.",
                     100 * std::max(a.dp_comm_s, b.dp_comm_s) / std::min(a.step_time_s, b.step_time_s),
                     b.dp_exposed_s, a.dp_exposed_s);
  } else if (!faster && r.placement != base.placement) {
    s += fmt::format(" Placing the functions as {} does makes this job slower than {}.", r.variant,
                     base.variant);
  }
  return s;
}

} // namespace

std::vector<std::string> explain(const Comparison& c, const std::vector<Explainer>& explainers) {
  std::vector<std::string> out;
  const auto& base = c.results.front();
  // The plain RDMA NIC, whatever the scenario calls it: the rdma-nic preset's placement on the NIC.
  const VariantResult* nic_rdma = nullptr;
  const auto rdma_nic = offload::placement_text(offload::parse_variant("rdma-nic").placement);
  for (const auto& r : c.results)
    if (!r.on_dpu && r.placement == rdma_nic && nic_rdma == nullptr)
      nic_rdma = &r;
  for (std::size_t i = 1; i < c.results.size(); ++i) {
    const auto& r = c.results[i];
    std::string s = difference(base, r, explainers, c.switches_of(base.variant, r.variant));
    // A DPU is worth its price only for what it does beyond a plain RDMA NIC: say so when that is nothing.
    if (r.on_dpu && nic_rdma != nullptr && nic_rdma != &base) {
      const double vs_nic = r.metrics.step_time_s / nic_rdma->metrics.step_time_s - 1.0;
      s += fmt::format(" Against {} the DPU changes the step by {:+.2f}%", nic_rdma->variant, 100 * vs_nic);
      const double freed = nic_rdma->metrics.host_cpu_busy_cores - r.metrics.host_cpu_busy_cores;
      std::vector<std::string> on_arm; // what this variant's DPU Arm cores were busy with
      for (std::size_t u = 0; u < plan::kCpuUses; ++u)
        if (r.metrics.arm_busy_cores_by_use[u] > 0.005)
          on_arm.push_back(use_name(u));
      if (std::abs(vs_nic) < 0.01 && std::abs(freed) < 0.05)
        s += on_arm.empty()
                 ? fmt::format(
                       ": {} carries RDMA on the same kind of NIC core as {}, and no other host function "
                       "of this scenario moves to it, so the DPU buys nothing here.",
                       r.device, nic_rdma->device)
                 : fmt::format(
                       ": its Arm cores run {} but free no host core that {} does not free already, so "
                       "the DPU buys nothing here.",
                       fmt::join(on_arm, " and "), nic_rdma->variant);
      else {
        // What the DPU does better (its explainers) is said only where the device, switched alone, moves
        // the step: a DPU slower than the NIC, or one whose gain comes from elsewhere, is not credited.
        const auto* sw = c.switches_of(nic_rdma->variant, r.variant);
        const double nic_step = nic_rdma->metrics.step_time_s;
        std::string why;
        if (vs_nic < -0.01 && named(sw, "device", nic_step))
          for (const auto& e : explainers)
            if (e.dpu_over_nic != nullptr && why.empty())
              why = e.dpu_over_nic(r, *nic_rdma);
        if (freed >= 0.05)
          s +=
              fmt::format(" and frees {:.1f} more host cores per node ({:.0f} across the cluster) by running "
                          "on its Arm cores what {} leaves on the host.",
                          freed, freed * r.nodes, nic_rdma->variant);
        else
          s += why.empty() ? std::string(".") : why;
        if (sw != nullptr)
          s += render_switches(*sw, nic_step, r.metrics.step_time_s - nic_step);
      }
    }
    for (const auto& e : explainers)
      if (e.also != nullptr)
        s += e.also(base, r);
    out.push_back(s);
  }
  return out;
}

std::string render_simulation_summary(const VariantResult& r) {
  std::string s = "simulated: ";
  if (r.tp_collectives_reused > 0)
    s +=
        fmt::format("one tensor-parallel all-reduce flow by flow ({:.1f} us), its duration reused {} times; ",
                    r.tp_collective_s * 1e6, r.tp_collectives_reused);
  if (r.cp_collectives_reused > 0)
    s += fmt::format(
        "one context-parallel key/value all-gather flow by flow ({:.1f} us), its duration reused {} "
        "times (less the attention compute it overlaps); ",
        r.cp_collective_s * 1e6, r.cp_collectives_reused);
  if (r.ep_collectives_reused > 0)
    s += fmt::format(
        "the expert-parallel all-to-alls of a stage flow by flow ({:.1f} us), the duration reused {} times; ",
        r.ep_collective_s * 1e6, r.ep_collectives_reused);
  s += fmt::format(
      "data- and pipeline-parallel traffic flow by flow; {} SimGrid activities, {} routes, {:.2f} s",
      r.activities, r.routes, r.simulation_wall_s);
  return s + "\n";
}

std::string render_gpu_performance(const VariantResult& r) {
  return r.gpu_performance.empty() ? std::string() : fmt::format("GPU performance: {}\n", r.gpu_performance);
}

std::string render_calibration(const VariantResult& r) {
  std::vector<std::string> items;
  for (const auto& cv : r.calibrated)
    items.push_back(scenario::describe(cv));
  return items.empty() ? std::string() : fmt::format("from calibration: {}\n", fmt::join(items, "; "));
}

std::string render_csv(const Comparison& c, const std::vector<Column>& model_columns) {
  std::string out = csv_header(model_columns);
  for (const auto& r : c.results)
    out += csv_row(r, c.speedup(r), model_columns);
  return out;
}

} // namespace dpusim::report
