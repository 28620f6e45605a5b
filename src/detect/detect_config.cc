#include "detect/detect_config.h"

#include <cmath>
#include <optional>
#include <string>

#include "core/embedded.h"
#include "core/labels.h"
#include "core/toml_reader.h"

namespace gpufleet::detect {
namespace {

// [table] as a reader; nullopt when absent. A table written as a plain value
// (`baseline = 5`) has always been ignored, and still is.
// `enabled = 1` has always been read as true: toml++ converts integers to
// booleans, and the reader this replaced relied on that.
Status ReadFlag(const TomlReader& r, std::string_view key, bool& out) {
  const toml::node* n = r.Get(key);
  if (n != nullptr && n->is_integer()) {
    out = n->as_integer()->get() != 0;
    return OkStatus();
  }
  return r.Read(key, out);
}

// A name (metric) keeps its default when absent or empty.
Status ReadName(const TomlReader& r, std::string_view key, std::string& out) {
  std::string v;
  RETURN_IF_ERROR(r.Read(key, v));
  if (!v.empty()) out = v;
  return OkStatus();
}

// A count (TOML integer or float) of at least `min`.
Status ReadCount(const TomlReader& r, std::string_view key, size_t min, size_t& out) {
  double n = static_cast<double>(out);
  RETURN_IF_ERROR(r.Read(key, n));
  if (!(n >= static_cast<double>(min))) {
    const toml::node* at = r.Get(key);
    return r.FieldError(at != nullptr ? *at : r.table(), key, "must be >= " + std::to_string(min));
  }
  out = static_cast<size_t>(n);
  return OkStatus();
}

std::optional<TomlReader> Section(const TomlReader& root, std::string_view name) {
  const toml::table* t = root.table()[name].as_table();
  if (t == nullptr) return std::nullopt;
  return TomlReader(*t, root.origin(), std::string(name));
}

StatusOr<Condition> ParseCondition(const TomlReader& r) {
  const toml::table& t = r.table();
  RETURN_IF_ERROR(r.CheckKeys({"metric", "op", "value", "reference"}));
  Condition c;
  RETURN_IF_ERROR(r.Require("metric", c.metric));
  if (!IsValidMetricName(c.metric)) return r.Error(t, "invalid metric name '" + c.metric + "'");
  std::string op;
  RETURN_IF_ERROR(r.Require("op", op));
  if (op == ">") {
    c.op = Condition::Op::kGreater;
  } else if (op == "<") {
    c.op = Condition::Op::kLess;
  } else if (op == "drop") {
    c.op = Condition::Op::kDrop;
  } else {
    return r.Error(t, "op must be \">\", \"<\" or \"drop\", not '" + op + "'");
  }
  RETURN_IF_ERROR(r.Require("value", c.value));
  if (!std::isfinite(c.value)) return r.Error(t, "value must be finite");
  RETURN_IF_ERROR(r.ReadDuration("reference", c.reference_ns));
  if (c.op == Condition::Op::kDrop) {
    if (c.reference_ns <= 0) return r.Error(t, "op \"drop\" needs a 'reference' window");
    if (c.value <= 0 || c.value >= 1) return r.Error(t, "a drop must be in (0, 1)");
  }
  return c;
}

StatusOr<RuleConfig> ParseRule(const TomlReader& r) {
  const toml::table& t = r.table();
  RETURN_IF_ERROR(r.CheckKeys({"name", "for", "severity", "team", "summary", "conditions"}));
  RuleConfig rule;
  RETURN_IF_ERROR(r.Require("name", rule.name));
  if (!IsValidLabelName(rule.name)) return r.Error(t, "rule name must be a label-like name");
  RETURN_IF_ERROR(r.ReadDuration("for", rule.for_ns));
  std::string severity;
  RETURN_IF_ERROR(r.Read("severity", severity));
  if (!severity.empty()) rule.severity = severity;
  if (rule.severity != "warning" && rule.severity != "critical") {
    return r.Error(t, "severity must be warning or critical");
  }
  std::string team;
  RETURN_IF_ERROR(r.Read("team", team));
  if (!team.empty()) rule.team = team;
  RETURN_IF_ERROR(r.Read("summary", rule.summary));
  const toml::array* conds = t["conditions"].as_array();
  if (conds == nullptr || conds->empty()) {
    return r.Error(t, "rule '" + rule.name + "' needs a non-empty 'conditions' array");
  }
  RETURN_IF_ERROR(r.ForEachTable("conditions", [&](const TomlReader& c) -> Status {
    ASSIGN_OR_RETURN(Condition cond, ParseCondition(c));
    rule.conditions.push_back(std::move(cond));
    return OkStatus();
  }));
  return rule;
}

Status ParseBaseline(const TomlReader& r, BaselineConfig& b) {
  RETURN_IF_ERROR(r.CheckKeys(
      {"enabled", "metrics", "max_sigma", "for", "min_samples", "min_stddev_fraction"}));
  RETURN_IF_ERROR(ReadFlag(r, "enabled", b.enabled));
  RETURN_IF_ERROR(r.Read("metrics", b.metrics));
  RETURN_IF_ERROR(r.Read("max_sigma", b.max_sigma));
  RETURN_IF_ERROR(r.ReadDuration("for", b.for_ns));
  double n = static_cast<double>(b.min_samples);  // counts may be written 360.0; truncated
  RETURN_IF_ERROR(r.Read("min_samples", n));
  b.min_samples = static_cast<int64_t>(n);
  RETURN_IF_ERROR(r.Read("min_stddev_fraction", b.min_stddev_fraction));
  if (b.max_sigma <= 0 || b.min_samples < 2) {
    return r.Error(r.table(), "baseline needs max_sigma > 0 and min_samples >= 2");
  }
  return OkStatus();
}

Status ParseVariance(const TomlReader& r, VarianceConfig& v) {
  RETURN_IF_ERROR(
      r.CheckKeys({"enabled", "metric", "window", "min_points", "max_cv", "bimodality_min",
                   "tail_ratio_max", "busy_metric", "host_wait_min_r", "host_wait_min_intervals"}));
  RETURN_IF_ERROR(ReadFlag(r, "enabled", v.enabled));
  RETURN_IF_ERROR(ReadName(r, "metric", v.metric));
  RETURN_IF_ERROR(r.ReadDuration("window", v.window_ns));
  RETURN_IF_ERROR(ReadCount(r, "min_points", 4, v.min_points));
  RETURN_IF_ERROR(r.Read("max_cv", v.max_cv));
  RETURN_IF_ERROR(r.Read("bimodality_min", v.bimodality_min));
  RETURN_IF_ERROR(r.Read("tail_ratio_max", v.tail_ratio_max));
  RETURN_IF_ERROR(ReadName(r, "busy_metric", v.busy_metric));
  RETURN_IF_ERROR(r.Read("host_wait_min_r", v.host_wait_min_r));
  return ReadCount(r, "host_wait_min_intervals", 3, v.host_wait_min_intervals);
}

Status ParseCrossCloud(const TomlReader& r, CrossCloudConfig& c) {
  RETURN_IF_ERROR(r.CheckKeys({"enabled", "metric", "window", "max_gap", "min_points"}));
  RETURN_IF_ERROR(ReadFlag(r, "enabled", c.enabled));
  RETURN_IF_ERROR(ReadName(r, "metric", c.metric));
  RETURN_IF_ERROR(r.ReadDuration("window", c.window_ns));
  RETURN_IF_ERROR(r.Read("max_gap", c.max_gap));
  RETURN_IF_ERROR(ReadCount(r, "min_points", 1, c.min_points));
  if (c.max_gap <= 0) return r.Error(r.table(), "cross_cloud needs max_gap > 0");
  return OkStatus();
}

Status ParseRootCause(const TomlReader& r, RootCauseConfig& rc) {
  RETURN_IF_ERROR(r.CheckKeys({"miss_metric", "miss_high", "bandwidth_saturated",
                               "interconnect_busy", "stall_metric", "window", "reference"}));
  std::string miss;
  RETURN_IF_ERROR(r.Read("miss_metric", miss));
  if (!miss.empty()) rc.miss_metric = miss;
  std::string stall;
  RETURN_IF_ERROR(r.Read("stall_metric", stall));
  if (!stall.empty()) rc.stall_metric = stall;
  RETURN_IF_ERROR(r.Read("miss_high", rc.miss_high));
  RETURN_IF_ERROR(r.Read("bandwidth_saturated", rc.bandwidth_saturated));
  RETURN_IF_ERROR(r.Read("interconnect_busy", rc.interconnect_busy));
  RETURN_IF_ERROR(r.ReadDuration("window", rc.window_ns));
  RETURN_IF_ERROR(r.ReadDuration("reference", rc.reference_ns));
  return OkStatus();
}

StatusOr<CaptureTriggerConfig> ParseCapture(const TomlReader& r) {
  RETURN_IF_ERROR(r.CheckKeys({"name", "for", "condition", "command", "cooldown"}));
  CaptureTriggerConfig c;
  RETURN_IF_ERROR(r.Require("name", c.name));
  RETURN_IF_ERROR(r.ReadDuration("for", c.for_ns));
  ASSIGN_OR_RETURN(std::optional<TomlReader> cond, r.Table("condition"));
  if (!cond) return r.Error(r.table(), "capture '" + c.name + "' needs a 'condition'");
  ASSIGN_OR_RETURN(c.condition, ParseCondition(*cond));
  RETURN_IF_ERROR(r.Read("command", c.command));
  if (c.command.empty()) return r.Error(r.table(), "capture '" + c.name + "' needs a 'command'");
  RETURN_IF_ERROR(r.ReadDuration("cooldown", c.cooldown_ns));
  return c;
}

}  // namespace

std::string_view OpName(Condition::Op op) {
  switch (op) {
    case Condition::Op::kGreater:
      return ">";
    case Condition::Op::kLess:
      return "<";
    case Condition::Op::kDrop:
      return "drop";
  }
  return "?";
}

StatusOr<DetectConfig> ParseDetectConfig(std::string_view toml, std::string_view source_name) {
  ASSIGN_OR_RETURN(toml::table root, ParseToml(toml, source_name));
  TomlReader r(root, source_name);
  RETURN_IF_ERROR(r.CheckKeys({"interval_s", "lookback", "rule", "baseline", "variance",
                               "cross_cloud", "root_cause", "capture"}));
  DetectConfig c;
  double interval_s = 10;
  RETURN_IF_ERROR(r.Read("interval_s", interval_s));
  if (!(interval_s > 0)) return r.Error(root, "interval_s must be > 0");
  c.interval_ns = static_cast<int64_t>(interval_s * 1e9);
  RETURN_IF_ERROR(r.ReadDuration("lookback", c.lookback_ns));
  RETURN_IF_ERROR(r.ForEachTable("rule", [&](const TomlReader& t) -> Status {
    ASSIGN_OR_RETURN(RuleConfig rule, ParseRule(t));
    for (const RuleConfig& other : c.rules) {
      if (other.name == rule.name) return t.Error(t.table(), "duplicate rule '" + rule.name + "'");
    }
    c.rules.push_back(std::move(rule));
    return OkStatus();
  }));
  if (auto t = Section(r, "baseline")) RETURN_IF_ERROR(ParseBaseline(*t, c.baseline));
  if (auto t = Section(r, "variance")) RETURN_IF_ERROR(ParseVariance(*t, c.variance));
  if (auto t = Section(r, "cross_cloud")) RETURN_IF_ERROR(ParseCrossCloud(*t, c.cross_cloud));
  if (auto t = Section(r, "root_cause")) RETURN_IF_ERROR(ParseRootCause(*t, c.root_cause));
  RETURN_IF_ERROR(r.ForEachTable("capture", [&](const TomlReader& t) -> Status {
    ASSIGN_OR_RETURN(CaptureTriggerConfig cap, ParseCapture(t));
    c.captures.push_back(std::move(cap));
    return OkStatus();
  }));
  return c;
}

const DetectConfig& DefaultDetectConfig() {
  static const DetectConfig* config = [] {
    auto text = FindEmbeddedFile("detect/default.toml");
    GPUFLEET_CHECK(text.has_value());
    auto parsed = ParseDetectConfig(*text, "data/detect/default.toml");
    if (!parsed.ok())
      CheckFailed(__FILE__, __LINE__, "DefaultDetectConfig", parsed.status().ToString());
    return new DetectConfig(std::move(parsed).value());
  }();
  return *config;
}

}  // namespace gpufleet::detect
