#include "detect/detect_config.h"

#include <cmath>
#include <string>

#include "core/embedded.h"
#include "core/labels.h"
#include "core/strings.h"
#include "core/toml_reader.h"

namespace gpufleet::detect {
namespace {

Status Bad(std::string_view origin, const toml::node& node, std::string_view msg) {
  return InvalidArgumentError(TomlWhere(origin, node) + std::string(msg));
}

StatusOr<int64_t> Duration(const toml::table& t, std::string_view key, int64_t fallback,
                           std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  auto s = n->value<std::string>();
  if (!s) return Bad(origin, *n, "field '" + std::string(key) + "' must be a duration string");
  auto d = ParseDurationNs(*s);
  if (!d.ok()) return Bad(origin, *n, "field '" + std::string(key) + "': " + d.status().message());
  return *d;
}

StatusOr<bool> Bool(const toml::table& t, std::string_view key, bool fallback,
                    std::string_view origin) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return fallback;
  auto b = n->value<bool>();
  if (!b) return Bad(origin, *n, "field '" + std::string(key) + "' must be true or false");
  return *b;
}

StatusOr<std::vector<std::string>> Strings(const toml::table& t, std::string_view key,
                                           std::string_view origin) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* a = n->as_array();
  if (a == nullptr) return Bad(origin, *n, "field '" + std::string(key) + "' must be an array");
  for (const toml::node& e : *a) {
    auto s = e.value<std::string>();
    if (!s) return Bad(origin, e, "field '" + std::string(key) + "' must hold strings");
    out.push_back(*s);
  }
  return out;
}

Status CheckKeys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                 std::string_view origin) {
  for (const auto& [k, v] : t) {
    bool ok = false;
    for (auto a : allowed) ok = ok || k.str() == a;
    if (!ok) {
      std::string msg = "unknown field '" + std::string(k.str()) + "'";
      auto hint = SuggestClosest(k.str(), allowed);
      if (!hint.empty()) msg += " (did you mean '" + std::string(hint) + "'?)";
      return Bad(origin, v, msg);
    }
  }
  return OkStatus();
}

StatusOr<Condition> ParseCondition(const toml::node& node, std::string_view origin) {
  const toml::table* t = node.as_table();
  if (t == nullptr) return Bad(origin, node, "a condition must be a table");
  RETURN_IF_ERROR(CheckKeys(*t, {"metric", "op", "value", "reference"}, origin));
  Condition c;
  ASSIGN_OR_RETURN(c.metric, RequiredString(*t, "metric", origin));
  if (!IsValidMetricName(c.metric))
    return Bad(origin, node, "invalid metric name '" + c.metric + "'");
  ASSIGN_OR_RETURN(std::string op, RequiredString(*t, "op", origin));
  if (op == ">") {
    c.op = Condition::Op::kGreater;
  } else if (op == "<") {
    c.op = Condition::Op::kLess;
  } else if (op == "drop") {
    c.op = Condition::Op::kDrop;
  } else {
    return Bad(origin, node, "op must be \">\", \"<\" or \"drop\", not '" + op + "'");
  }
  if (t->get("value") == nullptr) return Bad(origin, node, "missing field 'value'");
  ASSIGN_OR_RETURN(c.value, OptionalNumber(*t, "value", 0, origin));
  if (!std::isfinite(c.value)) return Bad(origin, node, "value must be finite");
  ASSIGN_OR_RETURN(c.reference_ns, Duration(*t, "reference", 0, origin));
  if (c.op == Condition::Op::kDrop) {
    if (c.reference_ns <= 0) return Bad(origin, node, "op \"drop\" needs a 'reference' window");
    if (c.value <= 0 || c.value >= 1) return Bad(origin, node, "a drop must be in (0, 1)");
  }
  return c;
}

StatusOr<RuleConfig> ParseRule(const toml::table& t, std::string_view origin) {
  RETURN_IF_ERROR(
      CheckKeys(t, {"name", "for", "severity", "team", "summary", "conditions"}, origin));
  RuleConfig r;
  ASSIGN_OR_RETURN(r.name, RequiredString(t, "name", origin));
  if (!IsValidLabelName(r.name)) return Bad(origin, t, "rule name must be a label-like name");
  ASSIGN_OR_RETURN(r.for_ns, Duration(t, "for", 0, origin));
  ASSIGN_OR_RETURN(std::string severity, OptionalString(t, "severity", origin));
  if (!severity.empty()) r.severity = severity;
  if (r.severity != "warning" && r.severity != "critical") {
    return Bad(origin, t, "severity must be warning or critical");
  }
  ASSIGN_OR_RETURN(std::string team, OptionalString(t, "team", origin));
  if (!team.empty()) r.team = team;
  ASSIGN_OR_RETURN(r.summary, OptionalString(t, "summary", origin));
  const toml::array* conds = t["conditions"].as_array();
  if (conds == nullptr || conds->empty()) {
    return Bad(origin, t, "rule '" + r.name + "' needs a non-empty 'conditions' array");
  }
  for (const toml::node& c : *conds) {
    ASSIGN_OR_RETURN(Condition cond, ParseCondition(c, origin));
    r.conditions.push_back(std::move(cond));
  }
  return r;
}

