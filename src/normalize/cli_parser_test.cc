#include <gtest/gtest.h>

#include "normalize/amd_smi_cli_parser.h"
#include "normalize/xpumcli_parser.h"

namespace gpufleet {
namespace {

const RawReading* FindReading(const CliDevice& d, std::string_view name, const Labels& l = {}) {
  for (const RawReading& r : d.readings.readings) {
    if (r.name == name && r.labels == l) return &r;
  }
  return nullptr;
}

uint64_t NotSupported(const CliDevice& d) {
  auto it = d.readings.field_errors.find("not_supported");
  return it == d.readings.field_errors.end() ? 0 : it->second;
}

TEST(AmdSmiJsonTest, BareListWithUnits) {
  auto r = ParseAmdSmiJson(R"([{"gpu": 0, "power": {"socket_power": {"value": 10, "unit": "W"},
      "gfx_voltage": {"value": 6, "unit": "mV"}, "power_management": "ENABLED"},
      "usage": {"gfx_activity": {"value": 37, "unit": "%"}, "mm_activity": "N/A",
      "vcn_activity": [{"value": 5, "unit": "%"}, "N/A"]}}])");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->devices.size(), 1u);
  const CliDevice& d = r->devices[0];
  EXPECT_EQ(d.device.vendor, Vendor::kAmd);
  EXPECT_EQ(d.identity.Get("gpu_index"), "0");
  ASSERT_NE(FindReading(d, "power.socket_power"), nullptr);
  EXPECT_DOUBLE_EQ(FindReading(d, "power.socket_power")->value, 10);
  EXPECT_DOUBLE_EQ(FindReading(d, "power.gfx_voltage")->value, 0.006);
  EXPECT_DOUBLE_EQ(FindReading(d, "usage.gfx_activity")->value, 0.37);
  ASSERT_NE(FindReading(d, "usage.vcn_activity", Labels{{"index", "0"}}), nullptr);
  EXPECT_EQ(NotSupported(d), 2u);
  EXPECT_TRUE(r->errors.empty());
}

TEST(AmdSmiJsonTest, GpuDataShapeAndPartitionKeys) {
  auto r = ParseAmdSmiJson(R"({"gpu_data": [{"gpu": 3, "mem_usage": {"used_vram":
      {"value": 4845, "unit": "MB"}}, "usage": {"gfx_busy_inst": {"XCP_2": [{"value": 50,
      "unit": "%"}]}}}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->devices.size(), 1u);
  const CliDevice& d = r->devices[0];
  EXPECT_EQ(d.identity.Get("gpu_index"), "3");
  EXPECT_DOUBLE_EQ(FindReading(d, "mem_usage.used_vram")->value, 5080350720.0);
  const RawReading* busy =
      FindReading(d, "usage.gfx_busy_inst", Labels{{"index", "0"}, {"xcp", "2"}});
  ASSERT_NE(busy, nullptr);
  EXPECT_DOUBLE_EQ(busy->value, 0.5);
}

TEST(AmdSmiJsonTest, ErrorsNameOffsetsAndPaths) {
  auto bad = ParseAmdSmiJson("[{\"gpu\": 0,, }]");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("byte 1"), std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(ParseAmdSmiJson("{\"x\": 1}").ok());
  EXPECT_FALSE(ParseAmdSmiJson(std::string(200, '[')).ok());
  auto r = ParseAmdSmiJson(R"([{"gpu": 0, "power": {"socket_power": {"value": 1, "unit": "furlong"},
      "x": {"value": "abc", "unit": "W"}}}])");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->errors.size(), 2u);
  EXPECT_EQ(r->errors[0], "$[0].power.socket_power: unknown unit 'furlong'");
  EXPECT_EQ(r->errors[1], "$[0].power.x: value 'abc' is not a number");
}

