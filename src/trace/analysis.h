// Trace analyses over a finished Timeline: where device time goes, why
// devices sit idle, which kernels dominate and how their durations spread,
// how long launches take to start, how much communication hides behind
// compute, and which ranks straggle.
//
// Definitions follow Meta's Holistic Trace Analysis (HTA) where it has the
// same analysis, so numbers can be checked against HTA on the same trace
// (docs/trace.md "Analyses" lists the correspondence and tolerances).
// A "rank" here is one Process of the Timeline (its `rank` when known).
// Times are ns. Every analysis is O(n log n) in the number of events.
//
// Thread safety: Analyze reads the Timeline only; concurrent calls on the
// same const Timeline are safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/distribution.h"
#include "trace/timeline.h"

namespace gpufleet::trace {

struct AnalysisOptions {
  int64_t kernel_wait_threshold_ns = 30;      // HTA consecutive_kernel_delay
  int top_kernels = 20;                       // kernel table length
  int64_t launch_delay_outlier_ns = 100'000;  // HTA launch_delay_cutoff (100 us)
  int straggler_candidates = 2;               // HTA num_candidates
};

// Device time of one process, from its first device op start to its last
// device op end. compute + communication + memory + idle == span; comm that
// runs concurrently with compute counts as compute, memory concurrent with
// either counts as that (HTA: non-compute = comm + memory).
struct TemporalBreakdown {
  uint32_t process = 0;
  int rank = -1;
  int64_t span_ns = 0;
  int64_t compute_ns = 0;
  int64_t communication_ns = 0;
  int64_t memory_ns = 0;
  int64_t idle_ns = 0;
};

// Gaps between consecutive device ops on one queue (HTA idle time breakdown).
struct IdleBreakdown {
  uint32_t process = 0;
  int rank = -1;
  uint32_t track = 0;
  int device = -1;
  int64_t queue = -1;
  int64_t host_wait_ns = 0;    // the next op's launch call began after the previous op ended
  int64_t kernel_wait_ns = 0;  // gap below kernel_wait_threshold_ns
  int64_t other_ns = 0;
  uint64_t gaps = 0;
  uint64_t unlinked = 0;  // ops without a correlated launch (never host wait)
};

struct KernelStat {
  std::string name;
  EventKind kind = EventKind::kKernel;
  Distribution duration_ns;  // over all ranks
};

struct LaunchLatency {
  // launch delay = device op start - (runtime call start + dur), clipped >= 0.
  Distribution delay_ns;
  uint64_t outliers = 0;              // delay > launch_delay_outlier_ns
  uint64_t unmatched_device_ops = 0;  // device ops with no runtime event of equal correlation
  // Launches whose wait window [launch end, op start] (or the launch end when
  // empty) overlaps a copy running in the same process, vs the rest.
  uint64_t with_concurrent_copy = 0;
  double mean_delay_with_copy_ns = 0;
  double mean_delay_without_copy_ns = 0;
  // Pearson r between delay and the 0/1 "copy in flight" indicator
  // (point-biserial correlation).
  double copy_correlation = 0;
  std::vector<HistogramBin> histogram;  // log bins of delay_ns
};

// HTA comm/comp overlap: time computing while communicating / time communicating.
struct Overlap {
  uint32_t process = 0;
  int rank = -1;
  int64_t communication_ns = 0;
  int64_t overlapped_ns = 0;
  double ratio = 0;  // 0 when there is no communication
};

struct StragglerRank {
  uint32_t process = 0;
  int rank = -1;
  int times_straggler = 0;  // iterations in which this rank was among the latest starters
  double mean_normalized_start = 0;
};

struct StragglerReport {
  bool computed = false;
  std::string method;  // "profiler_steps" or the fallback used
  std::string kernel;  // the chosen comm kernel name
  int64_t queue = -1;  // the chosen queue
  int iterations = 0;
  double mean_iteration_ns = 0;
  std::vector<StragglerRank> ranks;  // by rank
};

struct AnalysisReport {
  std::vector<TemporalBreakdown> temporal;  // one per process with device ops
  std::vector<IdleBreakdown> idle;          // one per device queue
  std::vector<KernelStat> kernels;          // top by total duration
  uint64_t distinct_kernels = 0;
  std::vector<HistogramBin> kernel_duration_histogram;  // all kernels (compute + comm)
  LaunchLatency launch;
  std::vector<Overlap> overlap;
  StragglerReport stragglers;
  uint64_t device_ops = 0;
  uint64_t host_events = 0;
  bool partial = false;            // the timeline or an analysis is incomplete
  std::vector<std::string> notes;  // what could not be computed and why
};

AnalysisReport Analyze(const Timeline& timeline, const AnalysisOptions& options);

// Process label for reports: "rank 3", or "pid 1234" when the rank is unknown.
std::string ProcessLabel(const Timeline& timeline, uint32_t process);

}  // namespace gpufleet::trace
