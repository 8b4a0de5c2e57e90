#include "models/base/atomic_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace dpusim {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMarker = ".dpusim-tmp-";
constexpr std::size_t kRandomChars = 6;   // mkstemp's XXXXXX
constexpr std::size_t kMaxNameChars = 96; // of the target's name kept in the temporary's name
constexpr double kClockSlackS = 2;        // /proc start times are in clock ticks, btime in seconds

// This host's name as it appears in temporaries: [A-Za-z0-9._-], at most 64 characters.
std::string host_tag() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
    return "localhost";
  std::string out;
  for (const char* c = buf; *c != '\0' && out.size() < 64; ++c) {
    const auto u = static_cast<unsigned char>(*c);
    out += std::isalnum(u) != 0 || *c == '.' || *c == '_' || *c == '-' ? *c : '_';
  }
  return out;
}

struct TemporaryName {
  std::string host;
  pid_t pid = 0;
};

// ".<name>.dpusim-tmp-<host>-<pid>-XXXXXX" -> host and pid.
std::optional<TemporaryName> parse_temporary_name(std::string_view name) {
  if (name.size() < 2 || name.front() != '.')
    return std::nullopt;
  const auto marker = name.rfind(kMarker);
  if (marker == std::string_view::npos || marker == 0)
    return std::nullopt;
  std::string_view rest = name.substr(marker + kMarker.size());
  if (rest.size() < kRandomChars + 4 || rest[rest.size() - kRandomChars - 1] != '-')
    return std::nullopt;
  for (const char c : rest.substr(rest.size() - kRandomChars))
    if (std::isalnum(static_cast<unsigned char>(c)) == 0)
      return std::nullopt;
  rest.remove_suffix(kRandomChars + 1);
  const auto dash = rest.rfind('-');
  if (dash == std::string_view::npos || dash == 0)
    return std::nullopt;
  const std::string_view digits = rest.substr(dash + 1);
  long long pid = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (ec != std::errc() || end != digits.data() + digits.size() || pid <= 0 || pid > 0x7fffffff)
    return std::nullopt;
  return TemporaryName{std::string(rest.substr(0, dash)), static_cast<pid_t>(pid)};
}

std::optional<double> boot_time_s() {
  std::ifstream in("/proc/stat");
  std::string key;
  while (in >> key) {
    if (key == "btime") {
      double t = 0;
      if (in >> t)
        return t;
      return std::nullopt;
    }
    in.ignore(1 << 20, '\n');
  }
  return std::nullopt;
}

// When the process now running as `pid` started, in seconds since the epoch.
std::optional<double> process_start_s(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string stat = ss.str();
  const auto close = stat.rfind(')'); // the command name may hold spaces and parentheses
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  // Fields after the name start at 3 (state); the start time is field 22.
  for (int i = 3; i <= 22; ++i)
    if (!(fields >> field))
      return std::nullopt;
  const auto boot = boot_time_s();
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (!boot || ticks <= 0)
    return std::nullopt;
  return *boot + std::strtod(field.c_str(), nullptr) / static_cast<double>(ticks);
}

bool made_by_a_process_that_is_gone(pid_t pid, const struct stat& st) {
  if (::kill(pid, 0) != 0 && errno == ESRCH)
    return true;
  // Running (or not ours to signal): stale only if that process is younger than the temporary.
  const auto start = process_start_s(pid);
  const double written =
      static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
  return start && *start > written + kClockSlackS;
}

void write_and_close(const Temporary& t, std::string_view content, const fs::path& target) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(t.fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const std::string why = std::strerror(errno);
      ::close(t.fd);
      ::unlink(t.path.c_str());
      throw std::runtime_error(fmt::format("cannot write {}: {}", target.string(), why));
    }
    written += static_cast<std::size_t>(n);
  }
  ::fchmod(t.fd, 0644);
  if (::fsync(t.fd) != 0 || ::close(t.fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(t.path.c_str());
    throw std::runtime_error(fmt::format("cannot flush {}: {}", target.string(), why));
  }
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// An OutputSet's temporary directory holds only the set's plain files (never a link to follow).
bool remove_temporary_directory(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    ::unlink(it->path().c_str());
  return ::rmdir(dir.c_str()) == 0;
}

// The process's file mode creation mask, read without changing it (Linux 4.7+); 022 where unknown.
mode_t current_umask() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8) & 0777);
  return 022;
}

fs::path directory_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

void make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
}

} // namespace

Temporary create_temporary(const fs::path& dir, std::string_view name) {
  std::string tmpl =
      (dir / fmt::format(".{}{}{}-{}-XXXXXX", name.substr(0, kMaxNameChars), kMarker, host_tag(), ::getpid()))
          .string();
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot create a temporary file in {}: {}", dir.string(), std::strerror(errno)));
  return Temporary{tmpl, fd};
}

