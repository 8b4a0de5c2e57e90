// The peer side of two-node probes (`dpusim-calib serve`): answers the control protocol
// (control_protocol.hpp) for clients that give its pre-shared token. Sessions run concurrently, each in
// a thread of its own, so that one client cannot hold the server while another waits: at most
// `max_sessions` at once and `max_per_address` from one address (more are told the server is busy).
// A client must authenticate within `auth_timeout_s`; a session ends after `idle_timeout_s` without a
// request and after `session_limit_s` in all, whatever the client does; every data transfer has its own
// time limit within that. The tcp probe also runs one in a thread on 127.0.0.1 for loopback measurements.
#pragma once

#include "hw_calib/net/socket.hpp"

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace dpusim::calib {

struct PeerServerOptions {
  std::string address = "127.0.0.1"; // loopback unless another address is asked for
  int port = 18515;                  // 0: an ephemeral port (see PeerServer::port())
  std::string token;                 // required from every client (AUTH); see token_problem()
  double auth_timeout_s = 10;        // from connecting to a successful AUTH
  double idle_timeout_s = 30;        // a session that sends nothing for this long is closed
  double session_limit_s = 900;      // total time of one session
  double accept_timeout_s = 10;      // for the data connection after a PORT answer
  int max_sessions = 8;              // served at once
  int max_per_address = 4;           // served at once for one client address
  bool allow_perftest = true;        // PERFTEST requests start perftest servers (fixed argument lists)
  std::string rdma_device;           // -d for those perftest servers; chosen here, never by the client
  std::function<void(const std::string&)> log; // one line per session event; may be empty; thread-safe
};

class PeerServer {
public:
  /// Binds and listens; throws SocketError with the address when that fails and std::invalid_argument
  /// for a missing or unusable token.
  explicit PeerServer(PeerServerOptions options);
  PeerServer(const PeerServer&) = delete;
  PeerServer& operator=(const PeerServer&) = delete;
  ~PeerServer();
  [[nodiscard]] int port() const { return port_; }
  /// Serves sessions until `stop` becomes true or SIGINT/SIGTERM arrives, then ends the sessions still
  /// open and returns. With max_authenticated > 0, returns once that many authenticated sessions have
  /// ended.
  void serve(const std::atomic<bool>& stop, int max_authenticated = 0);

private:
  struct Session {
    std::thread thread;
    std::string address;
    int control_fd = -1; // while open, for shutdown() when the server stops
    bool authenticated = false;
    bool finished = false;
  };

  void run_session(Session& entry, Socket control, const std::atomic<bool>& stop);
  void session(Session& entry, const Socket& control, const std::atomic<bool>& stop);
  /// Joins the sessions that finished; returns how many authenticated ones that were.
  int reap(bool all);
  void log(const std::string& line) const;

  PeerServerOptions options_;
  Socket listener_;
  int port_ = 0;
  std::mutex mutex_; // guards sessions_ and their fields
  std::list<Session> sessions_;
  mutable std::mutex log_mutex_;
};

} // namespace dpusim::calib
