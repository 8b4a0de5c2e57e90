#include "hw_calib/probes/rdma_probe.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/ingest/ingest.hpp"
#include "hw_calib/net/peer_client.hpp"

#include <fmt/format.h>
#include <memory>
#include <thread>

namespace dpusim::calib {
namespace {

constexpr int kPerftestPort = 18601;

std::vector<std::string> perftest_argv(const std::string& test, const ProbeSettings& s) {
  std::vector<std::string> argv{"ib_" + test, "-a", "-F", "-p", std::to_string(kPerftestPort)};
  if (test.ends_with("_bw"))
    argv.emplace_back("--report_gbits");
  if (!s.rdma_device.empty()) {
    argv.emplace_back("-d");
    argv.push_back(s.rdma_device);
  }
  return argv;
}

// Runs one perftest test against the peer (which starts the server) or against a local server.
std::string run_test(const ProbeContext& ctx, const std::string& test, PeerClient* peer) {
  const auto& s = ctx.settings();
  std::unique_ptr<BackgroundProcess> local_server;
  if (peer != nullptr)
    peer->start_perftest(test, kPerftestPort);
  else
    local_server = std::make_unique<BackgroundProcess>(perftest_argv(test, s));
  std::this_thread::sleep_for(std::chrono::milliseconds(500)); // let the server listen
  auto argv = perftest_argv(test, s);
  argv.push_back(peer != nullptr ? s.peer_host : "localhost");
  ProcessOptions po;
  po.timeout =
      std::chrono::seconds(static_cast<long long>(std::max(5.0, std::min(ctx.time_left_s(), 300.0))));
  const ProcessResult r = run_process(argv, po);
  ctx.check();
  if (peer != nullptr)
    (void)peer->await_perftest(30);
  if (!r.ok())
    throw std::runtime_error(fmt::format("{} {}: {}", argv.front(), r.describe(), std::string(trim(r.err))));
  return r.out;
}

} // namespace

ProbeResult run_rdma_probe(const ProbeContext& ctx) {
  if (ctx.machine().rdma.empty())
    return skipped("no RDMA device: /sys/class/infiniband is empty or absent");
  for (const char* tool : {"ib_write_bw", "ib_write_lat", "ib_send_bw", "ib_send_lat"}) {
    if (!find_executable(tool))
      return skipped(
          fmt::format("perftest is not installed ({} not found in PATH; apt-get install perftest)", tool));
  }
  ProbeResult result;
  if (const auto v = run_process({"ib_write_bw", "--version"}); v.started)
    result.tools["perftest"] = std::string(trim(v.out.empty() ? v.err : v.out));
  const auto& s = ctx.settings();
  std::unique_ptr<PeerClient> peer;
  if (!s.peer_host.empty())
    peer = std::make_unique<PeerClient>(s.peer_host, s.peer_port, s.peer_token);
  const std::string where =
      peer ? fmt::format("to peer {}", s.peer_host) : std::string("through the local NIC");

  // Each output goes through ingest's checks and fits: the same parameters, sources and refusals (a
  // cut table, a zero bandwidth, a latency without small messages) as for a recorded file.
  IngestOptions io;
  io.role = ctx.role();
  for (const std::string test : {"write_bw", "write_lat", "send_bw", "send_lat"}) {
    const std::string out = run_test(ctx, test, peer.get());
    const std::string label = fmt::format("ib_{} {}", test, where);
    IngestedFile f;
    try {
      f = ingest_text(label, out, io);
    } catch (const InputFileError& e) {
      throw std::runtime_error(e.what());
    }
    for (auto& p : f.result.params)
      result.params.push_back(std::move(p));
    result.samples.append(f.result.samples);
    for (auto& line : f.result.summary)
      result.summary.push_back(std::move(line));
    for (auto& w : f.warnings)
      result.notes.push_back(std::move(w));
  }
  if (peer)
    peer->bye();
  return result;
}

} // namespace dpusim::calib
