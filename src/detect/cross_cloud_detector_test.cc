#include "detect/cross_cloud_detector.h"

#include <gtest/gtest.h>

#include "detect/capture_detector.h"
#include "detect/detect_test_util.h"

namespace gpufleet::detect {
namespace {

using testing::kS;
using testing::kT0;

std::vector<Finding> Compare(double aws_s, double gcp_s) {
  WindowStore store(WindowStoreOptions{});
  for (auto [node, cloud, step] : {std::tuple{"a", "aws", aws_s}, std::tuple{"g", "gcp", gcp_s}}) {
    Labels l = testing::DeviceLabels("gpu_workload_step_duration_seconds", "0", node, cloud);
    l.Set("workload_name", "bert");
    for (int i = 0; i < 60; ++i) store.Append(l, kT0 + i * 10 * kS, step * (1 + 0.01 * (i % 3)));
  }
  CrossCloudDetector d(CrossCloudConfig{});
  EvalContext ctx{store, kT0 + 600 * kS, {}};
  std::vector<Finding> out;
  d.Evaluate(ctx, out);
  return out;
}

TEST(CrossCloudDetectorTest, SameSpeedGivesNoFinding) { EXPECT_TRUE(Compare(1.0, 1.1).empty()); }

TEST(CrossCloudDetectorTest, FlagsTheSlowCloud) {
  auto found = Compare(1.0, 1.5);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "cloud_specific");
  EXPECT_EQ(found[0].subject.Get("cloud"), "gcp");
  EXPECT_EQ(found[0].team, "cloud-ops");
  EXPECT_EQ(found[0].devices, std::vector<std::string>{"g/0"});
  EXPECT_NEAR(found[0].estimated_slowdown, 1 - 1.0 / 1.5, 0.01);
}

TEST(CaptureDetectorTest, LowUtilizationTriggersOnceWithCooldown) {
  CaptureTriggerConfig c;
  c.name = "low_utilization";
  c.condition = {"gpu_utilization_ratio", Condition::Op::kLess, 0.3, 0};
  c.for_ns = 300 * kS;
  c.command = {"nsys", "--out=/tmp/{node}-{gpu}"};
  c.cooldown_ns = 3600 * kS;
  WindowStore store(WindowStoreOptions{});
  // Idle 600-1200 s, busy, idle again 1500-2100 s (inside the cool-down).
  testing::Fill(store, "gpu_utilization_ratio", "2", 0, 2400, [](int t) {
    return (t >= 600 && t < 1200) || (t >= 1500 && t < 2100) ? 0.05 : 0.9;
  });
  CaptureDetector d(c, 10 * kS, 300 * kS);
  int fired_at = -1, fired_again = -1;
  for (int t = 0; t < 2400; t += 10) {
    std::vector<Finding> out;
    EvalContext ctx{store, kT0 + t * kS, {}};
    d.Evaluate(ctx, out);
    if (!out.empty() && fired_at < 0) {
      fired_at = t;
      EXPECT_EQ(out[0].kind, "capture_trigger");
      EXPECT_EQ(out[0].capture_command, (std::vector<std::string>{"nsys", "--out=/tmp/n1-2"}));
    }
    if (!out.empty() && t >= 1500) fired_again = t;
  }
  EXPECT_EQ(fired_at, 900);
  EXPECT_EQ(fired_again, -1);
}

}  // namespace
}  // namespace gpufleet::detect
