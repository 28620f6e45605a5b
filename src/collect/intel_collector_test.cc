#include "collect/intel_collector.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

std::string TreeRoot() { return INTEL_SYSFS_TREE; }

#ifdef GPUFLEET_HAVE_LEVEL_ZERO
TEST(IntelCollectorTest, PrefersLevelZero) {
  IntelCollectorOptions o;
  o.levelzero.library_names = {std::string(GPUFLEET_FAKE_LEVELZERO_DIR) + "/libze_loader.so.1"};
  o.sysfs.sysfs_root = TreeRoot();
  auto c = OpenIntelCollector(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), "levelzero");
}
#endif

TEST(IntelCollectorTest, FallsBackToSysfsWithoutLevelZero) {
  IntelCollectorOptions o;
  o.levelzero.library_names = {"/nonexistent/libze_loader.so.1"};
  o.sysfs.sysfs_root = TreeRoot();
  auto c = OpenIntelCollector(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->source(), "intel_sysfs");
  // Already discovered: Collect works right away.
  DeviceReadings r;
  EXPECT_TRUE((*c)->Collect(0, r).ok());
}

TEST(IntelCollectorTest, NotFoundNamesEveryRejectedSource) {
  IntelCollectorOptions o;
  o.levelzero.library_names = {"/nonexistent/libze_loader.so.1"};
  o.sysfs.sysfs_root = ::testing::TempDir() + "/no_such_sysfs";
  auto c = OpenIntelCollector(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("levelzero:"), std::string::npos);
  EXPECT_NE(c.status().message().find("intel_sysfs:"), std::string::npos);
  EXPECT_NE(c.status().message().find("libze_loader"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet
