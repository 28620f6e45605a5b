#include "server/cost_jump_alerts.h"

#include <cstdio>
#include <set>

#include "server/incident_alerts.h"

namespace gpufleet {
namespace {

std::string Usd(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "$%.4g", v);
  return buf;
}

detect::IncidentRecord Observation(const cost::UnitCostChange& c, const std::string& key) {
  detect::IncidentRecord r;
  r.dedup_key = key;
  r.kind = std::string(detect::kCostJumpIncidentKind);
  r.team = c.team;
  r.workloads = {c.workload};
  r.subject = Labels{{"workload", c.workload}, {"unit", c.unit}};
  r.severity = "warning";
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.0f%%", (c.ratio - 1) * 100);
  r.summary = c.workload + ": cost per " + c.unit + " rose " + pct + " in the last hour (" +
              Usd(c.recent_usd_per_unit) + " against " + Usd(c.baseline_usd_per_unit) +
              " over the 24 hours before)";
  detect::IncidentEvidence e;
  e.series = "gpufleet cost: " + c.workload + " USD per " + c.unit + ", last hour";
  e.condition = ">= 1.30 x the previous 24 hours";
  e.threshold = c.baseline_usd_per_unit * cost::kJumpRatio;
  e.value = c.recent_usd_per_unit;
  e.detail = "baseline " + Usd(c.baseline_usd_per_unit) + " per " + c.unit;
  r.evidence = {e};
  return r;
}

}  // namespace

std::string CostJumpIncidentKey(const std::string& workload) { return "cost_jump|" + workload; }

StatusOr<CostJumpResult> ApplyCostJumps(const std::vector<cost::UnitCostChange>& changes,
                                        detect::IncidentBook& book, AlertSender* alerts,
                                        const std::string& external_url, int64_t now_ns) {
  IncidentAlerts incidents(book, alerts, external_url, now_ns);
  std::set<std::string> jumped;
  for (const cost::UnitCostChange& c : changes) {
    if (!c.jumped) continue;
    const std::string key = CostJumpIncidentKey(c.workload);
    jumped.insert(key);
    RETURN_IF_ERROR(incidents.Observe(Observation(c, key)).status());
  }
  RETURN_IF_ERROR(incidents.ResolveOthers(
      detect::kCostJumpIncidentKind, [&](const std::string& k) { return jumped.count(k) > 0; }));
  return incidents.changes();
}

}  // namespace gpufleet