namespace {

// A temporary directory of dpusim's naming beside where `name` will be, with the mode a new directory
// gets (mkdtemp's is 0700).
fs::path create_temporary_directory(const fs::path& parent, std::string_view name) {
  std::string tmpl = (parent / fmt::format(".{}{}{}-{}-XXXXXX", name.substr(0, kMaxNameChars), kMarker,
                                           host_tag(), ::getpid()))
                         .string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw std::runtime_error(
        fmt::format("cannot create a temporary directory in {}: {}", parent.string(), std::strerror(errno)));
  ::chmod(tmpl.c_str(), 0777 & ~current_umask());
  return tmpl;
}

} // namespace

std::vector<fs::path> remove_stale_temporaries(const fs::path& dir) {
  std::vector<fs::path> removed;
  const std::string host = host_tag();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto parsed = parse_temporary_name(name);
    if (!parsed || parsed->host != host)
      continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
      continue;
    if (!made_by_a_process_that_is_gone(parsed->pid, st))
      continue;
    if (S_ISREG(st.st_mode) ? ::unlink(it->path().c_str()) == 0 : remove_temporary_directory(it->path()))
      removed.push_back(it->path());
  }
  return removed;
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  const fs::path dir = directory_of(path);
  make_directory(dir);
  remove_stale_temporaries(dir);
  const Temporary t = create_temporary(dir, path.filename().string());
  write_and_close(t, content, path);
  if (std::rename(t.path.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(t.path.c_str());
    throw std::runtime_error(
        fmt::format("cannot move the new file into place at {}: {}", path.string(), why));
  }
  sync_directory(dir);
}

TemporaryDirectory::TemporaryDirectory(const fs::path& parent, std::string_view name) {
  make_directory(parent);
  remove_stale_temporaries(parent);
  path_ = create_temporary_directory(parent, name);
}

TemporaryDirectory::~TemporaryDirectory() {
  remove_temporary_directory(path_);
}

OutputSet::OutputSet(fs::path dir, NewDirectory new_directory) : dir_(std::move(dir)) {
  if (!dir_.empty() && !dir_.has_filename()) // "out/x/"
    dir_ = dir_.parent_path();
  if (dir_.empty())
    dir_ = ".";
  std::error_code ec;
  const bool absent = fs::symlink_status(dir_, ec).type() == fs::file_type::not_found;
  const std::string name = dir_.filename().string();
  if (absent && new_directory == NewDirectory::staged && name != "." && name != "..") {
    const fs::path parent = directory_of(dir_);
    make_directory(parent);
    remove_stale_temporaries(parent);
    staging_ = create_temporary_directory(parent, name);
  } else {
    make_directory(dir_);
    remove_stale_temporaries(dir_);
  }
}

OutputSet::~OutputSet() {
  for (const auto& p : pending_)
    ::unlink(p.temporary.c_str());
  if (!staging_.empty())
    ::rmdir(staging_.c_str());
}

fs::path OutputSet::add(const std::string& name, std::string_view content) {
  const fs::path target = dir_ / name;
  Temporary t;
  if (staging_.empty()) {
    t = create_temporary(dir_, name);
  } else { // the whole directory is temporary: the file has its final name there
    t.path = staging_ / name;
    t.fd = ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (t.fd < 0)
      throw std::runtime_error(fmt::format("cannot create {}: {}", t.path.string(), std::strerror(errno)));
  }
  pending_.push_back({t.path, target}); // removed by the destructor if anything below fails
  write_and_close(t, content, target);
  return target;
}

void OutputSet::publish() {
  if (!staging_.empty()) {
    if (std::rename(staging_.c_str(), dir_.c_str()) == 0) {
      pending_.clear();
      staging_.clear();
      sync_directory(directory_of(dir_));
      return;
    }
    // Someone made the directory meanwhile (another command, a trace written into it): file by file.
    make_directory(dir_);
  }
  publish_file_by_file();
  if (!staging_.empty() && ::rmdir(staging_.c_str()) == 0)
    staging_.clear();
}

void OutputSet::publish_file_by_file() {
  for (const auto& p : pending_) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(p.target, ec)))
      throw std::runtime_error(
          fmt::format("cannot replace {}: it is a directory (nothing was written)", p.target.string()));
  }
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (std::rename(pending_[i].temporary.c_str(), pending_[i].target.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));
      throw std::runtime_error(fmt::format("cannot move the new file into place at {}: {}{}",
                                           pending_.front().target.string(), why,
                                           i == 0 ? "" : " (the files before it were replaced)"));
    }
  }
  pending_.clear();
  sync_directory(dir_);
}

} // namespace dpusim
