#include "detect/baseline_detector.h"

#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "detect/device_series.h"

namespace gpufleet::detect {

void Baseline::Add(double x, int64_t timestamp_ns) {
  if (!std::isfinite(x)) return;
  ++count;
  const double delta = x - mean;
  mean += delta / static_cast<double>(count);
  m2 += delta * (x - mean);
  updated_ns = timestamp_ns;
}

BaselineDetector::BaselineDetector(BaselineConfig config, int64_t interval_ns)
    : config_(std::move(config)), interval_ns_(interval_ns) {}

std::string BaselineDetector::BaselineKey(const Labels& subject,
                                          const std::vector<std::string>& workloads) {
  std::string key =
      "model=" + std::string(subject.Get("model")) + "/cloud=" + std::string(subject.Get("cloud"));
  if (!workloads.empty()) {
    key += "/workload=";
    for (size_t i = 0; i < workloads.size(); ++i) key += (i ? "+" : "") + workloads[i];
  }
  return key;
}

void BaselineDetector::Load(const std::vector<Baseline>& baselines) {
  for (const Baseline& b : baselines) baselines_[{b.key, b.metric}] = b;
}

std::vector<Baseline> BaselineDetector::TakeDirty() {
  std::vector<Baseline> out;
  for (const auto& k : dirty_) out.push_back(baselines_[k]);
  dirty_.clear();
  return out;
}

const Baseline* BaselineDetector::Find(const std::string& key, const std::string& metric) const {
  auto it = baselines_.find({key, metric});
  return it == baselines_.end() ? nullptr : &it->second;
}

void BaselineDetector::Evaluate(const EvalContext& ctx, std::vector<Finding>& out) {
  const int64_t now = ctx.now_ns;
  const int64_t from = now - config_.for_ns - 3 * interval_ns_;
  for (size_t mi = 0; mi < config_.metrics.size(); ++mi) {
    const std::string& metric = config_.metrics[mi];
    if (tracked_.size() <= mi) tracked_.resize(mi + 1);
    for (const auto& [device, series] : ctx.Read(metric, from, now)) {
      const Labels& subject = *series.subject;
      static const std::vector<std::string> kNone;
      auto w = ctx.workloads_by_device.find(device);
      const std::vector<std::string>& workloads =
          w == ctx.workloads_by_device.end() ? kNone : w->second;
      auto t = tracked_[mi].find(device);
      if (t == tracked_[mi].end()) t = tracked_[mi].emplace(std::string(device), Tracked{}).first;
      Tracked& tracked = t->second;
      if (tracked.baseline == nullptr || tracked.workloads != workloads ||
          tracked.model != subject.Get("model") || tracked.cloud != subject.Get("cloud")) {
        const std::string key = BaselineKey(subject, workloads);
        Baseline& b = baselines_[{key, metric}];
        if (b.key.empty()) {
          b.key = key;
          b.metric = metric;
        }
        tracked.baseline = &b;
        tracked.workloads = workloads;
        tracked.model = subject.Get("model");
        tracked.cloud = subject.Get("cloud");
      }
      Baseline& b = *tracked.baseline;
      const std::string& key = b.key;
      const double sigma =
          std::max(std::sqrt(b.variance()), config_.min_stddev_fraction * std::fabs(b.mean));
      const bool mature = b.count >= config_.min_samples && sigma > 0;
      auto z = [&](double x) { return (x - b.mean) / sigma; };

      // Sustained deviation: every point of the last `for` beyond max_sigma on
      // the same side, and the points span the window.
      if (mature) {
        int side = 0;
        bool sustained = true;
        int64_t first_ts = 0;
        double last = 0;
        for (const WindowPoint& p : series.points) {
          if (p.timestamp_ns < now - config_.for_ns) continue;
          const double zz = z(p.value);
          const int s = zz > config_.max_sigma ? 1 : (zz < -config_.max_sigma ? -1 : 0);
          if (s == 0 || (side != 0 && s != side)) {
            sustained = false;
            break;
          }
          if (side == 0) first_ts = p.timestamp_ns;
          side = s;
          last = p.value;
        }
        if (sustained && side != 0 && first_ts <= now - config_.for_ns + interval_ns_) {
          Finding f;
          f.kind = kKindBaselineDeviation;
          f.subject = subject;
          f.key = std::string(kKindBaselineDeviation) + "/" + metric + "/" + std::string(device);
          f.devices = {std::string(device)};
          if (w != ctx.workloads_by_device.end()) f.workloads = w->second;
          f.window_start_ns = first_ts;
          f.window_end_ns = now;
          Evidence e;
          e.series = SeriesName(metric, subject);
          e.condition = std::string(side > 0 ? "> " : "< ") + "baseline " + FormatDouble(b.mean) +
                        (side > 0 ? " + " : " - ") + FormatDouble(config_.max_sigma) +
                        " sigma for " + FormatDuration(config_.for_ns);
          e.threshold = b.mean + side * config_.max_sigma * sigma;
          e.observed = last;
          e.since_ns = first_ts;
          f.evidence.push_back(std::move(e));
          f.team = "platform";
          f.severity = "warning";
          f.summary = metric + " on " + std::string(device) + " " +
                      FormatDouble(std::round(z(last) * 10) / 10) + " sigma from its baseline (" +
                      key + ")";
          out.push_back(std::move(f));
        }
      }

      // Learn the points not seen yet.
      int64_t& until = tracked.learned_until_ns;
      bool learned = false;
      for (const WindowPoint& p : series.points) {
        if (p.timestamp_ns <= until) continue;
        until = p.timestamp_ns;
        if (mature && std::fabs(z(p.value)) > config_.max_sigma) continue;
        b.Add(p.value, p.timestamp_ns);
        learned = true;
      }
      if (learned) dirty_.insert({key, metric});
    }
  }
}

}  // namespace gpufleet::detect
