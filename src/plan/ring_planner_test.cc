#include "plan/ring_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace gpufleet::plan {
namespace {

RingTopology TwoCloud() {
  RingTopology t;
  t.message_bytes = 1 << 30;
  t.same_node = {300e9, 5e-6, 0};
  t.same_region = {25e9, 20e-6, 0};
  t.same_cloud = {10e9, 1e-3, 0.02};
  t.cross_cloud = {1.25e9, 10e-3, 0.09};
  // Interleaved on purpose: the given order crosses clouds at every hop.
  for (int i = 0; i < 6; ++i) {
    bool aws = i % 2 == 0;
    t.ranks.push_back({"r" + std::to_string(i), (aws ? "a" : "g") + std::to_string(i / 4),
                       aws ? "aws" : "gcp", aws ? "us-east-1" : "us-central1"});
  }
  return t;
}

TEST(RingPlannerTest, GroupedRingCrossesEachCloudBorderOnceAndNoOrderDoesBetter) {
  RingTopology t = TwoCloud();
  t.ranks.push_back({"r6", "z0", "azure", "eastus"});
  auto plan = PlanRing(t);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->grouped.cross_cloud_edges, 3);
  // Every order of the 7 ranks (ring rotations included): none crosses fewer
  // borders or moves fewer cross-cloud bytes as a flat ring.
  std::vector<int> p(t.ranks.size());
  std::iota(p.begin(), p.end(), 0);
  int fewest = 1 << 30;
  double least_bytes = 1e300;
  do {
    RingResult r = EvaluateFlatRing(t, p);
    fewest = std::min(fewest, r.cross_cloud_edges);
    least_bytes = std::min(least_bytes, r.cross_cloud_bytes);
  } while (std::next_permutation(p.begin(), p.end()));
  EXPECT_EQ(fewest, plan->grouped.cross_cloud_edges);
  EXPECT_DOUBLE_EQ(least_bytes, plan->grouped.cross_cloud_bytes);
  // The hierarchical form moves 2(k-1)S across borders: the minimum, below
  // every flat ring.
  EXPECT_DOUBLE_EQ(plan->hierarchical.cross_cloud_bytes, 2.0 * 2 * t.message_bytes);
  EXPECT_LT(plan->hierarchical.cross_cloud_bytes, least_bytes);
  EXPECT_DOUBLE_EQ(plan->chosen.cross_cloud_bytes, plan->min_cross_cloud_bytes);
}

TEST(RingPlannerTest, ChosenPlanIsFasterAndCheaperThanTheGivenOrder) {
  auto plan = PlanRing(TwoCloud());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->naive.cross_cloud_edges, 6);
  EXPECT_LT(plan->chosen.time_s, plan->naive.time_s);
  EXPECT_LT(plan->chosen.egress_usd, plan->naive.egress_usd);
  EXPECT_EQ(plan->chosen.algorithm, "hierarchical by cloud");
  EXPECT_NE(plan->summary.find("egress"), std::string::npos);
}

TEST(RingPlannerTest, OneCloudNeedsNoCrossing) {
  RingTopology t = TwoCloud();
  for (RingRank& r : t.ranks) r.cloud = "aws";
  auto plan = PlanRing(t);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->chosen.cross_cloud_bytes, 0);
  EXPECT_EQ(plan->min_cross_cloud_bytes, 0);
  EXPECT_LE(plan->chosen.time_s, plan->naive.time_s);
}

TEST(RingPlannerTest, MeasuredLinkOverridesTheClass) {
  RingTopology t = TwoCloud();
  auto before = PlanRing(t);
  t.measured.push_back({"gcp/us-central1", "aws/us-east-1", {0.125e9, 30e-3, 0.09}});
  auto after = PlanRing(t);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_GT(after->chosen.time_s, before->chosen.time_s);
  t.measured[0].link.bandwidth_bytes_per_s = 0;
  EXPECT_FALSE(PlanRing(t).ok());
}

}  // namespace
}  // namespace gpufleet::plan
