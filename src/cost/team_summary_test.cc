#include "cost/team_summary.h"

#include <gtest/gtest.h>

#include "cost/cost_test_util.h"

namespace gpufleet::cost {
namespace {

constexpr int64_t kNov1 = 1'793'491'200;  // 2026-11-01T00:00:00Z
constexpr int64_t kDec1 = 1'796'083'200;  // 2026-12-01T00:00:00Z

// Worked by hand. One aws H100 at $12/GPU-h ($0.20 a minute), shared
// equally by two holders for 100 minutes in each month, so each holder's
// basis charge is $0.10 a minute, $10.00 a month.
//   November: train (research) with quiet (research); train reports 100
//     steps: $10.00 / 100 = $0.10 a step; no contention.
//   December: train with noisy (team data); a contention incident names
//     train, slowdown 0.2, for all 100 minutes: train is credited
//     0.2 x $10.00 = $2.00 and noisy charged $2.00 (transfer rule). train
//     reports 80 steps: cost before contention $10.00 / 80 = $0.125 a step,
//     +25%. Lost to contention $2.00 / 80 = $0.025 a step, against $0 in
//     November: 0.025 / 0.10 = 25 points of the change.
//   research pays $10.00 - $2.00 = $8.00 in December against $20.00
//   (train and quiet) in November: 60% less.
TEST(TeamSummaryTest, WorkedMonthNamesTheContentionAndItsCulprit) {
  MeteredDevice d;
  d.id = 1;
  d.node = "aws-h100-1";
  d.key = "aws-h100-1/0";
  d.gpu_uuid = "GPU-1";
  d.model = "h100-sxm";
  d.cloud = "aws";
  d.region = "us-east-1";
  PriceBook book = NegotiatedBook("aws-h100-*", 12.0);
  auto month = [&](int64_t start, int64_t other) {
    std::vector<DeviceMinute> minutes;
    for (int i = 0; i < 100; ++i) {
      DeviceMinute m;
      m.device = 1;
      m.minute_s = start + 60 * i;
      m.holders = {{1, -1}, {other, -1}};
      minutes.push_back(m);
    }
    return [minutes](const std::function<void(const DeviceMinute&)>& fn) {
      for (const DeviceMinute& m : minutes) fn(m);
      return OkStatus();
    };
  };
  std::vector<Holder> holders = {Pod(1, "train", "research"), Pod(2, "quiet", "research"),
                                 Pod(3, "noisy", "data")};
  ContentionWindow w;
  w.devices = {d.key};
  w.workloads = {"train"};
  w.start_s = kDec1;
  w.end_s = kDec1 + 6000;
  w.slowdown = 0.2;
  w.kind = "memory_contention";
  StatusOr<Ledger> nov =
      ComputeLedger({d}, holders, month(kNov1, 2), book, {}, {}, {}, kNov1, kDec1);
  StatusOr<Ledger> dec =
      ComputeLedger({d}, holders, month(kDec1, 3), book, {w}, {}, {}, kDec1, kDec1 + 31 * 86400);
  ASSERT_TRUE(nov.ok() && dec.ok());
  std::map<std::string, WorkTotals> work_nov, work_dec;
  work_nov["train"].steps = 100;
  work_dec["train"].steps = 80;
  StatusOr<TeamSummary> s =
      SummarizeTeam("research", *dec, work_dec, *nov, work_nov, {}, "2026-12", "2026-11");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->now.cost_micro, 8'000'000);
  EXPECT_EQ(s->before.cost_micro, 20'000'000);
  EXPECT_EQ(s->now.lost_micro, 2'000'000);
  EXPECT_NEAR(s->step_cost_change_pct, 25, 1e-9);
  EXPECT_NEAR(s->contention_points, 25, 1e-9);
  EXPECT_EQ(s->culprit, "noisy");
  EXPECT_EQ(s->culprit_team, "data");
  EXPECT_EQ(s->where, "aws h100-sxm");
  std::string text = RenderSummaryText(*s);
  EXPECT_EQ(text,
            "research spent $8.00 in 2026-12, 60% less than in 2026-11 ($20.00).\n"
            "Cost per step rose 25% ($0.1 -> $0.125, 80 steps this month).\n"
            "25 points of the change came from GPU time lost to memory contention ($2.00) on "
            "aws h100-sxm nodes, caused by workload noisy (team data).\n"
            "Largest workloads: train ($8.00).\n");
  EXPECT_NE(RenderSummaryJson(*s).find("\"contention_points\": 25"), std::string::npos);
  EXPECT_NE(RenderSummaryJson(*s).find("\"memory_contention\": 2.0"), std::string::npos);

  // Two kinds in December: memory contention (slowdown 0.2) for the first 50
  // minutes, $0.10 x 0.2 x 50 = $1.00; latency-bound (0.1) for the last 50,
  // $0.10 x 0.1 x 50 = $0.50. Lost per step 1.50 / 80 = $0.01875, 18.75
  // points of November's $0.10.
  ContentionWindow mem = w, lat = w;
  mem.end_s = kDec1 + 3000;
  lat.start_s = kDec1 + 3000;
  lat.slowdown = 0.1;
  lat.kind = "latency_bound_contention";
  StatusOr<Ledger> dec2 = ComputeLedger({d}, holders, month(kDec1, 3), book, {mem, lat}, {}, {},
                                        kDec1, kDec1 + 31 * 86400);
  ASSERT_TRUE(dec2.ok());
  StatusOr<TeamSummary> two =
      SummarizeTeam("research", *dec2, work_dec, *nov, work_nov, {}, "2026-12", "2026-11");
  ASSERT_TRUE(two.ok());
  EXPECT_NEAR(two->contention_points, 18.75, 1e-9);
  EXPECT_NE(RenderSummaryText(*two).find(
                "19 points of the change came from GPU time lost to contention ($1.50: memory "
                "contention $1.00, latency-bound contention $0.50) on aws h100-sxm nodes, caused "
                "by workload noisy (team data)."),
            std::string::npos)
      << RenderSummaryText(*two);

  // The culprit's team: charged for what it caused, no contention of its own.
  StatusOr<TeamSummary> data =
      SummarizeTeam("data", *dec, work_dec, *nov, work_nov, {}, "2026-12", "2026-11");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->now.caused_micro, 2'000'000);
  EXPECT_EQ(data->now.cost_micro, 12'000'000);
  EXPECT_NE(RenderSummaryText(*data).find("data was charged $2.00 for contention its workloads "
                                          "caused to others."),
            std::string::npos)
      << RenderSummaryText(*data);

  StatusOr<TeamSummary> none =
      SummarizeTeam("nobody", *dec, work_dec, *nov, work_nov, {}, "2026-12", "2026-11");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(RenderSummaryText(*none), "nobody was charged nothing in 2026-12 or 2026-11.\n");
}

}  // namespace
}  // namespace gpufleet::cost
