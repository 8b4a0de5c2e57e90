// iperf3 results (TCP), both layouts: the human-readable text of a client or a server (iperf3's
// iperf_api.c report formats: per-interval lines, then after "- - -" the summary lines ending in
// "sender" / "receiver", "CPU Utilization: local/sender ...%" with -V, "iperf Done." at the client's
// end; a server log holds one block per test and may end with "iperf3: interrupt - the server has
// terminated") and the -J JSON of either side (start.test_start, end.sum_sent, end.sum_received,
// end.cpu_utilization_percent). iperf3's CPU utilisation is its process's user + system time over the
// test's wall time, in percent of one CPU (getrusage), so bytes over CPU seconds is a per-core rate.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct Iperf3Test {
  int line = 0;         // where its summary starts (text) or 0 (JSON)
  bool server = false;  // the log is the server's
  bool reverse = false; // -R: the server sends
  int streams = 1;
  std::optional<double> sender_bps; // bits per second, summary "sender" line / end.sum_sent
  std::optional<double> receiver_bps;
  std::optional<double> seconds;
  std::optional<double> local_cpu_percent; // this side's process (host_total)
  std::optional<double> remote_cpu_percent;
  std::vector<double> interval_bps; // per-interval throughput of the (summed) streams
  /// This side sends: a client without -R, or a server with -R.
  [[nodiscard]] bool local_sends() const { return server == reverse; }
};

struct Iperf3Report {
  std::string version; // "iperf 3.12" when printed
  bool json = false;
  std::vector<Iperf3Test> tests; // complete tests only
  int incomplete_tests = 0;      // tests of a server log with no summary (interrupted)
  bool interrupted = false;      // "iperf3: interrupt"
};

/// Throws ParseError for UDP tests, output without a complete test, JSON with an "error" or without
/// its "end" section, and a client log without its summary (cut short).
Iperf3Report parse_iperf3(std::string_view text);

} // namespace dpusim::calib
