#include "schema/hardware_catalog.h"

#include <algorithm>

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

// Data-sheet typos (a TB/s read as GB/s, sparse FLOP/s entered as dense)
// show up as ratios no real part has.
TEST(HardwareCatalogTest, EveryEntryIsPhysicallyPlausible) {
  const HardwareCatalog& c = HardwareCatalog::Default();
  for (const GpuModelSpec& m : c.models()) {
    SCOPED_TRACE(m.key);
    EXPECT_FALSE(m.name.empty());
    EXPECT_FALSE(m.source.empty()) << "every entry names where its figures come from";
    EXPECT_NE(m.vendor, Vendor::kUnknown);
    EXPECT_GE(m.tdp_watts, 50);
    EXPECT_LE(m.tdp_watts, 1500);
    // Idle is a real draw (fans off, HBM refresh): 5-30% of TDP.
    EXPECT_GE(m.idle_watts, 0.05 * m.tdp_watts);
    EXPECT_LE(m.idle_watts, 0.30 * m.tdp_watts);
    const double gib = static_cast<double>(m.memory_bytes) / (1024.0 * 1024 * 1024);
    EXPECT_GE(gib, 8);
    EXPECT_LE(gib, 512);
    // Bytes per second per byte of memory: 10/s (big HBM) .. 60/s (small GDDR).
    const double bw_per_byte = m.memory_bandwidth_bytes_per_s / static_cast<double>(m.memory_bytes);
    EXPECT_GT(bw_per_byte, 8) << bw_per_byte;
    EXPECT_LT(bw_per_byte, 70) << bw_per_byte;
    // Low precision is never slower than fp32; parts without bf16 carry fp16.
    const double low = std::max(m.peak_bf16_flops, m.peak_fp16_flops);
    EXPECT_GT(low, 0);
    EXPECT_GE(low, m.peak_fp32_flops);
    if (m.peak_bf16_flops > 0) {
      EXPECT_GE(m.peak_bf16_flops, m.peak_fp32_flops);
    }
    EXPECT_LE(m.peak_fp64_flops, m.peak_fp32_flops);
    if (m.peak_fp8_flops > 0) {
      EXPECT_GE(m.peak_fp8_flops, m.peak_bf16_flops);
    }
    EXPECT_LT(low, 3e15) << "dense figures only";
    // Compute intensity at the ridge point (FLOP per byte) of any real part.
    const double ridge = low / m.memory_bandwidth_bytes_per_s;
    EXPECT_GT(ridge, 15);  // the oldest part, K80 (2014): 18
    EXPECT_LT(ridge, 600);
    EXPECT_GT(m.pcie_bytes_per_s, 10e9);
    EXPECT_LE(m.pcie_bytes_per_s, 64e9);
    if (m.interconnect != "pcie") {
      EXPECT_GT(m.interconnect_links, 0);
      EXPECT_GT(m.interconnect_bytes_per_s, m.pcie_bytes_per_s);
    }
    if (m.max_sm_clock_hz > 0) {
      EXPECT_GE(m.max_sm_clock_hz, 0.8e9);  // K80 boosts to 875 MHz
      EXPECT_LE(m.max_sm_clock_hz, 3.0e9);
    }
    EXPECT_GT(m.compute_units, 0);
  }
}

TEST(HardwareCatalogTest, HasTheModelsOfAMixedFleet) {
  const HardwareCatalog& c = HardwareCatalog::Default();
  for (const char* key : {"h100-sxm", "h100-pcie", "h200-sxm", "a100-sxm-80gb", "a100-sxm-40gb",
                          "l40s", "l4", "t4", "v100-sxm-32gb", "mi300x", "mi325x", "mi250x",
                          "mi210", "max-1550", "flex-170"}) {
    EXPECT_NE(c.Find(key), nullptr) << key;
  }
  int intel = 0;
  for (const GpuModelSpec& m : c.models()) intel += m.vendor == Vendor::kIntel;
  EXPECT_GE(intel, 2);
  const GpuModelSpec* t4 = c.Find("Tesla T4");
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->peak_bf16_flops, 0) << "Turing has no bf16";
  EXPECT_DOUBLE_EQ(t4->peak_fp16_flops, 65e12);
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

