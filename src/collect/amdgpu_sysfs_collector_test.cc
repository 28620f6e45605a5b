#include "collect/amdgpu_sysfs_collector.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "collect/testing/collector_test_util.h"

namespace gpufleet {
namespace {

namespace fs = std::filesystem;
using testing::ErrorCount;
using testing::ExpectReading;
using testing::FindReading;

std::unique_ptr<Collector> OpenTree(const std::string& root = AMD_SYSFS_TREE) {
  return NewAmdgpuSysfsCollector(AmdgpuSysfsOptions{root});
}

TEST(AmdgpuSysfsCollectorTest, DiscoversOnlyAmdCards) {
  auto c = OpenTree();
  EXPECT_EQ(c->source(), "amdgpu_sysfs");
  auto devices = c->Discover();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 2u);  // card2 is NVIDIA, card0-DP-1 a connector
  const DeviceInfo& d0 = (*devices)[0];
  EXPECT_EQ(d0.vendor, Vendor::kAmd);
  EXPECT_EQ(d0.model, "AMD Instinct MI300X");
  EXPECT_EQ(d0.pci_bus_id, "0000:0c:00.0");
  EXPECT_EQ(d0.uuid, "a4b1d2c3e4f50617");
  EXPECT_EQ(d0.memory_total_bytes, 206158430208u);
  EXPECT_EQ(d0.driver_version, "6.10.5");
  EXPECT_EQ((*devices)[1].model, "AMD Instinct MI210");
  EXPECT_EQ((*devices)[1].pci_bus_id, "0000:29:00.0");
}

TEST(AmdgpuSysfsCollectorTest, ReadsDeviceAndHwmonFiles) {
  auto c = OpenTree();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(0, r).ok());
  auto value = [&](const char* name, const char* label = "", const char* v = "") {
    return ExpectReading(r, name, label, v);
  };
  EXPECT_EQ(value("gpu_busy_percent"), 63);
  EXPECT_EQ(value("mem_busy_percent"), 21);
  EXPECT_EQ(value("vram_used_bytes"), 8589934592.0);
  EXPECT_EQ(value("vram_total_bytes"), 206158430208.0);
  EXPECT_EQ(value("power_input_microwatts"), 520e6);
  EXPECT_EQ(FindReading(r, "power_average_microwatts"), nullptr);  // one power series only
  EXPECT_EQ(value("power_cap_microwatts"), 750e6);
  EXPECT_EQ(value("energy_microjoules"), 1e12);
  EXPECT_EQ(value("temperature_millicelsius", "sensor", "junction"), 62000);
  EXPECT_EQ(value("temperature_millicelsius", "sensor", "memory"), 51000);
  EXPECT_EQ(value("clock_hz", "domain", "sm"), 2.1e9);
  EXPECT_EQ(value("clock_hz", "domain", "memory"), 1.3e9);
  EXPECT_EQ(value("pcie_replays_total"), 2);
  EXPECT_EQ(value("ecc_correctable_total", "block", "umc"), 3);
  EXPECT_EQ(value("ecc_uncorrectable_total", "block", "umc"), 0);
  EXPECT_EQ(ErrorCount(r, "not_supported"), 0u);
}

TEST(AmdgpuSysfsCollectorTest, MissingFilesAreCountedAsUnsupported) {
  auto c = OpenTree();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(1, r).ok());
  ASSERT_NE(FindReading(r, "power_average_microwatts"), nullptr);
  EXPECT_EQ(FindReading(r, "power_average_microwatts")->value, 180e6);
  ASSERT_NE(FindReading(r, "temperature_millicelsius", "sensor", "edge"), nullptr);
  EXPECT_EQ(FindReading(r, "temperature_millicelsius", "sensor", "junction"), nullptr);
  EXPECT_EQ(FindReading(r, "pcie_replays_total"), nullptr);
  // pcie_replay_count and ras/umc_err_count are absent on this card.
  EXPECT_EQ(ErrorCount(r, "not_supported"), 2u);
}

TEST(AmdgpuSysfsCollectorTest, VanishedCardIsUnavailableAndRecovers) {
  fs::path root = testing::CopyTree(AMD_SYSFS_TREE, "amd_sysfs_lost");
  auto c = OpenTree(root.string());
  ASSERT_TRUE(c->Discover().ok());
  fs::path card1 = root / "class" / "drm" / "card1";
  fs::path parked = root / "card1.parked";
  fs::rename(card1, parked);
  DeviceReadings lost;
  Status s = c->Collect(1, lost);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  DeviceReadings ok;
  EXPECT_TRUE(c->Collect(0, ok).ok());
  EXPECT_NE(FindReading(ok, "gpu_busy_percent"), nullptr);
  fs::rename(parked, card1);
  DeviceReadings back;
  EXPECT_TRUE(c->Collect(1, back).ok());
  EXPECT_NE(FindReading(back, "gpu_busy_percent"), nullptr);
  fs::remove_all(root);
}

TEST(AmdgpuSysfsCollectorTest, NoDrmDirectoryIsNotFound) {
  auto c = OpenTree("/nonexistent/sysfs");
  EXPECT_EQ(c->Discover().status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace gpufleet
