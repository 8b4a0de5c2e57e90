#include "models/base/atomic_file.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/report.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#ifndef DPUSIM_DEFAULT_DATA_DIR
#define DPUSIM_DEFAULT_DATA_DIR "."
#endif

namespace dpusim::cli {
namespace {

namespace fs = std::filesystem;

// The files a run, a comparison or a Monte Carlo leaves that the report can draw from.
constexpr std::array kInputs = {"comparison.csv", "run.csv", "samples.csv", "distribution.csv", "points.csv"};
// render.py's exit statuses besides 0.
constexpr int kRendererBadInput = 2;
constexpr int kRendererNoMatplotlib = 3;
constexpr int kExecFailed = 127;
constexpr double kDefaultTimeoutS = 300;
constexpr double kMaxTimeoutS = 86400; // a day: far beyond any report, and within the clock's range

fs::path renderer_script() {
  const char* env = std::getenv("DPUSIM_DATA_DIR");
  const fs::path root = env != nullptr && *env != '\0' ? fs::path(env) : fs::path(DPUSIM_DEFAULT_DATA_DIR);
  return root / "tools" / "report" / "render.py";
}

// Debian's python3-matplotlib is installed for the system interpreter, which a python3 earlier on the
// PATH (a virtual environment, pyenv) may not see: DPUSIM_PYTHON first, then /usr/bin/python3, then
// python3 on the PATH.
std::string python_interpreter() {
  if (const char* env = std::getenv("DPUSIM_PYTHON"); env != nullptr && *env != '\0')
    return env;
  if (::access("/usr/bin/python3", X_OK) == 0)
    return "/usr/bin/python3";
  return "python3";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in)
    throw std::runtime_error(fmt::format("cannot read {}", p.string()));
  return s.str();
}

// A scratch directory under the system's temporary directory, removed with the object.
class Scratch {
public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "dpusim-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    path_ = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

private:
  fs::path path_;
};

// Runs argv (no shell) and waits at most timeout_s; returns the exit status, 128+N for signal N, or
// nullopt when it ran out of time (it is then killed).
std::optional<int> run_bounded(const std::vector<std::string>& argv, double timeout_s) {
  // Built before fork: the child only calls async-signal-safe functions until exec.
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv.front(), std::strerror(errno)));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(kExecFailed);
    ::execvp(args.front(), args.data());
    ::_exit(kExecFailed);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR)
      throw std::runtime_error(fmt::format("waiting for {}: {}", argv.front(), std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int render_with_timeout(const fs::path& dir, const fs::path& html, bool quiet, double timeout_s) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::cerr << fmt::format("dpusim report: {} is not a directory\n", dir.string());
    return kBadInput;
  }
  bool any = false;
  for (const auto* name : kInputs)
    any = any || fs::is_regular_file(dir / name, ec);
  if (!any) {
    std::cerr << fmt::format(
        "dpusim report: no outputs of dpusim run, compare or plan in {} (looked for {})\n", dir.string(),
        fmt::join(kInputs, ", "));
    return kBadInput;
  }
  if (fs::is_directory(html, ec)) {
    std::cerr << fmt::format("dpusim report: --out {} is a directory; give the HTML file's path\n",
                             html.string());
    return kBadInput;
  }
  const fs::path script = renderer_script();
  if (!fs::is_regular_file(script, ec)) {
    std::cerr << fmt::format("dpusim report: the renderer {} is missing (set DPUSIM_DATA_DIR to the source "
                             "tree)\n",
                             script.string());
    return kFailure;
  }
  const Scratch scratch;
  const fs::path figures_name = html.stem().string() + "-figures";
  const fs::path out_html = scratch.path() / "report.html";
  const fs::path out_figures = scratch.path() / "figures";
  const std::string python = python_interpreter();
  const auto status =
      run_bounded({python, script.string(), "--dir", dir.string(), "--html", out_html.string(), "--figures",
                   out_figures.string(), "--figures-link", figures_name.string()},
                  timeout_s);
  if (!status) {
    std::cerr << fmt::format("dpusim report: the renderer ran out of time ({:g} s; --timeout)\n", timeout_s);
    return kFailure;
  }
  if (*status == kExecFailed) {
    std::cerr << fmt::format("dpusim report: cannot run {} (the report needs Python 3 with matplotlib: "
                             "Debian's python3-matplotlib, which tools/setup.sh installs; DPUSIM_PYTHON "
                             "names another interpreter)\n",
                             python);
    return kFailure;
  }
  if (*status == kRendererNoMatplotlib) {
    std::cerr << fmt::format("dpusim report: {} has no matplotlib (install Debian's python3-matplotlib, as "
                             "tools/setup.sh does, or set DPUSIM_PYTHON to an interpreter that has it)\n",
                             python);
    return kFailure;
  }
  if (*status == kRendererBadInput)
    return kBadInput; // the renderer said which file is malformed
  if (*status != 0) {
    std::cerr << fmt::format("dpusim report: the renderer failed (exit status {})\n", *status);
    return kFailure;
  }
  // The figures first, then the page: the HTML appears once everything it names is in place.
  const fs::path out_dir = html.parent_path().empty() ? fs::path(".") : html.parent_path();
  const fs::path figures_dir = out_dir / figures_name;
  std::set<std::string> written;
  {
    OutputSet figures(figures_dir);
    for (const auto& e : fs::directory_iterator(out_figures))
      if (e.is_regular_file()) {
        figures.add(e.path().filename().string(), read_file(e.path()));
        written.insert(e.path().filename().string());
      }
    figures.publish();
  }
  // Figures of an earlier report that this one has not drawn (e.g. a distribution) would mislead.
  for (const auto& e : fs::directory_iterator(figures_dir, ec)) {
    const auto name = e.path().filename().string();
    const auto ext = e.path().extension();
    if (e.is_regular_file() && written.count(name) == 0 && (ext == ".svg" || ext == ".png" || ext == ".json"))
      fs::remove(e.path(), ec);
  }
  OutputSet page(out_dir);
  page.add(html.filename().string(), read_file(out_html));
  page.publish();
  if (!quiet) {
    std::cout << fmt::format("wrote {}\n", html.string());
    std::cout << fmt::format("wrote {} ({} figures as SVG and PNG, data.json: what they plot)\n",
                             figures_dir.string(), (written.size() - 1) / 2);
  }
  return kOk;
}

} // namespace