TEST(AmdSmiTextTest, SectionsWrappedArraysAndPartitions) {
  auto r = ParseAmdSmiText(
      "$ amd-smi metric --usage\n"
      "GPU: 0\n"
      "    USAGE:\n"
      "        GFX_ACTIVITY: 12 %\n"
      "        MM_ACTIVITY: N/A\n"
      "        JPEG_ACTIVITY: [0 %, 1 %,\n"
      "            N/A, 3 %]\n"
      "        GFX_BUSY_INST:\n"
      "            XCP_1: [7 %, N/A]\n"
      "    POWER:\n"
      "        SOCKET_POWER: 300 W\n"
      "        THROTTLE_STATUS: UNTHROTTLED\n"
      "GPU: 1\n"
      "    USAGE:\n"
      "        GFX_ACTIVITY: 1x %\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->devices.size(), 2u);
  const CliDevice& d = r->devices[0];
  EXPECT_DOUBLE_EQ(FindReading(d, "usage.gfx_activity")->value, 0.12);
  EXPECT_DOUBLE_EQ(FindReading(d, "usage.jpeg_activity", Labels{{"index", "3"}})->value, 0.03);
  EXPECT_DOUBLE_EQ(
      FindReading(d, "usage.gfx_busy_inst", Labels{{"index", "0"}, {"xcp", "1"}})->value, 0.07);
  EXPECT_DOUBLE_EQ(FindReading(d, "power.socket_power")->value, 300);
  EXPECT_EQ(NotSupported(d), 3u);
  ASSERT_EQ(r->errors.size(), 1u);
  EXPECT_EQ(r->errors[0], "line 15: '1x %' is not a number");
  EXPECT_FALSE(ParseAmdSmiText("hello\n").ok());
}

TEST(XpumcliTest, TableRowsTilesAndUnits) {
  auto r = ParseXpumcliStats(
      "+------+------+\n"
      "| Device ID | 0 |\n"
      "+------+------+\n"
      "| Energy Consumed (J) | Tile 0: 5245.05 |\n"
      "| EU Array Active (%) | Tile 0: |\n"
      "| Reset | Tile 0: 1, total: 1 |\n"
      "| GPU Power (W) | Tile 0: avg: 44, min: 40, max: 48, current: 45 |\n"
      "| GPU Core Temperature | Tile 0: avg: 45, min: 45, max: 45, current: 46 |\n"
      "| (Celsius Degree) |  |\n"
      "| GPU Memory Used (MiB) | Tile 0: avg: 26, min: 26, max: 26, current: 26 |\n"
      "| PCIe Read (kB/s) | avg: , min: , max: , current: |\n"
      "| Compute Engine Util (%) | Engine 0: 10, Engine 1: 20 |\n"
      "| GPU Frequency (MHz) | Tile 0: avg: x, current: 2050 |\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->devices.size(), 1u);  // only tile 0: one device
  const CliDevice& d = r->devices[0];
  EXPECT_EQ(d.device.vendor, Vendor::kIntel);
  EXPECT_TRUE(d.device.partition.kind.empty());
  EXPECT_DOUBLE_EQ(FindReading(d, "energy_consumed")->value, 5245.05);
  EXPECT_DOUBLE_EQ(FindReading(d, "gpu_power.current")->value, 45);
  EXPECT_DOUBLE_EQ(FindReading(d, "gpu_power.avg")->value, 44);
  EXPECT_DOUBLE_EQ(FindReading(d, "gpu_core_temperature.current")->value, 46);
  EXPECT_DOUBLE_EQ(FindReading(d, "gpu_memory_used.current")->value, 26.0 * 1048576);
  EXPECT_DOUBLE_EQ(FindReading(d, "compute_engine_util", Labels{{"engine", "1"}})->value, 0.2);
  EXPECT_DOUBLE_EQ(FindReading(d, "gpu_frequency.current")->value, 2.05e9);
  int resets = 0;
  for (const RawReading& x : d.readings.readings) resets += x.name == "reset";
  EXPECT_EQ(resets, 1);  // the tile copy of a single-tile device is not repeated
  EXPECT_EQ(NotSupported(d), 5u);
  ASSERT_EQ(r->errors.size(), 1u);
  EXPECT_EQ(r->errors[0], "line 13: 'x' is not a number in 'GPU Frequency (MHz)'");
}

TEST(XpumcliTest, SeveralTilesBecomePartitions) {
  auto r = ParseXpumcliStats(
      "| Device ID | 1 |\n"
      "| GPU Utilization (%) | Tile 0: 10, Tile 1: 30 |\n"
      "| Reset | Tile 0: 0, Tile 1: 2, total: 2 |\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->devices.size(), 3u);
  EXPECT_TRUE(r->devices[0].device.partition.kind.empty());
  EXPECT_DOUBLE_EQ(FindReading(r->devices[0], "reset")->value, 2);
  EXPECT_EQ(r->devices[2].device.partition.kind, "intel_tile");
  EXPECT_EQ(r->devices[2].device.partition.id, "1");
  EXPECT_DOUBLE_EQ(FindReading(r->devices[2], "gpu_utilization")->value, 0.3);
  EXPECT_FALSE(ParseXpumcliStats("nothing here\n").ok());
}

}  // namespace
}  // namespace gpufleet
