#include "agent/collector_set.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace gpufleet {
namespace {

// Regression: `gpufleet agent --scrape URL` refused to start on a node where
// the agent itself saw no GPU ("no GPU telemetry source found on this node"),
// the usual case of an agent beside the exporter it adopts.
TEST(CollectorSetTest, ScrapeOnlyAgentStartsWhereNoGpuIsSeen) {
  SourceOptions o;
  o.sources = {"auto"};
  o.sysfs_root = "/nonexistent/sys";
  o.dev_root = "/nonexistent/dev";
  o.other_sources = true;
  std::vector<std::string> log;
  auto collectors = BuildCollectors(o, RealClock::Get(), &log);
  EXPECT_TRUE(collectors.ok()) << collectors.status().ToString();
}

TEST(CollectorSetTest, NamedVendorWithoutDevicesIsStillAnErrorBesideAScrape) {
  SourceOptions o;
  o.sources = {"amd"};
  o.sysfs_root = "/nonexistent/sys";
  o.dev_root = "/nonexistent/dev";
  o.other_sources = true;
  std::vector<std::string> log;
  auto collectors = BuildCollectors(o, RealClock::Get(), &log);
  EXPECT_FALSE(collectors.ok());
}

}  // namespace
}  // namespace gpufleet
