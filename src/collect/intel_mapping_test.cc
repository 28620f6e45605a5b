// Every reading the Intel collectors emit has a mapping in its source's table
// (data/mappings/<source>.toml), so nothing they report is dropped as unmapped.
#include <gtest/gtest.h>

#include "collect/intel_sysfs_collector.h"
#include "collect/levelzero_collector.h"
#include "collect/testing/collector_test_util.h"
#include "core/file_util.h"
#ifdef GPUFLEET_HAVE_LEVEL_ZERO
#include "collect/testing/fake_levelzero.h"
#endif

namespace gpufleet {
namespace {

using testing::CollectTwice;
using testing::ExpectAllMapped;

#ifdef GPUFLEET_HAVE_LEVEL_ZERO
TEST(IntelMappingTest, EveryLevelZeroReadingIsMapped) {
  testing::FakeLevelZero fake(GPUFLEET_FAKE_LEVELZERO_DIR);
  auto advance = [&] { fake.advance_us(1'000'000); };
  auto c = NewLevelZeroCollector({.library_names = {fake.path}});
  auto all = CollectTwice(*c, advance);
  ExpectAllMapped("levelzero", all,
                  {"engine_all_utilization_ratio", "power_watts", "energy_microjoules",
                   "memory_bandwidth_ratio", "fabric_tx_bytes", "ras_uncorrectable_reset",
                   "engine_media_encode_utilization_ratio", "frequency_memory_mhz"});
}
#endif

TEST(IntelMappingTest, EverySysfsReadingIsMapped) {
  std::string root = testing::CopyTree(INTEL_SYSFS_TREE, "intel_sysfs_mapping");
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
