#include "server/canary_incidents.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "server/incident_alerts.h"

namespace gpufleet {
namespace {

using nlohmann::json;

// The string at `key`, or an error naming `where.key`.
StatusOr<std::string> RequiredString(const json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string() || it->get<std::string>().empty()) {
    return InvalidArgumentError(where + "." + key + ": want a non-empty string");
  }
  return it->get<std::string>();
}

double NumberOr(const json& o, const char* key, double fallback) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return fallback;
  double v = it->get<double>();
  return std::isfinite(v) ? v : fallback;
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", fraction * 100);
  return buf;
}

}  // namespace

StatusOr<CanaryIncidents> CanaryIncidentsFromJson(std::string_view body, int64_t now_ns) {
  json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return InvalidArgumentError("body: want a JSON object");
  }
  std::string node;
  if (auto n = doc.find("node"); n != doc.end() && !n->is_null()) {
    if (!n->is_string()) return InvalidArgumentError("node: want a string");
    node = n->get<std::string>();
  }
  auto checks = doc.find("checks");
  if (checks == doc.end() || !checks->is_array()) {
    return InvalidArgumentError("checks: want an array");
  }
  CanaryIncidents out;
  for (size_t i = 0; i < checks->size(); ++i) {
    const json& c = (*checks)[i];
    std::string where = "checks[" + std::to_string(i) + "]";
    if (!c.is_object()) return InvalidArgumentError(where + ": want an object");
    ASSIGN_OR_RETURN(std::string verdict, RequiredString(c, "verdict", where));
    ASSIGN_OR_RETURN(std::string benchmark, RequiredString(c, "benchmark", where));
    ASSIGN_OR_RETURN(std::string target, RequiredString(c, "target", where));
    const detect::CanaryVerdictEffect effect = detect::CanaryVerdictEffectOf(verdict);
    if (effect != detect::CanaryVerdictEffect::kObserve) {
      if (effect == detect::CanaryVerdictEffect::kResolve) {
        out.passed_keys.push_back(detect::CanaryIncidentKey(node, target, benchmark));
      }
      ++out.ignored;
      continue;
    }
    double median = NumberOr(c, "median", 0);
    double baseline = NumberOr(c, "baseline_median", 0);
    double worse = NumberOr(c, "worse_fraction", 0);
    std::string unit = c.value("unit", std::string());
    std::string reason = c.contains("reason") && c["reason"].is_string()
                             ? c["reason"].get<std::string>()
                             : std::string();

    detect::IncidentRecord r;
    r.kind = std::string(detect::kCanaryIncidentKind);
    r.dedup_key = detect::CanaryIncidentKey(node, target, benchmark);
    r.subject.Set("benchmark", benchmark);
    r.subject.Set("target", target);
    if (!node.empty()) r.subject.Set("node", node);
    r.devices = {node.empty() ? target : node};
    r.team = "platform";
    r.severity = verdict == "fail" ? "critical" : "warning";
    r.summary = verdict == "fail" ? benchmark + " failed on " + (node.empty() ? target : node)
                                  : benchmark + " on " + (node.empty() ? target : node) + " is " +
                                        Percent(-worse) + " against its baseline";
    r.window_start_ns = now_ns;
    r.window_end_ns = now_ns;
    r.estimated_slowdown = worse > 0 ? worse : 0;
    detect::IncidentEvidence e;
    e.series = benchmark + "{target=\"" + target + "\"}";
    e.condition = verdict == "fail" ? "check failed" : "worse than baseline (noise-aware gate)";
    e.threshold = baseline;
    e.value = median;
    e.detail =
        "unit " + unit + "; baseline " + std::to_string(baseline) + ", measured " +
        std::to_string(median) + ", change " + Percent(-worse) +
        "; n=" + std::to_string(static_cast<int64_t>(NumberOr(c, "n", 0))) +
        ", baseline n=" + std::to_string(static_cast<int64_t>(NumberOr(c, "baseline_n", 0))) +
        (reason.empty() ? "" : "; " + reason);
    r.evidence.push_back(std::move(e));
    out.incidents.push_back(std::move(r));
  }
  return out;
}

StatusOr<CanaryApplyResult> ApplyCanaryVerdicts(const CanaryIncidents& in,
                                                detect::IncidentBook& store, AlertSender* alerts,
                                                const std::string& external_url, int64_t now_ns) {
  IncidentAlerts incidents(store, alerts, external_url, now_ns);
  CanaryApplyResult out;
  for (const detect::IncidentRecord& r : in.incidents) {
    ASSIGN_OR_RETURN(detect::UpsertResult up, incidents.Observe(r));
    out.incidents.push_back(up.id);
    if (up.created) ++out.created;  // else still failing: the alert is already firing
  }
  size_t resolved_checks = 0;
  for (const std::string& key : in.passed_keys) {
    ASSIGN_OR_RETURN(bool resolved, incidents.Resolve(key));
    if (resolved) ++resolved_checks;
  }
  out.resolved = incidents.changes().resolved;
  out.ignored = in.ignored - resolved_checks;
  return out;
}

}  // namespace gpufleet
