// HTA get_idle_time_breakdown: on each device queue, the gap before every op
// (after the first) is host wait when the op's launch call started after the
// previous op ended, else kernel wait when shorter than the threshold, else
// other. The previous op is the one just before in start order, as in HTA.
#include <map>
#include <utility>

#include "trace/analysis_internal.h"

namespace gpufleet::trace::internal {

void IdleTimeAnalysis(const Timeline& t, const Context& c, const AnalysisOptions& o,
                      AnalysisReport& r) {
  for (uint32_t p = 0; p < c.device_ops.size(); ++p) {
    // track -> (breakdown, previous op end); std::map keeps output ordered.
    std::map<uint32_t, std::pair<IdleBreakdown, int64_t>> per_track;
    for (uint32_t i : c.device_ops[p]) {
      const Event& e = t.events[i];
      auto [it, inserted] = per_track.try_emplace(e.track);
      IdleBreakdown& b = it->second.first;
      int64_t& prev_end = it->second.second;
      if (inserted) {
        const Track& tr = t.tracks[e.track];
        b.process = p;
        b.rank = t.processes[p].rank;
        b.track = e.track;
        b.device = tr.device;
        b.queue = tr.queue;
        prev_end = e.end_ns();
        continue;
      }
      // Ops overlapping on one queue (clock rounding) leave no gap; HTA would
      // add the negative interval, we clip it (docs/trace.md).
      int64_t gap = std::max<int64_t>(0, e.start_ns - prev_end);
      uint32_t launch = c.LaunchOf(t, e);
      ++b.gaps;
      if (launch == UINT32_MAX) ++b.unlinked;
      if (launch != UINT32_MAX && t.events[launch].start_ns > prev_end) {
        b.host_wait_ns += gap;
      } else if (gap < o.kernel_wait_threshold_ns) {
        b.kernel_wait_ns += gap;
      } else {
        b.other_ns += gap;
      }
      prev_end = e.end_ns();
    }
    for (auto& [track, entry] : per_track) r.idle.push_back(entry.first);
  }
}

}  // namespace gpufleet::trace::internal
