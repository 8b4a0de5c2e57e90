// libFuzzer target over `dpusim-calib ingest`: each input is taken as a recorded tool output (nccl-tests,
// perftest, fio, iperf3, openssl speed, lscpu, ethtool, nvidia-smi, ibv_devinfo, ibstat, mst, bfver),
// recognised from its content, parsed, checked and fitted. An input may be refused only as bad input
// (InputFileError naming the file and line, or the parsers' ParseError); any other exception, a crash, a
// sanitizer report, a hang (-timeout) or memory beyond -rss_limit_mb is a finding. tools/fuzz.sh runs it.
#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/ingest/ingest.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dpusim::calib;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* scope : {"network", "nvlink"}) {
    IngestOptions options;
    options.nccl_scope = scope;
    options.nccl_link_rate_Bps = 50e9;
    try {
      (void)ingest_text("fuzz.txt", text, options);
    } catch (const InputFileError&) {
      // bad input, reported as such
    } catch (const ParseError&) {
      // a format the parsers do not take, reported as such
    }
  }
  return 0;
}
