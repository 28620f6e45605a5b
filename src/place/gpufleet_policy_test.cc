#include "place/gpufleet_policy.h"

#include <iterator>

#include <gtest/gtest.h>

#include "place/place_test_util.h"
#include "place/placer.h"
#include "place/policy.h"

namespace gpufleet::place {
namespace {

using test_util::Node;
using test_util::Req;
using test_util::Shape;

TEST(GpufleetWasteTest, UsableIsFgdComplementWhenCpuIsPlentiful) {
  const int64_t free[] = {300, 1000};
  // A 500-milli share fits only device 1: its 1000 milli are usable.
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(1000, 500, 1, 1), true, 64000, 1 << 20, free, 2),
            1000);
}

TEST(GpufleetWasteTest, UsableIsCappedByCpuCopies) {
  const int64_t free[] = {300, 1000};
  // 1500 milli-CPU: one copy of the 1000-CPU shape, so 1 x 500 usable.
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(1000, 500, 1, 1), true, 1500, 1 << 20, free, 2),
            500);
  // Not even one copy: nothing usable (FGD's yes/no CPU check).
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(1000, 500, 1, 1), true, 500, 1 << 20, free, 2), 0);
}

TEST(GpufleetWasteTest, UsableIsCappedByMemoryCopies) {
  const int64_t free[] = {1000, 1000, 1000, 1000};
  // GPUs allow 4 whole-GPU copies, memory 250 MiB only 2 of 100 MiB: 2000.
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(0, 1000, 1, 1, 100), true, 64000, 250, free, 4),
            2000);
}

TEST(GpufleetWasteTest, UsableForMultiGpuShapes) {
  const int64_t four[] = {1000, 1000, 1000, 1000};
  // Devices hold two copies of a 2-GPU shape, CPU only one: 1 x 2000.
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(2000, 1000, 2, 1), true, 3000, 1 << 20, four, 4),
            2000);
  // Three fully free devices hold one copy and CPU allows one: not capped,
  // FGD's complement (all three fitting devices).
  const int64_t three[] = {1000, 1000, 1000, 500};
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(2000, 1000, 2, 1), true, 3000, 1 << 20, three, 4),
            3000);
  const int64_t one_free[] = {1000, 500, 500, 500};
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(0, 1000, 2, 1), true, 64000, 1 << 20, one_free, 4),
            0);
}

TEST(GpufleetWasteTest, NothingUsableForCpuOnlyShapesOrOtherModels) {
  const int64_t free[] = {1000};
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(1000, 0, 0, 1), true, 64000, 1 << 20, free, 1), 0);
  EXPECT_EQ(GpufleetWasteModel::Usable(Shape(1000, 500, 1, 1), false, 64000, 1 << 20, free, 1),
            0);
}

TEST(GpufleetWasteTest, EqualsFgdFragmentationWhenCpuIsPlentiful) {
  Cluster c({Node("a", 2, 64000)});
  c.Place(0, 0b01, Req(0, 1, 700));  // free GPUs [300, 1000]
  TargetWorkload t = TargetWorkload::FromShapes(
      {Shape(1000, 0, 0, 0.25), Shape(1000, 500, 1, 0.5), Shape(2000, 1000, 2, 0.25)});
  t.BindModels(c);
  GpufleetWasteModel m(t);
  m.Bind(c);
  const NodeState& st = c.state(0);
  // 0.25 * 1300 + 0.5 * 300 + 0.25 * 1300 = 800, as in FragmentationTest.
  EXPECT_DOUBLE_EQ(m.Waste(0, st.cpu_free_milli, st.memory_free_mib, st.gpu_free_milli.data(), 2),
                   800.0);
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 800.0);
}

