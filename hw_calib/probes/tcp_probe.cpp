#include "hw_calib/probes/tcp_probe.hpp"

#include "hw_calib/common/cpu_time.hpp"
#include "hw_calib/common/deadline.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/fit/linear_fit.hpp"
#include "hw_calib/fit/lognormal_fit.hpp"
#include "hw_calib/fit/sample_stats.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "hw_calib/net/peer_client.hpp"
#include "hw_calib/net/peer_server.hpp"
#include "models/base/unit_parse.hpp"

#include <array>
#include <atomic>
#include <fmt/format.h>
#include <memory>
#include <thread>
#include <vector>

namespace dpusim::calib {
namespace {

constexpr std::size_t kStreamWrite = 128u << 10;
constexpr double kWindowS = 0.05;
constexpr std::size_t kMaxStoredRoundTrips = 20000;

struct Window {
  double wall_s = 0; // since the start
  double bytes = 0;  // cumulative
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
};

struct Stream {
  std::vector<Window> windows;
  double bytes = 0;
  double wall_s = 0;
  CpuTimes cpu;
  std::optional<SystemCpuTimes> system; // /proc/stat delta
  TransferReport peer;
};

// The in-process server for loopback runs; stops and joins on destruction.
class LoopbackServer {
public:
  LoopbackServer() : server_(make_options(token_)), thread_([this] { server_.serve(stop_); }) {}
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  ~LoopbackServer() {
    stop_ = true;
    thread_.join();
  }
  [[nodiscard]] int port() const { return server_.port(); }
  [[nodiscard]] const std::string& token() const { return token_; }

private:
  static PeerServerOptions make_options(const std::string& token) {
    PeerServerOptions o;
    o.address = "127.0.0.1";
    o.port = 0;
    o.token = token;
    o.allow_perftest = false;
    return o;
  }
  std::string token_ = random_token(); // this run's own: nobody else on the machine can use the server
  std::atomic<bool> stop_{false};
  PeerServer server_;
  std::thread thread_;
};

Stream stream(const ProbeContext& ctx, PeerClient& peer, const std::string& host, bool send,
              std::size_t io_size, double seconds) {
  Request req;
  req.command = send ? Command::sink : Command::source;
  req.seconds = seconds;
  req.size = io_size;
  const int port = peer.open_transfer(req);
  Socket data = connect_tcp(host, port, deadline_in(10));
  std::vector<unsigned char> buf(io_size, 0x42);
  Stream s;
  const auto sys0 = read_system_cpu_times();
  const CpuTimes cpu0 = thread_cpu_times();
  const auto t0 = Clock::now();
  auto next_window = t0 + seconds_duration(kWindowS);
  const auto end = t0 + seconds_duration(seconds);
  const Deadline limit = deadline_in(seconds + 10);
  std::uint64_t ops = 0;
  while (true) {
    if (send) {
      s.bytes += static_cast<double>(data.send_some(buf.data(), buf.size(), limit));
    } else {
      const std::size_t n = data.recv_some(buf.data(), buf.size(), limit);
      if (n == 0)
        break;
      s.bytes += static_cast<double>(n);
    }
    if ((++ops & 15) == 0)
      ctx.check();
    const auto now = Clock::now();
    if (now >= next_window) {
      const CpuTimes used = thread_cpu_times() - cpu0;
      s.windows.push_back(
          Window{std::chrono::duration<double>(now - t0).count(), s.bytes, used.user_s, used.system_s});
      next_window += seconds_duration(kWindowS);
    }
    if (send && now >= end)
      break;
  }
  s.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  s.cpu = thread_cpu_times() - cpu0;
  if (const auto sys1 = read_system_cpu_times(); sys0 && sys1)
    s.system = *sys1 - *sys0;
  if (send)
    data.shutdown_write();
  s.peer = peer.finish_transfer(seconds + 20);
  return s;
}

// CPU-seconds per byte from the cumulative windows (the start-up cost goes into the intercept).
std::optional<LinearFit> cpu_per_byte(const Stream& s) {
  std::vector<double> x, y;
  for (const auto& w : s.windows) {
    x.push_back(w.bytes);
    y.push_back(w.cpu_user_s + w.cpu_sys_s);
  }
  try {
    const LinearFit fit = fit_linear(x, y);
    if (fit.slope > 0)
      return fit;
  } catch (const std::invalid_argument&) {
  }
  return std::nullopt;
}

void record_stream(ProbeResult& r, const std::string& series, const Stream& s, double io_size) {
  for (std::size_t i = 0; i < s.windows.size(); ++i) {
    const auto& w = s.windows[i];
    const auto idx = static_cast<long long>(i);
    r.samples.add(series, idx, io_size, "wall_s", w.wall_s);
    r.samples.add(series, idx, io_size, "bytes", w.bytes);
    r.samples.add(series, idx, io_size, "cpu_user_s", w.cpu_user_s);
    r.samples.add(series, idx, io_size, "cpu_sys_s", w.cpu_sys_s);
  }
}

std::vector<double> ping_pong(const ProbeContext& ctx, PeerClient& peer, const std::string& host,
                              std::size_t size, std::uint64_t max_count, double seconds) {
  Request req;
  req.command = Command::echo;
  req.count = max_count;
  req.size = size;
  const int port = peer.open_transfer(req);
  Socket data = connect_tcp(host, port, deadline_in(10));
  data.set_nodelay();
  std::vector<unsigned char> buf(size, 0x17);
  std::vector<double> rtts;
  rtts.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(max_count, 1u << 20)));
  const auto end = deadline_in(seconds);
  for (std::uint64_t i = 0; i < max_count; ++i) {
    const auto t0 = Clock::now();
    data.send_all(buf.data(), size, deadline_in(10));
    if (!data.recv_exact(buf.data(), size, deadline_in(10)))
      throw SocketError("the peer closed the echo connection");
    const auto t1 = Clock::now();
    if (i >= 10) // the first round trips warm up caches and the connection
      rtts.push_back(std::chrono::duration<double>(t1 - t0).count());
    if ((i & 63) == 0)
      ctx.check();
    if (t1 >= end)
      break;
  }
  data.close();
  (void)peer.finish_transfer(20);
  return rtts;
}

