#include "sim/planner/journal.hpp"

#include "models/base/input_error.hpp"
#include "sim/planner/table.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace dpusim::planner {

namespace {

constexpr std::string_view kMagic = "dpusim-plan-journal 1 ";

std::string escape(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '\\')
      out += "\\\\";
    else if (ch == '\n')
      out += "\\n";
    else
      out += ch;
  }
  return out;
}

std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, path.string(), std::strerror(errno)));
}

void write_all(int fd, std::string_view text, const std::filesystem::path& path) {
  while (!text.empty()) {
    const auto n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      fail("cannot write the journal", path);
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(fd) != 0)
    fail("cannot sync the journal", path);
}

std::string header(std::uint64_t fingerprint) {
  return fmt::format("{}{:016x}\n", kMagic, fingerprint);
}

} // namespace

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash) {
  for (const char ch : text) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

Journal::Journal(std::filesystem::path path, std::uint64_t fingerprint, bool resume)
    : path_(std::move(path)) {
  std::size_t keep = 0; // bytes of the old journal to keep: its header and its whole, intact entries
  if (resume && std::filesystem::exists(path_)) {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string expected = header(fingerprint);
    if (text.size() >= expected.size() && text.compare(0, expected.size(), expected) == 0) {
      keep = expected.size();
      while (true) {
        const auto end = text.find('\n', keep);
        if (end == std::string::npos)
          break; // cut short by a kill
        const std::string_view line(text.data() + keep, end - keep);
        const auto s1 = line.find(' ');
        const auto s2 = s1 == std::string_view::npos ? s1 : line.find(' ', s1 + 1);
        if (s2 == std::string_view::npos)
          break;
        const std::string_view point_text = line.substr(0, s1);
        const std::string_view sum_text = line.substr(s1 + 1, s2 - s1 - 1);
        const std::string_view payload = line.substr(s2 + 1);
        if (fmt::format("{:016x}", fnv1a(payload, fnv1a(point_text))) != sum_text)
          break;
        const auto rows = parse_csv(unescape(payload) + "\n");
        if (rows.size() != 1)
          break;
        kept_.emplace(std::stoull(std::string(point_text)), rows.front());
        keep = end + 1;
      }
    } else if (text.size() >= kMagic.size() && text.compare(0, kMagic.size(), kMagic) == 0 &&
               text.find('\n') != std::string::npos) {
      throw InputError(Location{path_.string(), 1, 1}, "",
                       "this is the journal of another plan or shard (the plan, its base scenario, the "
                       "catalog or --shard changed); run without --resume to start over");
    }
  }
  if (keep == 0) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      fail("cannot create the journal", path_);
    write_all(fd_, header(fingerprint), path_);
    return;
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0)
    fail("cannot open the journal", path_);
  if (::ftruncate(fd_, static_cast<off_t>(keep)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
    fail("cannot cut the journal back to its last whole entry", path_);
}

Journal::~Journal() {
  if (fd_ >= 0)
    ::close(fd_);
}

void Journal::append(std::size_t point, const std::vector<std::string>& row) {
  std::string payload = escape(csv_line(row));
  payload.pop_back(); // the escaped '\n' ("\\n")
  payload.pop_back();
  const std::string point_text = std::to_string(point);
  write_all(fd_, fmt::format("{} {:016x} {}\n", point_text, fnv1a(payload, fnv1a(point_text)), payload),
            path_);
}

void Journal::remove() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

} // namespace dpusim::planner
