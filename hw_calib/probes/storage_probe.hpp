// storage: sequential (1 MiB) and random (4 KiB) read throughput with O_DIRECT, and the CPU time one
// core spends per byte read. By default the probe creates its own temporary file (in --storage-dir,
// default /var/tmp), fills it, reads it and deletes it, also when interrupted; it writes nowhere else.
// --storage-file reads an existing file or block device instead, read-only. With fio installed (and
// --storage-tool auto|fio) fio does the reads and its JSON output is parsed.
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_storage_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