std::string gbps(double bytes_per_s) {
  return fmt::format("{:.2f} Gb/s", bytes_per_s * 8 / 1e9);
}

// "; 0.61 cycles/byte at the measured 2.72 GHz" when discover measured the clock.
std::string cycles_per_byte(const ProbeContext& ctx, double bytes_per_core_second) {
  const auto& clock = ctx.machine().measured_core_clock_hz;
  if (!clock)
    return {};
  return fmt::format("; {:.3g} cycles/byte at the measured {:.2f} GHz", *clock / bytes_per_core_second,
                     *clock / 1e9);
}

} // namespace

ProbeResult run_tcp_probe(const ProbeContext& ctx) {
  ProbeResult result;
  const auto& s = ctx.settings();
  std::unique_ptr<LoopbackServer> loopback;
  std::string host = s.peer_host;
  int port = s.peer_port;
  std::string token = s.peer_token;
  if (host.empty()) {
    loopback = std::make_unique<LoopbackServer>();
    host = "127.0.0.1";
    port = loopback->port();
    token = loopback->token();
    result.notes.push_back(
        "tcp measured over loopback (no --peer): sender and receiver share this machine, and "
        "the sender's system time includes part of the receive path");
  }
  PeerClient peer(host, port, token);
  const std::string where = loopback ? std::string("loopback") : fmt::format("peer {}", peer.host());
  const double d = s.duration_s;
  const std::string role = ctx.role();

  // Streams: one core sending, one core receiving.
  const Stream tx = stream(ctx, peer, host, true, kStreamWrite, 0.3 * d);
  const Stream rx = stream(ctx, peer, host, false, kStreamWrite, 0.3 * d);
  record_stream(result, "tx_stream", tx, kStreamWrite);
  record_stream(result, "rx_stream", rx, kStreamWrite);
  auto rate_param = [&](const Stream& st, const char* name, const char* series, const char* side) {
    const auto fit = cpu_per_byte(st);
    const double wall_rate = st.bytes / st.wall_s;
    const double core_rate = fit ? 1.0 / fit->slope : st.bytes / std::max(st.cpu.total_s(), 1e-9);
    std::string sys_text;
    if (st.system)
      sys_text = fmt::format(", whole machine busy {:.2f} cores (softirq {:.2f})",
                             st.system->busy_s() / st.wall_s, st.system->softirq_s / st.wall_s);
    result.summary.push_back(fmt::format("{} ({}): {} achieved, {} per core of the {} thread ({:.0f} % user, "
                                         "{:.0f} % system of its CPU time){}; peer thread {:.2f} CPU-s",
                                         side, where, gbps(wall_rate), gbps(core_rate), side,
                                         100 * st.cpu.user_s / std::max(st.cpu.total_s(), 1e-12),
                                         100 * st.cpu.system_s / std::max(st.cpu.total_s(), 1e-12), sys_text,
                                         st.peer.cpu_user_s + st.peer.cpu_sys_s));
    ParamSpec p{
        role_key(role, name),
        core_rate,
        fit ? calibration::Provenance::fitted : calibration::Provenance::measured,
        fmt::format(
            "dpusim-calib tcp probe, {}: one thread, 128 KiB {}, {:.2f} s; linear fit of the thread's "
            "CPU time (getrusage) against bytes, sampled every 50 ms",
            where, side == std::string("send") ? "writes" : "reads", st.wall_s),
        series,
        fit ? std::optional<calibration::FitQuality>(fit_quality(*fit)) : std::nullopt,
        fmt::format("achieved {} on one connection{}", gbps(wall_rate), cycles_per_byte(ctx, core_rate))};
    add_param(result, "tcp", std::move(p));
  };
  rate_param(tx, "tcp_tx_rate_per_core", "tx_stream", "send");
  rate_param(rx, "tcp_rx_rate_per_core", "rx_stream", "receive");

  // Write-size sweep: per-write CPU cost, alpha-beta.
  constexpr std::array<std::size_t, 4> kSweep{4u << 10, 16u << 10, 64u << 10, 256u << 10};
  std::vector<double> sweep_sizes, sweep_cost;
  for (const auto size : kSweep) {
    const Stream st = stream(ctx, peer, host, true, size, 0.2 * d / kSweep.size());
    record_stream(result, "tx_write_size", st, static_cast<double>(size));
    const double writes = st.bytes / static_cast<double>(size);
    if (writes > 0 && st.cpu.total_s() > 0) {
      sweep_sizes.push_back(static_cast<double>(size));
      sweep_cost.push_back(st.cpu.total_s() / writes);
    }
  }
  try {
    const AlphaBetaFit ab = fit_alpha_beta(sweep_sizes, sweep_cost);
    result.summary.push_back(
        fmt::format("send cost per write: {:.2f} us + bytes at {} (R2 {:.3f}); half of the "
                    "per-core peak at {:.0f} KiB writes",
                    ab.alpha_s * 1e6, gbps(ab.beta_Bps), ab.r2, ab.n_half_bytes() / 1024));
  } catch (const std::invalid_argument& e) {
    result.notes.push_back(fmt::format("tcp write-size fit not possible: {}", e.what()));
  }

  // Request/response latency.
  const std::vector<double> rtt = ping_pong(ctx, peer, host, 64, 5'000'000, 0.15 * d);
  std::vector<double> one_way(rtt.size());
  const std::size_t stride = std::max<std::size_t>(1, rtt.size() / kMaxStoredRoundTrips);
  for (std::size_t i = 0; i < rtt.size(); ++i) {
    one_way[i] = rtt[i] / 2;
    if (i % stride == 0)
      result.samples.add("rr_latency", static_cast<long long>(i), 64, "one_way_s", one_way[i]);
  }
  if (stride > 1)
    result.notes.push_back(
        fmt::format("rr_latency raw samples thinned to 1 in {} of {} round trips (the fits "
                    "and percentiles use all of them)",
                    stride, rtt.size()));
  const SampleSummary lat = summarize(one_way);
  std::optional<LognormalFit> ln;
  try {
    ln = fit_lognormal(one_way);
  } catch (const std::invalid_argument& e) {
    result.notes.push_back(fmt::format("lognormal fit of the TCP latency not possible: {}", e.what()));
  }
  result.summary.push_back(
      fmt::format("request/response (64 B, {}): one-way p50 {:.2f} us, p99 {:.2f} us, "
                  "p99.9 {:.2f} us ({} round trips){}",
                  where, lat.p50 * 1e6, lat.p99 * 1e6, lat.p999 * 1e6, lat.count,
                  ln ? fmt::format("; lognormal sigma {:.3f}, KS D {:.3f}", ln->sigma, ln->ks_statistic)
                     : std::string()));
  const std::string lat_source =
      fmt::format("dpusim-calib tcp probe, {}: 64-byte ping-pong with TCP_NODELAY, one-way = round trip / 2, "
                  "{} round trips",
                  where, lat.count);
  const std::optional<calibration::FitQuality> ln_fit =
      ln ? std::optional<calibration::FitQuality>(fit_quality(*ln)) : std::nullopt;
  add_param(result, "tcp",
            ParamSpec{role_key(role, "tcp_latency_median"), lat.p50, calibration::Provenance::measured,
                      lat_source, "rr_latency", ln_fit, ""});
  if (ln)
    add_param(result, "tcp",
              ParamSpec{role_key(role, "tcp_latency_sigma"), std::max(ln->sigma, 1e-6),
                        calibration::Provenance::fitted, lat_source, "rr_latency", ln_fit, ""});
  add_param(result, "tcp",
            ParamSpec{role_key(role, "tcp_latency_p99"), lat.p99, calibration::Provenance::measured,
                      lat_source, "rr_latency", std::nullopt, ""});
  add_param(result, "tcp",
            ParamSpec{role_key(role, "tcp_latency_p999"), lat.p999, calibration::Provenance::measured,
                      lat_source, "rr_latency", std::nullopt, ""});

  // Latency over message sizes: alpha-beta of the median one-way time.
  std::vector<double> sizes, medians;
  sizes.push_back(64);
  medians.push_back(lat.p50);
  for (const std::size_t size : {std::size_t{1024}, std::size_t{16384}, std::size_t{65536}}) {
    const auto r = ping_pong(ctx, peer, host, size, 100000, 0.05 * d / 3);
    if (r.empty())
      continue;
    const double median = quantile(r, 0.5) / 2;
    result.samples.add("rr_latency_by_size", 0, static_cast<double>(size), "median_one_way_s", median);
    sizes.push_back(static_cast<double>(size));
    medians.push_back(median);
  }
  try {
    const AlphaBetaFit ab = fit_alpha_beta(sizes, medians);
    result.summary.push_back(
        fmt::format("latency over sizes 64 B..64 KiB: {:.2f} us + bytes at {} (R2 {:.3f})", ab.alpha_s * 1e6,
                    gbps(ab.beta_Bps), ab.r2));
  } catch (const std::invalid_argument& e) {
    result.notes.push_back(fmt::format("tcp latency alpha-beta fit not possible: {}", e.what()));
  }
  peer.bye();
  return result;
}

} // namespace dpusim::calib