Status ParseBaseline(const toml::table& t, std::string_view origin, BaselineConfig& b) {
  RETURN_IF_ERROR(CheckKeys(
      t, {"enabled", "metrics", "max_sigma", "for", "min_samples", "min_stddev_fraction"}, origin));
  ASSIGN_OR_RETURN(b.enabled, Bool(t, "enabled", b.enabled, origin));
  if (t.get("metrics") != nullptr) {
    ASSIGN_OR_RETURN(b.metrics, Strings(t, "metrics", origin));
  }
  ASSIGN_OR_RETURN(b.max_sigma, OptionalNumber(t, "max_sigma", b.max_sigma, origin));
  ASSIGN_OR_RETURN(b.for_ns, Duration(t, "for", b.for_ns, origin));
  ASSIGN_OR_RETURN(double n,
                   OptionalNumber(t, "min_samples", static_cast<double>(b.min_samples), origin));
  b.min_samples = static_cast<int64_t>(n);
  ASSIGN_OR_RETURN(b.min_stddev_fraction,
                   OptionalNumber(t, "min_stddev_fraction", b.min_stddev_fraction, origin));
  if (b.max_sigma <= 0 || b.min_samples < 2) {
    return Bad(origin, t, "baseline needs max_sigma > 0 and min_samples >= 2");
  }
  return OkStatus();
}

Status ParseVariance(const toml::table& t, std::string_view origin, VarianceConfig& v) {
  RETURN_IF_ERROR(CheckKeys(
      t,
      {"enabled", "metric", "window", "min_points", "max_cv", "bimodality_min", "tail_ratio_max"},
      origin));
  ASSIGN_OR_RETURN(v.enabled, Bool(t, "enabled", v.enabled, origin));
  ASSIGN_OR_RETURN(std::string metric, OptionalString(t, "metric", origin));
  if (!metric.empty()) v.metric = metric;
  ASSIGN_OR_RETURN(v.window_ns, Duration(t, "window", v.window_ns, origin));
  ASSIGN_OR_RETURN(double n,
                   OptionalNumber(t, "min_points", static_cast<double>(v.min_points), origin));
  if (n < 4) return Bad(origin, t, "variance min_points must be >= 4");
  v.min_points = static_cast<size_t>(n);
  ASSIGN_OR_RETURN(v.max_cv, OptionalNumber(t, "max_cv", v.max_cv, origin));
  ASSIGN_OR_RETURN(v.bimodality_min, OptionalNumber(t, "bimodality_min", v.bimodality_min, origin));
  ASSIGN_OR_RETURN(v.tail_ratio_max, OptionalNumber(t, "tail_ratio_max", v.tail_ratio_max, origin));
  return OkStatus();
}

Status ParseCrossCloud(const toml::table& t, std::string_view origin, CrossCloudConfig& c) {
  RETURN_IF_ERROR(CheckKeys(t, {"enabled", "metric", "window", "max_gap", "min_points"}, origin));
  ASSIGN_OR_RETURN(c.enabled, Bool(t, "enabled", c.enabled, origin));
  ASSIGN_OR_RETURN(std::string metric, OptionalString(t, "metric", origin));
  if (!metric.empty()) c.metric = metric;
  ASSIGN_OR_RETURN(c.window_ns, Duration(t, "window", c.window_ns, origin));
  ASSIGN_OR_RETURN(c.max_gap, OptionalNumber(t, "max_gap", c.max_gap, origin));
  ASSIGN_OR_RETURN(double n,
                   OptionalNumber(t, "min_points", static_cast<double>(c.min_points), origin));
  if (n < 1 || c.max_gap <= 0)
    return Bad(origin, t, "cross_cloud needs min_points >= 1, max_gap > 0");
  c.min_points = static_cast<size_t>(n);
  return OkStatus();
}

