// Job costs and cost-per-unit changes read out of the server's stores (the
// meter, the work meter, the incident book) for a period; used by the
// server's periodic cost check, /metrics and the report.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "cost/cost_api.h"
#include "cost/meter.h"
#include "cost/price_book.h"
#include "cost/team_summary.h"
#include "cost/unit_cost.h"
#include "cost/work_meter.h"
#include "detect/incident_book.h"

namespace gpufleet::cost {

// Jobs of [from_s, to_s) under the default policy (allocation, idle none,
// contention transfer).
StatusOr<std::vector<JobCost>> JobCostsFromStores(Meter& meter, WorkMeter& work,
                                                  detect::IncidentBook& incidents,
                                                  const PriceBook& prices, int64_t from_s,
                                                  int64_t to_s);

// The cost-per-unit changes at now_s: the last kJumpRecentS against the
// kJumpBaselineS before it (unit_cost.h).
StatusOr<std::vector<UnitCostChange>> UnitCostChangesAt(Meter& meter, WorkMeter& work,
                                                        detect::IncidentBook& incidents,
                                                        const PriceBook& prices, int64_t now_s);

// The plain-language summary of `team` for the UTC month "YYYY-MM" against
// the month before (team_summary.h), under the default policy. A month
// that has not ended is charged up to now_s (whole minutes).
StatusOr<TeamSummary> TeamSummaryFromStores(Meter& meter, WorkMeter& work,
                                            detect::IncidentBook& incidents,
                                            const PriceBook& prices, const std::string& team,
                                            const std::string& month, int64_t now_s);

// GET /api/v1/cost/summary?team=research&month=2026-12&format=json|text
// (month: default the current one). 400 names the bad parameter.
ApiReply SummaryQuery(const ApiParams& params, Meter& meter, WorkMeter& work,
                      detect::IncidentBook& incidents, const PriceBook& prices, int64_t now_s);

}  // namespace gpufleet::cost
