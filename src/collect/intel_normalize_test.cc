// Intel readings through the real Normalizer and mapping tables: canonical
// names, base units and labels come out right (uJ -> J, MHz -> Hz, m°C -> °C,
// mW / uW -> W, tiles as partitions).
#include <functional>

#include <gtest/gtest.h>

#include "collect/intel_sysfs_collector.h"
#include "collect/levelzero_collector.h"
#include "collect/testing/collector_test_util.h"
#include "core/file_util.h"
#ifdef GPUFLEET_HAVE_LEVEL_ZERO
#include "collect/testing/fake_levelzero.h"
#endif
#include "normalize/normalizer.h"

namespace gpufleet {
namespace {

// Normalizes two collections of every device; returns the second round's samples.
std::vector<Sample> NormalizeTwice(Collector& c, const std::function<void()>& between,
                                   NormalizeStats& stats) {
  auto table = MappingTable::ForSource(c.source());
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  Normalizer normalizer(std::move(table).value());
  auto devices = c.Discover();
  EXPECT_TRUE(devices.ok());
  std::vector<Sample> out;
  NodeIdentity node{"node-a", "", ""};
  for (int round = 0; round < 2; ++round) {
    out.clear();
    for (size_t i = 0; i < devices->size(); ++i) {
      DeviceReadings r;
      EXPECT_TRUE(c.Collect(i, r).ok());
      const DeviceInfo& d = (*devices)[i];
      normalizer.Normalize(d, DeviceLabels(d, node), r, (round + 1) * kNsPerSecond, out, stats);
    }
    between();
  }
  return out;
}

using testing::FindSample;

#ifdef GPUFLEET_HAVE_LEVEL_ZERO
TEST(IntelNormalizeTest, LevelZeroSamplesAreCanonical) {
  testing::FakeLevelZero fake(GPUFLEET_FAKE_LEVELZERO_DIR);
  auto advance = [&] { fake.advance_us(1'000'000); };
  auto c = NewLevelZeroCollector({.library_names = {fake.path}});
  NormalizeStats stats;
  auto samples = NormalizeTwice(*c, advance, stats);
  EXPECT_EQ(stats.unmapped, 0u);
  EXPECT_EQ(stats.absurd, 0u);

  Labels max{{"model", "Intel(R) Data Center GPU Max 1550"}};
  Labels whole_max = max;
  const Sample* util = FindSample(samples, "gpu_utilization_ratio", whole_max);
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->labels.Get("method"), "levelzero");
  EXPECT_EQ(util->labels.Get("vendor"), "intel");
  EXPECT_NEAR(util->value, 0.62, 0.01);

  const Sample* energy = FindSample(samples, "gpu_energy_joules_total", whole_max);
  ASSERT_NE(energy, nullptr);
  EXPECT_GT(energy->value, 123456.789);  // fake starts at 123456789000 uJ
  EXPECT_LT(energy->value, 1e6);
  const Sample* power = FindSample(samples, "gpu_power_watts", whole_max);
  ASSERT_NE(power, nullptr);
  EXPECT_NEAR(power->value, 420.0, 1.0);
  const Sample* limit = FindSample(samples, "gpu_power_limit_watts", whole_max);
  ASSERT_NE(limit, nullptr);
  EXPECT_DOUBLE_EQ(limit->value, 600.0);

  Labels tile1 = max;
  tile1.Set("partition_kind", "intel_tile");
  tile1.Set("partition_id", "1");
  tile1.Set("domain", "sm");
  const Sample* clock = FindSample(samples, "gpu_clock_hertz", tile1);
  ASSERT_NE(clock, nullptr);
  EXPECT_DOUBLE_EQ(clock->value, 1.4e9);

  const Sample* link = FindSample(samples, "gpu_interconnect_receive_bytes_total",
                                  Labels{{"link_type", "xe_link"}});
  ASSERT_NE(link, nullptr);
  EXPECT_FALSE(link->labels.Get("link").empty());

  const Sample* hbm = FindSample(samples, "gpu_memory_total_bytes", whole_max);
  ASSERT_NE(hbm, nullptr);
  EXPECT_DOUBLE_EQ(hbm->value, static_cast<double>(128ull << 30));
}
#endif

TEST(IntelNormalizeTest, SysfsSamplesAreCanonical) {
  std::string root = testing::CopyTree(INTEL_SYSFS_TREE, "intel_sysfs_normalize");
  FakeClock clock;
  auto c = NewIntelSysfsCollector({.sysfs_root = root, .clock = &clock});
  std::string energy = root + "/class/drm/card1/device/hwmon/hwmon5/energy1_input";
  NormalizeStats stats;
  auto samples = NormalizeTwice(
      *c,
      [&] {
        clock.Advance(kNsPerSecond);
        ASSERT_TRUE(WriteStringToFile(energy, std::to_string(456789012345ull + 380000000)).ok());
      },
      stats);
  EXPECT_EQ(stats.unmapped, 0u);
  EXPECT_EQ(stats.absurd, 0u);
  Labels max{{"model", "Intel(R) Data Center GPU Max 1550"}};

  Labels gpu_sensor = max;
  gpu_sensor.Set("sensor", "gpu");
  const Sample* temp = FindSample(samples, "gpu_temperature_celsius", gpu_sensor);
  ASSERT_NE(temp, nullptr);
  EXPECT_DOUBLE_EQ(temp->value, 58.0);
  const Sample* power = FindSample(samples, "gpu_power_watts", max);
  ASSERT_NE(power, nullptr);
  EXPECT_NEAR(power->value, 380.0, 1e-6);
  EXPECT_EQ(power->labels.Get("method"), "sysfs");
  const Sample* limit = FindSample(samples, "gpu_power_limit_watts", max);
  ASSERT_NE(limit, nullptr);
  EXPECT_DOUBLE_EQ(limit->value, 600.0);
  const Sample* joules = FindSample(samples, "gpu_energy_joules_total", max);
  ASSERT_NE(joules, nullptr);
  EXPECT_NEAR(joules->value, (456789012345.0 + 380000000.0) * 1e-6, 1e-3);
  Labels sm = max;
  sm.Set("domain", "sm");
  const Sample* clk = FindSample(samples, "gpu_clock_hertz", sm);
  ASSERT_NE(clk, nullptr);
  EXPECT_DOUBLE_EQ(clk->value, 1.4e9);
}

}  // namespace
}  // namespace gpufleet