Status ParseRootCause(const toml::table& t, std::string_view origin, RootCauseConfig& r) {
  RETURN_IF_ERROR(CheckKeys(t,
                            {"miss_metric", "miss_high", "bandwidth_saturated", "interconnect_busy",
                             "stall_metric", "window", "reference"},
                            origin));
  ASSIGN_OR_RETURN(std::string miss, OptionalString(t, "miss_metric", origin));
  if (!miss.empty()) r.miss_metric = miss;
  ASSIGN_OR_RETURN(std::string stall, OptionalString(t, "stall_metric", origin));
  if (!stall.empty()) r.stall_metric = stall;
  ASSIGN_OR_RETURN(r.miss_high, OptionalNumber(t, "miss_high", r.miss_high, origin));
  ASSIGN_OR_RETURN(r.bandwidth_saturated,
                   OptionalNumber(t, "bandwidth_saturated", r.bandwidth_saturated, origin));
  ASSIGN_OR_RETURN(r.interconnect_busy,
                   OptionalNumber(t, "interconnect_busy", r.interconnect_busy, origin));
  ASSIGN_OR_RETURN(r.window_ns, Duration(t, "window", r.window_ns, origin));
  ASSIGN_OR_RETURN(r.reference_ns, Duration(t, "reference", r.reference_ns, origin));
  return OkStatus();
}

StatusOr<CaptureTriggerConfig> ParseCapture(const toml::table& t, std::string_view origin) {
  RETURN_IF_ERROR(CheckKeys(t, {"name", "for", "condition", "command", "cooldown"}, origin));
  CaptureTriggerConfig c;
  ASSIGN_OR_RETURN(c.name, RequiredString(t, "name", origin));
  ASSIGN_OR_RETURN(c.for_ns, Duration(t, "for", 0, origin));
  const toml::node* cond = t.get("condition");
  if (cond == nullptr) return Bad(origin, t, "capture '" + c.name + "' needs a 'condition'");
  ASSIGN_OR_RETURN(c.condition, ParseCondition(*cond, origin));
  ASSIGN_OR_RETURN(c.command, Strings(t, "command", origin));
  if (c.command.empty()) return Bad(origin, t, "capture '" + c.name + "' needs a 'command'");
  ASSIGN_OR_RETURN(c.cooldown_ns, Duration(t, "cooldown", c.cooldown_ns, origin));
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
  RETURN_IF_ERROR(CheckKeys(root,
                            {"interval_s", "lookback", "rule", "baseline", "variance",
                             "cross_cloud", "root_cause", "capture"},
                            source_name));
  DetectConfig c;
  ASSIGN_OR_RETURN(double interval_s, OptionalNumber(root, "interval_s", 10, source_name));
  if (!(interval_s > 0)) return Bad(source_name, root, "interval_s must be > 0");
  c.interval_ns = static_cast<int64_t>(interval_s * 1e9);
  ASSIGN_OR_RETURN(c.lookback_ns, Duration(root, "lookback", c.lookback_ns, source_name));
  if (const toml::node* rules = root.get("rule")) {
    const toml::array* a = rules->as_array();
    if (a == nullptr) return Bad(source_name, *rules, "'rule' must be [[rule]] tables");
    for (const toml::node& n : *a) {
      const toml::table* t = n.as_table();
      if (t == nullptr) return Bad(source_name, n, "'rule' must be [[rule]] tables");
      ASSIGN_OR_RETURN(RuleConfig r, ParseRule(*t, source_name));
      for (const RuleConfig& other : c.rules) {
        if (other.name == r.name) return Bad(source_name, n, "duplicate rule '" + r.name + "'");
      }
      c.rules.push_back(std::move(r));
    }
  }
  if (const toml::table* t = root["baseline"].as_table()) {
    RETURN_IF_ERROR(ParseBaseline(*t, source_name, c.baseline));
  }
  if (const toml::table* t = root["variance"].as_table()) {
    RETURN_IF_ERROR(ParseVariance(*t, source_name, c.variance));
  }
  if (const toml::table* t = root["cross_cloud"].as_table()) {
    RETURN_IF_ERROR(ParseCrossCloud(*t, source_name, c.cross_cloud));
  }
  if (const toml::table* t = root["root_cause"].as_table()) {
    RETURN_IF_ERROR(ParseRootCause(*t, source_name, c.root_cause));
  }
  if (const toml::node* caps = root.get("capture")) {
    const toml::array* a = caps->as_array();
    if (a == nullptr) return Bad(source_name, *caps, "'capture' must be [[capture]] tables");
    for (const toml::node& n : *a) {
      const toml::table* t = n.as_table();
      if (t == nullptr) return Bad(source_name, n, "'capture' must be [[capture]] tables");
      ASSIGN_OR_RETURN(CaptureTriggerConfig cap, ParseCapture(*t, source_name));
      c.captures.push_back(std::move(cap));
    }
  }
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
