#include "detect/cross_cloud_detector.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/strings.h"
#include "detect/device_series.h"

namespace gpufleet::detect {

void CrossCloudDetector::Evaluate(const EvalContext& ctx, std::vector<Finding>& out) {
  if (!throttle_.Due(ctx.now_ns, out)) return;
  struct Cloud {
    std::vector<double> values;
    std::vector<std::string> devices;
    std::string team;
  };
  // (workload, model) -> cloud -> step durations of all its devices.
  std::map<std::pair<std::string, std::string>, std::map<std::string, Cloud>> groups;
  ctx.store.ForEach(
      config_.metric, ctx.now_ns - config_.window_ns, ctx.now_ns,
      [&](const Labels& labels, std::span<const WindowPoint> pts) {
        std::string_view workload = labels.Get("workload_name");
        std::string_view cloud = labels.Get("cloud");
        if (workload.empty() || cloud.empty()) return;
        Cloud& c =
            groups[{std::string(workload), std::string(labels.Get("model"))}][std::string(cloud)];
        for (const WindowPoint& p : pts) c.values.push_back(p.value);
        c.devices.push_back(DeviceKey(labels));
        c.team = labels.Get("workload_team");
      });
  for (auto& [id, clouds] : groups) {
    if (clouds.size() < 2) continue;
    std::string fast, slow;
    double fast_s = 0, slow_s = 0;
    for (auto& [cloud, c] : clouds) {
      if (c.values.size() < config_.min_points) continue;
      auto mid = c.values.begin() + static_cast<ptrdiff_t>(c.values.size() / 2);
      std::nth_element(c.values.begin(), mid, c.values.end());
      const double median = *mid;
      if (fast.empty() || median < fast_s) {
        fast = cloud;
        fast_s = median;
      }
      if (slow.empty() || median > slow_s) {
        slow = cloud;
        slow_s = median;
      }
    }
    if (fast.empty() || fast == slow || !(fast_s > 0)) continue;
    const double gap = slow_s / fast_s - 1;
    if (gap <= config_.max_gap) continue;
    const auto& [workload, model] = id;
    Finding f;
    f.kind = kKindCloudSpecific;
    f.key = std::string(kKindCloudSpecific) + "/" + workload + "/" + model;
    f.subject.Set("workload", workload);
    f.subject.Set("model", model);
    f.subject.Set("cloud", slow);
    f.devices = clouds[slow].devices;
    f.workloads = {workload};
    f.window_start_ns = ctx.now_ns - config_.window_ns;
    f.window_end_ns = ctx.now_ns;
    Evidence e;
    e.series = config_.metric + "{workload_name=\"" + workload + "\",cloud=\"" + slow + "\"}";
    e.condition = "median > fastest cloud (" + fast + ") x " + FormatDouble(1 + config_.max_gap);
    e.threshold = fast_s * (1 + config_.max_gap);
    e.observed = slow_s;
    e.since_ns = f.window_start_ns;
    f.evidence.push_back(std::move(e));
    f.estimated_slowdown = 1 - fast_s / slow_s;
    f.team = "cloud-ops";
    f.severity = "warning";
    auto r3 = [](double x) { return FormatDouble(std::round(x * 1000) / 1000); };
    f.summary = workload + " on " + model + " runs " +
                std::to_string(static_cast<int>(std::lround(gap * 100))) + "% slower on " + slow +
                " than on " + fast + " (median step " + r3(slow_s) + " s vs " + r3(fast_s) + " s)";
    throttle_.Keep(f);
    out.push_back(std::move(f));
  }
}

}  // namespace gpufleet::detect
