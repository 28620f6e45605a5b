#include "cost/budget.h"

#include <gtest/gtest.h>

namespace gpufleet::cost {
namespace {

CostReport TeamReport(std::vector<std::pair<std::string, double>> totals) {
  CostReport r;
  r.by = {"team"};
  for (auto& [team, usd] : totals) {
    CostRow row;
    row.key = {team};
    row.total_micro = static_cast<int64_t>(usd * 1e6);
    r.rows.push_back(row);
  }
  return r;
}

TEST(BudgetTest, MonthsAreUtcCalendarMonths) {
  // 2026-11-15T12:00:00Z: November has 30 days.
  auto [start, end] = MonthOf(1794744000);
  EXPECT_EQ(start, 1793491200);  // 2026-11-01
  EXPECT_EQ(end - start, 30 * 86400);
  auto [dec, jan] = MonthOf(1796083200 + 86400 * 20);  // 2026-12-21
  EXPECT_EQ(jan - dec, 31 * 86400);
}

// Worked by hand: November 2026, now = Nov 11 00:00 (10 days in, 20 left).
// research spent $400 so far, $280 of it in the last 7 days: $40/day, so the
// month ends at 400 + 40 x 20 = $1,200 against a $1,000 budget: 20% over.
// search spent $1,100 of $1,000: over already. hpc: $100 of $1,000, $70
// this week: 100 + 10 x 20 = $300, ok.
TEST(BudgetTest, ForecastFromTheLastSevenDays) {
  const int64_t now = 1793491200 + 10 * 86400;
  EXPECT_EQ(RecentStart(1793491200, now), now - 7 * 86400);
  std::vector<Budget> budgets = {{"research", 1000, ""}, {"search", 1000, ""}, {"hpc", 1000, ""}};
  auto s = EvaluateBudgets(budgets, TeamReport({{"research", 400}, {"search", 1100}, {"hpc", 100}}),
                           TeamReport({{"research", 280}, {"search", 300}, {"hpc", 70}}),
                           now - 7 * 86400, now);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].rate_usd_per_day, 40);
  EXPECT_DOUBLE_EQ(s[0].forecast_usd, 1200);
  EXPECT_EQ(s[0].state, "forecast_over");
  EXPECT_NE(s[0].summary.find("20% over"), std::string::npos) << s[0].summary;
  EXPECT_EQ(s[1].state, "over");
  EXPECT_EQ(s[2].state, "ok");
  EXPECT_DOUBLE_EQ(s[2].forecast_usd, 300);
}

TEST(BudgetTest, DuplicateBudgetNamesItsPlace) {
  StatusOr<PriceBook> b = PriceBook::Parse(R"([[budget]]
team = "a"
usd_per_month = 10

[[budget]]
team = "a"
usd_per_month = 20
)",
                                           "site.toml");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("site.toml:6"), std::string::npos) << b.status().message();
}

}  // namespace
}  // namespace gpufleet::cost
