#include "server/budget_alerts.h"

#include <gtest/gtest.h>

#include "core/clock.h"
#include "detect/incident_lifecycle.h"
#include "server/alert_sender.h"

namespace gpufleet {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kDec10 = 1'796'860'800;  // 2026-12-10T00:00:00Z

cost::BudgetStatus Status(const std::string& team, double spent, double forecast) {
  cost::BudgetStatus s;
  s.team = team;
  s.budget_usd = 1000;
  s.spent_usd = spent;
  s.forecast_usd = forecast;
  s.state = spent > 1000 ? "over" : forecast > 1000 ? "forecast_over" : "ok";
  s.summary = team + ": $" + std::to_string(spent) + " of $1000";
  return s;
}

class BudgetAlertsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AlertSenderOptions a;
    a.alertmanager_urls = {"http://127.0.0.1:1"};  // never started: nothing is delivered
    auto sender = AlertSender::Create(a, RealClock::Get());
    ASSERT_TRUE(sender.ok()) << sender.status().ToString();
    alerts_ = std::move(*sender);
  }
  StatusOr<BudgetAlertResult> Apply(std::vector<cost::BudgetStatus> s, int64_t t_s) {
    return ApplyBudgetStatuses(s, *book_, alerts_.get(), "", t_s * kS);
  }
  detect::IncidentRecord Get(int64_t id) { return book_->Get(id)->value(); }

  std::unique_ptr<detect::IncidentBook> book_ = detect::NewMemoryIncidentBook();
  std::unique_ptr<AlertSender> alerts_;
};

TEST_F(BudgetAlertsTest, ForecastOverOpensOnceUpdatesAndResolvesWhenBackUnder) {
  auto r = Apply({Status("research", 400, 1300), Status("serving", 100, 300)}, kDec10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->opened.size(), 1u);
  const int64_t id = r->opened[0];
  detect::IncidentRecord inc = Get(id);
  EXPECT_EQ(inc.kind, detect::kBudgetIncidentKind);
  EXPECT_EQ(inc.dedup_key, "budget|research|2026-12");
  EXPECT_EQ(inc.team, "research");
  EXPECT_EQ(inc.severity, "warning");
  ASSERT_EQ(inc.evidence.size(), 2u);
  EXPECT_EQ(inc.evidence[1].value, 1300);
  EXPECT_EQ(inc.evidence[1].threshold, 1000);
  EXPECT_EQ(alerts_->stats().firing, 1u);

  // A day later the spend is over too: the same incident, now critical, no second alert.
  r = Apply({Status("research", 1100, 1500), Status("serving", 120, 320)}, kDec10 + 86400);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->opened.empty());
  EXPECT_EQ(r->updated, std::vector<int64_t>{id});
  EXPECT_EQ(Get(id).severity, "critical");
  EXPECT_EQ(Get(id).evidence[0].value, 1100);
  EXPECT_EQ(alerts_->stats().firing, 1u);

  // Absence never resolves it: the detector's sweep keeps it open.
  detect::IncidentLifecycle life(*book_);
  ASSERT_TRUE(life.ResolveAbsent((kDec10 + 5 * 86400) * kS).ok());
  EXPECT_EQ(Get(id).status, detect::IncidentStatus::kOpen);

  // Just under the budget (within the 5% margin): still open, no resolve, no new alert.
  r = Apply({Status("research", 900, 980)}, kDec10 + 86400 + 900);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->opened.empty());
  EXPECT_TRUE(r->resolved.empty());
  EXPECT_EQ(Get(id).status, detect::IncidentStatus::kOpen);
  EXPECT_EQ(alerts_->stats().firing, 1u);

  // A raised budget (or a slower rate) brings the forecast under: resolved, alert resolved.
  r = Apply({Status("research", 900, 950)}, kDec10 + 2 * 86400);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->resolved, std::vector<int64_t>{id});
  EXPECT_EQ(Get(id).status, detect::IncidentStatus::kResolved);
  EXPECT_EQ(alerts_->stats().firing, 0u);
}

TEST_F(BudgetAlertsTest, AForecastHoveringAtTheBudgetAlertsOnce) {
  // The demo fleet's research team on 6 Dec: the forecast alternates
  // between 1-2% over and 1-3% under the budget from check to check.
  const double forecasts[] = {1016, 985, 1004, 973, 990, 1008, 981};
  int64_t t = kDec10;
  for (double f : forecasts) {
    ASSERT_TRUE(Apply({Status("research", 10, f)}, t).ok());
    t += 900;
  }
  EXPECT_EQ(book_->List(std::nullopt).value().size(), 1u);
  EXPECT_EQ(book_->CountOpen().value(), 1);
  EXPECT_EQ(alerts_->stats().firing, 1u);
}

TEST_F(BudgetAlertsTest, TheMonthsEndResolvesItsIncident) {
  auto r = Apply({Status("research", 1200, 1800)}, kDec10);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->opened.size(), 1u);
  const int64_t december = r->opened[0];
  // 2027-01-02: a new month, the team starts under budget.
  r = Apply({Status("research", 50, 800)}, kDec10 + 23 * 86400);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->opened.empty());
  EXPECT_EQ(r->resolved, std::vector<int64_t>{december});
  EXPECT_EQ(Get(december).status, detect::IncidentStatus::kResolved);
  EXPECT_EQ(BudgetIncidentKey("research", kDec10 + 23 * 86400), "budget|research|2027-01");
}

}  // namespace
}  // namespace gpufleet
