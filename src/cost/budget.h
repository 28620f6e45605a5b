// Monthly budgets per team ([[budget]] in the site prices file) against the
// ledger: spend so far this month, a forecast of the month's spend, and a
// plain-language line per team.
//
// Forecast = spend so far + the recent daily rate x the days left, where
// the recent rate is the spend of the last 7 days (or of the month so far,
// when fewer than 7 days have passed) per day, counted from the first
// metered minute when metering began later (a new fleet is not diluted). State: "over" when the
// spend so far exceeds the budget, "forecast_over" when only the forecast does, "ok" otherwise.
// Months are UTC calendar months.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cost/cost_report.h"
#include "cost/price_book.h"

namespace gpufleet::cost {

struct BudgetStatus {
  std::string team;
  double budget_usd = 0;
  double spent_usd = 0;
  double rate_usd_per_day = 0;
  double forecast_usd = 0;
  std::string state;    // ok | forecast_over | over
  std::string summary;  // "research: $12,340.00 of $20,000.00 spent (62%) by ..."
};

// [start, end) of the UTC calendar month holding t_s.
std::pair<int64_t, int64_t> MonthOf(int64_t t_s);
// The start of the "recent" window for the forecast: max(month start, now - 7 days).
int64_t RecentStart(int64_t month_start_s, int64_t now_s);

// `month_to_date` and `recent` are reports grouped by team alone over
// [month start, now) and [RecentStart, now); `recent_from_s` is where the
// recent data begins (RecentStart, or the first metered minute if later).
std::vector<BudgetStatus> EvaluateBudgets(const std::vector<Budget>& budgets,
                                          const CostReport& month_to_date, const CostReport& recent,
                                          int64_t recent_from_s, int64_t now_s);

std::string RenderBudgets(const std::vector<BudgetStatus>& statuses);

}  // namespace gpufleet::cost
