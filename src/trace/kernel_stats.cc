// Kernel statistics by name across all ranks (HTA get_gpu_kernel_breakdown
// reports sum/mean/min/max/std; we add percentiles, CV and shape flags).
#include <algorithm>
#include <unordered_map>

#include "trace/analysis_internal.h"

namespace gpufleet::trace::internal {

void KernelStatsAnalysis(const Timeline& t, const AnalysisOptions& o, AnalysisReport& r) {
  struct Group {
    EventKind kind = EventKind::kKernel;
    std::vector<double> durations;
    int64_t total_ns = 0;
  };
  std::unordered_map<StringId, Group> groups;
  std::vector<double> all;
  for (const Event& e : t.events) {
    if (!IsDeviceKind(e.kind)) continue;
    Group& g = groups[e.name];
    g.kind = e.kind;
    g.durations.push_back(static_cast<double>(e.dur_ns));
    g.total_ns += e.dur_ns;
    if (IsCompute(e.kind) || IsComm(e.kind)) all.push_back(static_cast<double>(e.dur_ns));
  }
  r.distinct_kernels = groups.size();
  std::vector<std::pair<int64_t, StringId>> order;
  order.reserve(groups.size());
  for (const auto& [name, g] : groups) order.emplace_back(g.total_ns, name);
  // Total descending, then name for a stable report.
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return t.strings.Get(a.second) < t.strings.Get(b.second);
  });
  size_t keep = std::min(order.size(), static_cast<size_t>(std::max(0, o.top_kernels)));
  for (size_t i = 0; i < keep; ++i) {
    Group& g = groups[order[i].second];
    KernelStat k;
    k.name = std::string(t.strings.Get(order[i].second));
    k.kind = g.kind;
    k.duration_ns = Summarize(std::move(g.durations));
    r.kernels.push_back(std::move(k));
  }
  r.kernel_duration_histogram = LogHistogram(all, 24);
}

}  // namespace gpufleet::trace::internal