void add_report_option(po::options_description& options) {
  options.add_options()("report", "also render <out>/report.html, the outputs' figures and notes (see dpusim "
                                  "report --help)");
}

int render_report(const fs::path& dir, const fs::path& html, bool quiet) {
  return render_with_timeout(dir, html, quiet, kDefaultTimeoutS);
}

int command_report(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()                                                                                  //
      ("out,o", po::value<std::string>(), "the HTML file to write (default: DIR/report.html)")           //
      ("timeout", po::value<double>()->default_value(kDefaultTimeoutS), "seconds the renderer may take") //
      ("quiet,q", "print only errors")                                                                   //
      ("help,h", "show this help and exit");
  po::options_description all;
  all.add(options);
  all.add_options()("dir", po::value<std::string>(), "output directory of a run");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help") != 0) {
    std::cout
        << "Usage: dpusim report DIR [--out FILE]\n\n"
           "Renders the outputs dpusim run, compare or plan wrote in DIR (comparison.csv or run.csv,\n"
           "attribution.csv, samples.csv and distribution.csv, run-info.json; or a plan's points.csv) into\n"
           "one self-contained HTML file that opens offline: per variant the step-time breakdown, the host\n"
           "and Arm cores by function and the speed-up; with --attribute, each function's share; with\n"
           "samples, the step time's distribution with p50 and p99; for a plan, time to train against\n"
           "cluster size and the Pareto front; the key inputs and every note the run reported. Each\n"
           "figure is also written as SVG and PNG in <FILE stem>-figures/\n"
           "beside the HTML, with data.json (what each figure plots). Drawn by tools/report/render.py\n"
           "with matplotlib (Debian: python3-matplotlib; DPUSIM_PYTHON names the interpreter).\n"
           "Exit status: 0 done, 1 the renderer is missing or failed, 2 bad input (nothing written).\n\n"
        << options << "\n";
    return kOk;
  }
  po::notify(vm);
  if (vm.count("dir") == 0)
    throw po::error("missing the output directory to report on (usage: dpusim report DIR [--out FILE])");
  const fs::path dir = vm["dir"].as<std::string>();
  if (vm.count("out") != 0 && vm["out"].as<std::string>().empty())
    throw po::error("--out needs a file name");
  const fs::path html = vm.count("out") != 0 ? fs::path(vm["out"].as<std::string>()) : dir / "report.html";
  const double timeout_s = vm["timeout"].as<double>();
  if (!(timeout_s > 0) || timeout_s > kMaxTimeoutS)
    throw po::error(fmt::format("--timeout must be above 0 and at most {:g} seconds", kMaxTimeoutS));
  return render_with_timeout(dir, html, vm.count("quiet") != 0, timeout_s);
}

} // namespace dpusim::cli
