#include "hw_calib/net/control_protocol.hpp"

#include "hw_calib/common/text.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <sys/random.h>

namespace dpusim::calib {
namespace {

constexpr std::array<std::string_view, 4> kPerftestTests{"write_bw", "write_lat", "send_bw", "send_lat"};

double seconds_arg(std::string_view s) {
  const auto v = parse_number(s);
  if (!v || !(*v > 0) || *v > kMaxOperationSeconds)
    throw ProtocolError(
        fmt::format("seconds must be a number in (0, {}], found \"{}\"", kMaxOperationSeconds, s));
  return *v;
}

std::size_t size_arg(std::string_view s) {
  const auto v = parse_integer(s);
  if (!v || *v < 1 || static_cast<std::size_t>(*v) > kMaxMessageSize)
    throw ProtocolError(
        fmt::format("size must be a whole number of bytes in [1, {}], found \"{}\"", kMaxMessageSize, s));
  return static_cast<std::size_t>(*v);
}

} // namespace

bool is_perftest_test(std::string_view test) {
  for (const auto t : kPerftestTests) {
    if (t == test)
      return true;
  }
  return false;
}

Request parse_request(std::string_view line) {
  if (line.size() > kMaxControlLine)
    throw ProtocolError(fmt::format("request longer than {} characters", kMaxControlLine));
  const auto f = split_whitespace(line);
  if (f.empty())
    throw ProtocolError("empty request");
  Request r;
  auto expect_args = [&](std::size_t n, std::string_view usage) {
    if (f.size() != n + 1)
      throw ProtocolError(fmt::format("{} takes {} argument(s): {}", f[0], n, usage));
  };
  if (f[0] == "HELLO") {
    expect_args(1, "HELLO dpusim-calib/1");
    if (f[1] != kProtocolName)
      throw ProtocolError(
          fmt::format("unsupported protocol \"{}\"; this server speaks {}", f[1], kProtocolName));
    r.command = Command::hello;
  } else if (f[0] == "AUTH") {
    expect_args(1, "AUTH <token>");
    r.command = Command::auth;
    r.token = std::string(f[1]);
  } else if (f[0] == "SINK" || f[0] == "SOURCE") {
    expect_args(2, fmt::format("{} <seconds> <size>", f[0]));
    r.command = f[0] == "SINK" ? Command::sink : Command::source;
    r.seconds = seconds_arg(f[1]);
    r.size = size_arg(f[2]);
  } else if (f[0] == "ECHO") {
    expect_args(2, "ECHO <count> <size>");
    r.command = Command::echo;
    const auto count = parse_integer(f[1]);
    if (!count || *count < 1 || static_cast<std::uint64_t>(*count) > kMaxEchoCount)
      throw ProtocolError(
          fmt::format("count must be a whole number in [1, {}], found \"{}\"", kMaxEchoCount, f[1]));
    r.count = static_cast<std::uint64_t>(*count);
    r.size = size_arg(f[2]);
  } else if (f[0] == "PERFTEST") {
    expect_args(2, "PERFTEST <write_bw|write_lat|send_bw|send_lat> <port>");
    if (!is_perftest_test(f[1]))
      throw ProtocolError(
          fmt::format("unknown perftest test \"{}\"; valid: write_bw, write_lat, send_bw, send_lat", f[1]));
    const auto port = parse_integer(f[2]);
    if (!port || *port < 1024 || *port > 65535)
      throw ProtocolError(fmt::format("port must be in [1024, 65535], found \"{}\"", f[2]));
    r.command = Command::perftest;
    r.perftest = std::string(f[1]);
    r.port = static_cast<int>(*port);
  } else if (f[0] == "BYE") {
    expect_args(0, "BYE");
    r.command = Command::bye;
  } else {
    // Never echo more than a short, printable prefix of what was sent.
    std::string shown(f[0].substr(0, 32));
    for (auto& c : shown) {
      if (c < 0x20 || c > 0x7e)
        c = '?';
    }
    throw ProtocolError(
        fmt::format("unknown request \"{}\"; valid: HELLO, AUTH, SINK, SOURCE, ECHO, PERFTEST, BYE", shown));
  }
  return r;
}

std::string format_request(const Request& r) {
  switch (r.command) {
  case Command::hello:
    return fmt::format("HELLO {}", kProtocolName);
  case Command::auth:
    return fmt::format("AUTH {}", r.token);
  case Command::sink:
    return fmt::format("SINK {:.3f} {}", r.seconds, r.size);
  case Command::source:
    return fmt::format("SOURCE {:.3f} {}", r.seconds, r.size);
  case Command::echo:
    return fmt::format("ECHO {} {}", r.count, r.size);
  case Command::perftest:
    return fmt::format("PERFTEST {} {}", r.perftest, r.port);
  case Command::bye:
    return "BYE";
  }
  return "BYE";
}

std::optional<std::string> token_problem(std::string_view token) {
  if (token.size() < kMinTokenLength || token.size() > kMaxTokenLength)
    return fmt::format("a token must be {} to {} characters long, this one has {}", kMinTokenLength,
                       kMaxTokenLength, token.size());
  for (const char c : token)
    if (c <= 0x20 || c > 0x7e)
      return std::string("a token must be printable ASCII characters without spaces");
  return std::nullopt;
}

bool tokens_match(std::string_view given, std::string_view expected) {
  // volatile: the compiler must not turn the loop into one that stops at the first difference.
  volatile unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto g = static_cast<unsigned char>(i < given.size() ? given[i] : 0);
    diff = static_cast<unsigned char>(diff | (g ^ static_cast<unsigned char>(expected[i])));
  }
  return diff == 0;
}

std::string random_token() {
  std::array<unsigned char, 16> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw std::runtime_error(fmt::format("cannot draw a random token: {}", std::strerror(errno)));
    got += static_cast<std::size_t>(n);
  }
  std::string out;
  for (const unsigned char b : bytes)
    out += fmt::format("{:02x}", b);
  return out;
}

std::string format_report(const TransferReport& r) {
  return fmt::format("DONE bytes={:.0f} seconds={:.6f} cpu_user={:.6f} cpu_sys={:.6f}", r.bytes, r.seconds,
                     r.cpu_user_s, r.cpu_sys_s);
}

TransferReport parse_report(std::string_view line) {
  const auto f = split_whitespace(line);
  if (f.size() != 5 || f[0] != "DONE")
    throw ProtocolError(
        fmt::format("expected \"DONE bytes=.. seconds=.. cpu_user=.. cpu_sys=..\", got \"{}\"",
                    std::string(line.substr(0, kMaxControlLine))));
  TransferReport r;
  double* fields[] = {&r.bytes, &r.seconds, &r.cpu_user_s, &r.cpu_sys_s};
  const std::string_view names[] = {"bytes=", "seconds=", "cpu_user=", "cpu_sys="};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto v =
        starts_with(f[i + 1], names[i]) ? parse_number(f[i + 1].substr(names[i].size())) : std::nullopt;
    if (!v || *v < 0)
      throw ProtocolError(
          fmt::format("bad field \"{}\" in the report; expected {}<number>", f[i + 1], names[i]));
    *fields[i] = *v;
  }
  return r;
}

} // namespace dpusim::calib
