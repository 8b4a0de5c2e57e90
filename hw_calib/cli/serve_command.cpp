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
  po::options_description opts(
      "dpusim-calib serve [options]\n\n"
      "The peer side of two-node probes (run --peer HOST on the other node). Speaks a small line protocol\n"
      "(dpusim-calib/1): data transfers for the tcp probe and, for the rdma probe, starting perftest "
      "servers\n"
      "from a fixed list of tests. It never executes commands it is sent. Stops on "
      "SIGINT/SIGTERM.\n\nOptions");
  opts.add_options()("help,h",
                     "show this help")("listen", po::value<std::string>()->default_value("0.0.0.0"),
                                       "numeric address to listen on (0.0.0.0, ::, 127.0.0.1, ...)")(
      "port", po::value<int>()->default_value(18515), "control port (data transfers use ephemeral ports)")(
      "idle-timeout", po::value<double>()->default_value(30),
      "seconds of silence after which a session is closed")(
      "sessions", po::value<int>()->default_value(0), "exit after this many sessions (0: run until stopped)")(
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
  install_interrupt_handlers();
  PeerServerOptions o;
  o.address = vm["listen"].as<std::string>();
  o.port = port;
  o.idle_timeout_s = idle;
  o.allow_perftest = vm.count("no-perftest") == 0;
  o.rdma_device = vm["rdma-device"].as<std::string>();
  o.log = [](const std::string& line) { std::cerr << "serve: " << line << "\n"; };
  PeerServer server(o);
  // The port line is the first line of output, so that scripts and tests can read an ephemeral port.
  std::cout << fmt::format("listening on {} port {} ({})", o.address, server.port(), kProtocolName)
            << std::endl;
  const std::atomic<bool> never{false};
  server.serve(never, vm["sessions"].as<int>());
  if (stop_requested())
    std::cerr << fmt::format("serve: stopped by {}\n", signal_name(stop_signal()));
  return kExitOk;
}

} // namespace dpusim::calib
