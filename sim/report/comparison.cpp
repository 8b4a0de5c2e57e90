#include "sim/report/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

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
  std::vector<Col> cols = {{"variant", {}},         {"device", {}},         {"step s", {}},
                           {"compute s", {}},       {"exposed comm s", {}}, {"dp reduce s", {}},
                           {"host cores/node", {}}, {"TFLOP/s/GPU", {}},    {"MFU", {}},
                           {"speed-up", {}}};
  for (const auto& r : c.results) {
    const auto& m = r.metrics;
    cols[0].cells.push_back(r.variant +
                            (r.variant == c.baseline && c.results.size() > 1 ? " (baseline)" : ""));
    cols[1].cells.push_back(r.device);
    cols[2].cells.push_back(fmt::format("{:.4f}", m.step_time_s));
    cols[3].cells.push_back(fmt::format("{:.4f}", m.compute_s));
    cols[4].cells.push_back(fmt::format("{:.4f}", m.exposed_comm_s));
    cols[5].cells.push_back(fmt::format("{:.4f}", m.dp_comm_s));
    cols[6].cells.push_back(fmt::format("{:.2f}", m.host_cpu_busy_cores));
    cols[7].cells.push_back(fmt::format("{:.1f}", m.tflops_per_gpu));
    cols[8].cells.push_back(fmt::format("{:.1f}%", 100 * m.mfu));
    cols[9].cells.push_back(fmt::format("{:.3f}x", c.speedup(r)));
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

std::vector<std::string> explain(const Comparison& c) {
  std::vector<std::string> out;
  const auto& base = c.results.front();
  for (std::size_t i = 1; i < c.results.size(); ++i) {
    const auto& r = c.results[i];
    const auto& a = base.metrics;
    const auto& b = r.metrics;
    const double change = b.step_time_s / a.step_time_s - 1.0;
    std::string s = fmt::format("{} vs {}: step {:.4f} s vs {:.4f} s ({:+.1f}%). ", r.variant, base.variant,
                                b.step_time_s, a.step_time_s, 100 * change);
    s += fmt::format(
        "Exposed communication {:.4f} s vs {:.4f} s; data-parallel reduction {:.4f} s vs {:.4f} s; "
        "host CPU {:.2f} vs {:.2f} busy cores per node.",
        b.exposed_comm_s, a.exposed_comm_s, b.dp_comm_s, a.dp_comm_s, b.host_cpu_busy_cores,
        a.host_cpu_busy_cores);
    if (std::abs(change) < 0.03) {
      s += fmt::format(
          " Offload changes the step time by less than 3%: GPU compute is {:.0f}% of the step and the "
          "{} communication that remains exposed is {:.1f}% of it.",
          100 * a.compute_s / a.step_time_s, r.variant, 100 * b.exposed_comm_s / b.step_time_s);
    } else {
      const double comm_delta = a.exposed_comm_s - b.exposed_comm_s;
      s += fmt::format(" {:.0f}% of the difference is exposed communication",
                       100 * comm_delta / (a.step_time_s - b.step_time_s));
      const auto& slower = change < 0 ? a : b;
      const auto& slower_name = change < 0 ? base.variant : r.variant;
      const auto& faster = change < 0 ? b : a;
      if (slower.host_cpu_busy_cores > faster.host_cpu_busy_cores + 0.05)
        s += fmt::format(
            ": {} moves inter-node bytes through the host kernel TCP stack, costing {:.1f} host "
            "core-seconds per step, and each connection is limited by the cores driving it, so its "
            "data-parallel reduction takes {:.1f}x longer.",
            slower_name, slower.host_cpu_core_s, slower.dp_comm_s / std::max(1e-12, faster.dp_comm_s));
      else
        s += ".";
    }
    if (r.device != base.device && std::abs(change) < 0.001 &&
        std::abs(b.host_cpu_busy_cores - a.host_cpu_busy_cores) < 0.01)
      s += fmt::format(
          " {} carries the traffic on the same kind of NIC core, and no host function of this scenario "
          "runs on the host in one variant and offloaded in the other, so the DPU buys nothing here.",
          r.device);
    out.push_back(s);
  }
  return out;
}

std::string render_csv(const Comparison& c) {
  std::string out = csv_header();
  for (const auto& r : c.results)
    out += csv_row(r, c.speedup(r));
  return out;
}

} // namespace dpusim::report
