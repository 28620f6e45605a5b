#include "detect/capture_detector.h"

#include "detect/device_series.h"
#include "detect/rule_detector.h"

namespace gpufleet::detect {
namespace {

std::string Substitute(std::string arg, const Labels& subject) {
  for (std::string_view name : {"node", "gpu", "gpu_uuid"}) {
    const std::string token = "{" + std::string(name) + "}";
    for (size_t pos = arg.find(token); pos != std::string::npos; pos = arg.find(token, pos)) {
      std::string_view v = subject.Get(name);
      arg.replace(pos, token.size(), v);
      pos += v.size();
    }
  }
  return arg;
}

}  // namespace

CaptureDetector::CaptureDetector(CaptureTriggerConfig config, int64_t interval_ns,
                                 int64_t lookback_ns)
    : config_(std::move(config)), interval_ns_(interval_ns), lookback_ns_(lookback_ns) {}

void CaptureDetector::Evaluate(const EvalContext& ctx, std::vector<Finding>& out) {
  const int64_t now = ctx.now_ns;
  const Condition& c = config_.condition;
  const int64_t horizon = now - config_.for_ns - 3 * interval_ns_;
  const int64_t from =
      horizon - lookback_ns_ - (c.op == Condition::Op::kDrop ? config_.for_ns + c.reference_ns : 0);
  const Condition conds[] = {c};
  auto holds_now = [&](std::span<const WindowPoint> pts) {
    return ConditionHolds(c, config_.for_ns, pts, now, lookback_ns_, nullptr);
  };
  for (const auto& [device_key, series] : ctx.Read(c.metric, from, now, holds_now)) {
    const std::string device(device_key);
    ConditionSeries data;
    data.series.emplace_back(series.points);
    std::optional<int64_t> since =
        HoldingSince(conds, config_.for_ns, data, now, horizon, lookback_ns_);
    if (!since || now - *since < config_.for_ns) continue;
    auto it = fired_.find(device);
    if (it != fired_.end()) {
      State& st = it->second;
      // Still the run that fired (it began before the last sighting), or a
      // new run inside the cool-down.
      const bool same_run = *since <= st.last_active_ns + interval_ns_;
      if (!same_run && *since - st.last_active_ns < config_.cooldown_ns) continue;
      if (!same_run) st.run_since_ns = *since;
      st.last_active_ns = now;
    } else {
      fired_[device] = State{*since, now};
    }
    Finding f;
    f.kind = kKindCaptureTrigger;
    f.subject = *series.subject;
    f.key = std::string(kKindCaptureTrigger) + "/" + config_.name + "/" + device;
    f.devices = {device};
    if (auto w = ctx.workloads_by_device.find(device); w != ctx.workloads_by_device.end()) {
      f.workloads = w->second;
    }
    f.window_start_ns = *since;
    f.window_end_ns = now;
    Evidence e;
    e.series = SeriesName(c.metric, f.subject);
    e.condition = DescribeCondition(c, config_.for_ns);
    e.threshold = c.value;
    ConditionHolds(c, config_.for_ns, series.points, now, lookback_ns_, &e.observed);
    e.since_ns = *since;
    f.evidence.push_back(std::move(e));
    f.team = "platform";
    f.severity = "warning";
    f.capture_name = config_.name;
    for (const std::string& arg : config_.command) {
      f.capture_command.push_back(Substitute(arg, f.subject));
    }
    f.summary = "capture " + config_.name + " on " + device + ": " + c.metric + " " + e.condition;
    out.push_back(std::move(f));
  }
}

}  // namespace gpufleet::detect
