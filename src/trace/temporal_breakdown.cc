// HTA get_temporal_breakdown: per rank, the span from the first device op
// start to the last device op end, split by interval unions (never summed
// durations) so concurrent streams are not double counted.
#include "trace/analysis_internal.h"

namespace gpufleet::trace::internal {

void TemporalBreakdownAnalysis(const Timeline& t, const Context& c, AnalysisReport& r) {
  for (uint32_t p = 0; p < c.device_ops.size(); ++p) {
    const std::vector<uint32_t>& ops = c.device_ops[p];
    if (ops.empty()) continue;
    std::vector<Interval> compute, comm, all;
    for (uint32_t i : ops) {
      const Event& e = t.events[i];
      Interval iv{e.start_ns, e.end_ns()};
      all.push_back(iv);
      if (IsCompute(e.kind)) compute.push_back(iv);
      if (IsComm(e.kind)) comm.push_back(iv);
    }
    TemporalBreakdown b;
    b.process = p;
    b.rank = t.processes[p].rank;
    int64_t busy = MergeIntervals(all);
    b.span_ns = all.back().end - all.front().begin;
    b.idle_ns = b.span_ns - busy;
    b.compute_ns = MergeIntervals(compute);
    int64_t comm_total = MergeIntervals(comm);
    b.communication_ns = comm_total - IntersectionLength(compute, comm);
    b.memory_ns = busy - b.compute_ns - b.communication_ns;
    r.temporal.push_back(b);
  }
}

void OverlapAnalysis(const Timeline& t, const Context& c, AnalysisReport& r) {
  for (uint32_t p = 0; p < c.device_ops.size(); ++p) {
    std::vector<Interval> compute, comm;
    for (uint32_t i : c.device_ops[p]) {
      const Event& e = t.events[i];
      if (IsCompute(e.kind)) compute.push_back({e.start_ns, e.end_ns()});
      if (IsComm(e.kind)) comm.push_back({e.start_ns, e.end_ns()});
    }
    if (comm.empty()) continue;
    Overlap o;
    o.process = p;
    o.rank = t.processes[p].rank;
    MergeIntervals(compute);
    o.communication_ns = MergeIntervals(comm);
    o.overlapped_ns = IntersectionLength(compute, comm);
    if (o.communication_ns > 0) {
      o.ratio = static_cast<double>(o.overlapped_ns) / static_cast<double>(o.communication_ns);
    }
    r.overlap.push_back(o);
  }
}

}  // namespace gpufleet::trace::internal
