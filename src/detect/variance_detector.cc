#include "detect/variance_detector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "core/stats.h"
#include "core/strings.h"
#include "detect/device_series.h"

namespace gpufleet::detect {

RepetitionStats ComputeRepetitionStats(std::span<const double> xs, double clean_cv) {
  RepetitionStats s;
  s.n = xs.size();
  const double n = static_cast<double>(xs.size());
  s.mean = Mean(xs);
  // Step-to-step differences, without the largest 2% (at least two): a
  // level shift into and out of a phase (a neighbour arriving, a serving
  // engine alternating prefill and decode every few dozen steps) is one big
  // difference each, not jitter; jitter makes many.
  // The largest few found in one pass (ascending; most differences fail the
  // first comparison), then the sum of the others: those below the smallest
  // kept-out value, and its copies beyond the ones kept out.
  const size_t diffs = xs.size() - 1;
  const size_t drop = diffs > 10 ? std::max<size_t>(2, diffs / 50) : 0;
  auto d2_at = [&](size_t i) { return (xs[i] - xs[i - 1]) * (xs[i] - xs[i - 1]); };
  std::vector<double> top;
  top.reserve(drop);
  for (size_t i = 1; drop > 0 && i < xs.size(); ++i) {
    const double d2 = d2_at(i);
    if (top.size() == drop) {
      if (!(d2 > top.front())) continue;
      top.erase(top.begin());
    }
    top.insert(std::upper_bound(top.begin(), top.end(), d2), d2);
  }
  const double cut = drop > 0 ? top.front() : std::numeric_limits<double>::infinity();
  double mssd = 0;
  size_t at_cut = 0;
  for (size_t i = 1; i < xs.size(); ++i) {
    const double d2 = d2_at(i);
    if (d2 < cut) mssd += d2;
    at_cut += d2 == cut;
  }
  at_cut -= static_cast<size_t>(std::count(top.begin(), top.end(), cut));
  mssd += static_cast<double>(at_cut) * (drop > 0 ? cut : 0);
  mssd /= 2 * static_cast<double>(diffs - drop);
  s.cv_mssd = s.mean != 0 ? std::sqrt(mssd) / std::fabs(s.mean) : 0;
  if (s.cv_mssd <= clean_cv) return s;
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

HostWait MeasureHostWait(std::span<const WindowPoint> steps, std::span<const WindowPoint> busy) {
  HostWait out;
  if (steps.size() < 4 || busy.size() < 3) return out;
  // The fastest steps are the ones that did not wait: their duration is the
  // compute a step needs (the 5th percentile, robust to timer noise).
  std::vector<double> d;
  d.reserve(steps.size());
  for (const WindowPoint& p : steps) d.push_back(p.value);
  auto at = d.begin() + static_cast<ptrdiff_t>(d.size() / 20);
  std::nth_element(d.begin(), at, d.end());
  const double compute = *at;
  if (compute <= 0) return out;
  // Per collection interval (between two busy samples): the busy share it
  // reported and the share of its steps' time that compute explains.
  std::vector<double> xs, ys;
  size_t k = 0;
  for (size_t j = 1; j < busy.size(); ++j) {
    const int64_t lo = busy[j - 1].timestamp_ns, hi = busy[j].timestamp_ns;
    while (k < steps.size() && steps[k].timestamp_ns <= lo) ++k;
    double n = 0, total = 0;
    for (size_t i = k; i < steps.size() && steps[i].timestamp_ns <= hi; ++i) {
      n += 1;
      total += steps[i].value;
    }
    if (n == 0 || total <= 0) continue;
    xs.push_back(busy[j].value);
    ys.push_back(std::min(1.0, n * compute / total));
  }
  out.intervals = xs.size();
  if (xs.size() >= 3) out.r = PearsonCorrelation(xs, ys);
  return out;
}

void VarianceDetector::Evaluate(const EvalContext& ctx, std::vector<Finding>& out) {
  if (!throttle_.Due(ctx.now_ns, out)) return;
  struct Group {
    const SeriesFacts::Facts* facts = nullptr;
    std::string team;
    std::vector<WindowPoint> points;
  };
  std::map<std::string, Group, std::less<>> groups;
  ctx.store.ForEachSeries(
      config_.metric, ctx.now_ns - config_.window_ns, ctx.now_ns,
      [&](uint64_t series, const StoredLabels& labels, std::span<const WindowPoint> pts) {
        const SeriesFacts::Facts& facts = ctx.facts().Of(series, labels);
        std::string_view id = labels.Get("workload_pod");
        if (id.empty()) id = labels.Get("workload_name");
        if (id.empty()) id = facts.device;
        auto it = groups.find(id);
        if (it == groups.end()) it = groups.try_emplace(std::string(id)).first;
        Group& g = it->second;
        // Several GPUs of one workload report the same steps: keep the
        // series with the most points.
        if (pts.size() <= g.points.size()) return;
        g.facts = &facts;
        g.team = labels.Get("workload_team");
        g.points.assign(pts.begin(), pts.end());
      });
  std::optional<DeviceSeriesMap> util;  // read when a workload is not clean
  std::vector<double> values;
  for (auto& [id, g] : groups) {
    if (g.points.size() < config_.min_points) continue;
    values.clear();
    for (const WindowPoint& p : g.points) values.push_back(p.value);
    const RepetitionStats s = ComputeRepetitionStats(values, config_.max_cv);
    const std::string shape = ClassifyRepetition(config_, s);
    if (shape == "clean") continue;
    const int64_t first_ns = g.points.front().timestamp_ns;
    if (!util) {
      util = ctx.Read(config_.busy_metric, ctx.now_ns - config_.window_ns, ctx.now_ns);
    }
    const std::string& device = g.facts->device;
    auto busy = util->find(device);
    const HostWait wait =
        busy == util->end() ? HostWait{} : MeasureHostWait(g.points, busy->second.points);
    const bool host_bound =
        wait.intervals >= config_.host_wait_min_intervals && wait.r >= config_.host_wait_min_r;
    Finding f;
    f.kind = host_bound ? kKindHostBound : kKindVariance;
    f.key = std::string(kKindVariance) + "/" + id;
    f.subject = g.facts->subject;
    f.subject.Set("workload", id);
    const std::string& team = g.team;
    f.subject.Set("team", team);
    f.devices = {device};
    f.workloads = {id};
    f.window_start_ns = first_ns;
    f.window_end_ns = ctx.now_ns;
    Evidence e;
    e.series = config_.metric + "{workload=\"" + id + "\"}";
    e.condition = "coefficient of variation > " + FormatDouble(config_.max_cv) + " over " +
                  FormatDuration(config_.window_ns);
    e.threshold = config_.max_cv;
    e.observed = s.cv_mssd;
    e.since_ns = first_ns;
    f.evidence.push_back(std::move(e));
    f.team = team.empty() ? "platform" : team;
    f.severity = "warning";
    auto r2 = [](double x) { return FormatDouble(std::round(x * 1000) / 1000); };
    f.summary = "step durations of " + id + " are " + shape + ": cv " + r2(s.cv_mssd) +
                " (step-to-step), p50 " + r2(s.p50) + " s, p99 " + r2(s.p99) + " s, bimodality " +
                r2(s.bimodality) + " over " + std::to_string(s.n) + " steps";
    if (host_bound) {
      Evidence h;
      h.series = config_.busy_metric + "{" + device + "}";
      h.condition = "correlation of busy share and the steps' compute share per interval >= " +
                    FormatDouble(config_.host_wait_min_r);
      h.threshold = config_.host_wait_min_r;
      h.observed = wait.r;
      h.since_ns = first_ns;
      f.evidence.push_back(std::move(h));
      f.severity = "info";
      f.summary += "; the GPU idles for the extra time (" + config_.busy_metric +
                   " follows the steps' compute share, r " + r2(wait.r) + " over " +
                   std::to_string(wait.intervals) +
                   " intervals): the steps wait on the host (input pipeline, CPU work), not on "
                   "the GPU (informational)";
    }
    throttle_.Keep(f);
    out.push_back(std::move(f));
  }
}

}  // namespace gpufleet::detect
