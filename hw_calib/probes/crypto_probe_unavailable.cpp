// Compiled instead of crypto_probe.cpp when OpenSSL was not found at configure time.
#include "hw_calib/probes/crypto_probe.hpp"

namespace dpusim::calib {

ProbeResult run_crypto_probe(const ProbeContext& /*ctx*/) {
  return skipped("dpusim-calib was built without OpenSSL (libssl-dev not found at configure time); "
                 "rebuild with OpenSSL to measure AES-GCM");
}

} // namespace dpusim::calib
