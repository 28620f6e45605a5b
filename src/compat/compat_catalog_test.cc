#include "compat/compat_catalog.h"

#include <gtest/gtest.h>

#include <set>

namespace gpufleet {
namespace {

Version V(std::string_view s) { return *Version::Parse(s); }

TEST(CompatCatalogTest, EmbeddedTablesParseWithSources) {
  const CompatCatalog& cat = CompatCatalog::Default();
  EXPECT_EQ(cat.toolkits().size(), 30u);       // rows of cuda_toolkit_min_driver.csv
  EXPECT_EQ(cat.rocm_releases().size(), 13u);  // columns 6.0.0 .. 6.3.3 of the ROCm matrix
  for (const char* key : {"cuda.toolkits", "cuda.minor_compat", "cuda.arch", "cuda.branches",
                          "rocm.matrix", "rocm.gfx", "gpus.nvidia", "gpus.amd"}) {
    auto it = cat.sources().find(key);
    ASSERT_NE(it, cat.sources().end()) << key;
    EXPECT_NE(it->second.file.find("shared/"), std::string::npos) << key;
  }
  for (const CompatRuleInfo& r : cat.rules()) {
    EXPECT_FALSE(r.source.file.empty()) << r.id;
    EXPECT_FALSE(r.summary.empty()) << r.id;
  }
}

TEST(CompatCatalogTest, FindsToolkitRowForPatchReleases) {
  const CompatCatalog& cat = CompatCatalog::Default();
  const CudaToolkitRow* ga = cat.FindToolkit(V("12.4"));
  ASSERT_NE(ga, nullptr);
  EXPECT_EQ(ga->min_driver.text(), "550.54.14");
  const CudaToolkitRow* u1 = cat.FindToolkit(V("12.4.1"));
  ASSERT_NE(u1, nullptr);
  EXPECT_EQ(u1->min_driver.text(), "550.54.15");
  // A component-style patch number maps to the newest update at or below it.
  const CudaToolkitRow* u3 = cat.FindToolkit(V("12.6.77"));
  ASSERT_NE(u3, nullptr);
  EXPECT_EQ(u3->release, "12.6 Update 3");
  EXPECT_EQ(cat.FindToolkit(V("12.7")), nullptr);   // no such release
  EXPECT_EQ(cat.FindToolkit(V("12.10")), nullptr);  // not 12.1
  EXPECT_EQ(cat.FindToolkit(V("12.1"))->min_driver.text(), "530.30.02");
}

TEST(CompatCatalogTest, ResolvesModelNamesAndReleases) {
  const CompatCatalog& cat = CompatCatalog::Default();
  const GpuModelRow* h100 = cat.FindGpu("H100-SXM5");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->model, "H100");
  EXPECT_EQ(h100->arch, "sm_90");
  EXPECT_EQ(cat.FindGpu("nvidia h100 80gb hbm3"), h100);
  EXPECT_EQ(cat.FindGpu("mi300x")->arch, "gfx942");
  EXPECT_EQ(cat.FindGpu("H1000"), nullptr);
  EXPECT_EQ(cat.FindArch(V("6.1"))->architecture, "Pascal");
  EXPECT_EQ(cat.FindRocmRelease(V("6.2"))->version.text(), "6.2.0");
  EXPECT_EQ(cat.FindRocmMinor(V("6.2.3"))->rccl.text(), "2.20.5");
  EXPECT_EQ(cat.FindRocmRelease(V("6.4.0")), nullptr);
  EXPECT_EQ(cat.RocmReleaseIndex(V("6.4.1")) - cat.RocmReleaseIndex(V("6.2")), 2);
  ASSERT_NE(cat.FindAmdgpuDriver(V("30.30.1")), nullptr);
  EXPECT_EQ(cat.FindAmdgpuDriver(V("30.20.0")), nullptr);
}

TEST(CompatCatalogTest, RuleIdsAreUnique) {
  std::set<std::string> ids;
  for (const CompatRuleInfo& r : CompatCatalog::Default().rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
  }
}

TEST(CompatCatalogTest, BadTablesNameFileLineAndField) {
  struct Case {
    const char* name;
    const char* text;
    const char* want;
  } cases[] = {
      {"compat/cuda.toml", "[[toolkit]]\nversion = \"12.x\"\n",
       "data/compat/cuda.toml:2: field 'version': bad version '12.x'"},
      {"compat/rules.toml", "[[rule]]\nid = \"a\"\nseverity = \"fatal\"\n",
       "data/compat/rules.toml:1: field 'severity'"},
      {"compat/gpus.toml", "[[gpu]]\nmodel = \"X\"\nvendor = \"acme\"\narch = \"sm_90\"\n",
       "field 'vendor': unknown vendor 'acme'"},
      {"compat/rocm.toml", "release_sequence = [\"6.0\"]\n[[gfx_target]]\ntarget = 1\n",
       "data/compat/rocm.toml:3: field 'target' must be a string"},
      {"compat/cuda.toml", "[[toolkit]\n", "data/compat/cuda.toml:1:"},
      {"compat/other.toml", "", "unknown compatibility table"},
  };
  for (const Case& c : cases) {
    auto cat = CompatCatalog::Parse({{c.name, c.text}});
    ASSERT_FALSE(cat.ok()) << c.text;
    EXPECT_NE(cat.status().message().find(c.want), std::string::npos) << cat.status().message();
  }
}

}  // namespace
}  // namespace gpufleet
