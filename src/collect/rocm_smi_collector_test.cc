#include "collect/rocm_smi_collector.h"

#include <gtest/gtest.h>

#include "collect/testing/collector_test_util.h"

namespace gpufleet {
namespace {

using testing::ErrorCount;
using testing::ExpectReading;
using testing::FakeLibrary;
using testing::FindReading;

class RocmSmiCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_.Call("Reset"); }
  void TearDown() override { fake_.Call("Reset"); }

  std::unique_ptr<Collector> Open(bool pcie_throughput = false) {
    RocmSmiCollectorOptions options;
    options.library_names = {FAKE_ROCM_SMI_PATH};
    options.enable_pcie_throughput = pcie_throughput;
    return NewRocmSmiCollector(options);
  }

  FakeLibrary fake_{FAKE_ROCM_SMI_PATH, "FakeRocmSmi_"};
};

TEST_F(RocmSmiCollectorTest, DiscoversWholeGpus) {
  auto c = Open();
  EXPECT_EQ(c->source(), "rocm_smi");
  auto devices = c->Discover();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 2u);
  const DeviceInfo& d0 = (*devices)[0];
  EXPECT_EQ(d0.vendor, Vendor::kAmd);
  EXPECT_EQ(d0.model, "AMD Instinct MI300X");
  EXPECT_EQ(d0.pci_bus_id, "0000:0c:00.0");
  EXPECT_EQ(d0.uuid, "5ab1d2c3e4f50617");
  EXPECT_EQ(d0.driver_version, "6.8.5");
  EXPECT_EQ(d0.memory_total_bytes, uint64_t{192} << 30);
  EXPECT_TRUE(d0.partition.kind.empty());
  EXPECT_EQ((*devices)[1].pci_bus_id, "0000:29:00.0");
}

TEST_F(RocmSmiCollectorTest, ReadsEveryFamilyInRocmSmiUnits) {
  auto c = Open(/*pcie_throughput=*/true);
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(0, r).ok());
  auto value = [&](const char* name, const char* label = "", const char* v = "") {
    return ExpectReading(r, name, label, v);
  };
  EXPECT_EQ(value("busy_percent"), 71);
  EXPECT_EQ(value("memory_busy_percent"), 24);
  EXPECT_EQ(value("memory_used_bytes"), 40.0 * (1 << 30));
  EXPECT_EQ(value("memory_total_bytes"), 192.0 * (1 << 30));
  EXPECT_EQ(value("power_average_microwatts"), 545e6);  // uW, not W
  EXPECT_EQ(value("power_cap_microwatts"), 750e6);
  EXPECT_GT(value("energy_microjoules"), 1.99e12);
  EXPECT_EQ(value("temperature_millicelsius", "sensor", "junction"), 64000);  // millidegrees
  EXPECT_EQ(value("temperature_millicelsius", "sensor", "memory"), 52000);
  EXPECT_EQ(value("clock_hz", "domain", "sm"), 2100e6);  // Hz
  EXPECT_EQ(value("clock_hz", "domain", "memory"), 1300e6);
  EXPECT_EQ(value("ecc_correctable_total", "block", "umc"), 5);
  EXPECT_EQ(value("ecc_uncorrectable_total", "block", "gfx"), 0);
  EXPECT_EQ(value("pcie_replays_total"), 1);
  EXPECT_EQ(value("pcie_sent_bytes_per_second"), 3e9);
  EXPECT_EQ(value("pcie_received_bytes_per_second"), 1.5e9);
  // No edge sensor on MI300X, no data-fabric clock, no SDMA ECC in the fake.
  EXPECT_GE(ErrorCount(r, "not_supported"), 3u);
}

TEST_F(RocmSmiCollectorTest, PcieThroughputIsOptIn) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  DeviceReadings r;
  ASSERT_TRUE(c->Collect(1, r).ok());
  EXPECT_EQ(FindReading(r, "pcie_sent_bytes_per_second"), nullptr);
  ASSERT_NE(FindReading(r, "temperature_millicelsius", "sensor", "edge"), nullptr);
  EXPECT_EQ(FindReading(r, "temperature_millicelsius", "sensor", "edge")->value, 40000);
}

TEST_F(RocmSmiCollectorTest, LostDeviceIsUnavailableWhileOtherWorksAndRecovers) {
  auto c = Open();
  ASSERT_TRUE(c->Discover().ok());
  fake_.Call("SetDeviceLost", 0, 1);
  DeviceReadings lost;
  Status s = c->Collect(0, lost);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("FILE_ERROR"), std::string::npos);
  DeviceReadings ok;
  EXPECT_TRUE(c->Collect(1, ok).ok());
  fake_.Call("SetDeviceLost", 0, 0);
  DeviceReadings back;
  EXPECT_TRUE(c->Collect(0, back).ok());
  EXPECT_NE(FindReading(back, "busy_percent"), nullptr);
}

TEST_F(RocmSmiCollectorTest, InitFailureIsNotFound) {
  fake_.Call("SetInitResult", 8);  // RSMI_STATUS_INIT_ERROR
  auto c = Open();
  EXPECT_EQ(c->Discover().status().code(), StatusCode::kNotFound);
}

TEST_F(RocmSmiCollectorTest, NoDevicesIsNotFound) {
  fake_.Call("SetDeviceCount", 0);
  auto c = Open();
  auto devices = c->Discover();
  EXPECT_EQ(devices.status().code(), StatusCode::kNotFound);
  EXPECT_NE(devices.status().message().find("no AMD GPU"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet
