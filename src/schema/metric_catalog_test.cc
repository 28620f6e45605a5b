#include "schema/metric_catalog.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(MetricCatalogTest, DefaultCatalogLoadsAndFollowsConventions) {
  const MetricCatalog& c = MetricCatalog::Default();
  ASSERT_NE(c.Find("gpu_power_watts"), nullptr);
  EXPECT_EQ(c.Find("gpu_power_watts")->unit, "watts");
  EXPECT_EQ(c.Find("gpu_energy_joules_total")->type, MetricType::kCounter);
  EXPECT_EQ(c.Find("gpu_info")->type, MetricType::kInfo);
  EXPECT_EQ(c.Find("no_such_metric"), nullptr);
  for (const MetricDef& d : c.metrics()) {
    EXPECT_FALSE(d.help.empty()) << d.name;
    EXPECT_FALSE(d.family.empty()) << d.name;
  }
}

TEST(MetricCatalogTest, CoversEveryFamilyTheAgentPromises) {
  const MetricCatalog& c = MetricCatalog::Default();
  for (const char* name :
       {"gpu_utilization_ratio", "gpu_sm_active_ratio", "gpu_sm_occupancy_ratio",
        "gpu_tensor_active_ratio", "gpu_memory_bandwidth_utilization_ratio",
        "gpu_memory_copy_busy_ratio", "gpu_memory_used_bytes", "gpu_memory_total_bytes",
        "gpu_power_watts", "gpu_energy_joules_total", "gpu_temperature_celsius", "gpu_clock_hertz",
        "gpu_pcie_transmit_bytes_total", "gpu_interconnect_transmit_bytes_total",
        "gpu_ecc_errors_total", "gpu_xid_errors_total", "gpu_pcie_replays_total",
        "gpu_throttle_seconds_total", "gpu_encoder_utilization_ratio",
        "gpu_decoder_utilization_ratio", "gpu_process_memory_bytes", "gpu_up"}) {
    EXPECT_NE(c.Find(name), nullptr) << name;
  }
}

TEST(MetricCatalogTest, RejectsCounterWithoutTotal) {
  auto r = MetricCatalog::Parse(R"(
[[metric]]
name = "gpu_energy_joules"
unit = "joules"
type = "counter"
family = "power"
help = "x"
)",
                                "bad.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.toml:2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("_total"), std::string::npos);
}

TEST(MetricCatalogTest, RejectsUnitNotInName) {
  auto r = MetricCatalog::Parse(R"(
[[metric]]
name = "gpu_power"
unit = "watts"
type = "gauge"
family = "power"
help = "x"
)",
                                "bad.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unit"), std::string::npos);
}

TEST(MetricCatalogTest, SyntaxErrorNamesLineAndColumn) {
  auto r = MetricCatalog::Parse("[[metric]]\nname = \n", "broken.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("broken.toml:2:"), std::string::npos) << r.status().message();
}

TEST(MetricCatalogTest, MarkdownListsEveryMetric) {
  const MetricCatalog& c = MetricCatalog::Default();
  std::string md = c.RenderMarkdown();
  for (const MetricDef& d : c.metrics()) {
    EXPECT_NE(md.find("`" + d.name + "`"), std::string::npos) << d.name;
  }
}

}  // namespace
}  // namespace gpufleet
