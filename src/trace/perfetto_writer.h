// Writes a Timeline as one Chrome trace JSON that Perfetto and
// chrome://tracing load: every (file, process) gets its own pid and every
// (process, device) its own pid too, so Kineto's device-index pids no longer
// collide across ranks. Metadata events name host, rank, device and stream;
// `otherData.files` lists each file's applied clock offset and drift. ts/dur
// are µs with three decimals (exact ns). Launch -> device op links
// (correlation ids) become ac2g flow events.
//
// Thread-compatible; the Timeline is only read.
#pragma once

#include <string>

#include "core/status.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

struct PerfettoOptions {
  bool flows = true;  // emit s/f flow pairs for correlated launches
};

// Streams the trace to `path` (written via a temp file, then renamed).
Status WritePerfettoJson(const Timeline& t, const std::string& path,
                         const PerfettoOptions& options = {});
// The same document in memory (tests, small traces).
std::string PerfettoJson(const Timeline& t, const PerfettoOptions& options = {});

}  // namespace gpufleet::trace
