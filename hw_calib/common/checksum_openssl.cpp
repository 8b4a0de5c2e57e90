#include "hw_calib/common/checksum.hpp"

#include <array>
#include <fmt/format.h>
#include <memory>
#include <openssl/evp.h>
#include <stdexcept>

namespace dpusim::calib {

std::string content_checksum(std::string_view bytes) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest.data(), &length) != 1)
    throw std::runtime_error("OpenSSL could not compute a SHA-256 digest");
  std::string hex = "sha256:";
  for (unsigned int i = 0; i < length; ++i)
    hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

} // namespace dpusim::calib
