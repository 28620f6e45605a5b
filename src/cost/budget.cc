#include "cost/budget.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "core/duration.h"

namespace gpufleet::cost {
namespace {

constexpr int64_t kDayS = 86400;

double TeamTotal(const CostReport& r, const std::string& team) {
  for (const CostRow& row : r.rows) {
    if (row.key.size() == 1 && row.key[0] == team)
      return static_cast<double>(row.total_micro) / 1e6;
  }
  return 0;
}

std::string Usd(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "$%.2f", v);
  return buf;
}

std::string Day(int64_t s) { return IsoTime(s).substr(0, 10); }

}  // namespace

std::pair<int64_t, int64_t> MonthOf(int64_t t_s) {
  time_t t = static_cast<time_t>(t_s);
  struct tm tm;
  gmtime_r(&t, &tm);
  tm.tm_mday = 1;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  int64_t start = static_cast<int64_t>(timegm(&tm));
  tm.tm_mon += 1;  // timegm normalizes December + 1 into January
  int64_t end = static_cast<int64_t>(timegm(&tm));
  return {start, end};
}

int64_t RecentStart(int64_t month_start_s, int64_t now_s) {
  return std::max(month_start_s, now_s - 7 * kDayS);
}

std::vector<BudgetStatus> EvaluateBudgets(const std::vector<Budget>& budgets,
                                          const CostReport& month_to_date, const CostReport& recent,
                                          int64_t recent_from_s, int64_t now_s) {
  const int64_t month_end = MonthOf(now_s).second;
  const double recent_days = static_cast<double>(now_s - recent_from_s) / kDayS;
  const double days_left = static_cast<double>(month_end - now_s) / kDayS;
  std::vector<BudgetStatus> out;
  for (const Budget& b : budgets) {
    BudgetStatus s;
    s.team = b.team;
    s.budget_usd = b.usd_per_month;
    s.spent_usd = TeamTotal(month_to_date, b.team);
    s.rate_usd_per_day = recent_days > 0 ? TeamTotal(recent, b.team) / recent_days : 0;
    s.forecast_usd = s.spent_usd + s.rate_usd_per_day * days_left;
    s.state = s.spent_usd > s.budget_usd      ? "over"
              : s.forecast_usd > s.budget_usd ? "forecast_over"
                                              : "ok";
    char pct[64];
    std::snprintf(pct, sizeof pct, " (%.0f%%)", 100 * s.spent_usd / s.budget_usd);
    s.summary = s.team + ": " + Usd(s.spent_usd) + " of " + Usd(s.budget_usd) + " spent" + pct +
                " by " + Day(now_s) + "; at the recent rate (" + Usd(s.rate_usd_per_day) +
                "/day) the month ends at " + Usd(s.forecast_usd);
    if (s.state == "ok") {
      s.summary += ", within budget";
    } else {
      std::snprintf(pct, sizeof pct, ", %.0f%% over",
                    100 * (s.forecast_usd - s.budget_usd) / s.budget_usd);
      s.summary += pct;
      if (s.state == "over") s.summary += " (already over budget)";
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string RenderBudgets(const std::vector<BudgetStatus>& statuses) {
  std::string out;
  for (const BudgetStatus& s : statuses) {
    out += (s.state == "ok"     ? "  ok    "
            : s.state == "over" ? "  OVER  "
                                : "  WARN  ") +
           s.summary + "\n";
  }
  if (out.empty()) out = "No [[budget]] in the prices file.\n";
  return out;
}

}  // namespace gpufleet::cost
