#include "server/cost_jump_alerts.h"

#include <cstdio>
#include <set>

#include "detect/incident_lifecycle.h"
#include "server/alert_sender.h"

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
  detect::IncidentLifecycle lifecycle(book);
  CostJumpResult out;
  std::set<std::string> jumped;
  for (const cost::UnitCostChange& c : changes) {
    if (!c.jumped) continue;
    const std::string key = CostJumpIncidentKey(c.workload);
    jumped.insert(key);
    ASSIGN_OR_RETURN(detect::UpsertResult up, lifecycle.Observe(Observation(c, key), now_ns));
    (up.created ? out.opened : out.updated).push_back(up.id);
    if (!up.created || alerts == nullptr) continue;
    ASSIGN_OR_RETURN(std::optional<detect::IncidentRecord> rec, book.Get(up.id));
    if (rec.has_value()) alerts->Fire(key, AlertFromIncident(*rec, external_url));
  }
  ASSIGN_OR_RETURN(std::vector<detect::IncidentRecord> open,
                   book.List(detect::IncidentStatus::kOpen));
  for (const detect::IncidentRecord& r : open) {
    if (r.kind != detect::kCostJumpIncidentKind || jumped.count(r.dedup_key) > 0) continue;
    ASSIGN_OR_RETURN(std::optional<detect::IncidentRecord> done,
                     lifecycle.ResolvePassed(r.dedup_key, now_ns));
    if (!done.has_value()) continue;
    out.resolved.push_back(done->id);
    if (alerts != nullptr) alerts->Resolve(r.dedup_key, AlertFromIncident(*done, external_url));
  }
  return out;
}

}  // namespace gpufleet
