// TCP sockets with deadlines: every blocking operation polls in short steps, gives up at its deadline
// (SocketTimeout) and stops when SIGINT/SIGTERM was received (Interrupted). Used by `serve` and by the
// tcp probe's client.
#pragma once

#include "hw_calib/common/deadline.hpp"

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace dpusim::calib {

class SocketError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};
class SocketTimeout : public SocketError {
public:
  using SocketError::SocketError;
};

class Socket {
public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  ~Socket();

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }
  [[nodiscard]] int local_port() const;
  /// The numeric address of the other end ("192.0.2.7", "::1"); empty when unknown.
  [[nodiscard]] std::string peer_address() const;
  void close();
  void shutdown_write();
  void set_nodelay() const;

  /// Sends everything or throws (SocketError when the peer went away, SocketTimeout at the deadline).
  void send_all(const void* data, std::size_t size, Deadline deadline) const;
  /// Sends what the socket accepts now (at most `size`), waiting at most until `deadline` for room.
  std::size_t send_some(const void* data, std::size_t size, Deadline deadline) const;
  /// Receives at most `size` bytes; 0 means the peer closed its side.
  std::size_t recv_some(void* data, std::size_t size, Deadline deadline) const;
  /// Receives exactly `size` bytes; false when the peer closed before the first byte.
  bool recv_exact(void* data, std::size_t size, Deadline deadline) const;

private:
  int fd_ = -1;
};

/// Listens on `address` ("0.0.0.0", "127.0.0.1", "::") and `port` (0: an ephemeral port), with the
/// system's largest backlog (SOMAXCONN).
Socket listen_tcp(const std::string& address, int port);
/// Waits for one connection until the deadline.
Socket accept_connection(const Socket& listener, Deadline deadline);
/// Connects to host:port (a name or an address) until the deadline.
Socket connect_tcp(const std::string& host, int port, Deadline deadline);

/// Reads '\n'-terminated lines of at most `max_length` characters (longer lines are an error).
class LineReader {
public:
  LineReader(const Socket& socket, std::size_t max_length) : socket_(socket), max_(max_length) {}
  /// The next line without its terminator; throws SocketError when the peer closed first.
  std::string read_line(Deadline deadline);

private:
  const Socket& socket_;
  std::size_t max_;
  std::string buffer_;
};

} // namespace dpusim::calib
