// Process hygiene of `dpusim compare` and `run`: killing the command (SIGKILL, SIGTERM or SIGINT to the
// parent alone, as `timeout`, a scheduler or `kill PID` do) leaves no simulation process running; the
// temporaries a kill leaves in --out are removed by the next run once their process is gone; and the
// files of one command are replaced together or not at all.
#include "models/base/atomic_file.hpp"
#include "tests/support/subprocess.hpp"

#include <chrono>
#include <csignal>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sstream>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using dpusim::testing::run_command;
using dpusim::testing::spawn_quietly;
using dpusim::testing::TempDir;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;
const std::string kQuickstart = (kSource / "scenarios/examples/quickstart.yaml").string();

// Each variant takes a few seconds to simulate (about 3.5 s on one core, 170 MB): long enough for
// its worker to be seen running, and to outlive a killed parent by far if nothing stops it.
const std::string kSlowScenario = R"(name: slow-stragglers
cluster:
  nodes: 128
  node: dgx-h100
  nic: connectx-7
  dpu: bluefield-3
  fabric: {topology: fat-tree, tiers: 2, link: 400Gbps, latency: 1us, oversubscription: "1:1"}
workload:
  model: gpt3-13b
  seq_len: 2048
  global_batch: 8192
  micro_batch: 1
  parallelism: {tp: 8, dp: 128}
  precision: bf16
noise:
  gpu_jitter: 0.03
  slow_gpus: {fraction: 0.02, speed: 0.85}
offload: {baseline: host-tcp, variants: [rdma-nic, dpu]}
seed: 1
)";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ProcStat {
  char state = '?';
  int ppid = 0;
};

std::optional<ProcStat> proc_stat(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  ProcStat s;
  fields >> s.state >> s.ppid;
  return s;
}

std::vector<int> children_of(int parent) {
  std::vector<int> out;
  DIR* d = ::opendir("/proc");
  if (d == nullptr)
    return out;
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0')
      continue;
    const auto s = proc_stat(static_cast<int>(pid));
    if (s && s->ppid == parent && s->state != 'Z')
      out.push_back(static_cast<int>(pid));
  }
  ::closedir(d);
  return out;
}

bool running(int pid) {
  const auto s = proc_stat(pid);
  return s && s->state != 'Z' && s->state != 'X';
}

/// Starts `dpusim compare` on the slow scenario with two workers and returns once both run.
struct Compare {
  int parent = 0;
  std::vector<int> workers;
};

Compare start_compare(const TempDir& tmp) {
  const std::string file = tmp.path() + "/slow.yaml";
  std::ofstream(file) << kSlowScenario;
  Compare c;
  c.parent =
      spawn_quietly({DPUSIM_BINARY, "compare", file, "--jobs", "2", "--out", tmp.path() + "/out", "--quiet"});
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline && c.workers.size() < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    c.workers = children_of(c.parent);
  }
  return c;
}

/// The test process adopts what its children orphan (so that a surviving worker can be found, killed
/// and reaped here); reaps whatever is left at the end.
class Subreaper {
public:
  Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  Subreaper(const Subreaper&) = delete;
  Subreaper& operator=(const Subreaper&) = delete;
  ~Subreaper() {
    for (const int pid : children_of(static_cast<int>(::getpid())))
      ::kill(pid, SIGKILL);
    while (::waitpid(-1, nullptr, 0) > 0) {
    }
  }
};

// Waits for every worker to be dead (gone or a zombie); returns the time it took or nullopt.
std::optional<double> workers_dead_within(const std::vector<int>& workers, double seconds) {
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
    bool any = false;
    for (const int w : workers)
      any = any || running(w);
    if (!any)
      return std::chrono::duration<double>(Clock::now() - t0).count();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}

void stop_parent_and_expect_reaped_workers(int signal_number) {
  const Subreaper adopt;
  const TempDir tmp;
  const Compare c = start_compare(tmp);
  ASSERT_EQ(c.workers.size(), 2u) << "the workers never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = Clock::now();
  ASSERT_EQ(::kill(c.parent, signal_number), 0);
  int status = 0;
  int got = 0;
  while ((got = ::waitpid(c.parent, &status, WNOHANG)) == 0 && Clock::now() - t0 < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double exited_after = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_EQ(got, c.parent) << "compare still runs 5 s after " << strsignal(signal_number);
  // It dies of the signal it was sent (a shell reports 128+N) ...
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << status;
  // ... and only once it has reaped its workers: none is left, not even as a zombie for us to reap.
  for (const int w : c.workers)
    EXPECT_FALSE(fs::exists("/proc/" + std::to_string(w))) << "worker " << w << " outlived compare";
  EXPECT_FALSE(fs::exists(tmp.path() + "/out/comparison.csv"));
  std::cout << strsignal(signal_number) << ": compare exited " << exited_after * 1e3
            << " ms after the signal\n";
}

} // namespace

TEST(ProcessHygiene, SigkillOfCompareLeavesNoWorkerRunning) {
  const Subreaper adopt;
  const TempDir tmp;
  const Compare c = start_compare(tmp);
  ASSERT_EQ(c.workers.size(), 2u) << "the workers never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(::kill(c.parent, SIGKILL), 0);
  ::waitpid(c.parent, nullptr, 0);
  const auto dead = workers_dead_within(c.workers, 1.0);
  ASSERT_TRUE(dead.has_value()) << "a worker still runs 1 s after its parent was killed";
  std::cout << "workers dead " << *dead * 1e3 << " ms after their parent was reaped\n";
}

TEST(ProcessHygiene, SigtermToCompareIsForwardedToItsWorkers) {
  stop_parent_and_expect_reaped_workers(SIGTERM);
}

