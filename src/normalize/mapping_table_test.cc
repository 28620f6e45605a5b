#include "normalize/mapping_table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpufleet {
namespace {

constexpr std::string_view kTable = R"(
source = "test"
vendor = "amd"
sentinels = [65535.0]
name_prefixes = ["amd_"]

[labels]
rename = { UUID = "gpu_uuid", clock_type = "domain" }
keep = ["sensor"]
identity_fallback = { gpu = "gpu_index" }

[labels.when_present]
GPU_I_ID = { partition_kind = "mig" }

[labels.value_map]
domain = { system = "sm", gone = "" }

[labels.info.gpu_info]
DRIVER = "driver_version"

[ignore]
FB_FREE = "no canonical metric"

[[metric]]
from = "POWER"
to = "gpu_power_watts"
sentinels = [1.0]

[[metric]]
from = "FREQ"
to = "gpu_clock_hertz"
scale = 1e6
match = { type = "actual" }

[[metric]]
from = "FREQ"
to = "gpu_clock_hertz"
scale = 1e6
match = { type = "request" }
labels = { domain = "requested" }
rename_labels = { location = "sensor" }
)";

MappingTable Load(std::string_view text = kTable) {
  auto t = MappingTable::Parse(text, "test.toml", MetricCatalog::Default());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(t).value();
}

TEST(MappingTableTest, FindsByNameAndPrefix) {
  MappingTable t = Load();
  EXPECT_EQ(t.source(), "test");
  EXPECT_EQ(t.vendor(), Vendor::kAmd);
  ASSERT_NE(t.Find("POWER"), nullptr);
  EXPECT_EQ(t.Find("POWER")->to, "gpu_power_watts");
  ASSERT_NE(t.Find(std::string_view("amd_POWER")), nullptr);
  EXPECT_EQ(t.Find("NOPE"), nullptr);
}

TEST(MappingTableTest, MatchSelectsAmongEntriesOfOneName) {
  MappingTable t = Load();
  ASSERT_EQ(t.FindAll("FREQ")->size(), 2u);
  const MetricMapping* m = t.FindMatching("FREQ", Labels{{"type", "request"}});
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->labels.Get("domain"), "requested");
  ASSERT_NE(m->RenamedLabel("location"), nullptr);
  EXPECT_EQ(*m->RenamedLabel("location"), "sensor");
  EXPECT_EQ(t.FindMatching("FREQ", Labels{{"type", "other"}}), nullptr);
}

TEST(MappingTableTest, LabelRules) {
  MappingTable t = Load();
  EXPECT_EQ(t.MapLabelName("UUID").value(), "gpu_uuid");
  EXPECT_EQ(t.MapLabelName("sensor").value(), "sensor");
  EXPECT_FALSE(t.MapLabelName("pod").has_value());
  EXPECT_EQ(t.IdentityFallback("gpu").value(), "gpu_index");
  ASSERT_NE(t.LabelsWhenPresent("GPU_I_ID"), nullptr);
  EXPECT_EQ(t.LabelsWhenPresent("GPU_I_ID")->Get("partition_kind"), "mig");
  EXPECT_EQ(t.MapLabelValue("domain", "system"), "sm");
  EXPECT_EQ(t.MapLabelValue("domain", "gone"), "");
  EXPECT_EQ(t.MapLabelValue("domain", "memory"), "memory");
  ASSERT_NE(t.InfoLabel("DRIVER"), nullptr);
  EXPECT_EQ(t.InfoLabel("DRIVER")->first, "gpu_info");
  EXPECT_EQ(t.InfoLabel("DRIVER")->second, "driver_version");
  ASSERT_NE(t.IgnoreReason("FB_FREE"), nullptr);
  EXPECT_EQ(t.IgnoreReason("POWER"), nullptr);
}

TEST(MappingTableTest, Sentinels) {
  MappingTable t = Load();
  const MetricMapping& m = *t.Find("POWER");
  EXPECT_TRUE(t.IsSentinel(m, 65535.0));
  EXPECT_TRUE(t.IsSentinel(m, 1.0));
  EXPECT_TRUE(t.IsSentinel(m, std::nan("")));
  EXPECT_FALSE(t.IsSentinel(m, 300.0));
}

TEST(MappingTableTest, RejectsBadTables) {
  auto unknown = MappingTable::Parse("source = \"x\"\n[[metric]]\nfrom = \"A\"\nto = \"gpu_nope\"\n",
                                     "bad.toml", MetricCatalog::Default());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("bad.toml:2"), std::string::npos)
      << unknown.status().message();
  auto dup = MappingTable::Parse(
      "source = \"x\"\n[[metric]]\nfrom = \"A\"\nto = \"gpu_power_watts\"\n"
      "[[metric]]\nfrom = \"A\"\nto = \"gpu_power_watts\"\n",
      "dup.toml", MetricCatalog::Default());
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("duplicate"), std::string::npos);
  auto info = MappingTable::Parse(
      "source = \"x\"\n[labels.info.gpu_power_watts]\nA = \"b\"\n"
      "[[metric]]\nfrom = \"A\"\nto = \"gpu_power_watts\"\n",
      "info.toml", MetricCatalog::Default());
  EXPECT_FALSE(info.ok());
  auto whole = MappingTable::Parse(
      "source = \"x\"\n[[metric]]\nfrom = \"A\"\nto = \"gpu_power_watts\"\nwhole_device = 1\n",
      "whole.toml", MetricCatalog::Default());
  ASSERT_FALSE(whole.ok());
  EXPECT_NE(whole.status().message().find("whole_device must be true or false"), std::string::npos)
      << whole.status().message();
}

TEST(MappingTableTest, EmbeddedTablesOfThisComponentLoad) {
  for (const char* source :
       {"dcgm_exporter", "amd_dme", "xpum", "xpumd", "amd_smi_cli", "xpumcli"}) {
    auto t = MappingTable::ForSource(source);
    ASSERT_TRUE(t.ok()) << source << ": " << t.status().ToString();
    EXPECT_EQ(t->source(), source);
    EXPECT_NE(t->vendor(), Vendor::kUnknown) << source;
  }
  EXPECT_EQ(MappingTable::ForSource("nope").status().code(), StatusCode::kNotFound);
}

TEST(MappingTableTest, CopiedTableStillFinds) {
  MappingTable a = Load();
  MappingTable b = a;  // lookups hold indices, not pointers into a
  ASSERT_NE(b.Find("POWER"), nullptr);
  EXPECT_EQ(b.Find("POWER"), &b.mappings()[b.FindAll("POWER")->front()]);
}

}  // namespace
}  // namespace gpufleet
