// The client side of the control protocol (control_protocol.hpp), used by the tcp and rdma probes.
#pragma once

#include "hw_calib/net/control_protocol.hpp"
#include "hw_calib/net/socket.hpp"

#include <string>

namespace dpusim::calib {

class PeerClient {
public:
  /// Connects, greets and authenticates with the server's token; throws SocketError / ProtocolError
  /// naming the peer.
  PeerClient(const std::string& host, int port, const std::string& token, double timeout_s = 10);
  [[nodiscard]] const std::string& host() const { return host_; }
  [[nodiscard]] const std::string& server_version() const { return server_version_; }
  /// Sends a SINK, SOURCE or ECHO request and returns the data port to connect to.
  int open_transfer(const Request& request);
  /// Waits for the server's report on the transfer just done.
  TransferReport finish_transfer(double timeout_s);
  /// PERFTEST: asks the peer to start a perftest server; then await_perftest() for its exit status.
  void start_perftest(const std::string& test, int port);
  int await_perftest(double timeout_s);
  void bye();

private:
  std::string request(const std::string& line, double timeout_s);

  std::string host_;
  Socket control_;
  LineReader reader_;
  std::string server_version_;
};

} // namespace dpusim::calib
