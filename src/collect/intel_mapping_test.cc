// Every reading the Intel collectors emit has a mapping in its source's table
// (data/mappings/<source>.toml), so nothing they report is dropped as unmapped.
#include <filesystem>
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "collect/dynamic_library.h"
#include "collect/intel_sysfs_collector.h"
#include "collect/levelzero_collector.h"
#include "core/file_util.h"
#include "normalize/mapping_table.h"

namespace gpufleet {
namespace {

// All readings of every device over two collections (so rates appear too).
std::vector<DeviceReadings> CollectTwice(Collector& c, const std::function<void()>& between) {
  auto devices = c.Discover();
  EXPECT_TRUE(devices.ok()) << devices.status().ToString();
  std::vector<DeviceReadings> out;
  if (!devices.ok()) return out;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < devices->size(); ++i) {
      DeviceReadings r;
      EXPECT_TRUE(c.Collect(i, r).ok());
      out.push_back(std::move(r));
    }
    between();
  }
  return out;
}

void ExpectAllMapped(std::string_view source, const std::vector<DeviceReadings>& all,
                     const std::set<std::string>& must_see) {
  auto table = MappingTable::ForSource(source);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::set<std::string> seen;
  for (const DeviceReadings& d : all) {
    for (const RawReading& r : d.readings) {
      seen.insert(r.name);
      EXPECT_NE(table->FindMatching(r.name, r.labels), nullptr)
          << source << " reading '" << r.name << "' has no mapping";
    }
  }
  for (const std::string& name : must_see) EXPECT_EQ(seen.count(name), 1u) << name;
}

#ifdef GPUFLEET_HAVE_LEVEL_ZERO
TEST(IntelMappingTest, EveryLevelZeroReadingIsMapped) {
  std::string path = std::string(GPUFLEET_FAKE_LEVELZERO_DIR) + "/libze_loader.so.1";
  auto lib = DynamicLibrary::Open({path});
  ASSERT_TRUE(lib.ok());
  void (*reset)() = nullptr;
  void (*advance)(uint64_t) = nullptr;
  ASSERT_TRUE((*lib)->Bind("fake_ze_reset", reset));
  ASSERT_TRUE((*lib)->Bind("fake_ze_advance_us", advance));
  reset();
  auto c = NewLevelZeroCollector({.library_names = {path}});
  auto all = CollectTwice(*c, [&] { advance(1'000'000); });
  ExpectAllMapped("levelzero", all,
                  {"engine_all_utilization_ratio", "power_watts", "energy_microjoules",
                   "memory_bandwidth_ratio", "fabric_tx_bytes", "ras_uncorrectable_reset",
                   "engine_media_encode_utilization_ratio", "frequency_memory_mhz"});
}
#endif

TEST(IntelMappingTest, EverySysfsReadingIsMapped) {
  namespace fs = std::filesystem;
  std::string root = ::testing::TempDir() + "/intel_sysfs_mapping";
  fs::remove_all(root);
  fs::copy(std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/sysfs/intel", root,
           fs::copy_options::recursive);
  FakeClock clock;
  auto c = NewIntelSysfsCollector({.sysfs_root = root, .clock = &clock});
  std::string idle = root + "/class/drm/card1/device/tile0/gt0/gtidle/idle_residency_ms";
  auto all = CollectTwice(*c, [&] {
    clock.Advance(kNsPerSecond);
    ASSERT_TRUE(WriteStringToFile(idle, "5551734\n").ok());
  });
  ExpectAllMapped("intel_sysfs", all,
                  {"power_watts", "gt_awake_ratio", "temp_memory_millicelsius",
                   "lmem_used_bytes", "vram_total_bytes"});
}

}  // namespace
}  // namespace gpufleet
