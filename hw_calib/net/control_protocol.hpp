// The control protocol between the tcp/rdma probes and `dpusim-calib serve` on the peer. Text lines of at
// most 256 characters, one request and its answers at a time:
//
//   client: HELLO dpusim-calib/2             server: OK dpusim-calib/2 <version>
//   client: AUTH <token>                     server: OK authenticated    (or ERR ..., and it hangs up)
//   client: SINK <seconds> <size>            server: PORT <p>  ... DONE bytes= seconds= cpu_user= cpu_sys=
//   client: SOURCE <seconds> <size>          server: PORT <p>  ... DONE ...
//   client: ECHO <count> <size>              server: PORT <p>  ... DONE ...
//   client: PERFTEST <test> <port>           server: OK started ... EXIT <status>
//   client: BYE                              server: OK bye
//   any error                                server: ERR <what was wrong and what is valid>
//
// Nothing but HELLO and AUTH is served before the client has given the server's pre-shared token; a
// wrong token ends the session. The token is compared in constant time but travels as clear text: it
// keeps other users and scanners of the network out, not someone who can read the traffic.
// SINK: the server receives on a new connection to port p until the client closes it or <seconds> pass.
// SOURCE: the server sends <size>-byte writes for <seconds>. ECHO: the server returns each <size>-byte
// request, <count> times at most. The data connection must come from the control connection's address.
// PERFTEST starts the perftest server for one of a fixed set of tests (write_bw, write_lat, send_bw,
// send_lat) with arguments the server builds itself. Nothing the client sends is ever executed or passed
// to a shell; numbers are range-checked.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dpusim::calib {

inline constexpr std::string_view kProtocolName = "dpusim-calib/2";
/// Where both sides read the token from when no --token-file is given.
inline constexpr const char* kTokenEnvironment = "DPUSIM_CALIB_TOKEN";
inline constexpr std::size_t kMinTokenLength = 16;
inline constexpr std::size_t kMaxTokenLength = 128;
inline constexpr std::size_t kMaxControlLine = 256;
inline constexpr double kMaxOperationSeconds = 120;
inline constexpr std::size_t kMaxMessageSize = 16u << 20;
inline constexpr std::uint64_t kMaxEchoCount = 10'000'000;

class ProtocolError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class Command { hello, auth, sink, source, echo, perftest, bye };

struct Request {
  Command command = Command::hello;
  double seconds = 0;      // sink, source
  std::size_t size = 0;    // sink, source, echo
  std::uint64_t count = 0; // echo
  std::string perftest;    // write_bw | write_lat | send_bw | send_lat
  int port = 0;            // perftest's TCP port
  std::string token;       // auth
};

/// Parses and range-checks one request line; ProtocolError says what is valid.
Request parse_request(std::string_view line);
std::string format_request(const Request& request);

/// The server's measurement of one data transfer.
struct TransferReport {
  double bytes = 0;
  double seconds = 0;
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
};

std::string format_report(const TransferReport& report);
/// Parses "DONE bytes=.. seconds=.. cpu_user=.. cpu_sys=..".
TransferReport parse_report(std::string_view line);
/// True for the perftest tests a PERFTEST request may name.
bool is_perftest_test(std::string_view test);

/// Why `token` cannot be a pre-shared token (16 to 128 printable characters without spaces), if so.
std::optional<std::string> token_problem(std::string_view token);
/// Compares a token a client gave with the expected one in a time that depends only on the expected
/// token's length, not on the position of the first difference nor on the given token's length.
bool tokens_match(std::string_view given, std::string_view expected);
/// 32 hexadecimal digits from the kernel's random source (getrandom); throws std::runtime_error.
std::string random_token();

} // namespace dpusim::calib
