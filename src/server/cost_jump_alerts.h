// Cost-per-unit jumps as incidents, alerted like budgets: the server's
// periodic cost check compares each workload's cost per unit of work over
// the last hour with the 24 hours before it (cost/unit_cost.h states the
// rule: ratio >= 1.30 with at least 10 steps, or 100,000 tokens, in both
// windows) and records a jump as an incident of kind "cost_per_unit_jump"
// (severity "warning", team = the workload's team, workloads = [workload],
// key "cost_jump|<workload>"), with the baseline and recent cost per unit as
// evidence. A newly opened incident fires an alert through AlertSender
// (Alertmanager, webhooks); a repeat updates it without re-firing. It
// resolves (and its alert with it) when a check finds the workload's ratio
// back under the threshold, or the workload no longer has enough work in
// both windows.
//
// Thread safety: pure functions over the book and the sender.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost/unit_cost.h"
#include "detect/incident_book.h"
#include "server/incident_alerts.h"

namespace gpufleet {

// opened: alert fired; resolved: ended by this check.
using CostJumpResult = IncidentChanges;

std::string CostJumpIncidentKey(const std::string& workload);

// Applies one evaluation at now_ns. `alerts` may be null.
StatusOr<CostJumpResult> ApplyCostJumps(const std::vector<cost::UnitCostChange>& changes,
                                        detect::IncidentBook& book, AlertSender* alerts,
                                        const std::string& external_url, int64_t now_ns);

}  // namespace gpufleet
