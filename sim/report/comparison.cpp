#include "sim/report/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dpusim::report {

double Comparison::speedup(const VariantResult& r) const {
  const auto& base = results.front();
  return r.metrics.step_time_s > 0 ? base.metrics.step_time_s / r.metrics.step_time_s : 0.0;
}

std::string render_table(const Comparison& c) {
  struct Col {
    std::string head;
    std::vector<std::string> cells;
  };
  std::vector<Col> cols;
  for (const char* head : {"variant", "device", "step s", "compute s", "exposed comm s", "tp comm s",
                           "dp reduce s", "host cores/node", "TFLOP/s/GPU", "MFU", "speed-up"})
    cols.push_back({head, {}});
  for (const auto& r : c.results) {
    const auto& m = r.metrics;
    cols[0].cells.push_back(r.variant +
                            (r.variant == c.baseline && c.results.size() > 1 ? " (baseline)" : ""));
    cols[1].cells.push_back(r.device);
    cols[2].cells.push_back(fmt::format("{:.4f}", m.step_time_s));
    cols[3].cells.push_back(fmt::format("{:.4f}", m.compute_s));
    cols[4].cells.push_back(fmt::format("{:.4f}", m.exposed_comm_s));
    cols[5].cells.push_back(fmt::format("{:.4f}", m.tp_comm_s));
    cols[6].cells.push_back(fmt::format("{:.4f}", m.dp_comm_s));
    cols[7].cells.push_back(fmt::format("{:.2f}", m.host_cpu_busy_cores));
    cols[8].cells.push_back(fmt::format("{:.1f}", m.tflops_per_gpu));
    cols[9].cells.push_back(fmt::format("{:.1f}%", 100 * m.mfu));
    cols[10].cells.push_back(fmt::format("{:.3f}x", c.speedup(r)));
  }
  std::string out;
  auto line = [&](auto cell) {
    std::string l;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      std::size_t w = cols[i].head.size();
      for (const auto& s : cols[i].cells)
        w = std::max(w, s.size());
      const std::string text = cell(cols[i]);
      l += i == 0 || i == 1 ? fmt::format("{:<{}}", text, w) : fmt::format("{:>{}}", text, w);
      if (i + 1 < cols.size())
        l += "  ";
    }
    out += l + "\n";
  };
  line([](const Col& col) { return col.head; });
  for (std::size_t r = 0; r < c.results.size(); ++r)
    line([r](const Col& col) { return col.cells[r]; });
  return out;
}

namespace {

std::string difference(const VariantResult& base, const VariantResult& r) {
  const auto& a = base.metrics;
  const auto& b = r.metrics;
  const double change = b.step_time_s / a.step_time_s - 1.0;
  std::string s = fmt::format("{} vs {}: step {:.4f} s vs {:.4f} s ({:+.1f}%). ", r.variant, base.variant,
                              b.step_time_s, a.step_time_s, 100 * change);
  s +=
      fmt::format("Exposed communication {:.4f} s vs {:.4f} s; data-parallel reduction {:.4f} s vs {:.4f} s; "
                  "host CPU {:.2f} vs {:.2f} busy cores per node.",
                  b.exposed_comm_s, a.exposed_comm_s, b.dp_comm_s, a.dp_comm_s, b.host_cpu_busy_cores,
                  a.host_cpu_busy_cores);
  if (std::abs(change) < 0.03) {
    s += fmt::format(
        " The step changes by less than 3%: GPU compute is {:.0f}% of it and tensor-parallel collectives "
        "over NVLink, identical in every variant, {:.0f}%; the inter-node gradient reduction takes at most "
        "{:.1f}% of the step, of which {:.4f} s vs {:.4f} s are left after the last backward pass.",
        100 * a.compute_s / a.step_time_s, 100 * a.tp_comm_s / a.step_time_s,
        100 * std::max(a.dp_comm_s, b.dp_comm_s) / std::min(a.step_time_s, b.step_time_s), b.dp_exposed_s,
        a.dp_exposed_s);
  } else {
    const bool faster = change < 0;
    const auto& slow = faster ? a : b;
    const auto& fast = faster ? b : a;
    const auto& slow_name = faster ? base.variant : r.variant;
    s += fmt::format(" {:.0f}% of the difference is exposed communication",
                     100 * (slow.exposed_comm_s - fast.exposed_comm_s) /
                         (slow.step_time_s - fast.step_time_s));
    if (slow.host_cpu_busy_cores > fast.host_cpu_busy_cores + 0.05)
      s += fmt::format(
          ": {} moves inter-node bytes through the host kernel TCP stack, {:.1f} host core-seconds per "
          "step, and each connection runs no faster than the cores driving it, so its data-parallel "
          "reduction takes {:.1f}x as long.",
          slow_name, slow.host_cpu_core_s, slow.dp_comm_s / std::max(1e-12, fast.dp_comm_s));
    else
      s += ".";
  }
  return s;
}

} // namespace

std::vector<std::string> explain(const Comparison& c) {
  std::vector<std::string> out;
  const auto& base = c.results.front();
  const VariantResult* nic_rdma = nullptr;
  for (const auto& r : c.results)
    if (r.variant == "rdma-nic")
      nic_rdma = &r;
  for (std::size_t i = 1; i < c.results.size(); ++i) {
    const auto& r = c.results[i];
    std::string s = difference(base, r);
    // A DPU is worth its price only for what it does beyond a plain RDMA NIC: say so when that is nothing.
    if (r.variant == "dpu" && nic_rdma != nullptr && nic_rdma != &base) {
      const double vs_nic = r.metrics.step_time_s / nic_rdma->metrics.step_time_s - 1.0;
      s += fmt::format(" Against rdma-nic the DPU changes the step by {:+.2f}%", 100 * vs_nic);
      if (std::abs(vs_nic) < 0.01 &&
          std::abs(r.metrics.host_cpu_core_s - nic_rdma->metrics.host_cpu_core_s) < 1e-9)
        s +=
            fmt::format(": {} carries RDMA on the same kind of NIC core as {}, and no other host function of "
                        "this scenario moves to it, so the DPU buys nothing here.",
                        r.device, nic_rdma->device);
      else
        s += ".";
    }
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
  s += fmt::format(
      "data- and pipeline-parallel traffic flow by flow; {} SimGrid activities, {} routes, {:.2f} s",
      r.activities, r.routes, r.simulation_wall_s);
  return s + "\n";
}

std::string render_calibration(const VariantResult& r) {
  std::vector<std::string> items;
  for (const auto& cv : r.calibrated)
    items.push_back(
        fmt::format("{} = {} ({}{})", cv.key, cv.value, cv.provenance, cv.used ? "" : ", unused"));
  return items.empty() ? std::string() : fmt::format("from calibration: {}\n", fmt::join(items, "; "));
}

std::string render_csv(const Comparison& c) {
  std::string out = csv_header();
  for (const auto& r : c.results)
    out += csv_row(r, c.speedup(r));
  return out;
}

} // namespace dpusim::report
