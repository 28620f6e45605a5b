#include "trace/analysis.h"

#include <algorithm>

#include "trace/analysis_internal.h"

namespace gpufleet::trace {
namespace internal {

int64_t MergeIntervals(std::vector<Interval>& v) {
  // A negative duration from a damaged record must not shrink the union.
  for (Interval& iv : v) iv.end = std::max(iv.end, iv.begin);
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  size_t out = 0;
  for (const Interval& iv : v) {
    if (out > 0 && iv.begin <= v[out - 1].end) {
      v[out - 1].end = std::max(v[out - 1].end, iv.end);
    } else {
      v[out++] = iv;
    }
  }
  v.resize(out);
  int64_t total = 0;
  for (const Interval& iv : v) total += iv.end - iv.begin;
  return total;
}

int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].begin, b[j].begin);
    int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

bool Touches(const std::vector<Interval>& merged, int64_t begin, int64_t end) {
  // First interval whose end >= begin; it touches when it starts <= end.
  auto it = std::lower_bound(merged.begin(), merged.end(), begin,
                             [](const Interval& iv, int64_t x) { return iv.end < x; });
  return it != merged.end() && it->begin <= end;
}

uint64_t CorrelationKey(uint32_t process, int64_t correlation) {
  // CUPTI/roctracer correlation ids are 32-bit counters in practice; keep the
  // low 40 bits and the process index above them.
  return (static_cast<uint64_t>(process) << 40) ^
         (static_cast<uint64_t>(correlation) & ((uint64_t{1} << 40) - 1));
}

uint32_t Context::LaunchOf(const Timeline& t, const Event& e) const {
  if (e.correlation < 0) return UINT32_MAX;
  auto it = launch_by_correlation.find(CorrelationKey(t.tracks[e.track].process, e.correlation));
  return it == launch_by_correlation.end() ? UINT32_MAX : it->second;
}

Context BuildContext(const Timeline& t) {
  Context c;
  c.device_ops.resize(t.processes.size());
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    uint32_t p = t.tracks[e.track].process;
    if (IsDeviceKind(e.kind)) {
      c.device_ops[p].push_back(i);
    } else if (e.kind == EventKind::kRuntime && e.correlation >= 0) {
      // First runtime event wins: a launch may be followed by driver calls
      // with the same correlation (cudaLaunchKernel -> cuLaunchKernel).
      c.launch_by_correlation.emplace(CorrelationKey(p, e.correlation), i);
    }
  }
  return c;
}

}  // namespace internal

std::string ProcessLabel(const Timeline& timeline, uint32_t process) {
  if (process >= timeline.processes.size()) return "process ?";
  const Process& p = timeline.processes[process];
  if (p.rank >= 0) return "rank " + std::to_string(p.rank);
  return "pid " + std::to_string(p.pid);
}

AnalysisReport Analyze(const Timeline& timeline, const AnalysisOptions& options) {
  AnalysisReport r;
  internal::Context c = internal::BuildContext(timeline);
  for (const Event& e : timeline.events) {
    if (IsDeviceKind(e.kind)) {
      ++r.device_ops;
    } else {
      ++r.host_events;
    }
  }
  if (timeline.partial()) {
    r.partial = true;
    r.notes.push_back(
        "at least one input file was imported partially; results cover what was read");
  }
  // Out-of-order input is normal (Kineto writes host ops as they end): it is
  // only counted (SourceFile::out_of_order, in the JSON report).
  for (const SourceFile& f : timeline.files) {
    if (f.queue_overlaps > 0) {
      r.notes.push_back(f.path + ": " + std::to_string(f.queue_overlaps) +
                        " device ops start before the previous op on their queue ended (by up to " +
                        std::to_string(f.max_queue_overlap_ns) +
                        " ns); busy time counts the union");
    }
  }
  if (r.device_ops == 0) {
    r.partial = true;
    r.notes.push_back("no device operations: device analyses are empty");
  }
  internal::TemporalBreakdownAnalysis(timeline, c, r);
  internal::IdleTimeAnalysis(timeline, c, options, r);
  internal::KernelStatsAnalysis(timeline, options, r);
  internal::LaunchLatencyAnalysis(timeline, c, options, r);
  internal::OverlapAnalysis(timeline, c, r);
  internal::StragglerAnalysis(timeline, c, options, r);
  return r;
}

}  // namespace gpufleet::trace
