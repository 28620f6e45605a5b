#include "server/cost_jump_alerts.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/clock.h"
#include "cost/cost_test_util.h"
#include "cost/job_query.h"
#include "detect/incident_lifecycle.h"
#include "server/alert_sender.h"

namespace gpufleet {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kT0 = 1'796'083'200;  // 2026-12-01T00:00:00Z

RemoteWriteSeries Series(std::string name, std::vector<std::pair<std::string, std::string>> extra) {
  RemoteWriteSeries s;
  s.labels = Labels{{"__name__", name},
                    {"node", "n6-a"},
                    {"gpu", "0"},
                    {"gpu_uuid", "GPU-a"},
                    {"model", "h100-sxm"}};
  for (const auto& [k, v] : extra) s.labels.Set(k, v);
  return s;
}

// train holds one $6/GPU-h GPU ($0.10 a minute) throughout and reports a
// step a minute ($0.10 a step), except in hour 24 (the 25th), when it
// manages a step every 2 minutes ($0.20 a step: double).
class CostJumpAlertsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string path = ::testing::TempDir() + "cost_jump.db";
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
    auto db = StateDb::Open(path, cost::CostMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    meter_ = std::make_unique<cost::Meter>(db_.get());
    work_ = std::make_unique<cost::WorkMeter>(db_.get());
    std::vector<std::pair<std::string, std::string>> who = {{"workload_pod", "train-0"},
                                                            {"workload_namespace", "ml"},
                                                            {"workload_container", "c"},
                                                            {"workload_name", "train"},
                                                            {"workload_team", "research"}};
    RemoteWriteSeries up = Series("gpu_up", {});
    RemoteWriteSeries info = Series("gpu_workload_info", who);
    RemoteWriteSeries steps = Series("gpu_workload_step_duration_seconds", who);
    for (int64_t m = 0; m < 27 * 60; ++m) {
      const int64_t ms = (kT0 + 60 * m) * 1000 + 1000;
      up.samples.push_back({ms, 1});
      info.samples.push_back({ms, 1});
      const bool slow = m >= 24 * 60 && m < 25 * 60;
      if (!slow || m % 2 == 0) steps.samples.push_back({ms, slow ? 2.0 : 1.0});
    }
    ASSERT_TRUE(meter_->Record({up, info, steps}).ok());
    ASSERT_TRUE(work_->Record({up, info, steps}).ok());
    AlertSenderOptions a;
    a.alertmanager_urls = {"http://127.0.0.1:1"};  // never started: nothing is delivered
    auto sender = AlertSender::Create(a, RealClock::Get());
    ASSERT_TRUE(sender.ok());
    alerts_ = std::move(*sender);
  }

  // One periodic check at the (fake) time t_s.
  StatusOr<CostJumpResult> CheckAt(int64_t t_s) {
    ASSIGN_OR_RETURN(std::vector<cost::UnitCostChange> changes,
                     cost::UnitCostChangesAt(*meter_, *work_, *book_, prices_, t_s));
    return ApplyCostJumps(changes, *book_, alerts_.get(), "", t_s * kS);
  }

  std::unique_ptr<StateDb> db_;
  std::unique_ptr<cost::Meter> meter_;
  std::unique_ptr<cost::WorkMeter> work_;
  std::unique_ptr<detect::IncidentBook> book_ = detect::NewMemoryIncidentBook();
  std::unique_ptr<AlertSender> alerts_;
  cost::PriceBook prices_ = cost::NegotiatedBook("n6-*", 6.0);
};

TEST_F(CostJumpAlertsTest, SteadyCostPerStepOpensNothing) {
  auto r = CheckAt(kT0 + 24 * 3600);  // last hour = hour 23: $0.10/step like the 23 before
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->opened.empty());
}

TEST_F(CostJumpAlertsTest, JumpOpensOnceThenResolvesWhenBackToNormal) {
  auto r = CheckAt(kT0 + 25 * 3600);  // hour 24 ($0.20/step) against hours 0-23 ($0.10)
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->opened.size(), 1u);
  detect::IncidentRecord rec = book_->Get(r->opened[0])->value();
  EXPECT_EQ(rec.kind, detect::kCostJumpIncidentKind);
  EXPECT_EQ(rec.team, "research");
  EXPECT_EQ(rec.workloads, std::vector<std::string>{"train"});
  EXPECT_EQ(rec.dedup_key, CostJumpIncidentKey("train"));
  EXPECT_NE(rec.summary.find("cost per step rose 100%"), std::string::npos) << rec.summary;
  ASSERT_EQ(rec.evidence.size(), 1u);
  EXPECT_NEAR(rec.evidence[0].value, 0.20, 1e-9);
  EXPECT_NEAR(rec.evidence[0].threshold, 0.10 * 1.30, 1e-9);

  r = CheckAt(kT0 + 25 * 3600 + 900);  // 15 minutes on: still over, updated without re-firing
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->opened.empty());
  EXPECT_EQ(r->updated.size(), 1u);

  r = CheckAt(kT0 + 26 * 3600 + 60);  // hour 25 is back to $0.10/step
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->resolved.size(), 1u);
  EXPECT_EQ(book_->Get(r->resolved[0])->value().status, detect::IncidentStatus::kResolved);
}

}  // namespace
}  // namespace gpufleet
