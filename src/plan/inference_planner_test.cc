#include "plan/inference_planner.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpufleet::plan {
namespace {

const std::string kShared = std::string(GPUFLEET_SOURCE_DIR) + "/../shared";

// Hand-set coefficients (not fitted), so the test runs without ../shared.
LatencyTable Table(const std::vector<GpuType>& types) {
  LatencyTable t;
  for (const GpuType& g : types) {
    GpuLatency l;
    l.gpu_type = g.key;
    l.peaks = g.peaks;
    l.prefill.overhead_s = 0.02;
    l.prefill.compute_scale = 1.5;
    l.decode.overhead_s = 0.01;
    l.decode.memory_scale = 1.3;
    t.by_type[g.key] = l;
  }
  return t;
}

TEST(InferencePlannerTest, ChoosesAPlanWithinSloNoDearerThanAnySingleType) {
  std::vector<GpuType> types = {ResolveGpuType("a100-80gb").value(),
                                ResolveGpuType("h100").value()};
  LatencyTable table = Table(types);
  RequestTrace trace = SyntheticTrace(3, 120, 1500, 150, 2);
  InferenceRequest req;
  req.model = FindModel("llama2-70b").value();
  req.trace = &trace;
  req.types = types;
  req.table = &table;
  req.tps = {4, 8};
  auto plan = PlanInference(req);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(plan->has_plan) << plan->summary;
  EXPECT_TRUE(plan->chosen.result.ok);
  EXPECT_GE(plan->chosen.result.attainment, 0.99);
  EXPECT_LE(plan->chosen.result.usd_per_hour, plan->best_single_type.result.usd_per_hour);
  EXPECT_GT(plan->simulations, 4);
  // Re-simulating the chosen plan gives the same figures (deterministic).
  auto again = Simulate(trace, plan->chosen.config, req.slo, false);
  ASSERT_TRUE(again.ok());
  EXPECT_DOUBLE_EQ(again->attainment, plan->chosen.result.attainment);
  // One instance fewer on a colocated plan would miss the SLO (minimal count).
  if (!plan->best_single_type.config.disaggregated &&
      plan->best_single_type.config.prefill.count > 1) {
    ServingConfig less = plan->best_single_type.config;
    --less.prefill.count;
    auto r = Simulate(trace, less, req.slo, false);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->ok);
  }
  EXPECT_NE(plan->summary.find("per million tokens"), std::string::npos);
}

TEST(InferencePlannerTest, RejectsEmptyInputs) {
  InferenceRequest req;
  EXPECT_FALSE(PlanInference(req).ok());
  RequestTrace trace = SyntheticTrace(1, 10, 10, 10, 1);
  req.trace = &trace;
  EXPECT_FALSE(PlanInference(req).ok());
}

}  // namespace
}  // namespace gpufleet::plan
