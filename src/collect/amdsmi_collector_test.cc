#include "collect/amdsmi_collector.h"

#include <gtest/gtest.h>

#include "collect/testing/collector_test_util.h"

namespace gpufleet {
namespace {

using testing::CountReadings;
using testing::ErrorCount;
using testing::ExpectReading;
using testing::FakeLibrary;
using testing::FindReading;
using testing::ScopedConfigFile;

constexpr double kGiB = 1024.0 * 1024 * 1024;

class AmdSmiCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_.Call("Reset"); }
  void TearDown() override { fake_.Call("Reset"); }

  std::unique_ptr<Collector> Open(const char* path = FAKE_AMDSMI_PATH) {
    AmdSmiCollectorOptions options;
    options.library_names = {path};
    return NewAmdSmiCollector(options);
  }

  FakeLibrary fake_{FAKE_AMDSMI_PATH, "FakeAmdSmi_"};
};

TEST_F(AmdSmiCollectorTest, DiscoversCpxPartitionsAndWholeGpu) {
  auto c = Open();
  EXPECT_EQ(c->source(), "amdsmi");
  auto devices = c->Discover();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 9u);  // MI300X in CPX = 8 XCPs, plus one MI250X
  for (int i = 0; i < 8; ++i) {
    const DeviceInfo& d = (*devices)[i];
    EXPECT_EQ(d.vendor, Vendor::kAmd);
    EXPECT_EQ(d.model, "AMD Instinct MI300X");
    EXPECT_EQ(d.uuid, "8fff74a1-0000-1000-80b2-c9f1a3e5d701");  // parent UUID on every XCP
    EXPECT_EQ(d.pci_bus_id, "0000:0c:00.0");
    EXPECT_EQ(d.arch, "gfx942");
    EXPECT_EQ(d.driver_version, "6.10.5");
    EXPECT_EQ(d.memory_total_bytes, uint64_t{24} << 30);
    EXPECT_EQ(d.partition.kind, "amd_xcp");
    EXPECT_EQ(d.partition.id, std::to_string(i));
    EXPECT_EQ(d.partition.profile, "cpx");
  }
  const DeviceInfo& mi250 = (*devices)[8];
  EXPECT_EQ(mi250.model, "AMD Instinct MI250X");
  EXPECT_EQ(mi250.arch, "gfx90a");
  EXPECT_EQ(mi250.pci_bus_id, "0000:29:00.0");
  EXPECT_TRUE(mi250.partition.kind.empty());
  EXPECT_EQ(mi250.memory_total_bytes, uint64_t{64} << 30);
}

TEST_F(AmdSmiCollectorTest, PartitionZeroCarriesEveryFamily) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(0, r).ok());
  auto value = [&](const char* name, const char* label = "", const char* v = "") {
    return ExpectReading(r, name, label, v);
  };
  EXPECT_EQ(value("gfx_activity_percent"), 63);
  EXPECT_EQ(value("umc_activity_percent"), 21);
  EXPECT_EQ(value("memory_used_bytes"), 9 * kGiB);
  EXPECT_EQ(value("memory_total_bytes"), 24 * kGiB);
  EXPECT_EQ(value("clock_mhz", "domain", "sm"), 2100);
  EXPECT_EQ(value("clock_mhz", "domain", "memory"), 1300);
  EXPECT_EQ(value("clock_mhz", "domain", "video"), 1450);
  EXPECT_EQ(value("socket_power_watts"), 520);
  EXPECT_EQ(value("power_limit_microwatts"), 750e6);
  // 1 MJ at load plus 520 W since: plausible and positive.
  EXPECT_GT(value("energy_microjoules"), 0.99e12);
  EXPECT_EQ(value("temperature_celsius", "sensor", "junction"), 62);
  EXPECT_EQ(value("temperature_celsius", "sensor", "memory"), 51);
  EXPECT_EQ(FindReading(r, "temperature_celsius", "sensor", "edge"), nullptr);
  EXPECT_EQ(value("ecc_correctable_total"), 3);
  EXPECT_EQ(value("ecc_uncorrectable_total"), 0);
  EXPECT_EQ(value("ecc_deferred_total"), 0);
  EXPECT_EQ(value("pcie_replays_total"), 2);
  EXPECT_EQ(CountReadings(r, "xgmi_read_kilobytes"), 7u);
  EXPECT_EQ(CountReadings(r, "xgmi_write_kilobytes"), 7u);
  EXPECT_GE(value("xgmi_read_kilobytes", "link", "6"), 5006000);
  EXPECT_EQ(value("throttle_active", "reason", "power"), 1);
  EXPECT_EQ(value("throttle_active", "reason", "thermal"), 0);
  EXPECT_EQ(value("process_vram_bytes", "pid", "4242"), 8 * kGiB);
  // MI300X has no edge sensor: counted, not invented.
  EXPECT_GE(ErrorCount(r, "not_supported"), 1u);
  EXPECT_EQ(ErrorCount(r, "symbol_missing"), 0u);
}

TEST_F(AmdSmiCollectorTest, OtherPartitionsReportNoBoardSensors) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(3, r).ok());
  ASSERT_NE(FindReading(r, "gfx_activity_percent"), nullptr);
  EXPECT_EQ(FindReading(r, "gfx_activity_percent")->value, 30);
  EXPECT_NE(FindReading(r, "memory_used_bytes"), nullptr);
  for (const char* board :
       {"socket_power_watts", "energy_microjoules", "temperature_celsius", "ecc_correctable_total",
        "pcie_replays_total", "xgmi_read_kilobytes", "throttle_active"}) {
    EXPECT_EQ(FindReading(r, board), nullptr) << board;
  }
}

