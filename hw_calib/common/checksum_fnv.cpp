#include "hw_calib/common/checksum.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace dpusim::calib {

// Built without OpenSSL: 64-bit FNV-1a, named as such so that nobody takes it for SHA-256.
std::string content_checksum(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

} // namespace dpusim::calib
