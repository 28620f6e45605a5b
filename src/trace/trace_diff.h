// Baseline-vs-contended comparison of two traces of the same workload:
// attributes the growth of wall time to kernel start delay, kernel duration
// growth, copy throughput loss and synchronization wait, with an explicit
// unexplained remainder.
//
// Matching: device ops are paired by (rank, name, k-th occurrence); rank is
// Process::rank, or the process index when unknown. Categories (ns, summed
// over matched ops; see docs/trace.md "Analyses"):
//   start_delay  growth of start - max(launch end, previous op end on the
//                same queue): launch overhead beyond queueing, so queueing
//                behind slower ops is not counted twice;
//   duration     growth of kernel, comm kernel and memset durations;
//   copy         growth of memcpy durations (same bytes, lower throughput);
//   sync_wait    growth of host sync time (EventKind::kSync) during which the
//                process had no launched-but-unfinished device work, i.e.
//                waiting on peers or other processes rather than on itself.
// On one serial queue these add up to the wall-time growth; with concurrent
// queues they can exceed it, and are then scaled down together (`scale`).
// Pure function; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/analysis.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

struct DiffComponent {
  std::string name;          // "start_delay", "duration", "copy", "sync_wait", "unexplained"
  int64_t raw_ns = 0;        // measured growth (negative = improvement)
  double attributed_ns = 0;  // after scaling; components + unexplained == wall delta
  double share = 0;          // attributed / wall delta (0 when the delta is 0)
};

struct KernelDelta {
  std::string name;
  EventKind kind = EventKind::kKernel;
  uint64_t matched = 0;
  double base_mean_ns = 0;
  double contended_mean_ns = 0;
  int64_t growth_ns = 0;  // sum of duration differences
};

struct TraceDiffReport {
  int64_t base_wall_ns = 0;  // last event end - first event start
  int64_t contended_wall_ns = 0;
  int64_t delta_wall_ns = 0;
  std::vector<DiffComponent> components;  // the four categories, then "unexplained"
  double scale = 1;                       // < 1 when raw growth exceeded the wall delta
  double base_copy_bytes_per_s = 0;       // over matched copies with known bytes
  double contended_copy_bytes_per_s = 0;
  uint64_t matched_ops = 0;
  uint64_t unmatched_base_ops = 0;
  uint64_t unmatched_contended_ops = 0;
  std::vector<KernelDelta> kernels;  // largest |growth| first
  bool partial = false;
  std::vector<std::string> notes;
};

TraceDiffReport DiffTraces(const Timeline& base, const Timeline& contended,
                           const AnalysisOptions& options);

std::string FormatDiffText(const TraceDiffReport& diff);
std::string DiffJson(const TraceDiffReport& diff);
std::string DiffMarkdown(const TraceDiffReport& diff);

}  // namespace gpufleet::trace
