#include "cost/unit_cost.h"

#include <gtest/gtest.h>

#include "cost/cost_test_util.h"

namespace gpufleet::cost {
namespace {

// Worked by hand: one GPU at $6/GPU-h ($0.10 a minute), 60 minutes.
//   train holds it alone for 40 minutes: $4.00, 200 steps -> $0.02/step;
//   serve holds it for the other 20: $2.00, 4 M tokens -> $0.50/Mtoken;
//   batch (no work reported) is not on the GPU: absent.
TEST(UnitCostTest, WorkedJobCostsPerStepAndPerMillionTokens) {
  MeteredDevice d;
  d.id = 1;
  d.node = "n6-a";
  d.key = "n6-a/0";
  d.gpu_uuid = "GPU-1";
  d.model = "h100-sxm";
  std::vector<DeviceMinute> minutes;
  for (int i = 0; i < 60; ++i) {
    DeviceMinute m;
    m.device = 1;
    m.minute_s = 60 * i;
    m.holders = {{i < 40 ? 1 : 2, -1}};
    minutes.push_back(m);
  }
  MinuteScan scan = [&](const std::function<void(const DeviceMinute&)>& fn) {
    for (const DeviceMinute& m : minutes) fn(m);
    return OkStatus();
  };
  StatusOr<Ledger> l = ComputeLedger({d}, {Pod(1, "train", "research"), Pod(2, "serve", "apps")},
                                     scan, NegotiatedBook("n6-*", 6.0), {}, {}, {}, 0, 3600);
  ASSERT_TRUE(l.ok());
  std::map<std::string, WorkTotals> work;
  work["train"].steps = 200;
  work["serve"].tokens = 4e6;
  StatusOr<std::vector<JobCost>> jobs = JobCosts(*l, work, {});
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].workload, "train");
  EXPECT_EQ((*jobs)[0].team, "research");
  EXPECT_EQ((*jobs)[0].micro_usd, 4'000'000);
  EXPECT_DOUBLE_EQ((*jobs)[0].usd_per_step, 0.02);
  EXPECT_EQ((*jobs)[0].usd_per_million_tokens, -1);
  EXPECT_EQ((*jobs)[1].micro_usd, 2'000'000);
  EXPECT_DOUBLE_EQ((*jobs)[1].usd_per_million_tokens, 0.5);
  EXPECT_EQ((*jobs)[1].usd_per_step, -1);
  std::string text = RenderJobMetrics(*jobs, "month");
  EXPECT_NE(
      text.find("gpu_workload_cost_usd{workload=\"train\",team=\"research\",window=\"month\"} "
                "4.000000\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("gpu_workload_cost_usd_per_step{workload=\"train\",team=\"research\","
                      "window=\"month\"} 0.02\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpu_workload_cost_usd_per_million_tokens{workload=\"serve\""),
            std::string::npos);
  EXPECT_EQ(text.find("gpu_workload_cost_usd_per_step{workload=\"serve\""), std::string::npos);
}

JobCost Job(std::string w, int64_t micro, int64_t steps, double tokens) {
  JobCost j;
  j.workload = std::move(w);
  j.team = "t";
  j.micro_usd = micro;
  j.steps = steps;
  j.tokens = tokens;
  if (steps > 0) j.usd_per_step = static_cast<double>(micro) / 1e6 / static_cast<double>(steps);
  if (tokens > 0) j.usd_per_million_tokens = static_cast<double>(micro) / tokens;
  return j;
}

// The rule: recent / baseline >= 1.30, with >= 10 steps (or 100,000 tokens)
// in both windows; steps win over tokens.
TEST(UnitCostTest, JumpRuleThresholdAndMinimumWork) {
  std::vector<JobCost> baseline = {Job("a", 24'000'000, 240, 0),  // $0.10/step
                                   Job("b", 24'000'000, 240, 0), Job("c", 24'000'000, 240, 0),
                                   Job("d", 24'000'000, 0, 48e6),  // $0.50/Mtoken
                                   Job("e", 24'000'000, 9, 0)};
  std::vector<JobCost> recent = {Job("a", 1'400'000, 10, 0),   // $0.14: x1.40, jumps
                                 Job("b", 1'290'000, 10, 0),   // x1.29: does not
                                 Job("c", 1'000'000, 5, 0),    // 5 steps: too little work
                                 Job("d", 1'000'000, 0, 1e6),  // $1.00/Mtoken: x2
                                 Job("e", 9'000'000, 10, 0),   // baseline had 9 steps
                                 Job("new", 9'000'000, 100, 0)};
  std::vector<UnitCostChange> c = UnitCostChanges(baseline, recent);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].workload, "a");
  EXPECT_TRUE(c[0].jumped);
  EXPECT_NEAR(c[0].ratio, 1.4, 1e-9);
  EXPECT_EQ(c[1].workload, "b");
  EXPECT_FALSE(c[1].jumped);
  EXPECT_EQ(c[2].workload, "d");
  EXPECT_EQ(c[2].unit, "million tokens");
  EXPECT_TRUE(c[2].jumped);
  EXPECT_NEAR(c[2].ratio, 2.0, 1e-9);
}

}  // namespace
}  // namespace gpufleet::cost
