#include "hw_calib/probes/rdma_probe.hpp"

#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/net/peer_client.hpp"
#include "hw_calib/parsers/perftest_parser.hpp"
#include "hw_calib/probes/param_builder.hpp"

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

  for (const std::string verb : {"write", "send"}) {
    const auto bw = parse_perftest_bw(run_test(ctx, verb + "_bw", peer.get()));
    const auto lat = parse_perftest_lat(run_test(ctx, verb + "_lat", peer.get()));
    std::vector<double> sizes, times;
    double best_bw = 0;
    for (std::size_t i = 0; i < bw.rows.size(); ++i) {
      const auto& row = bw.rows[i];
      result.samples.add(verb + "_bw", static_cast<long long>(i), row.bytes, "bw_average_bytes_per_s",
                         row.bw_average_Bps);
      result.samples.add(verb + "_bw", static_cast<long long>(i), row.bytes, "msg_rate_mpps",
                         row.msg_rate_mpps);
      best_bw = std::max(best_bw, row.bw_average_Bps);
    }
    for (std::size_t i = 0; i < lat.rows.size(); ++i) {
      const auto& row = lat.rows[i];
      result.samples.add(verb + "_lat", static_cast<long long>(i), row.bytes, "t_typical_s", row.t_typical_s);
      if (row.p99_s)
        result.samples.add(verb + "_lat", static_cast<long long>(i), row.bytes, "t_p99_s", *row.p99_s);
      sizes.push_back(row.bytes);
      times.push_back(row.t_typical_s);
    }
    const std::string device = bw.info.device.empty() ? "default device" : bw.info.device;
    result.summary.push_back(fmt::format("RDMA {} on {} ({}): {:.1f} Gb/s at large messages", verb, device,
                                         where, best_bw * 8 / 1e9));
    const bool write = verb == "write";
    add_param(result, "rdma",
              ParamSpec{write ? "nic.rdma_bandwidth" : "nic.rdma_send_bandwidth", best_bw,
                        calibration::Provenance::measured,
                        fmt::format("perftest ib_{}_bw -a --report_gbits on {} ({}), best average over sizes",
                                    verb, device, where),
                        verb + "_bw", std::nullopt, ""});
    try {
      const AlphaBetaFit ab = fit_alpha_beta(sizes, times);
      result.summary.push_back(fmt::format("RDMA {} latency: {:.2f} us + bytes at {:.1f} Gb/s (R2 {:.3f})",
                                           verb, ab.alpha_s * 1e6, ab.beta_Bps * 8 / 1e9, ab.r2));
      if (ab.alpha_s > 0)
        add_param(result, "rdma",
                  ParamSpec{write ? "nic.rdma_latency" : "nic.rdma_send_latency", ab.alpha_s,
                            calibration::Provenance::fitted,
                            fmt::format("perftest ib_{}_lat -a on {} ({}): alpha of t_typical over sizes",
                                        verb, device, where),
                            verb + "_lat", fit_quality(ab), ""});
      else
        result.notes.push_back(
            fmt::format("RDMA {} latency not recorded: the fit's intercept is {:.3g} us, not a "
                        "latency",
                        verb, ab.alpha_s * 1e6));
    } catch (const std::invalid_argument& e) {
      result.notes.push_back(fmt::format("RDMA {} latency fit not possible: {}", verb, e.what()));
    }
  }
  if (peer)
    peer->bye();
  return result;
}

} // namespace dpusim::calib
