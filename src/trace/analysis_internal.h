// Private helpers shared by the analysis .cc files (not part of the trace
// component's interface).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/analysis.h"
#include "trace/timeline.h"

namespace gpufleet::trace::internal {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
};

// Sorts and merges overlapping/touching intervals in place; returns the
// length of the union. O(n log n).
int64_t MergeIntervals(std::vector<Interval>& intervals);
// Length of the intersection of two merged interval lists. O(n + m).
int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Whether [begin, end] touches the merged list (a point when begin == end).
bool Touches(const std::vector<Interval>& merged, int64_t begin, int64_t end);

// Indexes built once per Analyze call.
struct Context {
  // Per process: indices of its device ops in timeline order (start asc).
  std::vector<std::vector<uint32_t>> device_ops;
  // (process, correlation) -> index of the runtime (launch) event.
  std::unordered_map<uint64_t, uint32_t> launch_by_correlation;

  // Index of the runtime event that launched device op `e`, or UINT32_MAX.
  uint32_t LaunchOf(const Timeline& t, const Event& e) const;
};

uint64_t CorrelationKey(uint32_t process, int64_t correlation);
Context BuildContext(const Timeline& t);

inline bool IsCompute(EventKind k) { return k == EventKind::kKernel; }
inline bool IsComm(EventKind k) { return k == EventKind::kCommKernel; }
inline bool IsMemory(EventKind k) { return k == EventKind::kMemcpy || k == EventKind::kMemset; }

void TemporalBreakdownAnalysis(const Timeline& t, const Context& c, AnalysisReport& r);
void IdleTimeAnalysis(const Timeline& t, const Context& c, const AnalysisOptions& o,
                      AnalysisReport& r);
void KernelStatsAnalysis(const Timeline& t, const AnalysisOptions& o, AnalysisReport& r);
void LaunchLatencyAnalysis(const Timeline& t, const Context& c, const AnalysisOptions& o,
                           AnalysisReport& r);
void OverlapAnalysis(const Timeline& t, const Context& c, AnalysisReport& r);
void StragglerAnalysis(const Timeline& t, const Context& c, const AnalysisOptions& o,
                       AnalysisReport& r);

}  // namespace gpufleet::trace::internal
