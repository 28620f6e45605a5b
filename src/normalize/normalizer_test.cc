#include "normalize/normalizer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpufleet {
namespace {

constexpr std::string_view kTable = R"(
source = "test"
vendor = "nvidia"
sentinels = [4294967295.0]

[[metric]]
from = "power_mw"
to = "gpu_power_watts"
scale = 0.001

[[metric]]
from = "util_pct"
to = "gpu_utilization_ratio"
scale = 0.01
method = "nvml"

[[metric]]
from = "temp_c"
to = "gpu_temperature_celsius"
labels = { sensor = "gpu" }
sentinels = [65535.0]

[[metric]]
from = "active_us"
to = "gpu_utilization_ratio"
scale = 1e-6
derive = "rate"
method = "levelzero"

[[metric]]
from = "identity"
to = "gpu_info"

[[metric]]
from = "link_kib"
to = "gpu_interconnect_transmit_bytes_total"
scale = 1024
rename_labels = { lane = "link" }
)";

class NormalizerTest : public ::testing::Test {
 protected:
  NormalizerTest() : normalizer_(Table()) {
    device_.vendor = Vendor::kNvidia;
    device_.model = "NVIDIA H100 80GB HBM3";
    device_.uuid = "GPU-1";
    device_.pci_bus_id = "00000000:29:00.0";
    labels_ = DeviceLabels(device_, NodeIdentity{"node-a", "aws", "us-east-1"});
  }
  static MappingTable Table() {
    auto t = MappingTable::Parse(kTable, "test.toml", MetricCatalog::Default());
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(t).value();
  }
  std::vector<Sample> Run(DeviceReadings in, int64_t ts_ns) {
    std::vector<Sample> out;
    normalizer_.Normalize(device_, labels_, in, ts_ns, out, stats_);
    return out;
  }

  Normalizer normalizer_;
  DeviceInfo device_;
  Labels labels_;
  NormalizeStats stats_;
};

TEST_F(NormalizerTest, DeviceLabelsCarryIdentity) {
  EXPECT_EQ(labels_.Get("vendor"), "nvidia");
  EXPECT_EQ(labels_.Get("pci_bus_id"), "0000:29:00.0");
  EXPECT_EQ(labels_.Get("node"), "node-a");
  EXPECT_EQ(labels_.Get("cloud"), "aws");
  EXPECT_FALSE(labels_.Has("partition_kind"));
  DeviceInfo mig = device_;
  mig.partition = PartitionInfo{"mig", "13", "1g.5gb"};
  mig.node = "sim-7";
  Labels l = DeviceLabels(mig, NodeIdentity{"node-a", "", ""});
  EXPECT_EQ(l.Get("partition_kind"), "mig");
  EXPECT_EQ(l.Get("partition_id"), "13");
  EXPECT_EQ(l.Get("partition_profile"), "1g.5gb");
  EXPECT_EQ(l.Get("node"), "sim-7");
}

// IsDeviceLabel (which the exporter translator uses to build info series)
// and DeviceLabels must agree on what identifies a device.
TEST_F(NormalizerTest, DeviceLabelNamesAreWhatDeviceLabelsSets) {
  DeviceInfo full = device_;
  full.partition = PartitionInfo{"mig", "13", "1g.5gb"};
  Labels l = DeviceLabels(full, NodeIdentity{"node-a", "aws", "us-east-1"});
  std::vector<std::string_view> names;
  for (const auto& [name, value] : l.pairs()) names.push_back(name);
  EXPECT_EQ(names, std::vector<std::string_view>(std::begin(kDeviceLabelNames),
                                                 std::end(kDeviceLabelNames)));
  for (std::string_view n : names) EXPECT_TRUE(IsDeviceLabel(n)) << n;
  EXPECT_TRUE(IsDeviceLabel("gpu_index"));
  EXPECT_FALSE(IsDeviceLabel("sensor"));
  EXPECT_FALSE(IsDeviceLabel("method"));
}

