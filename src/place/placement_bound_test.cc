#include "place/placement_bound.h"

#include <gtest/gtest.h>

#include "place/simulator.h"

namespace gpufleet::place {
namespace {

NodeSpec Node(const std::string& name, int gpus, int64_t cpu, int64_t mem = 10000) {
  NodeSpec n;
  n.name = name;
  n.gpu_count = gpus;
  n.gpu_model = "A";
  n.cpu_milli = cpu;
  n.memory_mib = mem;
  return n;
}

WorkloadRequest Pod(int gpus, int64_t milli, int64_t cpu, int64_t mem = 0) {
  WorkloadRequest r;
  r.gpu_count = gpus;
  r.gpu_milli = milli;
  r.cpu_milli = cpu;
  r.memory_mib = mem;
  return r;
}

TEST(PlacementBoundTest, MaxFluidFillCountsOnlyFillersThatFit) {
  // 300 fits no 190 hole; 160 fits one.
  EXPECT_EQ(MaxFluidFill({190, 190}, {300, 160}), 160);
  // Divisible: two 60s put 100 into one 100 hole.
  EXPECT_EQ(MaxFluidFill({100}, {60, 60}), 100);
  // Everything fits.
  EXPECT_EQ(MaxFluidFill({190, 190, 350}, {160, 160, 160, 50}), 530);
  EXPECT_EQ(MaxFluidFill({}, {50}), 0);
}

TEST(PlacementBoundTest, TwoDevicesCanBeBlockedByTwoPods) {
  // Two 1-GPU nodes: the first two 810-milli pods always fit; after them
  // the third need not (one per device leaves 190 each).
  std::vector<NodeSpec> nodes = {Node("a", 1, 10000), Node("b", 1, 10000)};
  std::vector<WorkloadRequest> pods = {Pod(1, 810, 1000), Pod(1, 810, 1000), Pod(1, 810, 1000)};
  EXPECT_EQ(CertainlyPlaced(nodes, pods), (std::vector<char>{1, 1, 0}));
}

TEST(PlacementBoundTest, CpuOnlyPodCanBlockANode) {
  // 9,500 of 10,000 CPU leaves 500 < 1,000: a CPU-only pod blocks one node.
  std::vector<NodeSpec> nodes = {Node("a", 1, 10000), Node("b", 1, 10000)};
  std::vector<WorkloadRequest> pods = {Pod(0, 0, 9500), Pod(1, 810, 1000), Pod(1, 810, 1000)};
  EXPECT_EQ(CertainlyPlaced(nodes, pods), (std::vector<char>{0, 1, 0}));
}

TEST(PlacementBoundTest, WeightsOverNodeTypesCertify) {
  // Node a: 1 GPU; node b: 4 GPUs but 4,000 CPU. Two whole-GPU pods of
  // 2,000 CPU cannot block both (a takes one pod; b needs > 3,000 CPU or
  // all 4 devices), so the 810 pod is certain. With 3,500 CPU each they can.
  std::vector<NodeSpec> nodes = {Node("a", 1, 10000), Node("b", 4, 4000)};
  std::vector<WorkloadRequest> light = {Pod(1, 1000, 2000), Pod(1, 1000, 2000), Pod(1, 810, 1000)};
  EXPECT_EQ(CertainlyPlaced(nodes, light)[2], 1);
  std::vector<WorkloadRequest> heavy = {Pod(1, 1000, 3500), Pod(1, 1000, 3500), Pod(1, 810, 1000)};
  EXPECT_EQ(CertainlyPlaced(nodes, heavy)[2], 0);
}

TEST(PlacementBoundTest, HoleBoundOnTwoDevices) {
  // 810, 810 are certain (190 + 190 of holes); the 160 fills one of them,
  // the last 810 finds no room: 190 + 30 milli stay idle, which the bound
  // finds exactly.
  std::vector<NodeSpec> nodes = {Node("a", 1, 10000), Node("b", 1, 10000)};
  std::vector<WorkloadRequest> pods = {Pod(1, 810, 1000), Pod(1, 810, 1000), Pod(1, 160, 1000),
                                       Pod(1, 810, 1000)};
  HoleBound b = HoleLowerBound(nodes, pods);
  EXPECT_EQ(b.certain_pods, 2);
  EXPECT_EQ(b.hole_milli, 380);
  EXPECT_EQ(b.max_fill_milli, 160);
  EXPECT_DOUBLE_EQ(b.UnallocatedGpus(), 0.22);
  auto r = ReplayPods(nodes, pods, pods, {0, 1}, "bestfit");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->failed, 1);
  EXPECT_NEAR(r->unallocated_gpus_end, 0.22, 1e-12);
}

TEST(PlacementBoundTest, ReplayInArrivalOrderIsTheSimulatorsRun) {
  std::vector<NodeSpec> nodes;
  for (int i = 0; i < 6; ++i) nodes.push_back(Node("n" + std::to_string(i), i < 4 ? 4 : 2, 32000, 1 << 18));
  std::vector<WorkloadRequest> workload;
  const int64_t shares[] = {1000, 500, 250, 1000, 700, 810};
  for (int i = 0; i < 24; ++i) {
    WorkloadRequest r = Pod(i % 7 == 0 ? 0 : 1, 0, 2000 + 500 * (i % 3), 1024);
    if (r.gpu_count) r.gpu_milli = shares[i % 6];
    r.name = "pod-" + std::to_string(100 + i);
    workload.push_back(r);
  }
  for (const char* policy : {"gpufleet", "fgd"}) {
    SimOptions o;
    o.policy = policy;
    o.seed = 7;
    auto sim = RunSimulation(nodes, workload, o);
    ASSERT_TRUE(sim.ok()) << sim.status().ToString();
    Cluster cluster(nodes);
    Rng rng(7);
    ArrivedSequence seq = MakeArrivedSequence(cluster, workload, 1.3, rng);
    auto r = ReplayPods(nodes, workload, seq.pods, seq.rank, policy);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->failed, sim->pods_failed) << policy;
    EXPECT_GT(r->failed, 0) << policy;
    EXPECT_NEAR(r->unallocated_gpus_at_130, sim->UnallocatedGpusAt(130), 1e-9) << policy;
  }
}

TEST(PlacementBoundTest, SortedBySizeDecreasing) {
  std::vector<WorkloadRequest> pods = {Pod(1, 470, 1), Pod(2, 1000, 1), Pod(1, 810, 2),
                                       Pod(1, 810, 3), Pod(0, 0, 5)};
  std::vector<WorkloadRequest> s = SortedBySizeDecreasing(pods);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].gpu_count, 2);
  EXPECT_EQ(s[1].cpu_milli, 3);
  EXPECT_EQ(s[2].cpu_milli, 2);
  EXPECT_EQ(s[3].gpu_milli, 470);
  EXPECT_EQ(s[4].gpu_count, 0);
}

}  // namespace
}  // namespace gpufleet::place
