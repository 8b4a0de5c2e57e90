// The checksum that records which file a profile's value came from: "sha256:<hex>" with OpenSSL's EVP
// interface (libcrypto, the library the crypto probe uses); a build without OpenSSL says
// "fnv1a64:<hex>" instead, naming the weaker hash it used.
#pragma once

#include <string>
#include <string_view>

namespace dpusim::calib {

std::string content_checksum(std::string_view bytes);

} // namespace dpusim::calib
