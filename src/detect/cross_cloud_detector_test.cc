#include "detect/cross_cloud_detector.h"

#include <gtest/gtest.h>

#include "detect/capture_detector.h"
#include "detect/detect_test_util.h"

namespace gpufleet::detect {
namespace {

using testing::kS;
using testing::kT0;

// One workload on node "a" (aws) and node "g" (gcp), one GPU each.
struct Job {
  double aws_s, gcp_s;
  double gcp_activity = 0.9;  // SM activity on gcp; aws runs at 0.9
};

std::vector<Finding> Compare(const std::vector<Job>& jobs) {
  WindowStore store(WindowStoreOptions{});
  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::string gpu = std::to_string(j);
    for (auto [node, cloud, step, activity] :
         {std::tuple{"a", "aws", jobs[j].aws_s, 0.9},
          std::tuple{"g", "gcp", jobs[j].gcp_s, jobs[j].gcp_activity}}) {
      Labels l = testing::DeviceLabels("gpu_workload_step_duration_seconds", gpu, node, cloud);
      l.Set("workload_name", "job-" + gpu);
      const Labels a = testing::DeviceLabels("gpu_sm_active_ratio", gpu, node, cloud);
      for (int i = 0; i < 60; ++i) {
        store.Append(l, kT0 + i * 10 * kS, step * (1 + 0.01 * (i % 3)));
        store.Append(a, kT0 + i * 10 * kS, activity);
      }
    }
  }
  CrossCloudDetector d(CrossCloudConfig{});
  EvalContext ctx{store, kT0 + 600 * kS, {}};
  std::vector<Finding> out;
  d.Evaluate(ctx, out);
  return out;
}

TEST(CrossCloudDetectorTest, SameSpeedGivesNoFinding) {
  EXPECT_TRUE(Compare({{1.0, 1.05, 0.86}}).empty());
}

// gcp's GPU waits a third of the time (network, storage): idle while slow.
TEST(CrossCloudDetectorTest, FlagsTheSlowCloud) {
  auto found = Compare({{1.0, 1.5, 0.6}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "cloud_specific");
  EXPECT_EQ(found[0].subject.Get("cloud"), "gcp");
  EXPECT_EQ(found[0].team, "cloud-ops");
  EXPECT_EQ(found[0].devices, std::vector<std::string>{"g/0"});
  EXPECT_NEAR(found[0].estimated_slowdown, 1 - 1.0 / 1.5, 0.01);
}

// Slower with the GPU as busy as elsewhere: a neighbour or a throttled
// clock, which the contention detectors judge.
TEST(CrossCloudDetectorTest, SlowButBusyIsNotCloudSpecific) {
  EXPECT_TRUE(Compare({{1.0, 1.5, 0.9}}).empty());
}

// One job waiting on its own input on a node whose other jobs run as fast
// as elsewhere is not the cloud; the whole node slowed is.
TEST(CrossCloudDetectorTest, TheWholeNodeSlowsNotOneJob) {
  EXPECT_TRUE(Compare({{1.0, 1.5, 0.6}, {2.0, 2.0}, {0.5, 0.5}}).empty());
  EXPECT_EQ(Compare({{1.0, 1.5, 0.6}, {2.0, 2.8, 0.65}, {0.5, 0.5}}).size(), 2u);
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
