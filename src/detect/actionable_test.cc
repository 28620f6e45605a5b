#include "detect/actionable.h"

#include <gtest/gtest.h>

#include "detect/detect_test_util.h"
#include "store/window_store.h"

namespace gpufleet::detect {
namespace {

using testing::kT0;

Finding Make(std::string kind, std::string device) {
  Finding f;
  f.kind = kind;
  f.key = kind + "/" + device;
  f.devices = {device};
  if (kind == kKindMemoryContention) {
    f.estimated_slowdown = 0.2;
    f.slowdown_evidence = "slowdown 20% against its own previous 30 minutes";
  }
  if (kind == kKindCaptureTrigger) {
    f.capture_name = "low_utilization";
    f.capture_command = {"nsys", "profile"};
  }
  return f;
}

// Regression: in the README's main job six of seven incidents were capture
// triggers for GPUs that were simply idle.
TEST(ActionableTest, IdleDeviceOpensNothingAndItsTriggerStartsNothing) {
  WindowStore store(WindowStoreOptions{});
  EvalContext ctx{store, kT0, {}};
  ctx.workloads_by_device["n1/0"] = {"train-a"};
  std::vector<Finding> findings = {Make(kKindCaptureTrigger, "n1/1"),
                                   Make(kKindBaselineDeviation, "n1/1")};
  ActionableStats stats;
  KeepActionable(ctx, findings, stats);
  EXPECT_TRUE(findings.empty());
  EXPECT_EQ(stats.idle_device_findings, 2u);
}

TEST(ActionableTest, TriggerRidesOnTheIncidentOfItsDevice) {
  WindowStore store(WindowStoreOptions{});
  EvalContext ctx{store, kT0, {}};
  ctx.workloads_by_device["n1/0"] = {"train-a"};
  ctx.workloads_by_device["n1/2"] = {"train-b"};
  std::vector<Finding> findings = {Make(kKindCaptureTrigger, "n1/0"),
                                   Make(kKindMemoryContention, "n1/0"),
                                   Make(kKindCaptureTrigger, "n1/2")};
  ActionableStats stats;
  KeepActionable(ctx, findings, stats);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, "low_utilization");  // n1/2: a job that left its GPU idle
  EXPECT_EQ(findings[0].key, "low_utilization/n1/2");
  EXPECT_EQ(findings[1].kind, kKindMemoryContention);
  EXPECT_EQ(findings[1].capture_name, "low_utilization");
  EXPECT_EQ(findings[1].capture_command.size(), 2u);
  EXPECT_EQ(stats.captures_attached, 1u);
  EXPECT_EQ(stats.captures_as_incident, 1u);
}

TEST(ActionableTest, NodeWithoutAttributionKeepsItsFindings) {
  WindowStore store(WindowStoreOptions{});
  EvalContext ctx{store, kT0, {}};
  ctx.workloads_by_device["n1/0"] = {"train-a"};
  std::vector<Finding> findings = {Make(kKindMemoryContention, "n2/5")};
  ActionableStats stats;
  KeepActionable(ctx, findings, stats);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(stats.idle_device_findings, 0u);
}

// The field rule's conditions also describe a job memory-bound on its own at
// full speed: without a neighbour or a slowdown it is informational.
TEST(ActionableTest, ContentionNeedsANeighbourOrASlowdown) {
  WindowStore store(WindowStoreOptions{});
  EvalContext ctx{store, kT0, {}};
  ctx.workloads_by_device["n1/0"] = {"stream-solo"};
  ctx.workloads_by_device["n1/1"] = {"infer-a", "train-b"};
  ctx.workloads_by_device["n1/2/p1"] = {"mig-a"};
  ctx.workloads_by_device["n1/2/p2"] = {"mig-b"};
  std::vector<Finding> findings;
  for (const char* d : {"n1/0", "n1/1", "n1/2/p1"}) {
    Finding f = Make(kKindMemoryContention, d);
    f.estimated_slowdown = 0.01;
    f.slowdown_evidence.clear();
    findings.push_back(f);
  }
  Finding sustained = Make(kKindSustained, "n1/0");  // a second rule on the solo GPU
  findings.push_back(sustained);
  ActionableStats stats;
  KeepActionable(ctx, findings, stats);
  ASSERT_EQ(findings.size(), 4u);  // sorted by key
  EXPECT_EQ(findings[0].kind, kKindMemoryBound);
  EXPECT_EQ(findings[0].severity, "info");
  EXPECT_EQ(findings[0].rule, kKindMemoryContention);
  EXPECT_EQ(findings[0].key, "memory_bound/memory_contention/n1/0");
  EXPECT_EQ(findings[1].rule, kKindSustained);
  EXPECT_EQ(stats.memory_bound, 2u);
  EXPECT_NE(findings[2].summary.find("neighbour on the device: workloads infer-a, train-b"),
            std::string::npos)
      << findings[2].summary;
  EXPECT_NE(findings[3].summary.find("another partition of the GPU: n1/2/p2 (mig-b)"),
            std::string::npos)
      << findings[3].summary;
  ASSERT_FALSE(findings[3].evidence.empty());
  EXPECT_EQ(findings[3].evidence.back().series, "contention_evidence");
}

// A deviation from the learned baseline says something changed, not what:
// beside a finding that names the cause it is that finding's evidence; alone
// it is informational.
TEST(ActionableTest, BaselineDeviationIsEvidenceOrInformational) {
  WindowStore store(WindowStoreOptions{});
  EvalContext ctx{store, kT0, {}};
  ctx.workloads_by_device["n1/0"] = {"train-a"};
  ctx.workloads_by_device["n1/1"] = {"train-b"};
  auto deviation = [](const char* device) {
    Finding f = Make(kKindBaselineDeviation, device);
    f.severity = "warning";
    f.summary = "gpu_sm_active_ratio on " + std::string(device) + " -3.1 sigma from its baseline";
    Evidence e;
    e.series = "gpu_sm_active_ratio{gpu=\"0\",node=\"n1\"}";
    f.evidence.push_back(e);
    return f;
  };
  Finding contention = Make(kKindMemoryContention, "n1/0");
  contention.severity = "warning";
  std::vector<Finding> findings = {deviation("n1/0"), contention, deviation("n1/1")};
  ActionableStats stats;
  KeepActionable(ctx, findings, stats);
  ASSERT_EQ(findings.size(), 2u);  // sorted by key
  EXPECT_EQ(findings[0].kind, kKindBaselineDeviation);
  EXPECT_EQ(findings[0].devices[0], "n1/1");
  EXPECT_EQ(findings[0].severity, "info");
  EXPECT_EQ(findings[1].kind, kKindMemoryContention);
  bool carried = false;
  for (const Evidence& e : findings[1].evidence) carried |= e.series.starts_with("gpu_sm_active");
  EXPECT_TRUE(carried);
  EXPECT_EQ(stats.baseline_folded, 1u);
  EXPECT_EQ(stats.baseline_informational, 1u);
}

}  // namespace
}  // namespace gpufleet::detect
