#include "detect/rule_detector.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/strings.h"
#include "detect/device_series.h"

namespace gpufleet::detect {
namespace {

std::string Percent(double ratio) {
  return std::to_string(static_cast<int>(std::lround(ratio * 100))) + "%";
}

}  // namespace

bool ConditionHolds(const Condition& c, int64_t for_ns, std::span<const WindowPoint> points,
                    int64_t t_ns, int64_t lookback_ns, double* observed) {
  std::optional<double> v = ValueAt(points, t_ns, lookback_ns);
  if (!v) return false;
  if (observed != nullptr) *observed = *v;
  switch (c.op) {
    case Condition::Op::kGreater:
      return *v > c.value;
    case Condition::Op::kLess:
      return *v < c.value;
    case Condition::Op::kDrop: {
      std::optional<double> ref = MeanIn(points, t_ns - for_ns - c.reference_ns, t_ns - for_ns);
      return ref && *v < (1 - c.value) * *ref;
    }
  }
  return false;
}

std::string DescribeCondition(const Condition& c, int64_t for_ns) {
  std::string s;
  if (c.op == Condition::Op::kDrop) {
    s = "down " + Percent(c.value) + " vs its " + FormatDuration(c.reference_ns) + " mean";
  } else {
    s = std::string(OpName(c.op)) + " " + FormatDouble(c.value);
  }
  if (for_ns > 0) s += " for " + FormatDuration(for_ns);
  return s;
}

std::optional<int64_t> HoldingSince(std::span<const Condition> conditions, int64_t for_ns,
                                    const ConditionSeries& data, int64_t now_ns, int64_t horizon_ns,
                                    int64_t lookback_ns) {
  std::vector<int64_t> times{now_ns};
  for (const auto& s : data.series) {
    for (const WindowPoint& p : s) {
      if (p.timestamp_ns >= horizon_ns && p.timestamp_ns <= now_ns) times.push_back(p.timestamp_ns);
    }
  }
  std::sort(times.begin(), times.end(), std::greater<>());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::optional<int64_t> since;
  for (int64_t t : times) {
    bool all = true;
    for (size_t i = 0; i < conditions.size() && all; ++i) {
      all = ConditionHolds(conditions[i], for_ns, data.series[i], t, lookback_ns, nullptr);
    }
    if (!all) break;
    since = t;
  }
  return since;
}

RuleDetector::RuleDetector(RuleConfig rule, int64_t interval_ns, int64_t lookback_ns)
    : rule_(std::move(rule)), interval_ns_(interval_ns), lookback_ns_(lookback_ns) {}

void RuleDetector::Evaluate(const EvalContext& ctx, std::vector<Finding>& out) {
  const int64_t now = ctx.now_ns;
  // Look back past the rule window so window_start shows when it began
  // (bounded, to keep an evaluation cheap).
  const int64_t horizon = now - 2 * rule_.for_ns - 3 * interval_ns_;
  std::vector<DeviceSeriesMap> per_condition;
  for (const Condition& c : rule_.conditions) {
    const int64_t from =
        horizon - lookback_ns_ - (c.op == Condition::Op::kDrop ? rule_.for_ns + c.reference_ns : 0);
    // Only the first condition's labels name the finding's subject. A
    // device whose condition does not hold now cannot fire (HoldingSince).
    per_condition.push_back(
        ReadDeviceSeries(ctx.store, c.metric, from, now, /*with_labels=*/per_condition.empty(),
                         [&](std::span<const WindowPoint> pts) {
                           return ConditionHolds(c, rule_.for_ns, pts, now, lookback_ns_, nullptr);
                         }));
  }
  for (const auto& [device, first] : per_condition[0]) {
    ConditionSeries data;
    bool complete = true;
    for (const DeviceSeriesMap& m : per_condition) {
      auto it = m.find(device);
      if (it == m.end()) {
        complete = false;
        break;
      }
      data.series.emplace_back(it->second.points);
    }
    if (!complete) continue;
    std::optional<int64_t> since =
        HoldingSince(rule_.conditions, rule_.for_ns, data, now, horizon, lookback_ns_);
    if (!since || now - *since < rule_.for_ns) continue;

    Finding f;
    f.kind = rule_.name;
    f.subject = DeviceSubject(first.labels);
    f.key = rule_.name + "/" + device;
    f.devices = {device};
    if (auto w = ctx.workloads_by_device.find(device); w != ctx.workloads_by_device.end()) {
      f.workloads = w->second;
    }
    f.window_start_ns = *since;
    f.window_end_ns = now;
    for (size_t i = 0; i < rule_.conditions.size(); ++i) {
      const Condition& c = rule_.conditions[i];
      Evidence e;
      e.series = SeriesName(c.metric, f.subject);
      e.condition = DescribeCondition(c, rule_.for_ns);
      e.threshold = c.value;
      ConditionHolds(c, rule_.for_ns, data.series[i], now, lookback_ns_, &e.observed);
      e.since_ns = *since;
      f.evidence.push_back(std::move(e));
    }
    f.team = rule_.team;
    f.severity = rule_.severity;
    f.summary = rule_.name + " on " + device + ": " +
                (rule_.summary.empty() ? std::string("rule conditions held") : rule_.summary) +
                " for " + FormatDurationHuman(now - *since);
    out.push_back(std::move(f));
  }
}

}  // namespace gpufleet::detect
