#include "place/policy.h"

#include <gtest/gtest.h>

#include "place/place_test_util.h"
#include "place/placer.h"

namespace gpufleet::place {
namespace {

NodeState State(int64_t cpu_free, std::vector<int64_t> gpu_free) {
  NodeState s;
  s.cpu_free_milli = cpu_free;
  s.memory_free_mib = 1 << 20;
  s.gpu_free_milli = std::move(gpu_free);
  return s;
}

using test_util::Node;
using test_util::Req;
using test_util::Shape;

TEST(PolicyTest, DotProdByHand) {
  // dot = (64000/128000)(8000/128000) + (4000/8000)(1000/8000) = 0.09375;
  // 100 * (1 - 0.09375/2) = 95.3 -> 95.
  EXPECT_EQ(DotProdScore(State(64000, {1000, 1000, 1000, 1000}), Req(8000, 1, 1000)), 95);
  EXPECT_EQ(DotProdScore(State(1000, {1000}), Req(8000, 1, 1000)), 0);  // CPU does not fit
}

TEST(PolicyTest, BestFitByHand) {
  // left = 0.5 * 56000/128000 + 0.5 * 3000/8000 = 0.40625 -> 59.375 -> 59.
  EXPECT_EQ(BestFitScore(State(64000, {1000, 1000, 1000, 1000}), Req(8000, 1, 1000)), 59);
  // Exact fit leaves nothing: 100.
  EXPECT_EQ(BestFitScore(State(8000, {1000}), Req(8000, 1, 1000)), 100);
}

TEST(PolicyTest, GpuClusteringTiers) {
  NodeState idle = State(96000, std::vector<int64_t>(8, 1000));
  EXPECT_EQ(GpuClusteringScore(idle, Req(1000, 1, 500)), 25);  // idle tier, empty node
  NodeState shared = idle;
  shared.gpu_free_milli[0] = 500;
  shared.gpu_affinity[0] = 1;  // holds one share pod
  // 25 * (8000 - 7500) / 8000 = 1 (integer), same-affinity-only tier: +75.
  EXPECT_EQ(GpuClusteringScore(shared, Req(1000, 1, 500)), 76);
  EXPECT_EQ(GpuClusteringScore(shared, Req(1000, 1, 1000)), 1);  // different affinity
  shared.gpu_affinity[1] = 1;
  EXPECT_EQ(GpuClusteringScore(shared, Req(1000, 1, 500)), 51);  // mixed tier
  EXPECT_EQ(GpuClusteringScore(shared, Req(1000, 0, 0)), 0);     // CPU-only
}

TEST(PolicyTest, GpuPackingTiers) {
  EXPECT_EQ(GpuPackingScore(State(96000, std::vector<int64_t>(8, 1000)), Req(1, 1, 500)), 25);
  EXPECT_EQ(GpuPackingScore(State(96000, {1000}), Req(1, 1, 500)), 32);
  NodeState used = State(96000, {700, 1000, 1000, 1000});
  EXPECT_EQ(GpuPackingScore(used, Req(1, 1, 500)), 93);  // shared GPU with 70% free
  EXPECT_EQ(GpuPackingScore(used, Req(1, 1, 1000)), 49);
  EXPECT_EQ(GpuPackingScore(used, Req(1, 2, 1000)), 48);
  EXPECT_EQ(GpuPackingScore(used, Req(1, 0, 0)), 0);
}

TEST(PolicyTest, FgdScoreIsSigmoidOfFragDecrease) {
  EXPECT_EQ(FgdScoreFromFrag(1000, 0), 73);  // sigmoid(1) = 0.731
  EXPECT_EQ(FgdScoreFromFrag(500, 500), 50);
  EXPECT_EQ(FgdScoreFromFrag(0, 2000), 11);  // sigmoid(-2) = 0.119
}

TEST(PolicyTest, BestGpuChoice) {
  NodeState s = State(1000, {700, 400, 1000, 400});
  EXPECT_EQ(BestFitGpus(s, Req(1, 1, 300)), 0b0010u);  // tightest, lowest index
  EXPECT_EQ(BestFitGpus(s, Req(1, 1, 500)), 0b0001u);
  EXPECT_EQ(BestFitGpus(s, Req(1, 1, 1000)), 0b0100u);
  EXPECT_EQ(BestFitGpus(s, Req(1, 0, 0)), 0u);
}

TEST(PolicyTest, FgdPrefersTheNodeItDoesNotFragment) {
  // Target: whole single GPUs only. Node 0 has a 600-milli hole; a 600 share
  // there fills it exactly (fragment 400 -> 0), while on idle node 1 it
  // would strand 400 milli.
  Cluster c({Node("a", 2), Node("b", 2)});
  c.Place(0, 0b01, Req(0, 1, 400));
  auto fgd = NewFgdPolicy(TargetWorkload::FromShapes({Shape(1000, 1000, 1, 1)}));
  Rng rng(7);
  auto d = ChooseNode(c, Req(1000, 1, 600), *fgd, rng);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node, 0);
  EXPECT_EQ(d->gpus, 0b01u);
  // Node 0: frag 600 -> 0, sigmoid(0.6) = 0.646 -> 64; node 1: 0 -> 400 -> 40.
  EXPECT_EQ(d->score, 64);
}

TEST(PolicyTest, FactoryParsesNamesAndWeights) {
  TargetWorkload t;
  for (const std::string& n : PolicyNames()) {
    auto p = MakePolicy(n, t);
    ASSERT_TRUE(p.ok()) << n;
    EXPECT_EQ((*p)->name(), n);
  }
  auto w = MakePolicy("fgd:0.7,bestfit:0.3", t);
  ASSERT_TRUE(w.ok());
  EXPECT_NE(std::string((*w)->name()).find("bestfit"), std::string::npos);
  EXPECT_FALSE(MakePolicy("nosuch", t).ok());
  EXPECT_FALSE(MakePolicy("fgd:-1", t).ok());
}

TEST(PolicyTest, WeightedCombinationAddsScores) {
  Cluster c({Node("a", 4)});
  auto w = MakePolicy("bestfit:2,dotprod:1", TargetWorkload());
  ASSERT_TRUE(w.ok());
  Rng rng(1);
  WorkloadRequest r = Req(8000, 1, 1000);
  (*w)->BeginRequest(c, r, rng);
  double expect = 2.0 * static_cast<double>(BestFitScore(c.state(0), r)) +
                  static_cast<double>(DotProdScore(c.state(0), r));
  EXPECT_DOUBLE_EQ((*w)->Score(c, 0, r), expect);
}

}  // namespace
}  // namespace gpufleet::place
