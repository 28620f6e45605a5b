// Budgets as incidents, alerted like every other: a periodic check (run by
// the server after a detector run, at most every few minutes of its clock)
// evaluates each [[budget]] of the site prices (cost/budget.h) and records a
// team whose month is over budget, or forecast to end over it, as an
// incident of kind "budget_forecast_over" (severity "warning" while only
// the forecast is over, "critical" once the spend is), team = the budget's
// team, one per team and month (key "budget|<team>|<YYYY-MM>"). A newly
// opened incident fires an alert through AlertSender (Alertmanager,
// webhooks); a repeat updates the incident (spend and forecast) without
// re-firing. Absence does not resolve it (the life cycle's on-pass policy):
// it resolves when a check finds the forecast back under budget by at least
// kBudgetResolveMargin (so a forecast hovering at the budget does not flap
// the alert), or when its month has ended, and the alert's resolve is sent.
//
// Thread safety: pure functions over the book and the sender.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost/budget.h"
#include "detect/incident_book.h"
#include "server/incident_alerts.h"

namespace gpufleet {

// An open budget incident resolves once the forecast is at most
// (1 - kBudgetResolveMargin) x budget.
inline constexpr double kBudgetResolveMargin = 0.05;

// opened: alert fired; resolved: ended by this check.
using BudgetAlertResult = IncidentChanges;

// "budget|research|2026-12" for the month holding month_start_s.
std::string BudgetIncidentKey(const std::string& team, int64_t month_start_s);

// Applies one evaluation at now_ns of `statuses` (all of the month holding
// now_ns). `alerts` may be null.
StatusOr<BudgetAlertResult> ApplyBudgetStatuses(const std::vector<cost::BudgetStatus>& statuses,
                                                detect::IncidentBook& book, AlertSender* alerts,
                                                const std::string& external_url, int64_t now_ns);

}  // namespace gpufleet