TEST(GpufleetWasteTest, CountsGpusTheCpuCannotFeedWhereFgdDoesNot) {
  Cluster c({Node("a", 4, 12000)});
  TargetWorkload t = TargetWorkload::FromShapes({Shape(8000, 1000, 1, 1.0)});
  t.BindModels(c);
  GpufleetWasteModel m(t);
  m.Bind(c);
  const NodeState& st = c.state(0);
  // One copy fits by CPU: FGD sees no fragment; 3 of 4 GPUs cannot be used.
  EXPECT_DOUBLE_EQ(t.NodeFrag(c, 0), 0.0);
  EXPECT_DOUBLE_EQ(m.Waste(0, st.cpu_free_milli, st.memory_free_mib, st.gpu_free_milli.data(), 4),
                   3000.0);
}

TEST(GpufleetWasteTest, TypicalShapeMemoryIsTheMeanOfItsPods) {
  WorkloadRequest a = Req(1000, 1, 500);
  a.memory_mib = 100;
  WorkloadRequest b = a;
  b.memory_mib = 300;
  TargetWorkload t = TargetWorkload::FromWorkload({a, b}, 1.0);
  ASSERT_EQ(t.shapes().size(), 1u);  // memory is not part of FGD's shape key
  EXPECT_EQ(t.shapes()[0].memory_mib, 200);
}

TEST(GpufleetWasteTest, TargetCpuPerGpuMilliByHand) {
  TargetWorkload t = TargetWorkload::FromShapes(
      {Shape(1000, 1000, 1, 0.5), Shape(4000, 500, 1, 0.25), Shape(8000, 0, 0, 0.25)});
  // CPU (0.5 * 1000 + 0.25 * 4000) / GPU (0.5 * 1000 + 0.25 * 500) = 1500 / 625.
  EXPECT_DOUBLE_EQ(TargetCpuPerGpuMilli(t), 2.4);
  EXPECT_DOUBLE_EQ(TargetCpuPerGpuMilli(TargetWorkload::FromShapes({Shape(8000, 0, 0, 1)})), 0.0);
}

TEST(GpufleetWasteTest, CpuStarvedGpusUsesTheLowerRatio) {
  // 8 GPUs, 96 cores: 12 CPU milli per GPU milli; the target's 11 is lower.
  EXPECT_DOUBLE_EQ(CpuStarvedGpus(Node("g2", 8, 96000), 11, 4000, 22000), 2.0);
  // 2 GPUs, 16 cores (8 per milli, below the target's 11): an empty node is
  // not starved, half its CPU for both GPUs is.
  EXPECT_DOUBLE_EQ(CpuStarvedGpus(Node("p100", 2, 16000), 11, 2000, 16000), 0.0);
  EXPECT_DOUBLE_EQ(CpuStarvedGpus(Node("p100", 2, 16000), 11, 2000, 8000), 1.0);
  // 2 GPUs, 104 cores: the target's ratio applies, so 22 cores still feed two.
  EXPECT_DOUBLE_EQ(CpuStarvedGpus(Node("t4", 2, 104000), 11, 2000, 22000), 0.0);
  EXPECT_DOUBLE_EQ(CpuStarvedGpus(Node("t4", 2, 104000), 11, 2000, 11000), 1.0);
  EXPECT_DOUBLE_EQ(CpuStarvedGpus(Node("cpu", 0, 64000), 11, 0, 1000), 0.0);
}

TEST(GpufleetPolicyTest, CpuOnlyPodAvoidsStarvingFreeGpus) {
  // Node 0 has two free GPUs and 10 cores; node 1 the same CPU with its GPUs
  // taken. Target: whole GPUs with 4 cores each. A 6-core CPU-only pod on
  // node 0 leaves CPU for one copy only: waste 0 -> 1000. FGD still sees a
  // copy that fits (no fragment) and, with node 0 first in the tie order,
  // takes node 0; gpufleet takes node 1.
  Cluster c({Node("a", 2, 10000), Node("b", 2, 10000)});
  c.Place(1, 0b11, Req(0, 2, 1000));
  TargetWorkload t = TargetWorkload::FromShapes({Shape(4000, 1000, 1, 1.0)});
  const std::vector<int> rank = {0, 1};
  Rng rng(3);
  auto fgd = NewFgdPolicy(t);
  auto ours = NewGpufleetPolicy(t);
  auto d_fgd = ChooseNode(c, Req(6000, 0, 0), *fgd, rng, {}, &rank);
  auto d_ours = ChooseNode(c, Req(6000, 0, 0), *ours, rng, {}, &rank);
  ASSERT_TRUE(d_fgd.has_value());
  ASSERT_TRUE(d_ours.has_value());
  EXPECT_EQ(d_fgd->node, 0);
  EXPECT_EQ(d_ours->node, 1);
  // Node 0: floor(-1000 / 100) = -10, minus the packing tie-breaks
  // 0.1 * 2000/8000 + 0.1 * 4000/128000.
  ours->BeginRequest(c, Req(6000, 0, 0), rng);
  EXPECT_NEAR(ours->Score(c, 0, Req(6000, 0, 0)), -10 - 0.025 - 0.003125, 1e-9);
}

