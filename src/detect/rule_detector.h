// Threshold rules: every condition of a rule holds on one device at every
// evaluation point of the last `for` (Prometheus alerting-rule semantics, so
// `gpufleet rules export` can hand the same rule to Prometheus / vmalert).
//
// Conditions of different metrics are joined per device (DeviceKey). A value
// is the latest point not older than the lookback; a missing value makes the
// condition false. "drop" compares with the mean over
// [t - for - reference, t - for], i.e. before the rule window, which is
// avg_over_time(m[reference] offset for) in PromQL.
// Private to detect/; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "detect/detect_config.h"
#include "detect/detector.h"

namespace gpufleet::detect {

// One device's series, one per condition (same order).
struct ConditionSeries {
  std::vector<std::span<const WindowPoint>> series;
};

// The start of the run of evaluation points (the union of the series'
// timestamps, plus now) at which all conditions hold, ending at now; nullopt
// when they do not hold now. The walk looks back to `horizon_ns` at most.
std::optional<int64_t> HoldingSince(std::span<const Condition> conditions, int64_t for_ns,
                                    const ConditionSeries& data, int64_t now_ns, int64_t horizon_ns,
                                    int64_t lookback_ns);

// Whether one condition holds at t (for `drop`, against its reference mean).
bool ConditionHolds(const Condition& c, int64_t for_ns, std::span<const WindowPoint> points,
                    int64_t t_ns, int64_t lookback_ns, double* observed);

// "> 0.85 for 2m", "drop 30% vs 30m mean for 2m".
std::string DescribeCondition(const Condition& c, int64_t for_ns);

class RuleDetector final : public Detector {
 public:
  RuleDetector(RuleConfig rule, int64_t interval_ns, int64_t lookback_ns);
  void Evaluate(const EvalContext& ctx, std::vector<Finding>& out) override;

 private:
  const RuleConfig rule_;
  const int64_t interval_ns_;
  const int64_t lookback_ns_;
};

}  // namespace gpufleet::detect