TEST(ProcessHygiene, SigintToCompareIsForwardedToItsWorkers) {
  stop_parent_and_expect_reaped_workers(SIGINT);
}

TEST(OutputSet, TheNextRunRemovesTemporariesWhoseProcessIsGone) {
  const TempDir tmp;
  const fs::path out = tmp.path() + "/out";
  fs::create_directories(out);
  // A run killed between writing and renaming: its temporary stays, its process is gone.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const auto t = dpusim::create_temporary(out, "run.csv");
    [[maybe_unused]] const auto n = ::write(t.fd, "partial", 7);
    ::_exit(0); // as if killed: no rename, no cleanup
  }
  ::waitpid(child, nullptr, 0);
  // One of a process that is running (this one): in use, kept.
  const auto live = dpusim::create_temporary(out, "comparison.csv");
  ::close(live.fd);
  // One whose PID now belongs to a younger process (this one, started after the file was written).
  const auto reused = dpusim::create_temporary(out, "samples.csv");
  ::close(reused.fd);
  const timespec old_times[2] = {{std::time(nullptr) - 86400 * 30, 0}, {std::time(nullptr) - 86400 * 30, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, reused.path.c_str(), old_times, 0), 0);
  // Not of dpusim's naming, or of another host: never touched.
  std::ofstream(out / ".keep") << "mine";
  std::ofstream(out / ".run.csv.dpusim-tmp-another-host-1-abcdef") << "theirs";
  std::vector<fs::path> stale;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind(".run.csv.dpusim-tmp-", 0) == 0 &&
        e.path().filename().string().find("another-host") == std::string::npos)
      stale.push_back(e.path());
  ASSERT_EQ(stale.size(), 1u);

  const auto r = run_command({DPUSIM_BINARY, "run", kQuickstart, "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale.front())) << "the dead run's temporary was left";
  EXPECT_FALSE(fs::exists(reused.path)) << "the temporary of a reused PID was left";
  EXPECT_TRUE(fs::exists(live.path)) << "a temporary still in use was removed";
  EXPECT_TRUE(fs::exists(out / ".keep"));
  EXPECT_TRUE(fs::exists(out / ".run.csv.dpusim-tmp-another-host-1-abcdef"));
  EXPECT_TRUE(fs::exists(out / "run.csv"));
  ::unlink(live.path.c_str());
}

namespace {

struct SetFailure {
  dpusim::testing::CommandResult result;
  std::size_t limit = 0;
};

// Runs `args` with a file size limit that the first file of its set fits in but a later one does not.
SetFailure run_with_file_size_limit(std::vector<std::string> args, std::size_t limit) {
  rlimit previous{};
  ::getrlimit(RLIMIT_FSIZE, &previous);
  rlimit capped = previous;
  capped.rlim_cur = limit;
  auto* const previous_handler = ::signal(SIGXFSZ, SIG_IGN); // the write fails instead (inherited)
  ::setrlimit(RLIMIT_FSIZE, &capped);
  SetFailure f{run_command(args), limit};
  ::setrlimit(RLIMIT_FSIZE, &previous);
  ::signal(SIGXFSZ, previous_handler);
  return f;
}

void expect_nothing_replaced_when_a_later_file_fails(const std::string& command, const std::string& first) {
  const TempDir tmp;
  const std::string ref = tmp.path() + "/reference";
  const auto r = run_command(
      {DPUSIM_BINARY, command, kQuickstart, "--samples", "4", "--jobs", "2", "--out", ref, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto first_size = fs::file_size(ref + "/" + first);
  const auto dist_size = fs::file_size(ref + "/distribution.csv");
  const auto samples_size = fs::file_size(ref + "/samples.csv");
  const auto fits = std::max(first_size, dist_size);
  ASSERT_GT(samples_size, fits + 512) << "samples.csv must be the largest file for this test";
  const std::string out = tmp.path() + "/out";
  fs::create_directories(out);
  for (const auto& f : {first, std::string("samples.csv"), std::string("distribution.csv")})
    std::ofstream(out + "/" + f) << "the previous run's " << f << "\n";
  const auto failed = run_with_file_size_limit(
      {DPUSIM_BINARY, command, kQuickstart, "--samples", "4", "--jobs", "2", "--out", out, "--quiet"},
      (fits + samples_size) / 2);
  EXPECT_EQ(failed.result.exit_code, 1) << failed.result.err;
  EXPECT_NE(failed.result.err.find("samples.csv"), std::string::npos) << failed.result.err;
  // Every file is the previous run's: the set was not published, not even its first file.
  for (const auto& f : {first, std::string("samples.csv"), std::string("distribution.csv")})
    EXPECT_EQ(read(out + "/" + f), "the previous run's " + f + "\n") << f;
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_NE(e.path().filename().string().front(), '.') << "a temporary was left: " << e.path();
  // Without the limit the same command publishes the whole set.
  const auto ok = run_command(
      {DPUSIM_BINARY, command, kQuickstart, "--samples", "4", "--jobs", "2", "--out", out, "--quiet"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  for (const auto& f : {first, std::string("samples.csv"), std::string("distribution.csv")})
    EXPECT_EQ(read(out + "/" + f), read(ref + "/" + f)) << f;
}

} // namespace

TEST(OutputSet, CompareReplacesNoneOfItsFilesWhenOneCannotBeWritten) {
  expect_nothing_replaced_when_a_later_file_fails("compare", "comparison.csv");
}

TEST(OutputSet, RunWithSamplesReplacesNoneOfItsFilesWhenOneCannotBeWritten) {
  expect_nothing_replaced_when_a_later_file_fails("run", "run.csv");
}
