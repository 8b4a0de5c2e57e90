// crypto: AES-256-GCM encryption throughput of one core over buffer sizes (OpenSSL EVP), i.e. what
// encryption in transit costs the host when no inline engine does it. Built only when OpenSSL was found
// at configure time; otherwise the probe reports that it was built without OpenSSL.
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_crypto_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
