#include "compat/compat_stack.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(CompatStackTest, ParsesNodeImageAndWorkload) {
  auto node = ParseNodeStack(R"(
name = "hgx-17"
gpu = "H100-SXM5"
os = "Ubuntu 22.04.4"
nvswitch = true
driver = "550.54.15"
fabric_manager = "550.54.15"
cuda = "12.4"
nccl = "2.21.5-1+cuda12.4"
)",
                             "node.toml");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->name, "hgx-17");
  EXPECT_TRUE(node->nvswitch);
  EXPECT_EQ(node->driver.text(), "550.54.15");
  EXPECT_EQ(node->fabric_manager, "550.54.15");
  EXPECT_EQ(node->nccl.cuda.text(), "12.4");

  auto image = ParseImageStack(R"(
name = "pytorch:24.03"
cuda = "12.4.1"
cuda_archs = ["sm_80", "sm_90a", "compute_90"]
gfx_targets = ["gfx90a:xnack-", "gfx942"]
[env]
NCCL_PROTO = "^LL128"
)",
                               "image.toml");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->cuda_archs.size(), 3u);
  EXPECT_EQ(image->env.at("NCCL_PROTO"), "^LL128");

  auto w = ParseWorkloadRequirements(
      "vendor = \"nvidia\"\nmin_cuda = \"12.4\"\nmin_driver = 535\nmulti_node = true\n", "w.toml");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->vendor, Vendor::kNvidia);
  EXPECT_EQ(w->min_driver.text(), "535");
  EXPECT_TRUE(w->multi_node);
}

TEST(CompatStackTest, BadInputNamesFileLineAndField) {
  struct Case {
    int kind;  // 0 node, 1 image, 2 workload
    const char* text;
    const char* want;
  } cases[] = {
      {0, "gpu = \"H100\"\ndriver = \"550.54.x\"\n",
       "node.toml:2: field 'driver': bad version '550.54.x': unexpected 'x' at offset 7"},
      {0, "drvier = \"550\"\n", "node.toml:1: unknown field 'drvier' (did you mean 'driver'?)"},
      {0, "nvswitch = \"yes\"\n", "node.toml:1: field 'nvswitch': must be true or false"},
      {0, "driver = 550.5\n", "node.toml:1: field 'driver': must be a version string"},
      // Outside int64: toml++'s float-to-integer conversion would be undefined (CI fuzz find).
      {0, "driver = 4.44444e24\n", "node.toml:1: field 'driver': must be a version string"},
      {0, "nccl = \"2.21.5-1+rocm6\"\n", "node.toml:1: field 'nccl': bad version"},
      {0, "gpu = \"H100\"\ndriver = \n", "node.toml:2:"},
      {1, "cuda_archs = [\"sm90\"]\n", "image.toml:1: field 'cuda_archs': bad CUDA arch 'sm90'"},
      {1, "gfx_targets = [\"gfx94z\"]\n", "image.toml:1: field 'gfx_targets': bad gfx target"},
      {1, "[env]\nX = 1\n", "image.toml:2: field 'env.X': must be a string"},
      {2, "vendor = \"acme\"\n", "w.toml:1: field 'vendor': expected nvidia, amd or intel"},
      {2, "gpu_models = \"H100\"\n", "w.toml:1: field 'gpu_models': must be an array of strings"},
  };
  for (const Case& c : cases) {
    Status st;
    if (c.kind == 0) st = ParseNodeStack(c.text, "node.toml").status();
    if (c.kind == 1) st = ParseImageStack(c.text, "image.toml").status();
    if (c.kind == 2) st = ParseWorkloadRequirements(c.text, "w.toml").status();
    ASSERT_FALSE(st.ok()) << c.text;
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find(c.want), std::string::npos) << c.text << " -> " << st.message();
  }
}

TEST(CompatStackTest, ValidatesArchNames) {
  for (const char* ok : {"sm_90", "sm_90a", "sm_100", "compute_80", "sm_120"}) {
    EXPECT_TRUE(ValidateCudaArch(ok).ok()) << ok;
  }
  for (const char* bad : {"sm_9", "sm_", "compute_90a", "gfx942", "sm_1000", "sm_9x"}) {
    EXPECT_FALSE(ValidateCudaArch(bad).ok()) << bad;
  }
  for (const char* ok : {"gfx942", "gfx90a", "gfx1100", "gfx90a:xnack-", "gfx942:sramecc+"}) {
    EXPECT_TRUE(ValidateGfxTarget(ok).ok()) << ok;
  }
  for (const char* bad : {"gfx", "gfx9", "sm_90", "gfx94g", "gfx123456"}) {
    EXPECT_FALSE(ValidateGfxTarget(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace gpufleet