TEST_F(AmdSmiCollectorTest, Mi250UsesAveragePowerAndFiltersSentinels) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(8, r).ok());
  ASSERT_NE(FindReading(r, "socket_power_watts"), nullptr);
  EXPECT_EQ(FindReading(r, "socket_power_watts")->value, 310);
  EXPECT_EQ(FindReading(r, "umc_activity_percent"), nullptr);  // 0xFFFF from firmware
  EXPECT_GE(ErrorCount(r, "sentinel"), 1u);
  for (const RawReading& x : r.readings) {
    EXPECT_LT(x.value, 65535.0 * 1e12) << x.name;
    EXPECT_NE(x.value, 65535.0) << x.name;
    EXPECT_NE(x.value, 4294967295.0) << x.name;
  }
  EXPECT_EQ(FindReading(r, "temperature_celsius", "sensor", "edge")->value, 41);
  EXPECT_EQ(CountReadings(r, "xgmi_read_kilobytes"), 3u);  // the PCIe link is not xGMI
  EXPECT_EQ(FindReading(r, "throttle_active"), nullptr);   // violation status: MI300+ only
}

TEST_F(AmdSmiCollectorTest, LostGpuIsUnavailableWhileOtherWorksAndRecovers) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  fake_.Call("SetDeviceLost", 1, 1);
  DeviceReadings lost;
  Status s = c->Collect(8, lost);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("lost"), std::string::npos);
  DeviceReadings ok;
  EXPECT_TRUE(c->Collect(0, ok).ok());
  EXPECT_NE(FindReading(ok, "socket_power_watts"), nullptr);

  fake_.Call("SetDeviceLost", 1, 0);
  DeviceReadings back;
  EXPECT_TRUE(c->Collect(8, back).ok());
  EXPECT_NE(FindReading(back, "gfx_activity_percent"), nullptr);
}

TEST_F(AmdSmiCollectorTest, HungGpuBlocksOnlyItsOwnCollect) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  fake_.Call("SetHangMs", 1, 20);  // the agent's watchdog bounds real hangs
  DeviceReadings slow;
  EXPECT_TRUE(c->Collect(8, slow).ok());
  EXPECT_NE(FindReading(slow, "gfx_activity_percent"), nullptr);
  DeviceReadings fast;
  EXPECT_TRUE(c->Collect(0, fast).ok());
}

TEST_F(AmdSmiCollectorTest, DriverNotLoadedAtInitIsNotFound) {
  fake_.Call("SetInitResult", 34);  // AMDSMI_STATUS_DRIVER_NOT_LOADED
  auto c = Open();
  auto devices = c->Discover();
  EXPECT_EQ(devices.status().code(), StatusCode::kNotFound);
  EXPECT_NE(devices.status().message().find("DRIVER_NOT_LOADED"), std::string::npos);
}

TEST_F(AmdSmiCollectorTest, OtherInitFailureIsFailedPrecondition) {
  fake_.Call("SetInitResult", 18);  // AMDSMI_STATUS_INIT_ERROR
  auto c = Open();
  EXPECT_EQ(c->Discover().status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(AmdSmiCollectorTest, MissingLibraryIsNotFound) {
  auto c = Open("/nonexistent/libamd_smi.so");
  auto devices = c->Discover();
  EXPECT_EQ(devices.status().code(), StatusCode::kNotFound);
  EXPECT_NE(devices.status().message().find("/nonexistent/libamd_smi.so"), std::string::npos);
}

TEST_F(AmdSmiCollectorTest, MissingOptionalSymbolsGiveFewerReadings) {
  auto c = Open(FAKE_AMDSMI_PARTIAL_PATH);
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(0, r).ok());
  EXPECT_NE(FindReading(r, "socket_power_watts"), nullptr);
  EXPECT_EQ(FindReading(r, "energy_microjoules"), nullptr);
  EXPECT_EQ(FindReading(r, "xgmi_read_kilobytes"), nullptr);
  EXPECT_EQ(FindReading(r, "process_vram_bytes"), nullptr);
  EXPECT_EQ(FindReading(r, "throttle_active"), nullptr);
  EXPECT_EQ(ErrorCount(r, "symbol_missing"), 4u);
}

TEST_F(AmdSmiCollectorTest, DriverReloadReinitializesOnNextDiscover) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  int inits = fake_.CallInt("InitCalls");
  fake_.Call("DropInit");
  DeviceReadings r;
  EXPECT_EQ(c->Collect(0, r).code(), StatusCode::kUnavailable);
  // Until re-discovery, every device stays down rather than half-working.
  EXPECT_EQ(c->Collect(8, r).code(), StatusCode::kUnavailable);
  ASSERT_TRUE(c->Discover().ok());
  EXPECT_EQ(fake_.CallInt("InitCalls"), inits + 1);
  DeviceReadings again;
  EXPECT_TRUE(c->Collect(0, again).ok());
}

TEST_F(AmdSmiCollectorTest, ConfigFileInjectsFailuresAndIsReread) {
  ScopedConfigFile config("GPUFLEET_FAKE_AMDSMI_CONFIG", "fake_amdsmi_config.txt");
  config.Write("# lose the MI250X\nlost = 1\n");
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  EXPECT_EQ(c->Collect(8, r).code(), StatusCode::kUnavailable);
  config.Write("lost =\nabsurd.0 = 1\n");
  DeviceReadings back;
  EXPECT_TRUE(c->Collect(8, back).ok());
  DeviceReadings absurd;
  ASSERT_TRUE(c->Collect(0, absurd).ok());
  ASSERT_NE(FindReading(absurd, "temperature_celsius", "sensor", "junction"), nullptr);
  EXPECT_EQ(FindReading(absurd, "temperature_celsius", "sensor", "junction")->value, 60000);
}

}  // namespace
}  // namespace gpufleet
