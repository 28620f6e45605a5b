// Nsight Compute CSV (`ncu --csv --metrics ... --log-file {output}/ncu.csv`):
// the NVIDIA source of gpu_l2_miss_ratio and gpu_memory_stall_ratio, which
// neither NVML (GPM) nor DCGM's profiling fields report. A conditional
// capture runs Nsight Compute and the server reads what it wrote, as it reads
// a rocprofv3 counter collection on AMD (collect/rocprof_counters.h).
//
// Both of ncu's CSV layouts are read, columns by header name:
//   details page (the default): one row per kernel and metric,
//     "ID",...,"Kernel Name",...,"Metric Name","Metric Unit","Metric Value"
//   raw page (--page raw): one row per kernel, a column per metric, and a
//     row of units under the header.
// Lines before the header (==PROF== progress, the application's own output)
// and ==PROF== / ==WARNING== lines after it are skipped. Values may carry
// thousands separators ("53,261,312"); "n/a" (a metric the GPU does not
// support) counts as not reported. Counts in a unit with a K/M/G/T prefix
// ("Ksector") are scaled back.
//
// Metrics used (every other one is ignored):
//   lts__t_sectors_lookup_hit.sum, lts__t_sectors_lookup_miss.sum
//       L2 sector lookups that hit and missed; miss ratio = misses / (hits +
//       misses) over every kernel (weighted by lookups, as AMD's TCC sums);
//   lts__t_sector_hit_rate.pct
//       used when the lookups were not collected: miss = 1 - hit rate / 100,
//       averaged over kernels weighted by their duration;
//   smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
//   smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
//       share of active warps' cycles stalled waiting on an L1TEX (global,
//       local) memory result, and on the queue of global/local memory
//       instructions; the stall ratio is their sum / 100, averaged over
//       kernels weighted by their duration;
//   gpu__time_duration.sum
//       a kernel's duration, the weight above; when some kernel lacks it,
//       every kernel counts once.
// The file has no wall-clock time: a capture stands for the time it ran. A
// capture is meant to profile one GPU (the command selects it), so kernels of
// every device are pooled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collect/capture_files.h"
#include "core/status.h"

namespace gpufleet::collect {

struct NcuMetricSummary : CaptureReadTally {
  // Sums over kernels.
  double l2_hit_sectors = 0, l2_miss_sectors = 0;
  KernelShare hit_rate, stall;
  bool durations_complete = true;  // every kernel with a share had a duration
  int64_t kernels = 0;             // distinct kernel launches (ID, process)

  // nullopt without L2 metrics.
  std::optional<double> L2MissRatio() const;
  // nullopt without the long-scoreboard stall metric.
  std::optional<double> MemoryStallRatio() const;
  // Adds another file's counts.
  void Merge(const NcuMetricSummary& other);
};

// Parses one ncu CSV held in `text`; `path` names it in messages.
// InvalidArgument ("path: not an Nsight Compute CSV ...") when no line is an
// ncu header (a first
// field "ID" and either "Metric Name" / "Metric Value" columns or a column
// of a metric above); bad data rows are counted, not fatal.
StatusOr<NcuMetricSummary> ParseNcuCsv(std::string_view text, std::string_view path);

// Reads `path`: an ncu CSV, or a directory searched (at most 6 levels, links
// to folders not followed) for *.csv files that are ncu CSVs (others are
// passed over). NotFound when there is none.
StatusOr<NcuMetricSummary> ReadNcuCsv(const std::string& path);

}  // namespace gpufleet::collect
