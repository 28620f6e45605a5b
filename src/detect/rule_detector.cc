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

namespace {

// One condition evaluated, as ConditionHolds does, at times that only
// decrease: its cursors move back instead of searching again, and a drop's
// reference sum loses the points that leave the window and gains those
// that enter it instead of summing the window at every time.
class DescendingCondition {
 public:
  DescendingCondition(const Condition& c, int64_t for_ns, std::span<const WindowPoint> points,
                      int64_t lookback_ns)
      : c_(c), for_ns_(for_ns), lookback_ns_(lookback_ns), pts_(points), latest_(points.size()) {}

  bool Holds(int64_t t) {
    while (latest_ > 0 && pts_[latest_ - 1].timestamp_ns > t) --latest_;
    if (latest_ == 0 || t - pts_[latest_ - 1].timestamp_ns > lookback_ns_) return false;
    const double v = pts_[latest_ - 1].value;
    switch (c_.op) {
      case Condition::Op::kGreater:
        return v > c_.value;
      case Condition::Op::kLess:
        return v < c_.value;
      case Condition::Op::kDrop: {
        // The reference is [t - for - reference, t - for], closed (MeanIn).
        const int64_t from = t - for_ns_ - c_.reference_ns, to = t - for_ns_;
        if (!started_) {
          auto before = [](const WindowPoint& p, int64_t x) { return p.timestamp_ns < x; };
          auto upto = [](const WindowPoint& p, int64_t x) { return p.timestamp_ns <= x; };
          lo_ = static_cast<size_t>(std::lower_bound(pts_.begin(), pts_.end(), from, before) -
                                    pts_.begin());
          hi_ = static_cast<size_t>(
              std::lower_bound(pts_.begin() + static_cast<ptrdiff_t>(lo_), pts_.end(), to, upto) -
              pts_.begin());
          for (size_t i = lo_; i < hi_; ++i) sum_ += pts_[i].value;
          started_ = true;
        } else {
          for (; hi_ > lo_ && pts_[hi_ - 1].timestamp_ns > to; --hi_) sum_ -= pts_[hi_ - 1].value;
          if (hi_ == lo_) {  // emptied: start again from the new end
            for (; hi_ > 0 && pts_[hi_ - 1].timestamp_ns > to; --hi_) {
            }
            lo_ = hi_;
            sum_ = 0;
          }
          for (; lo_ > 0 && pts_[lo_ - 1].timestamp_ns >= from; --lo_) sum_ += pts_[lo_ - 1].value;
        }
        if (hi_ == lo_) return false;
        return v < (1 - c_.value) * (sum_ / static_cast<double>(hi_ - lo_));
      }
    }
    return false;
  }

 private:
  const Condition& c_;
  const int64_t for_ns_, lookback_ns_;
  const std::span<const WindowPoint> pts_;
  size_t latest_;           // one past the newest point at or before the last t
  size_t lo_ = 0, hi_ = 0;  // the reference window's points [lo_, hi_)
  double sum_ = 0;
  bool started_ = false;
};

}  // namespace

std::optional<int64_t> HoldingSince(std::span<const Condition> conditions, int64_t for_ns,
                                    const ConditionSeries& data, int64_t now_ns, int64_t horizon_ns,
                                    int64_t lookback_ns) {
  // The times tested are now and every point's time in [horizon, now],
  // newest first: the series are merged as the walk goes (it stops at the
  // first time a condition fails, most often soon), not sorted up front.
  struct Walk {
    DescendingCondition condition;
    std::span<const WindowPoint> times;  // the series' points in [horizon, now]
  };
  std::vector<Walk> walk;
  walk.reserve(conditions.size());
  for (size_t i = 0; i < conditions.size(); ++i) {
    std::span<const WindowPoint> s = data.series[i];
    auto lo = std::lower_bound(s.begin(), s.end(), horizon_ns,
                               [](const WindowPoint& p, int64_t t) { return p.timestamp_ns < t; });
    auto hi = std::upper_bound(lo, s.end(), now_ns,
                               [](int64_t t, const WindowPoint& p) { return t < p.timestamp_ns; });
    walk.push_back({DescendingCondition(conditions[i], for_ns, s, lookback_ns),
                    std::span<const WindowPoint>(lo, hi)});
  }
  std::optional<int64_t> since;
  for (int64_t t = now_ns;;) {
    bool all = true;
    for (size_t i = 0; i < walk.size() && all; ++i) all = walk[i].condition.Holds(t);
    if (!all) break;
    since = t;
    // The next time: the newest point of any series older than t.
    bool more = false;
    int64_t next = 0;
    for (Walk& w : walk) {
      while (!w.times.empty() && w.times.back().timestamp_ns >= t)
        w.times = w.times.first(w.times.size() - 1);
      if (!w.times.empty() && (!more || w.times.back().timestamp_ns > next)) {
        next = w.times.back().timestamp_ns;
        more = true;
      }
    }
    if (!more) break;
    t = next;
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
  // Conditions are tested now in order of cost (a drop averages its
  // reference, so it goes last), each only on the devices where the ones
  // before hold: a device that fails one now cannot fire (HoldingSince).
  std::vector<size_t> order(rule_.conditions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t i) { return rule_.conditions[i].op != Condition::Op::kDrop; });
  std::vector<DeviceSeriesMap> per_condition(order.size());
  const DeviceSeriesMap* among = nullptr;
  for (size_t i : order) {
    const Condition& c = rule_.conditions[i];
    const int64_t from =
        horizon - lookback_ns_ - (c.op == Condition::Op::kDrop ? rule_.for_ns + c.reference_ns : 0);
    per_condition[i] = ctx.Read(
        c.metric, from, now,
        [&](std::span<const WindowPoint> pts) {
          return ConditionHolds(c, rule_.for_ns, pts, now, lookback_ns_, nullptr);
        },
        among);
    among = &per_condition[i];
  }
  for (const auto& [device_key, first] : per_condition[0]) {
    ConditionSeries data;
    bool complete = true;
    for (const DeviceSeriesMap& m : per_condition) {
      auto it = m.find(device_key);
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

    const std::string device(device_key);
    Finding f;
    f.kind = rule_.name;
    // The first condition's series names the finding's subject.
    f.subject = *first.subject;
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
