#include "place/feasibility.h"

#include <gtest/gtest.h>

#include "place/placer.h"

namespace gpufleet::place {
namespace {

NodeSpec Node(int gpus, std::string model = "A100") {
  NodeSpec n;
  n.name = "n";
  n.cpu_milli = 32000;
  n.memory_mib = 65536;
  n.gpu_count = gpus;
  n.gpu_model = std::move(model);
  n.vendor = "nvidia";
  n.region = "eu-west";
  n.gpu_memory_mib = 40960;
  n.interconnect = "nvlink";
  n.software = {{"cuda", "12.4"}};
  return n;
}

WorkloadRequest Req(int gpus, int64_t milli) {
  WorkloadRequest r;
  r.cpu_milli = 4000;
  r.memory_mib = 1024;
  r.gpu_count = gpus;
  r.gpu_milli = milli;
  return r;
}

TEST(FeasibilityTest, EachRejectionHasItsReason) {
  Cluster c({Node(2)});
  const NodeSpec& n = c.spec(0);
  const NodeState& s = c.state(0);
  EXPECT_TRUE(CheckFeasible(n, s, Req(2, 1000)).ok());

  WorkloadRequest r = Req(1, 1000);
  r.region = "us-east";
  EXPECT_EQ(CheckFeasible(n, s, r).reason, RejectReason::kRegion);
  r = Req(1, 1000);
  r.vendor = "amd";
  EXPECT_EQ(CheckFeasible(n, s, r).reason, RejectReason::kVendor);
  r = Req(1, 1000);
  r.gpu_models = {"H100", "MI300X"};
  Feasibility f = CheckFeasible(n, s, r);
  EXPECT_EQ(f.reason, RejectReason::kModel);
  EXPECT_NE(f.detail.find("H100|MI300X"), std::string::npos) << f.detail;
  r = Req(1, 1000);
  r.min_gpu_memory_mib = 81920;
  EXPECT_EQ(CheckFeasible(n, s, r).reason, RejectReason::kGpuMemory);
  r = Req(1, 1000);
  r.interconnect = "xgmi";
  EXPECT_EQ(CheckFeasible(n, s, r).reason, RejectReason::kInterconnect);
  r = Req(1, 1000);
  r.software = {{"cuda", "12.6"}};
  f = CheckFeasible(n, s, r);
  EXPECT_EQ(f.reason, RejectReason::kSoftware);
  EXPECT_NE(f.detail.find("12.4"), std::string::npos);
  r = Req(1, 1000);
  r.cpu_milli = 64000;
  EXPECT_EQ(CheckFeasible(n, s, r).reason, RejectReason::kCpu);
  r = Req(1, 1000);
  r.memory_mib = 1 << 20;
  EXPECT_EQ(CheckFeasible(n, s, r).reason, RejectReason::kMemory);
  EXPECT_EQ(CheckFeasible(n, s, Req(3, 1000)).reason, RejectReason::kGpuCapacity);
  EXPECT_EQ(RejectReasonName(RejectReason::kGpuCapacity), "gpu_capacity");
}

TEST(FeasibilityTest, SoftwareHookDecides) {
  Cluster c({Node(1)});
  WorkloadRequest r = Req(1, 1000);
  r.software = {{"cuda", "12.6"}};
  SoftwareCompatHook allow_all = [](const NodeSpec&, const WorkloadRequest&) {
    return std::optional<std::string>();
  };
  EXPECT_TRUE(CheckFeasible(c.spec(0), c.state(0), r, allow_all).ok());
}

TEST(FeasibilityTest, WholeGpusNeedFullyFreeDevices) {
  Cluster c({Node(2)});
  c.Place(0, 0b01, Req(1, 300));
  EXPECT_TRUE(FitsCapacity(c.state(0), Req(1, 700)));
  EXPECT_FALSE(FitsCapacity(c.state(0), Req(2, 1000)));
  EXPECT_TRUE(FitsCapacity(c.state(0), Req(1, 1000)));
  EXPECT_EQ(c.used_gpu_milli(), 300);
}

TEST(FeasibilityTest, ImpossibleRequestAndEmptyClusterGetNoPlacement) {
  Rng rng(1);
  auto policy = NewBestFitPolicy();
  Cluster empty({});
  EXPECT_FALSE(ChooseNode(empty, Req(1, 1000), *policy, rng).has_value());
  Cluster c({Node(2), Node(4, "T4")});
  WorkloadRequest r = Req(1, 1000);
  r.gpu_models = {"UnknownModel"};
  EXPECT_FALSE(ChooseNode(c, r, *policy, rng).has_value());
  EXPECT_FALSE(ChooseNode(c, Req(8, 1000), *policy, rng).has_value());
  auto d = ChooseNode(c, Req(3, 1000), *policy, rng);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node, 1);
  EXPECT_EQ(d->gpus, 0b0111u);
}

}  // namespace
}  // namespace gpufleet::place
