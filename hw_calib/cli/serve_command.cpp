#include "hw_calib/cli/commands.hpp"
#include "hw_calib/cli/option_parsing.hpp"
#include "hw_calib/cli/usage_error.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/net/control_protocol.hpp"
#include "hw_calib/net/peer_server.hpp"

#include <atomic>
#include <fmt/format.h>
#include <iostream>

namespace dpusim::calib {

namespace po = boost::program_options;

int serve_command(const std::vector<std::string>& args) {
  po::options_description opts(fmt::format(
      "dpusim-calib serve [options]\n\n"
      "The peer side of two-node probes (run --peer HOST on the other node). Speaks a small line protocol\n"
      "({}): data transfers for the tcp probe and, for the rdma probe, starting perftest servers from a\n"
      "fixed list of tests. It never executes commands it is sent. Stops on SIGINT/SIGTERM.\n\n"
      "Only clients that give its token are served: the first line of --token-file, else ${}, else a\n"
      "random token printed at start (the second line of output). `run --peer` reads the same file or\n"
      "variable. The token travels in clear text: it keeps other users and scanners out, not someone who\n"
      "can read the traffic. It listens on loopback unless --listen names an address: give the address\n"
      "of the interface that faces the other node (0.0.0.0 or :: for all). Sessions run concurrently\n"
      "(--max-sessions, 4 from one address), each ends after --session-limit seconds in all.\n\nOptions",
      kProtocolName, kTokenEnvironment));
  opts.add_options()("help,h", "show this help")(
      "listen", po::value<std::string>()->default_value("127.0.0.1"),
      "numeric address to listen on (127.0.0.1, 0.0.0.0, ::, 192.0.2.10, ...)")(
      "port", po::value<int>()->default_value(18515), "control port (data transfers use ephemeral ports)")(
      "token-file", po::value<std::string>(),
      fmt::format("file whose first line is the token (default: ${} or a random one)", kTokenEnvironment)
          .c_str())("idle-timeout", po::value<double>()->default_value(30),
                    "seconds of silence after which a session is closed")(
      "session-limit", po::value<double>()->default_value(900),
      "seconds a session may last in all, whatever the client does")(
      "max-sessions", po::value<int>()->default_value(8),
      "sessions served at once")("sessions", po::value<int>()->default_value(0),
                                 "exit after this many authenticated sessions (0: run until stopped)")(
      "no-perftest", "refuse PERFTEST requests")("rdma-device", po::value<std::string>()->default_value(""),
                                                 "-d for the perftest servers this peer starts");
  const auto vm = parse_options("serve", opts, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  const int port = vm["port"].as<int>();
  if (port < 0 || port > 65535)
    throw UsageError(fmt::format("--port {}: must be between 0 and 65535", port));
  const double idle = vm["idle-timeout"].as<double>();
  if (!(idle > 0) || idle > 3600)
    throw UsageError(fmt::format("--idle-timeout {}: must be in (0, 3600] seconds", idle));
  const double limit = vm["session-limit"].as<double>();
  if (!(limit > 0) || limit > 86400)
    throw UsageError(fmt::format("--session-limit {}: must be in (0, 86400] seconds", limit));
  const int max_sessions = vm["max-sessions"].as<int>();
  if (max_sessions < 1 || max_sessions > 256)
    throw UsageError(fmt::format("--max-sessions {}: must be between 1 and 256", max_sessions));
  std::string token_source;
  const auto given = token_option(vm, token_source);
  install_interrupt_handlers();
  PeerServerOptions o;
  o.address = vm["listen"].as<std::string>();
  o.port = port;
  o.token = given ? *given : random_token();
  o.idle_timeout_s = idle;
  o.session_limit_s = limit;
  o.max_sessions = max_sessions;
  o.max_per_address = std::min(max_sessions, 4);
  o.allow_perftest = vm.count("no-perftest") == 0;
  o.rdma_device = vm["rdma-device"].as<std::string>();
  o.log = [](const std::string& line) { std::cerr << "serve: " << line << "\n"; };
  PeerServer server(o);
  // The port line is the first line of output, so that scripts and tests can read an ephemeral port;
  // a generated token is the second.
  std::cout << fmt::format("listening on {} port {} ({})", o.address, server.port(), kProtocolName) << "\n";
  if (given)
    std::cout << fmt::format("token from {}", token_source) << std::endl;
  else
    std::cout << fmt::format("token {} (generated; give it to run as {}=...)", o.token, kTokenEnvironment)
              << std::endl;
  const std::atomic<bool> never{false};
  server.serve(never, vm["sessions"].as<int>());
  if (stop_requested())
    std::cerr << fmt::format("serve: stopped by {}\n", signal_name(stop_signal()));
  return kExitOk;
}

} // namespace dpusim::calib
