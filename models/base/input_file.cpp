#include "models/base/input_file.hpp"

#include "models/base/input_error.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace dpusim {

std::string read_input_file(const std::string& path, const std::string& what) {
  const Location at{path, 0, 0};
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw InputError(at, "", "cannot open the file (does it exist and is it readable?)");
  if (!std::filesystem::is_regular_file(status))
    throw InputError(at, "",
                     std::filesystem::is_directory(status)
                         ? fmt::format("is a directory, not {}", what)
                         : fmt::format("is not a regular file (a device or a pipe?), not {}", what));
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxFileBytes)
    throw InputError(at, "", fmt::format("is larger than {} MiB: not {}", kMaxFileBytes >> 20, what));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(at, "", "cannot open the file (does it exist and is it readable?)");
  // Read at most the limit even if the file grew since it was measured.
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

} // namespace dpusim
