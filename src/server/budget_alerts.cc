#include "server/budget_alerts.h"

#include <set>

#include "core/duration.h"

namespace gpufleet {
namespace {

std::string MonthName(int64_t t_s) { return IsoTime(t_s).substr(0, 7); }

detect::IncidentRecord Observation(const cost::BudgetStatus& s, const std::string& key,
                                   const std::string& month) {
  detect::IncidentRecord r;
  r.dedup_key = key;
  r.kind = std::string(detect::kBudgetIncidentKind);
  r.team = s.team;
  r.subject = Labels{{"team", s.team}, {"month", month}};
  r.severity = s.state == "over" ? "critical" : "warning";
  r.summary = s.summary;
  detect::IncidentEvidence spent;
  spent.series = "gpufleet cost: " + s.team + " spent this month (USD)";
  spent.condition = "> budget";
  spent.threshold = s.budget_usd;
  spent.value = s.spent_usd;
  detect::IncidentEvidence forecast;
  forecast.series = "gpufleet cost: " + s.team + " forecast for the month (USD)";
  forecast.condition = "> budget";
  forecast.threshold = s.budget_usd;
  forecast.value = s.forecast_usd;
  forecast.detail = "recent rate " + std::to_string(s.rate_usd_per_day) + " USD/day";
  r.evidence = {spent, forecast};
  return r;
}

}  // namespace

std::string BudgetIncidentKey(const std::string& team, int64_t month_start_s) {
  return "budget|" + team + "|" + MonthName(month_start_s);
}

StatusOr<BudgetAlertResult> ApplyBudgetStatuses(const std::vector<cost::BudgetStatus>& statuses,
                                                detect::IncidentBook& book, AlertSender* alerts,
                                                const std::string& external_url, int64_t now_ns) {
  IncidentAlerts incidents(book, alerts, external_url, now_ns);
  const int64_t now_s = now_ns / 1'000'000'000;
  const std::string month = MonthName(now_s);
  std::set<std::string> current;
  for (const cost::BudgetStatus& s : statuses) {
    const std::string key = BudgetIncidentKey(s.team, now_s);
    current.insert(key);
    if (s.state == "ok") {
      // A forecast hovering at the budget would open and resolve the
      // incident on alternate checks: it resolves only clearly under.
      if (s.forecast_usd <= s.budget_usd * (1 - kBudgetResolveMargin)) {
        RETURN_IF_ERROR(incidents.Resolve(key).status());
      }
    } else {
      RETURN_IF_ERROR(incidents.Observe(Observation(s, key, month)).status());
    }
  }
  // Last month's incidents (and those of budgets no longer configured) end.
  RETURN_IF_ERROR(incidents.ResolveOthers(
      detect::kBudgetIncidentKind, [&](const std::string& k) { return current.count(k) > 0; }));
  return incidents.changes();
}

}  // namespace gpufleet
