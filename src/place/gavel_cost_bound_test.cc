#include "place/gavel_cost_bound.h"

#include <gtest/gtest.h>

#include "place/gavel_lp.h"

namespace gpufleet::place {
namespace {

// One job type A on two GPU types: 1 step/s on "slow" at $1.50/h, 2 steps/s
// on "fast" at $4/h. A job of 7,200 steps: 1 h and $4 on fast, 2 h and $3
// on slow, so each hour of slack saves $1 until it all runs on slow.
struct Fixture {
  GavelThroughputs table =
      GavelThroughputs::FromTable({"slow", "fast"}, {{"A", 1}, {"B", 1}}, {{1, 2}, {1, 0}});
  std::vector<double> price = {1.5, 4};
  std::vector<GavelSimJob> Jobs(int n) const {
    std::vector<GavelSimJob> jobs(n);
    for (int i = 0; i < n; ++i) jobs[i].id = i, jobs[i].job_type = 0, jobs[i].total_steps = 7200;
    return jobs;
  }
};

TEST(GavelCostBoundTest, AloneTradesHoursForDollarsAlongTheTwoTypes) {
  Fixture f;
  auto b = ComputeGavelCostBound(f.table, f.Jobs(3), f.price, {1, 1.25, 1.5, 2, 3});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->jobs, 3);
  EXPECT_NEAR(b->fastest_hours, 1, 1e-9);
  EXPECT_NEAR(b->fastest_usd, 4, 1e-6);
  EXPECT_NEAR(b->cheapest_alone_usd, 3, 1e-9);
  const double want_usd[] = {4, 3.75, 3.5, 3, 3}, want_hours[] = {1, 1.25, 1.5, 2, 2};
  ASSERT_EQ(b->alone.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(b->alone[i].avg_usd, want_usd[i], 1e-6) << "factor " << b->alone[i].jct_factor;
    EXPECT_NEAR(b->alone[i].avg_hours, want_hours[i], 1e-6) << "factor " << b->alone[i].jct_factor;
  }
  // No pair is measured: sharing changes nothing.
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(b->shared[i].avg_usd, b->alone[i].avg_usd, 1e-6);
}

TEST(GavelCostBoundTest, SharingPaysHalfAGpuAtTheCoLocatedSpeed) {
  Fixture f;
  // Two A jobs on one fast GPU each keep 1.8 of their 2 steps/s: 1.111 h at
  // $2/h each, $2.22 per job, which beats slow alone ($3 in 2 h) outright.
  f.table.SetColocated(1, 0, 0, 1.8, 1.8);
  auto b = ComputeGavelCostBound(f.table, f.Jobs(2), f.price, {1, 1.05, 1.2});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const double pair_hours = 7200 / 1.8 / 3600, pair_usd = 2 * pair_hours;
  EXPECT_NEAR(b->cheapest_shared_usd, pair_usd, 1e-9);
  EXPECT_NEAR(b->shared[0].avg_usd, 4, 1e-6);  // no slack: every job alone on fast
  // 0.05 h of slack buys 0.05 / 0.111 of the work shared.
  const double share = 0.05 / (pair_hours - 1);
  EXPECT_NEAR(b->shared[1].avg_usd, 4 - share * (4 - pair_usd), 1e-6);
  EXPECT_NEAR(b->shared[2].avg_usd, pair_usd, 1e-6);
  EXPECT_NEAR(b->shared[2].avg_hours, pair_hours, 1e-6);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_LE(b->shared[i].avg_usd, b->alone[i].avg_usd + 1e-9);
    EXPECT_NEAR(b->free_partners[i].avg_usd, b->shared[i].avg_usd, 1e-6);  // A pairs with A
  }
}

TEST(GavelCostBoundTest, APairRunsBothSidesForTheSameHours) {
  Fixture f;
  // B runs alone only on slow (2 h, $3). On fast, A next to B keeps all of
  // its speed, B next to A crawls at 0.2 steps/s (10 h for its 7,200 steps).
  // A could pay half a GPU for its hour only if B spent the same hour beside
  // it, which B cannot afford without slack: at x1 the bound is every job
  // alone on its fastest type, (4 + 3) / 2; an unmatched bound would have let
  // A share for $2, (2 + 3) / 2.
  f.table.SetColocated(1, 0, 1, 2, 0.2);
  f.table.SetColocated(1, 1, 0, 0.2, 2);
  std::vector<GavelSimJob> jobs = f.Jobs(1);
  jobs.push_back({.id = 1, .job_type = 1, .total_steps = 7200});
  auto b = ComputeGavelCostBound(f.table, jobs, f.price, {1});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NEAR(b->fastest_hours, 1.5, 1e-9);
  EXPECT_NEAR(b->alone[0].avg_usd, 3.5, 1e-6);
  EXPECT_NEAR(b->shared[0].avg_usd, 3.5, 1e-6);
  EXPECT_NEAR(b->free_partners[0].avg_usd, 2.5, 1e-6);  // B's side is not this set's
  // At any duration too: A sharing its whole hour ($2 instead of $3 on
  // slow) needs a tenth of B's work beside it ($2 instead of $0.30).
  EXPECT_NEAR(b->cheapest_shared_usd, 3, 1e-6);
}

TEST(GavelCostBoundTest, SlackIsSharedAcrossJobs) {
  Fixture f;
  // Job B runs only on slow (1 h, $1.50): it has no choice, so the budget's
  // slack all goes to the A job. Mean fastest = (1 + 1) / 2 h; at x1.5 the
  // two jobs have 3 h, B takes 1, A gets 2 and runs on slow.
  std::vector<GavelSimJob> jobs = f.Jobs(1);
  jobs.push_back({.id = 1, .job_type = 1, .total_steps = 3600});
  auto b = ComputeGavelCostBound(f.table, jobs, f.price, {1.5});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NEAR(b->fastest_hours, 1, 1e-9);
  EXPECT_NEAR(b->fastest_usd, (4 + 1.5) / 2, 1e-6);
  EXPECT_NEAR(b->alone[0].avg_usd, (3 + 1.5) / 2, 1e-6);
}

TEST(GavelCostBoundTest, RefusesWhatHasNoAnswer) {
  Fixture f;
  EXPECT_FALSE(ComputeGavelCostBound(f.table, f.Jobs(1), f.price, {0.9}).ok());
  EXPECT_FALSE(ComputeGavelCostBound(f.table, f.Jobs(1), {1.5}, {1}).ok());
  EXPECT_FALSE(ComputeGavelCostBound(f.table, {}, f.price, {1}).ok());
  GavelThroughputs none = GavelThroughputs::FromTable({"slow", "fast"}, {{"A", 1}}, {{0, 0}});
  auto b = ComputeGavelCostBound(none, f.Jobs(1), f.price, {1});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("no GPU type runs job type A"), std::string::npos)
      << b.status().ToString();
}

TEST(GavelLpTest, CheapestWithinHoursRefusesABudgetBelowTheFastestMix) {
  double usd = 0;
  EXPECT_FALSE(SolveCheapestWithinHoursLp({{{1, 4}, {2, 3}}}, 0.99, &usd).ok());
  EXPECT_FALSE(SolveCheapestWithinHoursLp({{}}, 1, &usd).ok());
  auto f = SolveCheapestWithinHoursLp({{{1, 4}, {2, 3}}}, 1.5, &usd);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_NEAR(usd, 3.5, 1e-9);
  EXPECT_NEAR((*f)[0][0], 0.5, 1e-9);
  EXPECT_NEAR((*f)[0][1], 0.5, 1e-9);
}

}  // namespace
}  // namespace gpufleet::place