TEST(HardwareCatalogTest, FindsPartsByVendorAndPciDeviceId) {
  const HardwareCatalog& c = HardwareCatalog::Default();
  const PciDeviceSpec* mi300x = c.FindPciDevice(Vendor::kAmd, 0x74a1);
  ASSERT_NE(mi300x, nullptr);
  EXPECT_EQ(mi300x->name, "AMD Instinct MI300X");
  EXPECT_EQ(mi300x->arch, "");
  EXPECT_EQ(c.Find(mi300x->gpu), c.Find("mi300x"));
  const PciDeviceSpec* flex = c.FindPciDevice(Vendor::kIntel, 0x56c0);
  ASSERT_NE(flex, nullptr);
  EXPECT_EQ(flex->name, "Intel(R) Data Center GPU Flex 170");
  EXPECT_EQ(flex->arch, "xe-hpg");
  // Two ids of one part; a part the catalog has no figures for.
  EXPECT_EQ(c.FindPciDevice(Vendor::kIntel, 0x0bd5)->name,
            c.FindPciDevice(Vendor::kIntel, 0x0bd6)->name);
  ASSERT_NE(c.FindPciDevice(Vendor::kAmd, 0x738c), nullptr);
  EXPECT_EQ(c.FindPciDevice(Vendor::kAmd, 0x738c)->gpu, "");
  // The id alone is not enough: it is the vendor's.
  EXPECT_EQ(c.FindPciDevice(Vendor::kIntel, 0x74a1), nullptr);
  EXPECT_EQ(c.FindPciDevice(Vendor::kAmd, 0x1234), nullptr);
  for (const PciDeviceSpec& d : c.pci_devices()) {
    if (d.gpu.empty()) continue;
    const GpuModelSpec* m = c.Find(d.gpu);
    ASSERT_NE(m, nullptr) << d.name;
    EXPECT_EQ(m->vendor, d.vendor) << d.name;
  }
}

TEST(HardwareCatalogTest, RejectsBadPciDeviceEntries) {
  constexpr std::string_view kGpu = R"(
[[gpu]]
key = "x"
vendor = "amd"
name = "X"
memory_gib = 1
memory_bandwidth_gb_s = 1
tdp_watts = 100
)";
  auto parse = [&](std::string_view pci) {
    return HardwareCatalog::Parse(std::string(kGpu) + std::string(pci), "hw.toml");
  };
  ASSERT_TRUE(
      parse("[[pci_device]]\nvendor = \"amd\"\nid = \"0x74a1\"\nname = \"A\"\ngpu = \"x\"\n").ok());
  // (entries, where the error must point: the offending [[pci_device]])
  const std::pair<std::string_view, std::string_view> kBad[] = {
      {"[[pci_device]]\nvendor = \"amd\"\nid = \"74a1\"\nname = \"A\"\n", "hw.toml:9: "},
      {"[[pci_device]]\nvendor = \"amd\"\nid = \"0x74a1\"\nname = \"A\"\ngpu = \"y\"\n",
       "hw.toml:9: "},
      {"[[pci_device]]\nvendor = \"acme\"\nid = \"0x74a1\"\nname = \"A\"\n", "hw.toml:9: "},
      {"[[pci_device]]\nvendor = \"amd\"\nid = \"0x74a1\"\nname = \"A\"\n"
       "[[pci_device]]\nvendor = \"amd\"\nid = \"0x74A1\"\nname = \"B\"\n",
       "hw.toml:13: "},
  };
  for (const auto& [bad, where] : kBad) {
    auto r = parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().message().starts_with(where)) << r.status().message();
  }
}

}  // namespace
}  // namespace gpufleet
