#include "hw_calib/net/socket.hpp"

#include "hw_calib/common/deadline.hpp"
#include "hw_calib/common/interrupt.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace dpusim::calib {
namespace {

// Waits for `events` in steps of at most 100 ms; throws on interruption or at the deadline.
void wait_for(int fd, short events, Deadline deadline, const char* what) {
  while (true) {
    throw_if_stop_requested();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
      throw SocketTimeout(fmt::format("timed out while {}", what));
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (r > 0)
      return;
    if (r < 0 && errno != EINTR)
      throw SocketError(fmt::format("poll failed while {}: {}", what, std::strerror(errno)));
  }
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

} // namespace

Socket::Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Socket::~Socket() {
  close();
}

void Socket::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

void Socket::shutdown_write() {
  if (fd_ >= 0)
    ::shutdown(fd_, SHUT_WR);
}

void Socket::set_nodelay() const {
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int Socket::local_port() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return 0;
  if (addr.ss_family == AF_INET)
    return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return 0;
}

std::string Socket::peer_address() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return {};
  char host[NI_MAXHOST] = {};
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof host, nullptr, 0,
                    NI_NUMERICHOST) != 0)
    return {};
  return host;
}

std::size_t Socket::send_some(const void* data, std::size_t size, Deadline deadline) const {
  while (true) {
    const ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0)
      return static_cast<std::size_t>(n);
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw SocketError(fmt::format("send failed: {}", std::strerror(errno)));
    wait_for(fd_, POLLOUT, deadline, "sending");
  }
}

void Socket::send_all(const void* data, std::size_t size, Deadline deadline) const {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t done = 0;
  while (done < size)
    done += send_some(p + done, size - done, deadline);
}

std::size_t Socket::recv_some(void* data, std::size_t size, Deadline deadline) const {
  while (true) {
    const ssize_t n = ::recv(fd_, data, size, MSG_DONTWAIT);
    if (n >= 0)
      return static_cast<std::size_t>(n);
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw SocketError(fmt::format("receive failed: {}", std::strerror(errno)));
    wait_for(fd_, POLLIN, deadline, "receiving");
  }
}

bool Socket::recv_exact(void* data, std::size_t size, Deadline deadline) const {
  auto* p = static_cast<unsigned char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const std::size_t n = recv_some(p + done, size - done, deadline);
    if (n == 0) {
      if (done == 0)
        return false;
      throw SocketError(fmt::format("the peer closed the connection after {} of {} bytes", done, size));
    }
    done += n;
  }
  return true;
}

Socket listen_tcp(const std::string& address, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(address.c_str(), service.c_str(), &hints, &res); rc != 0)
    throw SocketError(
        fmt::format("cannot listen on \"{}\": {} (give a numeric address such as 0.0.0.0 or ::)", address,
                    ::gai_strerror(rc)));
  const std::unique_ptr<addrinfo, void (*)(addrinfo*)> guard(res, ::freeaddrinfo);
  Socket s(::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol));
  if (!s.valid())
    throw SocketError(fmt::format("socket: {}", std::strerror(errno)));
  int one = 1;
  ::setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(s.fd(), res->ai_addr, res->ai_addrlen) != 0)
    throw SocketError(fmt::format("cannot bind {}:{}: {}", address, port, std::strerror(errno)));
  if (::listen(s.fd(), SOMAXCONN) != 0)
    throw SocketError(fmt::format("listen: {}", std::strerror(errno)));
  set_nonblocking(s.fd());
  return s;
}

Socket accept_connection(const Socket& listener, Deadline deadline) {
  while (true) {
    wait_for(listener.fd(), POLLIN, deadline, "waiting for a connection");
    const int fd = ::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0)
      return Socket(fd);
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED)
      throw SocketError(fmt::format("accept: {}", std::strerror(errno)));
  }
}

Socket connect_tcp(const std::string& host, int port, Deadline deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0)
    throw SocketError(fmt::format("cannot resolve \"{}\": {}", host, ::gai_strerror(rc)));
  const std::unique_ptr<addrinfo, void (*)(addrinfo*)> guard(res, ::freeaddrinfo);
  std::string last_error = "no address";
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!s.valid())
      continue;
    if (::connect(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last_error = std::strerror(errno);
      continue;
    }
    wait_for(s.fd(), POLLOUT, deadline, fmt::format("connecting to {}:{}", host, port).c_str());
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      last_error = std::strerror(err);
      continue;
    }
    return s;
  }
  throw SocketError(fmt::format("cannot connect to {}:{}: {}", host, port, last_error));
}

std::string LineReader::read_line(Deadline deadline) {
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      return line;
    }
    if (buffer_.size() > max_)
      throw SocketError(fmt::format("a control line is longer than {} characters", max_));
    char chunk[256];
    const std::size_t n = socket_.recv_some(chunk, sizeof chunk, deadline);
    if (n == 0)
      throw SocketError("the peer closed the connection");
    buffer_.append(chunk, n);
  }
}

} // namespace dpusim::calib
