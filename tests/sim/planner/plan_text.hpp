// Plans written inline in a test: a base scenario's text and the rest of the plan, read as `dpusim plan`
// reads a file; the error a plan gives, as "line:column key: message"; a points.csv input column.
#pragma once

#include "models/base/input_error.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>

namespace dpusim::testing {

/// An inline base scenario: Llama 3 8B at TP 8 on 2 DGX H100 (16 GPUs), RDMA.
inline const std::string kLlama3_8bOnTwoDgxH100 = R"(scenario:
  name: base
  cluster:
    nodes: 2
    node: dgx-h100
    fabric: {topology: rail-optimized, link: 400Gbps, latency: 1us}
  workload:
    model: llama3-8b
    seq_len: 8192
    global_batch: 144
    micro_batch: 1
    parallelism: {tp: 8, dp: 2}
  offload: {baseline: rdma-nic}
)";

/// A plan named p on 300B tokens over the inline base `scenario` (a "scenario:" mapping), then `rest`.
inline planner::Plan parse_plan_text(const std::string& scenario, const std::string& rest) {
  return planner::parse_plan(yaml::parse_text("name: p\ntrain_tokens: 300B\n" + scenario + rest, "plan.yaml"),
                             bundled_catalog());
}

/// The InputError such a plan gives: "line:column key: message"; "no error" where it is read.
inline std::string plan_error_of(const std::string& scenario, const std::string& rest) {
  try {
    (void)parse_plan_text(scenario, rest);
  } catch (const InputError& e) {
    return fmt::format("{}:{} {}: {}", e.where().line, e.where().column, e.key(), e.message());
  }
  return "no error";
}

/// The index of an input column of points.csv.
inline std::size_t input_column(const std::string& name) {
  const auto& c = planner::input_columns();
  return static_cast<std::size_t>(std::find(c.begin(), c.end(), name) - c.begin());
}

} // namespace dpusim::testing
