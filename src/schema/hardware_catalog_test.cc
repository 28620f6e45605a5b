#include "schema/hardware_catalog.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(HardwareCatalogTest, DefaultCatalogHasAllThreeVendors) {
  const HardwareCatalog& c = HardwareCatalog::Default();
  bool nvidia = false, amd = false;
  for (const GpuModelSpec& m : c.models()) {
    nvidia |= m.vendor == Vendor::kNvidia;
    amd |= m.vendor == Vendor::kAmd;
    EXPECT_GT(m.memory_bytes, 0u) << m.key;
    EXPECT_GT(m.tdp_watts, m.idle_watts) << m.key;
  }
  EXPECT_TRUE(nvidia);
  EXPECT_TRUE(amd);
}

TEST(HardwareCatalogTest, ConvertsDataSheetUnitsToBaseUnits) {
  const GpuModelSpec* h100 = HardwareCatalog::Default().Find("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->memory_bytes, 80ull << 30);
  EXPECT_DOUBLE_EQ(h100->memory_bandwidth_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h100->peak_bf16_flops, 989.4e12);
  EXPECT_EQ(HardwareCatalog::Default().Find("NVIDIA H100 80GB HBM3"), h100);
}

TEST(HardwareCatalogTest, RejectsIdleAboveTdp) {
  auto r = HardwareCatalog::Parse(R"(
[[gpu]]
key = "x"
vendor = "nvidia"
name = "X"
memory_gib = 1
memory_bandwidth_gb_s = 1
tdp_watts = 100
idle_watts = 200
)",
                                  "hw.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hw.toml:2"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace gpufleet
