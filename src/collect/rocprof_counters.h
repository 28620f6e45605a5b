// rocprofv3 counter collection (`<pid>_counter_collection.csv`, written by
// `rocprofv3 --pmc ...`): the AMD source of gpu_l2_miss_ratio and
// gpu_memory_stall_ratio, which no always-on interface reports. A conditional
// capture runs rocprofv3 on the node (docs/detection.md) and the server reads
// what it wrote.
//
// One row per dispatch and counter, columns read by header name:
//   "Correlation_Id","Dispatch_Id","Agent_Id",...,"Kernel_Name",...,
//   "Counter_Name","Counter_Value"
// Counters used:
//   TCC_HIT_sum, TCC_MISS_sum   L2 (TCC) hits and misses over all channels;
//                               per-channel TCC_HIT / TCC_MISS (also with an
//                               "[n]" instance suffix) are summed when no
//                               _sum counter was collected;
//                               miss ratio = misses / (hits + misses).
//   MemUnitStalled              derived: percent of GPU time the memory unit
//                               is stalled; the stall ratio is its mean over
//                               the dispatches that report it / 100 (each
//                               dispatch counts once, whatever its length).
// Every other counter is ignored. The file has no timestamps: a capture
// stands for the time it ran. A capture is meant to profile one GPU (the
// command selects it), so rows of every agent are pooled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collect/capture_files.h"
#include "core/status.h"

namespace gpufleet::collect {

struct RocprofCounterSummary : CaptureReadTally {
  double l2_hits = 0, l2_misses = 0;                  // from the _sum counters
  double l2_channel_hits = 0, l2_channel_misses = 0;  // per-channel counters
  double stalled_percent_sum = 0;
  int64_t stalled_dispatches = 0;

  // Misses / (hits + misses), from the _sum counters when any were read;
  // nullopt without L2 counters.
  std::optional<double> L2MissRatio() const;
  // Mean MemUnitStalled / 100; nullopt without it.
  std::optional<double> MemoryStallRatio() const;
  // Adds another file's counts.
  void Merge(const RocprofCounterSummary& other);
};

// Parses one counter_collection.csv held in `text`; `path` names it in
// messages. InvalidArgument ("path:1: ...") when the header lacks
// Counter_Name or Counter_Value; bad data rows are counted, not fatal.
StatusOr<RocprofCounterSummary> ParseRocprofCounters(std::string_view text, std::string_view path);

// Reads `path`: a counter_collection.csv, or a directory searched (at most 6
// levels, links to folders not followed) for files named *counter_collection.csv, as
// rocprofv3 -d DIR writes them (DIR/<host>/<pid>_counter_collection.csv).
// NotFound when there is none.
StatusOr<RocprofCounterSummary> ReadRocprofCounters(const std::string& path);

}  // namespace gpufleet::collect
