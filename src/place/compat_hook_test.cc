#include "place/compat_hook.h"

#include <gtest/gtest.h>

namespace gpufleet::place {
namespace {

NodeSpec H100Node(std::string driver) {
  NodeSpec n;
  n.name = "gpu-node-1";
  n.gpu_count = 8;
  n.gpu_model = "H100-SXM5";
  n.vendor = "nvidia";
  n.software = {{"driver", std::move(driver)}, {"cuda", "12.4"}};
  return n;
}

WorkloadRequest NeedsCuda(std::string cuda) {
  WorkloadRequest w;
  w.name = "trainer";
  w.gpu_count = 1;
  w.gpu_milli = 1000;
  w.software = {{"cuda", std::move(cuda)}};
  return w;
}

TEST(CompatHookTest, RejectsADriverTooOldForTheRequestedCuda) {
  // CUDA 12.4.0 needs driver >= 550.54.14 natively (data/compat/cuda.toml,
  // from NVIDIA's CUDA release notes table 3).
  SoftwareCompatHook hook = CatalogCompatHook();
  std::optional<std::string> why = hook(H100Node("535.104.05"), NeedsCuda("12.4.0"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("workload_min_version"), std::string::npos) << *why;
  EXPECT_NE(why->find("535.104.05"), std::string::npos) << *why;
  EXPECT_FALSE(hook(H100Node("550.54.15"), NeedsCuda("12.4.0")).has_value());
}

TEST(CompatHookTest, FeasibilityReportsTheCatalogsReasonAsSoftware) {
  SoftwareCompatHook hook = CatalogCompatHook();
  Feasibility f = CheckStatic(H100Node("535.104.05"), NeedsCuda("12.4.0"), hook);
  EXPECT_EQ(f.reason, RejectReason::kSoftware);
  EXPECT_NE(f.detail.find("535.104.05"), std::string::npos) << f.detail;
}

TEST(CompatHookTest, BadVersionsAreRejectionsNamingKeyAndValue) {
  SoftwareCompatHook hook = CatalogCompatHook();
  std::optional<std::string> why = hook(H100Node("5x0"), NeedsCuda("12.4"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("node gpu-node-1 software driver"), std::string::npos) << *why;
  EXPECT_NE(why->find("5x0"), std::string::npos) << *why;
}

TEST(CompatHookTest, ComponentsTheCatalogDoesNotKnowMatchExactly) {
  SoftwareCompatHook hook = CatalogCompatHook();
  WorkloadRequest w = NeedsCuda("12.4");
  w.software["triton"] = "3.0";
  NodeSpec n = H100Node("550.54.15");
  std::optional<std::string> why = hook(n, w);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("triton 3.0 required, node has none"), std::string::npos) << *why;
  n.software["triton"] = "3.0";
  EXPECT_FALSE(hook(n, w).has_value());
}

}  // namespace
}  // namespace gpufleet::place
