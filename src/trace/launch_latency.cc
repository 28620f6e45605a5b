// HTA get_cuda_kernel_launch_stats: launch delay = device op start -
// (runtime call start + runtime call duration), clipped at 0, joined on the
// correlation id within one process. Unlike HTA we accept every runtime
// event (hip* and driver calls too), not only the four cuda* launch names.
#include <algorithm>

#include "core/stats.h"
#include "trace/analysis_internal.h"

namespace gpufleet::trace::internal {

void LaunchLatencyAnalysis(const Timeline& t, const Context& c, const AnalysisOptions& o,
                           AnalysisReport& r) {
  std::vector<double> delays, copy_flag;
  double sum_with = 0, sum_without = 0;
  for (uint32_t p = 0; p < c.device_ops.size(); ++p) {
    std::vector<Interval> copies;
    for (uint32_t i : c.device_ops[p]) {
      const Event& e = t.events[i];
      if (e.kind == EventKind::kMemcpy) copies.push_back({e.start_ns, e.end_ns()});
    }
    MergeIntervals(copies);
    for (uint32_t i : c.device_ops[p]) {
      const Event& e = t.events[i];
      uint32_t launch = c.LaunchOf(t, e);
      if (launch == UINT32_MAX) {
        ++r.launch.unmatched_device_ops;
        continue;
      }
      int64_t launch_end = t.events[launch].end_ns();
      int64_t delay = std::max<int64_t>(0, e.start_ns - launch_end);
      delays.push_back(static_cast<double>(delay));
      if (delay > o.launch_delay_outlier_ns) ++r.launch.outliers;
      // A copy is "concurrent" with a launch when it is in flight while the
      // launched op waits; the op itself (a copy) does not count.
      bool with_copy = false;
      if (e.kind != EventKind::kMemcpy || delay > 0) {
        with_copy = Touches(copies, launch_end, std::max(launch_end, e.start_ns - 1));
      }
      copy_flag.push_back(with_copy ? 1.0 : 0.0);
      if (with_copy) {
        ++r.launch.with_concurrent_copy;
        sum_with += static_cast<double>(delay);
      } else {
        sum_without += static_cast<double>(delay);
      }
    }
  }
  uint64_t n = delays.size();
  uint64_t n_with = r.launch.with_concurrent_copy;
  if (n_with > 0) r.launch.mean_delay_with_copy_ns = sum_with / static_cast<double>(n_with);
  if (n > n_with) {
    r.launch.mean_delay_without_copy_ns = sum_without / static_cast<double>(n - n_with);
  }
  r.launch.copy_correlation = PearsonCorrelation(delays, copy_flag);
  r.launch.histogram = LogHistogram(delays, 24);
  r.launch.delay_ns = Summarize(std::move(delays));
  // A note, not a partial flag: traces without launch records are complete,
  // the analysis just does not apply to them.
  if (n == 0 && r.device_ops > 0) {
    r.notes.push_back(
        "launch latency: no device op has a runtime event with the same correlation id");
  }
}

}  // namespace gpufleet::trace::internal
