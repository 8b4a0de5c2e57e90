#include "hw_calib/net/peer_client.hpp"

#include "hw_calib/common/text.hpp"

#include <fmt/format.h>

namespace dpusim::calib {
namespace {

std::string expect(const std::string& line, std::string_view word, const std::string& host) {
  if (starts_with(line, "ERR "))
    throw ProtocolError(fmt::format("peer {} refused: {}", host, line.substr(4)));
  if (!starts_with(line, word))
    throw ProtocolError(
        fmt::format("peer {}: expected \"{} ...\", got \"{}\"", host, word, line.substr(0, 80)));
  return std::string(trim(std::string_view(line).substr(word.size())));
}

} // namespace

PeerClient::PeerClient(const std::string& host, int port, const std::string& token, double timeout_s)
    : host_(fmt::format("{}:{}", host, port)), control_(connect_tcp(host, port, deadline_in(timeout_s))),
      reader_(control_, kMaxControlLine) {
  Request hello;
  hello.command = Command::hello;
  server_version_ = expect(request(format_request(hello), timeout_s), "OK", host_);
  Request auth;
  auth.command = Command::auth;
  auth.token = token;
  (void)expect(request(format_request(auth), timeout_s), "OK", host_);
}

std::string PeerClient::request(const std::string& line, double timeout_s) {
  const std::string text = line + "\n";
  control_.send_all(text.data(), text.size(), deadline_in(timeout_s));
  return reader_.read_line(deadline_in(timeout_s));
}

int PeerClient::open_transfer(const Request& req) {
  const std::string port = expect(request(format_request(req), 10), "PORT", host_);
  const auto p = parse_integer(port);
  if (!p || *p <= 0 || *p > 65535)
    throw ProtocolError(fmt::format("peer {}: bad data port \"{}\"", host_, port));
  return static_cast<int>(*p);
}

TransferReport PeerClient::finish_transfer(double timeout_s) {
  const std::string line = reader_.read_line(deadline_in(timeout_s));
  (void)expect(line, "DONE", host_);
  return parse_report(line);
}

void PeerClient::start_perftest(const std::string& test, int port) {
  Request r;
  r.command = Command::perftest;
  r.perftest = test;
  r.port = port;
  (void)expect(request(format_request(r), 10), "OK", host_);
}

int PeerClient::await_perftest(double timeout_s) {
  const std::string code = expect(reader_.read_line(deadline_in(timeout_s)), "EXIT", host_);
  return static_cast<int>(parse_integer(code).value_or(-1));
}

void PeerClient::bye() {
  try {
    (void)request("BYE", 5);
  } catch (const std::exception&) {
    // The session ends anyway when the connection closes.
  }
}

} // namespace dpusim::calib