TEST_F(NormalizerTest, ScalesAndLabels) {
  DeviceReadings in;
  in.Add("power_mw", 409692);
  in.Add("util_pct", 87);
  in.Add("temp_c", 61);
  in.Add("identity", 42);
  in.Add("link_kib", 2, Labels{{"lane", "3"}});
  std::vector<Sample> out = Run(in, 1000);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].name, "gpu_power_watts");
  EXPECT_DOUBLE_EQ(out[0].value, 409.692);
  EXPECT_EQ(out[0].timestamp_ns, 1000);
  EXPECT_EQ(out[0].labels.Get("gpu_uuid"), "GPU-1");
  EXPECT_DOUBLE_EQ(out[1].value, 0.87);
  EXPECT_EQ(out[1].labels.Get("method"), "nvml");
  EXPECT_EQ(out[2].labels.Get("sensor"), "gpu");
  EXPECT_EQ(out[3].name, "gpu_info");
  EXPECT_DOUBLE_EQ(out[3].value, 1.0);
  EXPECT_EQ(out[4].labels.Get("link"), "3");
  EXPECT_FALSE(out[4].labels.Has("lane"));
  EXPECT_DOUBLE_EQ(out[4].value, 2048);
}

TEST_F(NormalizerTest, DropsSentinelsAbsurdAndUnmapped) {
  DeviceReadings in;
  in.Add("power_mw", 4294967295.0);  // table sentinel
  in.Add("temp_c", 65535);           // metric sentinel
  in.Add("util_pct", 250);           // 2.5 as a ratio: impossible
  in.Add("temp_c", -300);            // below absolute zero
  in.Add("mystery", 1);
  EXPECT_TRUE(Run(in, 1).empty());
  EXPECT_EQ(stats_.sentinel, 2u);
  EXPECT_EQ(stats_.absurd, 2u);
  EXPECT_EQ(stats_.unmapped, 1u);
}

TEST_F(NormalizerTest, DerivesRatesAcrossCollections) {
  auto reading = [](double v) {
    DeviceReadings in;
    in.Add("active_us", v);
    return in;
  };
  EXPECT_TRUE(Run(reading(1'000'000), 1'000'000'000).empty());  // first: no rate yet
  std::vector<Sample> out = Run(reading(1'500'000), 2'000'000'000);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].value, 0.5);  // 0.5 s active per 1 s
  EXPECT_EQ(out[0].labels.Get("method"), "levelzero");
  EXPECT_TRUE(Run(reading(100), 3'000'000'000).empty());  // counter went backwards
  EXPECT_EQ(stats_.counter_reset, 1u);
  out = Run(reading(250'100), 4'000'000'000);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].value, 0.25);
}

TEST_F(NormalizerTest, ResetDeviceForgetsRateState) {
  DeviceReadings in;
  in.Add("active_us", 1000);
  EXPECT_TRUE(Run(in, 1'000'000'000).empty());
  normalizer_.ResetDevice("GPU-1");
  in.readings[0].value = 2000;
  EXPECT_TRUE(Run(in, 2'000'000'000).empty());  // first again after the reset
  in.readings[0].value = 500'000;
  EXPECT_EQ(Run(in, 3'000'000'000).size(), 1u);
}

TEST(IsPlausibleTest, ByUnit) {
  const MetricCatalog& c = MetricCatalog::Default();
  EXPECT_TRUE(IsPlausible(*c.Find("gpu_utilization_ratio"), 1.0));
  EXPECT_FALSE(IsPlausible(*c.Find("gpu_utilization_ratio"), 1.5));
  EXPECT_TRUE(IsPlausible(*c.Find("gpu_temperature_celsius"), -20));
  EXPECT_FALSE(IsPlausible(*c.Find("gpu_temperature_celsius"), 9.2e18));
  EXPECT_FALSE(IsPlausible(*c.Find("gpu_power_watts"), -1));
  EXPECT_FALSE(IsPlausible(*c.Find("gpu_power_watts"), INFINITY));
  EXPECT_TRUE(IsPlausible(*c.Find("gpu_clock_hertz"), 1.98e9));
  EXPECT_FALSE(IsPlausible(*c.Find("gpu_memory_used_bytes"), 1e18));
}

}  // namespace
}  // namespace gpufleet
