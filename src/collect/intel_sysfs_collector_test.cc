#include "collect/intel_sysfs_collector.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "collect/testing/collector_test_util.h"
#include "core/file_util.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;

using testing::CopyTree;
using testing::ReadingValue;

std::string TreeRoot() { return INTEL_SYSFS_TREE; }

TEST(IntelSysfsCollectorTest, DiscoversIntelCardsOnly) {
  FakeClock clock;
  auto c = NewIntelSysfsCollector({.sysfs_root = TreeRoot(), .clock = &clock});
  EXPECT_EQ(c->source(), "intel_sysfs");
  auto d = c->Discover();
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->size(), 2u);  // card2 is NVIDIA; connectors and render nodes are skipped
  const DeviceInfo& flex = (*d)[0];
  EXPECT_EQ(flex.vendor, Vendor::kIntel);
  EXPECT_EQ(flex.model, "Intel(R) Data Center GPU Flex 170");
  EXPECT_EQ(flex.pci_bus_id, "0000:4d:00.0");
  EXPECT_EQ(flex.driver_version, "i915");
  EXPECT_EQ(flex.memory_total_bytes, 16ull << 30);
  const DeviceInfo& max = (*d)[1];
  EXPECT_EQ(max.model, "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(max.arch, "xe-hpc");
  EXPECT_EQ(max.pci_bus_id, "0000:3a:00.0");
  EXPECT_EQ(max.memory_total_bytes, 128ull << 30);
  EXPECT_NE(flex.uuid, max.uuid);
}

TEST(IntelSysfsCollectorTest, ReadsHwmonFrequencyAndMemory) {
  FakeClock clock;
  auto c = NewIntelSysfsCollector({.sysfs_root = TreeRoot(), .clock = &clock});
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings flex;
  ASSERT_TRUE(c->Collect(0, flex).ok());
  EXPECT_DOUBLE_EQ(*ReadingValue(flex, "energy1_input_microjoules"), 81234567890.0);
  EXPECT_DOUBLE_EQ(*ReadingValue(flex, "power1_max_microwatts"), 150000000.0);
  EXPECT_DOUBLE_EQ(*ReadingValue(flex, "gt_act_freq_mhz"), 1950);
  EXPECT_DOUBLE_EQ(*ReadingValue(flex, "lmem_total_bytes"), 17179869184.0);
  EXPECT_DOUBLE_EQ(*ReadingValue(flex, "lmem_used_bytes"), 17179869184.0 - 12884901888.0);
  EXPECT_FALSE(ReadingValue(flex, "power_watts").has_value());  // first collection: no rate
  EXPECT_FALSE(ReadingValue(flex, "gt_awake_ratio").has_value());

  DeviceReadings max;
  ASSERT_TRUE(c->Collect(1, max).ok());
  EXPECT_DOUBLE_EQ(*ReadingValue(max, "temp_gpu_millicelsius"), 58000);
  EXPECT_DOUBLE_EQ(*ReadingValue(max, "temp_memory_millicelsius"), 51000);
  EXPECT_DOUBLE_EQ(*ReadingValue(max, "gt_act_freq_mhz"), 1400);
  EXPECT_DOUBLE_EQ(*ReadingValue(max, "vram_total_bytes"), static_cast<double>(128ull << 30));
  EXPECT_TRUE(max.field_errors.empty());
}

TEST(IntelSysfsCollectorTest, PowerAndAwakeRatioFromCounterDeltas) {
  std::string root = CopyTree(TreeRoot(), "intel_sysfs_rates");
  FakeClock clock;
  auto c = NewIntelSysfsCollector({.sysfs_root = root, .clock = &clock});
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings first;
  ASSERT_TRUE(c->Collect(1, first).ok());

  std::string hwmon = root + "/class/drm/card1/device/hwmon/hwmon5/energy1_input";
  std::string idle = root + "/class/drm/card1/device/tile0/gt0/gtidle/idle_residency_ms";
  ASSERT_TRUE(WriteStringToFile(hwmon, std::to_string(456789012345ull + 2 * 350000000ull)).ok());
  ASSERT_TRUE(WriteStringToFile(idle, std::to_string(5551234 + 500)).ok());  // idle 0.5 of 2 s
  clock.Advance(2 * kNsPerSecond);

  DeviceReadings second;
  ASSERT_TRUE(c->Collect(1, second).ok());
  EXPECT_NEAR(*ReadingValue(second, "power_watts"), 350.0, 1e-6);
  EXPECT_NEAR(*ReadingValue(second, "gt_awake_ratio"), 0.75, 1e-9);
  EXPECT_GT(*ReadingValue(second, "energy1_input_microjoules"),
            *ReadingValue(first, "energy1_input_microjoules"));
}

TEST(IntelSysfsCollectorTest, RemovedCardIsUnavailable) {
  std::string root = CopyTree(TreeRoot(), "intel_sysfs_removed");
  FakeClock clock;
  auto c = NewIntelSysfsCollector({.sysfs_root = root, .clock = &clock});
  ASSERT_TRUE(c->Discover().ok());
  fs::remove_all(root + "/class/drm/card0");
  DeviceReadings r;
  EXPECT_EQ(c->Collect(0, r).code(), StatusCode::kUnavailable);
  DeviceReadings other;
  EXPECT_TRUE(c->Collect(1, other).ok());
}

TEST(IntelSysfsCollectorTest, NoIntelCardIsNotFound) {
  auto c = NewIntelSysfsCollector({.sysfs_root = ::testing::TempDir() + "/no_such_sysfs"});
  auto d = c->Discover();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace gpufleet
