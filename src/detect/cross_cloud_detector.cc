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
  const int64_t from = ctx.now_ns - config_.window_ns;
  struct Cloud {
    std::vector<double> values;
    std::vector<std::string> devices;
    std::string team;
    double median = 0;
    double activity = std::nan("");  // mean SM activity of its devices
  };
  // (workload, model) -> cloud -> step durations of all its devices.
  std::map<std::pair<std::string, std::string>, std::map<std::string, Cloud>> groups;
  ctx.store.ForEachSeries(
      config_.metric, from, ctx.now_ns,
      [&](uint64_t series, const StoredLabels& labels, std::span<const WindowPoint> pts) {
        std::string_view workload = labels.Get("workload_name");
        std::string_view cloud = labels.Get("cloud");
        if (workload.empty() || cloud.empty()) return;
        Cloud& c =
            groups[{std::string(workload), std::string(labels.Get("model"))}][std::string(cloud)];
        for (const WindowPoint& p : pts) c.values.push_back(p.value);
        c.devices.push_back(ctx.facts().Of(series, labels).device);
        c.team = labels.Get("workload_team");
      });
  const DeviceSeriesMap activity = ctx.Read("gpu_sm_active_ratio", from, ctx.now_ns);

  struct Gap {
    std::pair<std::string, std::string> id;
    std::string fast, slow;
    double fast_s = 0, slow_s = 0;
    bool idle_while_slow = false;
  };
  std::vector<Gap> compared;
  for (auto& [id, clouds] : groups) {
    if (clouds.size() < 2) continue;
    Gap g;
    g.id = id;
    for (auto& [cloud, c] : clouds) {
      if (c.values.size() < config_.min_points) continue;
      auto mid = c.values.begin() + static_cast<ptrdiff_t>(c.values.size() / 2);
      std::nth_element(c.values.begin(), mid, c.values.end());
      c.median = *mid;
      double sum = 0;
      int n = 0;
      for (const std::string& d : c.devices) {
        auto it = activity.find(d);
        if (it == activity.end()) continue;
        for (const WindowPoint& p : it->second.points) {
          sum += p.value;
          ++n;
        }
      }
      if (n > 0) c.activity = sum / n;
      if (g.fast.empty() || c.median < g.fast_s) {
        g.fast = cloud;
        g.fast_s = c.median;
      }
      if (g.slow.empty() || c.median > g.slow_s) {
        g.slow = cloud;
        g.slow_s = c.median;
      }
    }
    // All at one speed (fast == slow) still counts as compared.
    if (g.fast.empty() || !(g.fast_s > 0)) continue;
    // Time spent waiting off the GPU leaves it idle: the slow cloud's SM
    // activity is down by a share of the slowdown (a neighbour or a hot
    // clock would keep the GPU busy and are other detectors' findings).
    const Cloud &fast = clouds[g.fast], &slow = clouds[g.slow];
    const double slowdown = 1 - g.fast_s / g.slow_s;
    g.idle_while_slow = !std::isfinite(slow.activity) || !std::isfinite(fast.activity) ||
                        slow.activity <= fast.activity * (1 - slowdown / 4);
    compared.push_back(std::move(g));
  }
  // A cloud-side cause (network, storage, the host) slows every workload
  // on the node: a node counts as slow when most of its compared workloads
  // are slower than on the other cloud with the GPU idle.
  std::map<std::string, std::pair<int, int>> nodes;  // node -> (slow, compared)
  auto slow_here = [&](const Gap& g) {
    return g.slow_s / g.fast_s - 1 > config_.max_gap && g.idle_while_slow;
  };
  for (const Gap& g : compared) {
    for (const auto& [cloud, c] : groups[g.id]) {
      if (c.median <= 0) continue;
      for (const std::string& d : c.devices) {
        auto& [slow, all] = nodes[d.substr(0, d.find('/'))];
        ++all;
        slow += cloud == g.slow && slow_here(g);
      }
    }
  }
  for (const Gap& g : compared) {
    if (!slow_here(g)) continue;
    std::map<std::string, Cloud>& clouds = groups[g.id];
    bool node_wide = true;
    for (const std::string& d : clouds[g.slow].devices) {
      const auto& [slow, all] = nodes[d.substr(0, d.find('/'))];
      node_wide = node_wide && 2 * slow > all;
    }
    if (!node_wide) continue;
    const double gap = g.slow_s / g.fast_s - 1;
    const auto& [workload, model] = g.id;
    const std::string& slow = g.slow;
    const std::string& fast = g.fast;
    const double slow_s = g.slow_s, fast_s = g.fast_s;
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
    e.condition = "median > fastest cloud (" + fast + ") x " + FormatDouble(1 + config_.max_gap) +
                  ", SM activity down while waiting, on most of the node's compared workloads";
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
