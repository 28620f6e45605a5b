#include "collect/levelzero_collector.h"

#include <level_zero/ze_api.h>

#include <gtest/gtest.h>

#include "collect/testing/collector_test_util.h"
#include "collect/testing/fake_levelzero.h"

namespace gpufleet {
namespace {

using FakeZe = testing::FakeLevelZero;
using testing::CountReadings;
using testing::ReadingValue;

// Indices in the fake's Discover() order.
constexpr size_t kMax = 0, kMaxTile0 = 1, kMaxTile1 = 2, kFlex = 3;

class LevelZeroCollectorTest : public ::testing::Test {
 protected:
  LevelZeroCollectorTest() : fake_(GPUFLEET_FAKE_LEVELZERO_DIR) {
    collector_ = NewLevelZeroCollector({.library_names = {fake_.path}});
  }
  std::vector<DeviceInfo> DiscoverOk() { return testing::MustDiscover(*collector_); }
  DeviceReadings CollectOk(size_t index) { return testing::MustCollect(*collector_, index); }

  FakeZe fake_;
  std::unique_ptr<Collector> collector_;
};

TEST_F(LevelZeroCollectorTest, DiscoversDevicesAndTiles) {
  EXPECT_EQ(collector_->source(), "levelzero");
  std::vector<DeviceInfo> d = DiscoverOk();
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[kMax].vendor, Vendor::kIntel);
  EXPECT_EQ(d[kMax].model, "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(d[kMax].pci_bus_id, "0000:3a:00.0");
  EXPECT_EQ(d[kMax].arch, "xe-hpc");
  EXPECT_EQ(d[kMax].runtime_version, "1.5");
  EXPECT_EQ(d[kMax].driver_version, "1.3.29735");
  EXPECT_EQ(d[kMax].partition.kind, "");
  EXPECT_EQ(d[kMax].memory_total_bytes, 128ull << 30);
  EXPECT_EQ(d[kMax].uuid.size(), 36u);
  for (size_t t : {kMaxTile0, kMaxTile1}) {
    EXPECT_EQ(d[t].partition.kind, "intel_tile");
    EXPECT_EQ(d[t].uuid, d[kMax].uuid);  // partitions carry the parent's UUID
    EXPECT_EQ(d[t].memory_total_bytes, 64ull << 30);
  }
  EXPECT_EQ(d[kMaxTile0].partition.id, "0");
  EXPECT_EQ(d[kMaxTile1].partition.id, "1");
  EXPECT_EQ(d[kFlex].model, "Intel(R) Data Center GPU Flex 170");
  EXPECT_EQ(d[kFlex].partition.kind, "");
  EXPECT_EQ(d[kFlex].arch, "xe-hpg");
  EXPECT_NE(d[kFlex].uuid, d[kMax].uuid);
}

TEST_F(LevelZeroCollectorTest, UtilizationAndPowerComeFromCounterDeltas) {
  DiscoverOk();
  DeviceReadings first = CollectOk(kMax);
  EXPECT_FALSE(ReadingValue(first, "engine_all_utilization_ratio").has_value());
  EXPECT_FALSE(ReadingValue(first, "power_watts").has_value());
  EXPECT_FALSE(ReadingValue(first, "memory_bandwidth_ratio").has_value());
  EXPECT_TRUE(ReadingValue(first, "energy_microjoules").has_value());
  CollectOk(kMaxTile0);
  CollectOk(kFlex);

  fake_.advance_us(2'000'000);
  DeviceReadings second = CollectOk(kMax);
  auto util = ReadingValue(second, "engine_all_utilization_ratio");
  ASSERT_TRUE(util.has_value());
  EXPECT_GE(*util, 0.0);
  EXPECT_LE(*util, 1.0);
  EXPECT_NEAR(*util, 0.62, 0.01);  // the fake's default busy fraction, averaged over tiles
  EXPECT_NEAR(*ReadingValue(second, "engine_compute_utilization_ratio"), 0.62 * 0.95, 0.01);
  EXPECT_NEAR(*ReadingValue(second, "power_watts"), 420.0, 1.0);  // card domain, not card + tiles
  auto bw = ReadingValue(second, "memory_bandwidth_ratio");
  ASSERT_TRUE(bw.has_value());
  EXPECT_NEAR(*bw, 0.1 + 0.5 * 0.62, 0.01);
  EXPECT_NEAR(*ReadingValue(second, "power_limit_milliwatts"), 600000, 0.5);

  DeviceReadings tile = CollectOk(kMaxTile0);
  EXPECT_NEAR(*ReadingValue(tile, "engine_all_utilization_ratio"), 0.62, 0.01);
  EXPECT_NEAR(*ReadingValue(tile, "power_watts"), 420.0 * 0.45, 1.0);

  DeviceReadings flex = CollectOk(kFlex);
  EXPECT_NEAR(*ReadingValue(flex, "engine_all_utilization_ratio"), 0.35, 0.01);
  EXPECT_NEAR(*ReadingValue(flex, "engine_media_decode_utilization_ratio"), 0.35 * 0.4, 0.01);
  EXPECT_NEAR(*ReadingValue(flex, "power_watts"), 95.0, 1.0);
}

TEST_F(LevelZeroCollectorTest, EnergyCounterIsMonotonic) {
  DiscoverOk();
  double last = 0;
  for (int i = 0; i < 4; ++i) {
    DeviceReadings r = CollectOk(kFlex);
    auto e = ReadingValue(r, "energy_microjoules");
    ASSERT_TRUE(e.has_value());
    if (i > 0) {
      EXPECT_GT(*e, last);
    }
    last = *e;
    fake_.advance_us(500'000);
  }
}

TEST_F(LevelZeroCollectorTest, TilesSplitSensorsAndLinks) {
  DiscoverOk();
  DeviceReadings whole = CollectOk(kMax);
  DeviceReadings tile1 = CollectOk(kMaxTile1);
  // The fake runs tile 1 two degrees hotter; the device reports the hottest tile.
  EXPECT_DOUBLE_EQ(*ReadingValue(whole, "temperature_gpu_celsius"),
                   *ReadingValue(tile1, "temperature_gpu_celsius"));
  EXPECT_EQ(CountReadings(whole, "fabric_rx_bytes"), 4u);
  EXPECT_EQ(CountReadings(tile1, "fabric_rx_bytes"), 2u);
  for (const RawReading& r : tile1.readings) {
    if (r.name == "fabric_rx_bytes") {
      EXPECT_FALSE(r.labels.ToString().empty());
    }
  }
  // PCI counters belong to the device, not to a tile.
  EXPECT_TRUE(ReadingValue(whole, "pci_rx_bytes").has_value());
  EXPECT_FALSE(ReadingValue(tile1, "pci_rx_bytes").has_value());
  EXPECT_DOUBLE_EQ(*ReadingValue(whole, "ras_correctable_cache"), 4);  // 2 per tile
  EXPECT_DOUBLE_EQ(*ReadingValue(tile1, "ras_correctable_cache"), 2);
  EXPECT_DOUBLE_EQ(*ReadingValue(whole, "memory_size_bytes"), static_cast<double>(128ull << 30));
}

TEST_F(LevelZeroCollectorTest, LostDeviceIsUnavailableWhileTheOtherWorksThenRecovers) {
  DiscoverOk();
  CollectOk(kMax);
  fake_.set_device_lost(0, 1);
  for (size_t i : {kMax, kMaxTile0}) {
    DeviceReadings r;
    Status s = collector_->Collect(i, r);
    EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
    EXPECT_NE(s.message().find("DEVICE_LOST"), std::string::npos);
  }
  DeviceReadings flex = CollectOk(kFlex);
  EXPECT_TRUE(ReadingValue(flex, "energy_microjoules").has_value());

  fake_.set_device_lost(0, 0);
  fake_.advance_us(1'000'000);
  DeviceReadings back = CollectOk(kMax);
  // Rates restart after a loss: no stale interval spanning the outage.
  EXPECT_FALSE(ReadingValue(back, "engine_all_utilization_ratio").has_value());
  fake_.advance_us(1'000'000);
  EXPECT_TRUE(ReadingValue(CollectOk(kMax), "engine_all_utilization_ratio").has_value());
}

TEST_F(LevelZeroCollectorTest, FieldPermissionErrorIsCounted) {
  DiscoverOk();
  fake_.set_kind_result(1, "engine", ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS);
  DeviceReadings r = CollectOk(kFlex);
  EXPECT_GT(r.field_errors["permission"], 0u);
  EXPECT_TRUE(ReadingValue(r, "energy_microjoules").has_value());
  EXPECT_TRUE(ReadingValue(r, "temperature_gpu_celsius").has_value());
}

TEST_F(LevelZeroCollectorTest, InitPermissionErrorIsPermissionDenied) {
  fake_.set_init_result(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS);
  auto d = collector_->Discover();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(d.status().message().find("root"), std::string::npos) << d.status().ToString();
}

TEST_F(LevelZeroCollectorTest, HungCallBlocksThenReturns) {
  DiscoverOk();
  fake_.set_hang_ms(1, 20);
  DeviceReadings r = CollectOk(kFlex);
  EXPECT_TRUE(ReadingValue(r, "energy_microjoules").has_value());
}

TEST_F(LevelZeroCollectorTest, ConfigFileDrivesTheFake) {
  DiscoverOk();
  testing::ScopedConfigFile config("GPUFLEET_FAKE_LEVELZERO_CONFIG", "fake_levelzero.conf");
  config.Write("# end-to-end knobs\ndevice.1.lost = 1\n");
  DeviceReadings r;
  EXPECT_EQ(collector_->Collect(kFlex, r).code(), StatusCode::kUnavailable);
  config.Write("device.1.lost = 0\n");  // same size: only the mtime tells
  DeviceReadings again;
  EXPECT_TRUE(collector_->Collect(kFlex, again).ok());
}

TEST(LevelZeroCollectorLoadTest, MissingLibraryIsNotFound) {
  auto c = NewLevelZeroCollector({.library_names = {"/nonexistent/libze_loader.so.1"}});
  auto d = c->Discover();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  DeviceReadings r;
  EXPECT_FALSE(c->Collect(0, r).ok());
}

TEST(LevelZeroCollectorLoadTest, PartialLibraryGivesFewerReadingsAndSymbolMissing) {
  FakeZe partial(GPUFLEET_FAKE_LEVELZERO_PARTIAL_DIR);
  FakeZe full(GPUFLEET_FAKE_LEVELZERO_DIR);
  auto full_collector = NewLevelZeroCollector({.library_names = {full.path}});
  auto partial_collector = NewLevelZeroCollector({.library_names = {partial.path}});
  // The partial loader lacks zesInit: discovery goes through zeInit.
  auto d = partial_collector->Discover();
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->size(), 4u);
  EXPECT_EQ((*d)[kFlex].runtime_version, "1.4");
  ASSERT_TRUE(full_collector->Discover().ok());

  DeviceReadings p, f;
  ASSERT_TRUE(partial_collector->Collect(kMax, p).ok());
  ASSERT_TRUE(full_collector->Collect(kMax, f).ok());
  EXPECT_LT(p.readings.size(), f.readings.size());
  EXPECT_GT(p.field_errors["symbol_missing"], 0u);
  EXPECT_EQ(f.field_errors.count("symbol_missing"), 0u);
  EXPECT_FALSE(ReadingValue(p, "temperature_gpu_celsius").has_value());
  EXPECT_TRUE(ReadingValue(p, "energy_microjoules").has_value());
}

}  // namespace
}  // namespace gpufleet
