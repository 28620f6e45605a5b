// The cost ledger's HTTP queries, independent of the HTTP server: query
// parameters in, (status, content type, body) out. Bad parameters are 400
// with a message naming the parameter; nothing here throws or crashes on
// any input.
//
//   CostQuery       GET /api/v1/cost: from, to (as `gpufleet cost report`:
//                   -30d, 2026-12-01, RFC 3339, unix s, now), by, basis,
//                   idle, contention, format = json | csv | text | focus.
//                   Periods over 400 days are refused.
//   SummaryQuery    GET /api/v1/cost/summary (cost/job_query.h).
//   AllocationQuery GET /allocation, OpenCost's parameters: window (7d, 24h,
//                   30m, today, week, month, or "start,end" in RFC 3339 or
//                   unix seconds), aggregate, includeIdle, shareIdle
//                   (true = idle rule "proportional").
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "cost/budget.h"
#include "cost/meter.h"
#include "cost/price_book.h"
#include "cost/work_meter.h"
#include "detect/incident_book.h"

namespace gpufleet::cost {

struct ApiReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;  // the message when status != 200
};

using ApiParams = std::map<std::string, std::string>;

// With a work meter, the JSON answer has "jobs" (unit_cost.h: $/job, $/step,
// $/Mtoken per workload).
ApiReply CostQuery(const ApiParams& params, Meter& meter, detect::IncidentBook& incidents,
                   const PriceBook& prices, int64_t now_s, WorkMeter* work = nullptr);
// Each [[budget]] of `prices` at `at_s` (its UTC month so far).
StatusOr<std::vector<BudgetStatus>> BudgetStatuses(Meter& meter, detect::IncidentBook& incidents,
                                                   const PriceBook& prices, int64_t at_s);

// GET /api/v1/cost/budgets: ?at=now (any ParseTimeArg form): each
// [[budget]]'s month-to-date spend, recent daily rate and forecast (JSON).
ApiReply BudgetQuery(const ApiParams& params, Meter& meter, detect::IncidentBook& incidents,
                     const PriceBook& prices, int64_t now_s);
ApiReply AllocationQuery(const ApiParams& params, Meter& meter, detect::IncidentBook& incidents,
                         const PriceBook& prices, int64_t now_s);

}  // namespace gpufleet::cost
