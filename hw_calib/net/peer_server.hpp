// The peer side of two-node probes (`dpusim-calib serve`): answers the control protocol
// (control_protocol.hpp), one session at a time, each bounded by an idle timeout and every data transfer
// by its own time limit. The tcp probe also runs one in a thread on 127.0.0.1 for loopback measurements.
#pragma once

#include "hw_calib/net/socket.hpp"

#include <atomic>
#include <functional>
#include <string>

namespace dpusim::calib {

struct PeerServerOptions {
  std::string address = "0.0.0.0";
  int port = 18515;             // 0: an ephemeral port (see PeerServer::port())
  double idle_timeout_s = 30;   // a session that sends nothing for this long is closed
  double accept_timeout_s = 10; // for the data connection after a PORT answer
  bool allow_perftest = true;   // PERFTEST requests start perftest servers (fixed argument lists)
  std::string rdma_device;      // -d for those perftest servers; chosen here, never by the client
  std::function<void(const std::string&)> log; // one line per session event; may be empty
};

class PeerServer {
public:
  /// Binds and listens; throws SocketError with the address when that fails.
  explicit PeerServer(PeerServerOptions options);
  [[nodiscard]] int port() const { return port_; }
  /// Serves sessions until `stop` becomes true or SIGINT/SIGTERM arrives (then returns normally).
  /// With max_sessions > 0, returns after that many sessions.
  void serve(const std::atomic<bool>& stop, int max_sessions = 0);

private:
  void session(Socket control, const std::atomic<bool>& stop);
  void log(const std::string& line) const;

  PeerServerOptions options_;
  Socket listener_;
  int port_ = 0;
};

} // namespace dpusim::calib
