// Reading user-given files is bounded whatever they are: /dev/zero, a FIFO that no process writes to, a
// file with a 16 MiB line, a file over the size limit, a directory. Each ends with an error naming the
// file, in bounded time and memory, quoting at most a short excerpt.
#include "../test_data.hpp"
#include "hw_calib/common/bounded_input.hpp"

#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>

using namespace dpusim::calib;
using dpusim::calib::testing::ScratchDir;

namespace {

std::string error_of(const std::filesystem::path& path, const InputLimits& limits = {}) {
  try {
    (void)read_bounded_text(path, limits);
  } catch (const InputFileError& e) {
    return e.what();
  }
  return "no error";
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

} // namespace

TEST(calib_BoundedInput, DevZeroIsBinaryAndStopsAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto message = error_of("/dev/zero");
  EXPECT_NE(message.find("/dev/zero"), std::string::npos) << message;
  EXPECT_NE(message.find("binary data"), std::string::npos) << message;
  EXPECT_LT(seconds_since(t0), 1.0);
}

TEST(calib_BoundedInput, AFifoWithoutWriterEndsAtTheTimeLimit) {
  const ScratchDir dir;
  const auto fifo = dir.path() / "no-writer";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  InputLimits limits;
  limits.time_limit_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const auto message = error_of(fifo, limits);
  const double took = seconds_since(t0);
  EXPECT_NE(message.find("nothing could be read within 0.5 s"), std::string::npos) << message;
  EXPECT_NE(message.find("no-writer"), std::string::npos) << message;
  EXPECT_GE(took, 0.45);
  EXPECT_LT(took, 3.0);
}

TEST(calib_BoundedInput, ASixteenMebibyteLineIsRefusedEarly) {
  const ScratchDir dir;
  const auto path = dir.path() / "long-line.txt";
  {
    std::ofstream out(path, std::ios::binary);
    out << "# nThread 1 nGpus 8\n";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 16; ++i)
      out << chunk;
    out << "\n";
  }
  const long rss_before = max_rss_kib();
  const auto t0 = std::chrono::steady_clock::now();
  const auto message = error_of(path);
  EXPECT_NE(message.find("line 2"), std::string::npos) << message.substr(0, 300);
  EXPECT_NE(message.find("longer than 64 KiB"), std::string::npos) << message.substr(0, 300);
  EXPECT_LT(message.size(), 300u); // a short excerpt, not the line
  EXPECT_LT(seconds_since(t0), 1.0);
  // It stops 64 KiB into the line: nowhere near the 16 MiB are held.
  EXPECT_LT(max_rss_kib() - rss_before, 8 * 1024);
}

TEST(calib_BoundedInput, LargeFilesDirectoriesAndMissingFiles) {
  const ScratchDir dir;
  const auto path = dir.path() / "big.txt";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string line(100, 'y');
    for (int i = 0; i < 1100; ++i)
      out << line << "\n";
  }
  InputLimits small;
  small.max_bytes = 100000;
  EXPECT_NE(error_of(path, small).find("more than the"), std::string::npos);
  EXPECT_NE(error_of(dir.path()).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of(dir.path() / "absent").find("cannot open it"), std::string::npos);
  // Within the limits, the text comes back whole, also without a final newline.
  {
    std::ofstream out(dir.path() / "ok.txt", std::ios::binary);
    out << "a\nb";
  }
  EXPECT_EQ(read_bounded_text(dir.path() / "ok.txt"), "a\nb");
}

TEST(calib_BoundedInput, APipeWithAWriterIsReadToItsEnd) {
  const ScratchDir dir;
  const auto fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << "first line\n";
    out.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    out << "second line\n";
  });
  const auto text = read_bounded_text(fifo);
  writer.join();
  EXPECT_EQ(text, "first line\nsecond line\n");
}

TEST(calib_BoundedInput, ExcerptsAreShortAndPrintable) {
  EXPECT_EQ(excerpt("abc"), "abc");
  EXPECT_EQ(excerpt(std::string(100, 'z'), 10), "zzzzzzzzzz...");
  EXPECT_EQ(excerpt(std::string("a\x01\x7f") + "b"), "a\\x01\\x7fb");
}
