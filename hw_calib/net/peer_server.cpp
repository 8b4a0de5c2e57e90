#include "hw_calib/net/peer_server.hpp"

#include "hw_calib/common/cpu_time.hpp"
#include "hw_calib/common/deadline.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/net/control_protocol.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/socket.h>
#include <vector>

namespace dpusim::calib {
namespace {

void reply(const Socket& s, const std::string& line, Deadline limit) {
  const std::string text = line + "\n";
  s.send_all(text.data(), text.size(), std::min(deadline_in(10), limit));
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

TransferReport sink(const Socket& data, double seconds, Deadline session_end) {
  std::vector<unsigned char> buf(1u << 20);
  Measure m;
  double bytes = 0;
  const Deadline end = std::min(deadline_in(seconds + 5), session_end);
  while (true) {
    const std::size_t n = data.recv_some(buf.data(), buf.size(), end);
    if (n == 0)
      break;
    bytes += static_cast<double>(n);
  }
  return m.finish(bytes);
}

TransferReport source(const Socket& data, double seconds, std::size_t size, Deadline session_end) {
  std::vector<unsigned char> buf(size, 0x6b);
  Measure m;
  double bytes = 0;
  const auto end = std::min(deadline_in(seconds), session_end);
  const Deadline limit = std::min(deadline_in(seconds + 5), session_end);
  while (Clock::now() < end) {
    data.send_all(buf.data(), buf.size(), limit);
    bytes += static_cast<double>(size);
  }
  return m.finish(bytes);
}

TransferReport echo(const Socket& data, std::uint64_t count, std::size_t size, double idle_s,
                    Deadline session_end) {
  data.set_nodelay();
  std::vector<unsigned char> buf(size);
  Measure m;
  double bytes = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!data.recv_exact(buf.data(), size, std::min(deadline_in(idle_s), session_end)))
      break;
    data.send_all(buf.data(), size, std::min(deadline_in(idle_s), session_end));
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

// The data connection of a transfer: the first one from the control connection's address (others are
// closed, so that a third party cannot take the transfer's place).
Socket accept_data(const Socket& listener, const std::string& address, Deadline deadline,
                   const std::function<void(const std::string&)>& log) {
  while (true) {
    Socket data = accept_connection(listener, deadline);
    const std::string from = data.peer_address();
    if (from == address)
      return data;
    log(fmt::format("closed a data connection from {}: the session is {}'s", from, address));
  }
}

} // namespace

PeerServer::PeerServer(PeerServerOptions options) : options_(std::move(options)) {
  if (const auto problem = token_problem(options_.token))
    throw std::invalid_argument("serve: " + *problem);
  if (options_.max_sessions < 1 || options_.max_per_address < 1)
    throw std::invalid_argument("serve: at least one session must be allowed");
  listener_ = listen_tcp(options_.address, options_.port);
  port_ = listener_.local_port();
}

PeerServer::~PeerServer() {
  {
    const std::lock_guard lock(mutex_);
    for (auto& s : sessions_)
      if (s.control_fd >= 0)
        ::shutdown(s.control_fd, SHUT_RDWR);
  }
  reap(true);
}

void PeerServer::log(const std::string& line) const {
  const std::lock_guard lock(log_mutex_);
  if (options_.log)
    options_.log(line);
}

int PeerServer::reap(bool all) {
  std::list<Session> done;
  {
    const std::lock_guard lock(mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const auto next = std::next(it);
      if (all || it->finished)
        done.splice(done.end(), sessions_, it); // the element stays where its thread refers to it
      it = next;
    }
  }
  int authenticated = 0;
  for (auto& s : done) {
    if (s.thread.joinable())
      s.thread.join();
    authenticated += s.authenticated ? 1 : 0;
  }
  return authenticated;
}

void PeerServer::serve(const std::atomic<bool>& stop, int max_authenticated) {
  int ended = 0;
  while (!stop.load() && !stop_requested()) {
    ended += reap(false);
    if (max_authenticated > 0 && ended >= max_authenticated)
      break;
    Socket control;
    try {
      control = accept_connection(listener_, deadline_in(0.2));
    } catch (const SocketTimeout&) {
      continue;
    } catch (const Interrupted&) {
      break;
    } catch (const SocketError& e) { // e.g. out of descriptors: wait for sessions to end
      log(fmt::format("cannot accept a connection: {}", e.what()));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const std::string address = control.peer_address();
    std::string refusal;
    {
      const std::lock_guard lock(mutex_);
      int open = 0;
      int same = 0;
      for (const auto& s : sessions_) {
        if (s.finished)
          continue;
        ++open;
        same += s.address == address ? 1 : 0;
      }
      if (open >= options_.max_sessions) {
        refusal = fmt::format("busy: {} sessions in progress, the most this server serves at once", open);
      } else if (same >= options_.max_per_address) {
        refusal = fmt::format("busy: {} sessions from {} in progress", same, address);
      } else {
        Session& entry = sessions_.emplace_back();
        entry.address = address;
        entry.control_fd = control.fd();
        entry.thread = std::thread([this, &entry, &stop, c = std::move(control)]() mutable {
          run_session(entry, std::move(c), stop);
        });
      }
    }
    if (!refusal.empty()) {
      log(fmt::format("refused a connection from {}: {}", address, refusal));
      const std::string text = "ERR " + refusal + "; try again later\n";
      try {
        (void)control.send_some(text.data(), text.size(), deadline_in(0.05));
      } catch (const std::exception&) {
        // It is closed either way.
      }
    }
  }
  // Whatever ended the loop, the sessions still open end now.
  {
    const std::lock_guard lock(mutex_);
    for (auto& s : sessions_)
      if (s.control_fd >= 0)
        ::shutdown(s.control_fd, SHUT_RDWR);
  }
  reap(true);
}

void PeerServer::run_session(Session& entry, Socket control, const std::atomic<bool>& stop) {
  try {
    session(entry, control, stop);
  } catch (const Interrupted&) {
    // Stopping: the acceptor ends too.
  } catch (const std::exception& e) {
    log(fmt::format("session from {} ended: {}", entry.address, e.what()));
  }
  {
    const std::lock_guard lock(mutex_);
    entry.control_fd = -1;
    entry.finished = true;
  }
  control.close();
}

void PeerServer::session(Session& entry, const Socket& control, const std::atomic<bool>& stop) {
  const Deadline session_end = deadline_in(options_.session_limit_s);
  const Deadline auth_end = std::min(deadline_in(options_.auth_timeout_s), session_end);
  LineReader reader(control, kMaxControlLine);
  int errors = 0;
  bool greeted = false;
  bool authenticated = false;
  while (!stop.load()) {
    std::string line;
    const Deadline idle_end = deadline_in(options_.idle_timeout_s);
    const Deadline hard_end = authenticated ? session_end : auth_end;
    try {
      line = reader.read_line(std::min(idle_end, hard_end));
    } catch (const SocketTimeout&) {
      const std::string why =
          idle_end < hard_end ? fmt::format("no request for {:g} s", options_.idle_timeout_s)
          : hard_end == session_end
              ? fmt::format("the session's time limit ({:g} s) is over", options_.session_limit_s)
              : fmt::format("no AUTH within {:g} s", options_.auth_timeout_s);
      log(fmt::format("closing a session from {}: {}", entry.address, why));
      try {
        reply(control, "ERR " + why, deadline_in(1));
      } catch (const std::exception&) {
        // Closed either way.
      }
      return;
    }
    Request req;
    try {
      req = parse_request(line);
      if (!greeted && req.command != Command::hello)
        throw ProtocolError(fmt::format("say HELLO {} first", kProtocolName));
      if (!authenticated && req.command != Command::hello && req.command != Command::auth)
        throw ProtocolError(
            fmt::format("authenticate first: AUTH <token> (the client reads the server's token "
                        "from {} or --token-file)",
                        kTokenEnvironment));
    } catch (const ProtocolError& e) {
      reply(control, fmt::format("ERR {}", e.what()), session_end);
      if (++errors >= 3) {
        log(fmt::format("closing a session from {} after 3 bad requests", entry.address));
        return;
      }
      continue;
    }
    switch (req.command) {
    case Command::hello:
      greeted = true;
      reply(control, fmt::format("OK {} {}", kProtocolName, DPUSIM_VERSION), session_end);
      break;
    case Command::auth:
      if (!tokens_match(req.token, options_.token)) {
        log(fmt::format("refused a session from {}: wrong token", entry.address));
        reply(control, "ERR wrong token", session_end);
        return;
      }
      authenticated = true;
      {
        const std::lock_guard lock(mutex_);
        entry.authenticated = true;
      }
      reply(control, "OK authenticated", session_end);
      break;
    case Command::bye:
      reply(control, "OK bye", session_end);
      return;
    case Command::sink:
    case Command::source:
    case Command::echo: {
      Socket listener = listen_tcp(options_.address, 0);
      reply(control, fmt::format("PORT {}", listener.local_port()), session_end);
      const Socket data =
          accept_data(listener, entry.address, std::min(deadline_in(options_.accept_timeout_s), session_end),
                      [this](const std::string& l) { log(l); });
      listener.close();
      TransferReport report;
      if (req.command == Command::sink)
        report = sink(data, req.seconds, session_end);
      else if (req.command == Command::source)
        report = source(data, req.seconds, req.size, session_end);
      else
        report = echo(data, req.count, req.size, options_.idle_timeout_s, session_end);
      log(fmt::format("{} from {}: {:.0f} bytes in {:.2f} s", format_request(req), entry.address,
                      report.bytes, report.seconds));
      reply(control, format_report(report), session_end);
      break;
    }
    case Command::perftest: {
      if (!options_.allow_perftest) {
        reply(control, "ERR this server was started with --no-perftest", session_end);
        break;
      }
      const auto argv = perftest_server_argv(req.perftest, req.port, options_.rdma_device);
      if (!find_executable(argv.front())) {
        reply(control, fmt::format("ERR {} is not installed on the peer (perftest package)", argv.front()),
              session_end);
        break;
      }
      BackgroundProcess server(argv);
      reply(control, "OK started", session_end);
      const double left = std::min(kMaxOperationSeconds, seconds_between(Clock::now(), session_end));
      const auto status =
          server.wait_for(std::chrono::milliseconds(static_cast<long long>(std::max(0.0, left) * 1000)));
      server.stop();
      reply(control, fmt::format("EXIT {}", status ? *status : -1), session_end);
      break;
    }
    }
  }
}

} // namespace dpusim::calib
