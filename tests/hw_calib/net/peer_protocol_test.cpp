// The serve side's control protocol: strict parsing, bounded sessions, and nothing executed.
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/net/control_protocol.hpp"
#include "hw_calib/net/peer_client.hpp"
#include "hw_calib/net/peer_server.hpp"

#include <atomic>
#include <gtest/gtest.h>
#include <thread>

using namespace dpusim::calib;

TEST(calib_ControlProtocol, ParsesTheDocumentedRequests) {
  const Request sink = parse_request("SINK 2.5 131072");
  EXPECT_EQ(sink.command, Command::sink);
  EXPECT_DOUBLE_EQ(sink.seconds, 2.5);
  EXPECT_EQ(sink.size, 131072u);
  EXPECT_EQ(parse_request("ECHO 1000 64").count, 1000u);
  EXPECT_EQ(parse_request("PERFTEST write_bw 18601").perftest, "write_bw");
  EXPECT_EQ(parse_request("HELLO dpusim-calib/1").command, Command::hello);
  EXPECT_EQ(parse_request(format_request(sink)).size, sink.size);
}

TEST(calib_ControlProtocol, RejectsAnythingElseSayingWhatIsValid) {
  auto message = [](const std::string& line) {
    try {
      (void)parse_request(line);
    } catch (const ProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("EXEC rm -rf /").find("valid: HELLO, SINK, SOURCE, ECHO, PERFTEST, BYE"),
            std::string::npos);
  EXPECT_NE(message("PERFTEST ib_write_bw;reboot 18601").find("unknown perftest test"), std::string::npos);
  EXPECT_NE(message("PERFTEST write_bw 22").find("port must be"), std::string::npos);
  EXPECT_NE(message("SINK 1e9 100").find("seconds must be"), std::string::npos);
  EXPECT_NE(message("SINK 1 0").find("size must be"), std::string::npos);
  EXPECT_NE(message("SINK 1").find("takes 2 argument"), std::string::npos);
  EXPECT_NE(message("HELLO other/2").find("unsupported protocol"), std::string::npos);
  EXPECT_NE(message(std::string(300, 'A')).find("longer than"), std::string::npos);
  EXPECT_NE(message("\x01\x02GARBAGE").find("unknown request \"??GARBAGE\""), std::string::npos);
}

TEST(calib_ControlProtocol, ReportRoundTrip) {
  const TransferReport r{1.5e9, 1.25, 0.1, 0.9};
  const TransferReport back = parse_report(format_report(r));
  EXPECT_DOUBLE_EQ(back.bytes, 1.5e9);
  EXPECT_NEAR(back.cpu_sys_s, 0.9, 1e-9);
  EXPECT_THROW((void)parse_report("DONE bytes=x seconds=1 cpu_user=0 cpu_sys=0"), ProtocolError);
}

namespace {

class ServerThread {
public:
  explicit ServerThread(double idle_timeout_s = 5) {
    PeerServerOptions o;
    o.address = "127.0.0.1";
    o.port = 0;
    o.idle_timeout_s = idle_timeout_s;
    server_ = std::make_unique<PeerServer>(o);
    thread_ = std::thread([this] { server_->serve(stop_); });
  }
  ~ServerThread() {
    stop_ = true;
    thread_.join();
  }
  [[nodiscard]] int port() const { return server_->port(); }

private:
  std::atomic<bool> stop_{false};
  std::unique_ptr<PeerServer> server_;
  std::thread thread_;
};

std::string exchange(const Socket& s, LineReader& reader, const std::string& line) {
  const std::string text = line + "\n";
  s.send_all(text.data(), text.size(), deadline_in(5));
  return reader.read_line(deadline_in(5));
}

} // namespace

TEST(calib_PeerServer, AnswersErrorsAndClosesAfterThreeBadRequests) {
  clear_stop_request();
  ServerThread server;
  const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  LineReader reader(s, kMaxControlLine);
  EXPECT_EQ(exchange(s, reader, "SINK 1 100").rfind("ERR say HELLO", 0), 0u); // must greet first
  EXPECT_EQ(exchange(s, reader, "HELLO dpusim-calib/1").rfind("OK dpusim-calib/1", 0), 0u);
  EXPECT_EQ(exchange(s, reader, "sh -c 'touch /tmp/pwned'").rfind("ERR unknown request", 0), 0u);
  EXPECT_EQ(exchange(s, reader, "PERFTEST ../../bin/sh 20000").rfind("ERR unknown perftest test", 0), 0u);
  // The third bad request ends the session.
  EXPECT_THROW((void)reader.read_line(deadline_in(5)), SocketError);
}

TEST(calib_PeerServer, IdleSessionsAreClosed) {
  clear_stop_request();
  ServerThread server(0.3);
  const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  LineReader reader(s, kMaxControlLine);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW((void)reader.read_line(deadline_in(5)), SocketError); // closed by the server, not our deadline
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 4.0);
}

TEST(calib_PeerServer, SinkSourceAndEchoTransfers) {
  clear_stop_request();
  ServerThread server;
  PeerClient client("127.0.0.1", server.port());
  EXPECT_NE(client.server_version().find("dpusim-calib/1"), std::string::npos);
  Request sink;
  sink.command = Command::sink;
  sink.seconds = 2;
  sink.size = 1024;
  {
    Socket data = connect_tcp("127.0.0.1", client.open_transfer(sink), deadline_in(5));
    const std::vector<unsigned char> buf(100000, 1);
    data.send_all(buf.data(), buf.size(), deadline_in(5));
    data.shutdown_write();
    EXPECT_DOUBLE_EQ(client.finish_transfer(10).bytes, 100000);
  }
  Request echo;
  echo.command = Command::echo;
  echo.count = 3;
  echo.size = 16;
  {
    Socket data = connect_tcp("127.0.0.1", client.open_transfer(echo), deadline_in(5));
    std::vector<unsigned char> buf(16, 7), back(16);
    for (int i = 0; i < 3; ++i) {
      data.send_all(buf.data(), buf.size(), deadline_in(5));
      ASSERT_TRUE(data.recv_exact(back.data(), back.size(), deadline_in(5)));
      EXPECT_EQ(back, buf);
    }
    EXPECT_DOUBLE_EQ(client.finish_transfer(10).bytes, 48);
  }
  client.bye();
}
