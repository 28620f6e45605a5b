#include "place/fragmentation.h"

#include <gtest/gtest.h>

namespace gpufleet::place {
namespace {

NodeSpec Node(std::string name, int gpus, std::string model, int64_t cpu = 8000) {
  NodeSpec n;
  n.name = std::move(name);
  n.cpu_milli = cpu;
  n.memory_mib = 1 << 20;
  n.gpu_count = gpus;
  n.gpu_model = std::move(model);
  return n;
}

TypicalShape Shape(int64_t cpu, int64_t milli, int count, double w, std::string models = "") {
  TypicalShape s;
  s.cpu_milli = cpu;
  s.gpu_milli = milli;
  s.gpu_count = count;
  s.weight = w;
  s.gpu_models = std::move(models);
  return s;
}

WorkloadRequest Req(int64_t cpu, int gpus, int64_t milli) {
  WorkloadRequest r;
  r.cpu_milli = cpu;
  r.gpu_count = gpus;
  r.gpu_milli = milli;
  return r;
}

// Shapes: CPU-only (0.25), a 500-milli share (0.5), two whole GPUs (0.25).
TargetWorkload ThreeShapes() {
  return TargetWorkload::FromShapes({Shape(1000, 0, 0, 0.25), Shape(1000, 500, 1, 0.5),
                                     Shape(2000, 1000, 2, 0.25)});
}

TEST(FragmentationTest, IdleNodeFragmentsOnlyForCpuOnlyShapes) {
  Cluster c({Node("a", 2, "A")});
  TargetWorkload t = ThreeShapes();
  t.BindModels(c);
  // 0.25 * 2000 (CPU-only shapes count all idle GPU) + 0 + 0.
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 500.0);
}

TEST(FragmentationTest, PartlyUsedNodeByHand) {
  Cluster c({Node("a", 2, "A")});
  c.Place(0, 0b01, Req(0, 1, 700));  // free GPUs: [300, 1000], CPU 8000
  TargetWorkload t = ThreeShapes();
  t.BindModels(c);
  // CPU-only: 1300. Share 500: fits on GPU1, GPU0's 300 is stranded: 300.
  // Two whole GPUs: only one fully free, so all 1300 idle is fragment.
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 0.25 * 1300 + 0.5 * 300 + 0.25 * 1300);
  EXPECT_DOUBLE_EQ(ClusterFrag(c, t), 800.0);
}

TEST(FragmentationTest, LackOfCpuMakesAllIdleGpuFragment) {
  Cluster c({Node("a", 2, "A", 1500)});
  c.Place(0, 0b01, Req(1000, 1, 700));  // CPU free 500 < every shape's CPU
  TargetWorkload t = ThreeShapes();
  t.BindModels(c);
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 1300.0);
}

TEST(FragmentationTest, ModelMismatchMakesAllIdleGpuFragment) {
  Cluster c({Node("a", 1, "A"), Node("b", 1, "B")});
  TargetWorkload t = TargetWorkload::FromShapes({Shape(1000, 1000, 1, 1.0, "B|C")});
  t.BindModels(c);
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 1000.0);
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 1), 0.0);
}

TEST(FragmentationTest, FullNodeHasNoFragment) {
  Cluster c({Node("a", 1, "A")});
  c.Place(0, 0b1, Req(0, 1, 1000));
  TargetWorkload t = ThreeShapes();
  t.BindModels(c);
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 0.0);
}

TEST(FragmentationTest, TypicalShapesCoverNinetyFivePercent) {
  std::vector<WorkloadRequest> w;
  for (int i = 0; i < 60; ++i) w.push_back(Req(1000, 1, 1000));
  for (int i = 0; i < 30; ++i) w.push_back(Req(2000, 1, 500));
  for (int i = 0; i < 6; ++i) w.push_back(Req(4000, 0, 0));
  for (int i = 0; i < 4; ++i) w.push_back(Req(8000, 8, 1000));
  TargetWorkload t = TargetWorkload::FromWorkload(w, 0.95);
  ASSERT_EQ(t.shapes().size(), 3u);  // 60 + 30 + 6 = 96 >= 95
  EXPECT_DOUBLE_EQ(t.shapes()[0].weight, 60.0 / 96);
  EXPECT_DOUBLE_EQ(t.shapes()[1].weight, 30.0 / 96);
  EXPECT_EQ(t.shapes()[2].cpu_milli, 4000);
  EXPECT_DOUBLE_EQ(t.shapes()[2].weight, 6.0 / 96);
}

TEST(FragmentationTest, EqualCountsOrderedLikeFgd) {
  std::vector<WorkloadRequest> w = {Req(1000, 1, 500), Req(3000, 1, 500)};
  TargetWorkload t = TargetWorkload::FromWorkload(w, 1.0);
  ASSERT_EQ(t.shapes().size(), 2u);
  EXPECT_EQ(t.shapes()[0].cpu_milli, 3000);  // larger shape first on ties
}

}  // namespace
}  // namespace gpufleet::place
