#include "hw_calib/net/peer_server.hpp"

#include "hw_calib/common/cpu_time.hpp"
#include "hw_calib/common/deadline.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/net/control_protocol.hpp"

#include <fmt/format.h>
#include <vector>

namespace dpusim::calib {
namespace {

void reply(const Socket& s, const std::string& line) {
  const std::string text = line + "\n";
  s.send_all(text.data(), text.size(), deadline_in(10));
}

struct Measure {
  CpuTimes cpu0 = thread_cpu_times();
  Clock::time_point t0 = Clock::now();
  TransferReport finish(double bytes) const {
    const CpuTimes used = thread_cpu_times() - cpu0;
    return TransferReport{bytes, std::chrono::duration<double>(Clock::now() - t0).count(), used.user_s,
                          used.system_s};
  }
};

TransferReport sink(const Socket& data, double seconds) {
  std::vector<unsigned char> buf(1u << 20);
  Measure m;
  double bytes = 0;
  const Deadline end = deadline_in(seconds + 5);
  while (true) {
    const std::size_t n = data.recv_some(buf.data(), buf.size(), end);
    if (n == 0)
      break;
    bytes += static_cast<double>(n);
  }
  return m.finish(bytes);
}

TransferReport source(const Socket& data, double seconds, std::size_t size) {
  std::vector<unsigned char> buf(size, 0x6b);
  Measure m;
  double bytes = 0;
  const auto end = deadline_in(seconds);
  const Deadline limit = deadline_in(seconds + 5);
  while (Clock::now() < end) {
    data.send_all(buf.data(), buf.size(), limit);
    bytes += static_cast<double>(size);
  }
  return m.finish(bytes);
}

TransferReport echo(const Socket& data, std::uint64_t count, std::size_t size, double idle_s) {
  data.set_nodelay();
  std::vector<unsigned char> buf(size);
  Measure m;
  double bytes = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!data.recv_exact(buf.data(), size, deadline_in(idle_s)))
      break;
    data.send_all(buf.data(), size, deadline_in(idle_s));
    bytes += static_cast<double>(size);
  }
  return m.finish(bytes);
}

// The perftest server command for a test: a fixed table, arguments built here.
std::vector<std::string> perftest_server_argv(const std::string& test, int port, const std::string& device) {
  std::vector<std::string> argv{"ib_" + test, "-a", "-F", "-p", std::to_string(port)};
  if (test == "write_bw" || test == "send_bw")
    argv.emplace_back("--report_gbits");
  if (!device.empty()) {
    argv.emplace_back("-d");
    argv.push_back(device);
  }
  return argv;
}

} // namespace

PeerServer::PeerServer(PeerServerOptions options) : options_(std::move(options)) {
  listener_ = listen_tcp(options_.address, options_.port);
  port_ = listener_.local_port();
}

void PeerServer::log(const std::string& line) const {
  if (options_.log)
    options_.log(line);
}

void PeerServer::serve(const std::atomic<bool>& stop, int max_sessions) {
  int sessions = 0;
  while (!stop.load() && !stop_requested() && (max_sessions <= 0 || sessions < max_sessions)) {
    Socket control;
    try {
      control = accept_connection(listener_, deadline_in(0.2));
    } catch (const SocketTimeout&) {
      continue;
    } catch (const Interrupted&) {
      return;
    }
    ++sessions;
    try {
      session(std::move(control), stop);
    } catch (const Interrupted&) {
      return;
    } catch (const std::exception& e) {
      log(fmt::format("session ended: {}", e.what()));
    }
  }
}

void PeerServer::session(Socket control, const std::atomic<bool>& stop) {
  LineReader reader(control, kMaxControlLine);
  int errors = 0;
  bool greeted = false;
  while (!stop.load()) {
    const std::string line = reader.read_line(deadline_in(options_.idle_timeout_s));
    Request req;
    try {
      req = parse_request(line);
      if (!greeted && req.command != Command::hello)
        throw ProtocolError("say HELLO dpusim-calib/1 first");
    } catch (const ProtocolError& e) {
      reply(control, fmt::format("ERR {}", e.what()));
      if (++errors >= 3) {
        log("closing a session after 3 bad requests");
        return;
      }
      continue;
    }
    switch (req.command) {
    case Command::hello:
      greeted = true;
      reply(control, fmt::format("OK {} {}", kProtocolName, DPUSIM_VERSION));
      break;
    case Command::bye:
      reply(control, "OK bye");
      return;
    case Command::sink:
    case Command::source:
    case Command::echo: {
      Socket listener = listen_tcp(options_.address, 0);
      reply(control, fmt::format("PORT {}", listener.local_port()));
      const Socket data = accept_connection(listener, deadline_in(options_.accept_timeout_s));
      listener.close();
      TransferReport report;
      if (req.command == Command::sink)
        report = sink(data, req.seconds);
      else if (req.command == Command::source)
        report = source(data, req.seconds, req.size);
      else
        report = echo(data, req.count, req.size, options_.idle_timeout_s);
      log(fmt::format("{}: {:.0f} bytes in {:.2f} s", format_request(req), report.bytes, report.seconds));
      reply(control, format_report(report));
      break;
    }
    case Command::perftest: {
      if (!options_.allow_perftest) {
        reply(control, "ERR this server was started with --no-perftest");
        break;
      }
      const auto argv = perftest_server_argv(req.perftest, req.port, options_.rdma_device);
      if (!find_executable(argv.front())) {
        reply(control, fmt::format("ERR {} is not installed on the peer (perftest package)", argv.front()));
        break;
      }
      BackgroundProcess server(argv);
      reply(control, "OK started");
      const auto status = server.wait_for(std::chrono::seconds(static_cast<long long>(kMaxOperationSeconds)));
      server.stop();
      reply(control, fmt::format("EXIT {}", status ? *status : -1));
      break;
    }
    }
  }
}

} // namespace dpusim::calib
