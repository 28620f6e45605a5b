#include "detect/variance_detector.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/strings.h"
#include "detect/device_series.h"

namespace gpufleet::detect {

RepetitionStats ComputeRepetitionStats(std::span<const double> xs) {
  RepetitionStats s;
  s.n = xs.size();
  const double n = static_cast<double>(xs.size());
  s.mean = Mean(xs);
  double m2 = 0, m3 = 0, m4 = 0;
  for (double x : xs) {
    const double d = x - s.mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  const double sd = StdDev(xs);
  s.cv = s.mean != 0 ? sd / std::fabs(s.mean) : 0;
  // Step-to-step differences, without the largest 2% (at least two): a
  // level shift into and out of a phase (a neighbour arriving, a serving
  // engine alternating prefill and decode every few dozen steps) is one big
  // difference each, not jitter; jitter makes many.
  std::vector<double> d2;
  for (size_t i = 1; i < xs.size(); ++i) d2.push_back((xs[i] - xs[i - 1]) * (xs[i] - xs[i - 1]));
  size_t keep = d2.size();
  if (keep > 10) {
    keep -= std::max<size_t>(2, keep / 50);
    std::nth_element(d2.begin(), d2.begin() + static_cast<ptrdiff_t>(keep), d2.end());
  }
  double mssd = 0;
  for (size_t i = 0; i < keep; ++i) mssd += d2[i];
  mssd /= 2 * static_cast<double>(keep);
  s.cv_mssd = s.mean != 0 ? std::sqrt(mssd) / std::fabs(s.mean) : 0;
  if (m2 > 0) {
    const double skew = m3 / std::pow(m2, 1.5);
    const double excess_kurtosis = m4 / (m2 * m2) - 3;
    s.bimodality =
        (skew * skew + 1) / (excess_kurtosis + 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3)));
  }
  // Nearest-rank quantiles by selection: no full sort on the hot path.
  std::vector<double> v(xs.begin(), xs.end());
  auto rank = [&](double q) {
    auto it =
        v.begin() + static_cast<ptrdiff_t>(std::lround(q * static_cast<double>(v.size() - 1)));
    std::nth_element(v.begin(), it, v.end());
    return *it;
  };
  s.p50 = rank(0.5);
  s.p99 = rank(0.99);
  return s;
}

std::string ClassifyRepetition(const VarianceConfig& config, const RepetitionStats& s) {
  if (s.cv_mssd <= config.max_cv) return "clean";
  // Tail first: a long right tail also raises the bimodality coefficient.
  if (s.p50 > 0 && s.p99 / s.p50 > config.tail_ratio_max) return "heavy_tailed";
  if (s.bimodality > config.bimodality_min) return "bimodal";
  return "noisy";
}

void VarianceDetector::Evaluate(const EvalContext& ctx, std::vector<Finding>& out) {
  if (!throttle_.Due(ctx.now_ns, out)) return;
  struct Group {
    Labels labels;
    std::vector<double> values;
    std::string device;
    int64_t first_ns = 0;
  };
  std::map<std::string, Group> groups;
  ctx.store.ForEach(config_.metric, ctx.now_ns - config_.window_ns, ctx.now_ns,
                    [&](const Labels& labels, std::span<const WindowPoint> pts) {
                      std::string id(labels.Get("workload_pod"));
                      if (id.empty()) id = labels.Get("workload_name");
                      if (id.empty()) id = DeviceKey(labels);
                      Group& g = groups[id];
                      // Several GPUs of one workload report the same steps:
                      // keep the series with the most points.
                      if (pts.size() <= g.values.size()) return;
                      g.labels = labels;
                      g.device = DeviceKey(labels);
                      g.first_ns = pts.front().timestamp_ns;
                      g.values.clear();
                      for (const WindowPoint& p : pts) g.values.push_back(p.value);
                    });
  for (auto& [id, g] : groups) {
    if (g.values.size() < config_.min_points) continue;
    const RepetitionStats s = ComputeRepetitionStats(g.values);
    const std::string shape = ClassifyRepetition(config_, s);
    if (shape == "clean") continue;
    Finding f;
    f.kind = kKindVariance;
    f.key = std::string(kKindVariance) + "/" + id;
    f.subject = DeviceSubject(g.labels);
    f.subject.Set("workload", id);
    std::string_view team = g.labels.Get("workload_team");
    f.subject.Set("team", team);
    f.devices = {g.device};
    f.workloads = {id};
    f.window_start_ns = g.first_ns;
    f.window_end_ns = ctx.now_ns;
    Evidence e;
    e.series = config_.metric + "{workload=\"" + id + "\"}";
    e.condition = "coefficient of variation > " + FormatDouble(config_.max_cv) + " over " +
                  FormatDuration(config_.window_ns);
    e.threshold = config_.max_cv;
    e.observed = s.cv_mssd;
    e.since_ns = g.first_ns;
    f.evidence.push_back(std::move(e));
    f.team = team.empty() ? "platform" : std::string(team);
    f.severity = "warning";
    auto r2 = [](double x) { return FormatDouble(std::round(x * 1000) / 1000); };
    f.summary = "step durations of " + id + " are " + shape + ": cv " + r2(s.cv_mssd) +
                " (step-to-step), p50 " + r2(s.p50) + " s, p99 " + r2(s.p99) + " s, bimodality " +
                r2(s.bimodality) + " over " + std::to_string(s.n) + " steps";
    throttle_.Keep(f);
    out.push_back(std::move(f));
  }
}

}  // namespace gpufleet::detect