TEST(GpufleetPolicyTest, GpuPodPenalisedPerStarvedGpu) {
  // Two GPUs and 12 cores (6 per GPU milli, below the target's 10). A 10-core
  // whole-GPU pod leaves 1000 milli GPU with 2000 CPU: 1000 - 2000/6 = 667
  // milli starved, 0.667 GPUs x 100. Waste: 1000 before (CPU for one copy),
  // 1000 after (none), so no step.
  Cluster c({Node("a", 2, 12000), Node("b", 2, 40000)});
  TargetWorkload t = TargetWorkload::FromShapes({Shape(10000, 1000, 1, 1.0)});
  auto ours = NewGpufleetPolicy(t);
  Rng rng(5);
  WorkloadRequest r = Req(10000, 1, 1000);
  ours->BeginRequest(c, r, rng);
  const double tie = 0.1 * 1000 / 8000 + 0.1 * 2000.0 / 128000;
  EXPECT_NEAR(ours->Score(c, 0, r), -100.0 * (1000 - 2000.0 / 6) / 1000 - tie, 1e-9);
  auto d = ChooseNode(c, r, *ours, rng);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node, 1);
  EXPECT_EQ(d->gpus, 0b01u);
}

}  // namespace
}  // namespace gpufleet::place

namespace gpufleet::place {
namespace {

// Waste computes the device part of Usable once per GPU demand (shapes with
// the same share and count) and skips divisions; it must equal the plain
// sum over shapes of weight * (idle - Usable) on any state.
TEST(GpufleetWasteTest, GroupedWasteEqualsSumOfUsable) {
  std::vector<TypicalShape> shapes = {
      Shape(4000, 160, 1, 0.05, 15000),  Shape(12000, 160, 1, 0.05, 30000),
      Shape(3000, 810, 1, 0.15, 5600),   Shape(12000, 470, 1, 0.10, 47000),
      Shape(1000, 1000, 1, 0.30, 48000), Shape(24000, 1000, 1, 0.10, 0),
      Shape(64000, 1000, 8, 0.05, 300000), Shape(8000, 1000, 2, 0.05, 20000),
      Shape(12000, 0, 0, 0.15, 50000)};
  Cluster c({Node("a", 8, 96000)});
  TargetWorkload t = TargetWorkload::FromShapes(shapes);
  GpufleetWasteModel m(t);
  m.Bind(c);
  Rng rng(3);
  const int64_t steps[] = {0, 30, 60, 160, 190, 320, 470, 530, 810, 840, 1000};
  for (int trial = 0; trial < 2000; ++trial) {
    int64_t free[8];
    for (int64_t& f : free) f = steps[rng.Uniform(std::size(steps))];
    const int64_t cpu = static_cast<int64_t>(rng.Uniform(97)) * 1000;
    const int64_t mem = static_cast<int64_t>(rng.Uniform(400)) * 1000;
    int64_t idle = 0;
    for (int64_t f : free) idle += f;
    double expected = 0;
    for (const TypicalShape& s : shapes) {
      expected += s.weight *
                  static_cast<double>(idle - GpufleetWasteModel::Usable(s, true, cpu, mem, free, 8));
    }
    if (idle == 0) expected = 0;
    ASSERT_DOUBLE_EQ(m.Waste(0, cpu, mem, free, 8), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace gpufleet::place
