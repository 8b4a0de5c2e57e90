// The serve side's control protocol: strict parsing, bounded sessions, and nothing executed.
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/net/control_protocol.hpp"
#include "hw_calib/net/peer_client.hpp"
#include "hw_calib/net/peer_server.hpp"

#include <atomic>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

using namespace dpusim::calib;

TEST(calib_ControlProtocol, ParsesTheDocumentedRequests) {
  const Request sink = parse_request("SINK 2.5 131072");
  EXPECT_EQ(sink.command, Command::sink);
  EXPECT_DOUBLE_EQ(sink.seconds, 2.5);
  EXPECT_EQ(sink.size, 131072u);
  EXPECT_EQ(parse_request("ECHO 1000 64").count, 1000u);
  EXPECT_EQ(parse_request("PERFTEST write_bw 18601").perftest, "write_bw");
  EXPECT_EQ(parse_request("HELLO dpusim-calib/2").command, Command::hello);
  EXPECT_EQ(parse_request("AUTH abc").token, "abc");
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
  EXPECT_NE(message("EXEC rm -rf /").find("valid: HELLO, AUTH, SINK, SOURCE, ECHO, PERFTEST, BYE"),
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

const std::string kToken = "test-token-0123456789";

PeerServerOptions test_options(double idle_timeout_s = 5) {
  PeerServerOptions o;
  o.address = "127.0.0.1";
  o.port = 0;
  o.token = kToken;
  o.idle_timeout_s = idle_timeout_s;
  return o;
}

class ServerThread {
public:
  explicit ServerThread(const PeerServerOptions& options = test_options())
      : server_(std::make_unique<PeerServer>(options)), thread_([this] { server_->serve(stop_); }) {}
  ServerThread(const ServerThread&) = delete;
  ServerThread& operator=(const ServerThread&) = delete;
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

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

} // namespace

TEST(calib_PeerServer, AnswersErrorsAndClosesAfterThreeBadRequests) {
  clear_stop_request();
  ServerThread server;
  const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  LineReader reader(s, kMaxControlLine);
  EXPECT_EQ(exchange(s, reader, "SINK 1 100").rfind("ERR say HELLO", 0), 0u); // must greet first
  EXPECT_EQ(exchange(s, reader, "HELLO dpusim-calib/2").rfind("OK dpusim-calib/2", 0), 0u);
  EXPECT_EQ(exchange(s, reader, "sh -c 'touch /tmp/pwned'").rfind("ERR unknown request", 0), 0u);
  // The third bad request ends the session.
  EXPECT_EQ(exchange(s, reader, "PERFTEST ../../bin/sh 20000").rfind("ERR unknown perftest test", 0), 0u);
  EXPECT_THROW((void)reader.read_line(deadline_in(5)), SocketError);
}

TEST(calib_PeerServer, IdleSessionsAreClosed) {
  clear_stop_request();
  ServerThread server(test_options(0.3));
  const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  LineReader reader(s, kMaxControlLine);
  const auto t0 = Clock::now();
  EXPECT_EQ(reader.read_line(deadline_in(5)).rfind("ERR no request for 0.3 s", 0), 0u);
  EXPECT_THROW((void)reader.read_line(deadline_in(5)), SocketError); // closed by the server, not our deadline
  EXPECT_LT(seconds_since(t0), 4.0);
}

TEST(calib_PeerServer, RefusesAClientWithoutTheToken) {
  clear_stop_request();
  ServerThread server;
  {
    // Greeting is not enough: nothing is served before AUTH.
    const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
    LineReader reader(s, kMaxControlLine);
    EXPECT_EQ(exchange(s, reader, "HELLO dpusim-calib/2").rfind("OK", 0), 0u);
    EXPECT_EQ(exchange(s, reader, "SINK 1 100").rfind("ERR authenticate first", 0), 0u);
    EXPECT_EQ(exchange(s, reader, "PERFTEST write_bw 18601").rfind("ERR authenticate first", 0), 0u);
    // A wrong token ends the session at once.
    EXPECT_EQ(exchange(s, reader, "AUTH test-token-0123456788"), "ERR wrong token");
    EXPECT_THROW((void)reader.read_line(deadline_in(5)), SocketError);
  }
  try {
    const PeerClient wrong("127.0.0.1", server.port(), "another-token-0123456789");
    ADD_FAILURE() << "a client with another token was served";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("refused: wrong token"), std::string::npos) << e.what();
  }
  PeerClient right("127.0.0.1", server.port(), kToken);
  right.bye();
  // A server cannot be started without a usable token.
  PeerServerOptions none = test_options();
  none.token.clear();
  EXPECT_THROW(PeerServer{none}, std::invalid_argument);
  none.token = "short";
  EXPECT_THROW(PeerServer{none}, std::invalid_argument);
}

TEST(calib_PeerServer, ASessionEndsAtItsTimeLimitWhateverTheClientDoes) {
  clear_stop_request();
  PeerServerOptions o = test_options(0.5);
  o.session_limit_s = 1.5;
  ServerThread server(o);
  const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  LineReader reader(s, kMaxControlLine);
  const auto t0 = Clock::now();
  ASSERT_EQ(exchange(s, reader, "HELLO dpusim-calib/2").rfind("OK", 0), 0u);
  ASSERT_EQ(exchange(s, reader, "AUTH " + kToken), "OK authenticated");
  // A client that keeps greeting more often than the idle timeout is still cut at the session limit.
  std::string last;
  while (seconds_since(t0) < 6) {
    try {
      last = exchange(s, reader, "HELLO dpusim-calib/2");
    } catch (const SocketError&) {
      break;
    }
    if (last.rfind("ERR", 0) == 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double held = seconds_since(t0);
  EXPECT_LT(held, 3.0) << "the session was held for " << held << " s; last answer: " << last;
  EXPECT_GT(held, 1.0);
  EXPECT_NE(last.find("time limit (1.5 s) is over"), std::string::npos) << last;
}

TEST(calib_PeerServer, ServesASecondClientWhileAFirstTrickles) {
  clear_stop_request();
  ServerThread server;
  // The first client holds a connection and sends a byte every 50 ms, never a whole line.
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const Socket s = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
    const char byte = 'H';
    while (!done.load()) {
      try {
        s.send_all(&byte, 1, deadline_in(1));
      } catch (const SocketError&) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200)); // the trickler is connected first
  const auto t0 = Clock::now();
  bool served = false;
  try {
    PeerClient second("127.0.0.1", server.port(), kToken, 3);
    Request echo;
    echo.command = Command::echo;
    echo.count = 2;
    echo.size = 8;
    Socket data = connect_tcp("127.0.0.1", second.open_transfer(echo), deadline_in(3));
    std::vector<unsigned char> buf(8, 3), back(8);
    for (int i = 0; i < 2; ++i) {
      data.send_all(buf.data(), buf.size(), deadline_in(3));
      ASSERT_TRUE(data.recv_exact(back.data(), back.size(), deadline_in(3)));
    }
    served = second.finish_transfer(3).bytes == 16;
    second.bye();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the second client was not served: " << e.what();
  }
  done = true;
  trickle.join();
  EXPECT_TRUE(served);
  EXPECT_LT(seconds_since(t0), 2.0);
}

TEST(calib_PeerServer, RefusesConnectionsBeyondItsSessionLimit) {
  clear_stop_request();
  PeerServerOptions o = test_options();
  o.max_sessions = 2;
  ServerThread server(o);
  const Socket a = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  const Socket b = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(400)); // both accepted
  const Socket c = connect_tcp("127.0.0.1", server.port(), deadline_in(5));
  LineReader reader(c, kMaxControlLine);
  EXPECT_EQ(reader.read_line(deadline_in(5)).rfind("ERR busy: 2 sessions in progress", 0), 0u);
}

TEST(calib_PeerServer, TokensCompareWholeAndRandomTokensDiffer) {
  EXPECT_TRUE(tokens_match("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(tokens_match("0123456789abcdeX", "0123456789abcdef"));
  EXPECT_FALSE(tokens_match("0123456789abcde", "0123456789abcdef"));
  EXPECT_FALSE(tokens_match("0123456789abcdef0", "0123456789abcdef"));
  EXPECT_FALSE(tokens_match("", "0123456789abcdef"));
  const std::string a = random_token();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, random_token());
  EXPECT_FALSE(token_problem(a).has_value());
  EXPECT_TRUE(token_problem("too-short").has_value());
  EXPECT_TRUE(token_problem("has a space in it here").has_value());
  EXPECT_EQ(PeerServerOptions{}.address, "127.0.0.1"); // loopback unless asked
}

TEST(calib_PeerServer, SinkSourceAndEchoTransfers) {
  clear_stop_request();
  ServerThread server;
  PeerClient client("127.0.0.1", server.port(), kToken);
  EXPECT_NE(client.server_version().find("dpusim-calib/2"), std::string::npos);
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
