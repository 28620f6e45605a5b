#include "plan/inference_planner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

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

// Llama-2-70B over `trace` on `types` at TP 4 and 8.
InferenceRequest Llama70B(const RequestTrace& trace, const std::vector<GpuType>& types,
                          const LatencyTable& table) {
  InferenceRequest req;
  req.model = FindModel("llama2-70b").value();
  req.trace = &trace;
  req.types = types;
  req.table = &table;
  req.tps = {4, 8};
  return req;
}

TEST(InferencePlannerTest, ChoosesAPlanWithinSloNoDearerThanAnySingleType) {
  std::vector<GpuType> types = {ResolveGpuType("a100-80gb").value(),
                                ResolveGpuType("h100").value()};
  LatencyTable table = Table(types);
  RequestTrace trace = SyntheticTrace(3, 120, 1500, 150, 2);
  InferenceRequest req = Llama70B(trace, types, table);
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

TEST(InferencePlannerTest, SearchingServingPoliciesKeepsTheCheapestOfTheirPlans) {
  std::vector<GpuType> types = {ResolveGpuType("a100-80gb").value(),
                                ResolveGpuType("h100").value()};
  LatencyTable table = Table(types);
  // Bursts of 3-9 prompts of mixed lengths every few seconds, where the
  // serving policy matters (a smooth Poisson load is served alike by all).
  RequestTrace trace;
  std::mt19937 rng(3);
  const int lengths[] = {300, 800, 2000, 4000, 7000};
  for (int b = 0; b < 40; ++b) {
    const int n = std::uniform_int_distribution<int>(3, 9)(rng);
    for (int k = 0; k < n; ++k) {
      trace.requests.push_back({b * 1.5 + 0.01 * k, lengths[rng() % 5],
                                std::uniform_int_distribution<int>(20, 200)(rng)});
    }
  }
  InferenceRequest req = Llama70B(trace, types, table);
  req.search_serving = true;
  req.prefill_batch_tokens = 1;  // given one prompt at a time: the search tries 8192 too
  auto plan = PlanInference(req);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(plan->has_plan) << plan->summary;
  // Admission x queue x {1, 8192} prompt tokens per prefill iteration.
  ASSERT_EQ(plan->trials.size(), 8u);
  EXPECT_FALSE(plan->trials[0].defer_late || plan->trials[0].shared_queue);
  EXPECT_EQ(plan->trials[0].prefill_batch_tokens, 1);
  EXPECT_EQ(plan->trials[1].prefill_batch_tokens, 8192);
  double least = 0, least_single = 0;
  const ServingTrial* cheapest = nullptr;
  for (const ServingTrial& t : plan->trials) {
    ASSERT_GT(t.chosen_usd_per_mtoken, 0);
    if (!cheapest || t.chosen_usd_per_mtoken < least) {
      cheapest = &t;
      least = t.chosen_usd_per_mtoken;
    }
    if (least_single == 0 || t.single_type_usd_per_mtoken < least_single)
      least_single = t.single_type_usd_per_mtoken;
  }
  EXPECT_DOUBLE_EQ(plan->chosen.result.usd_per_mtoken, least);
  EXPECT_DOUBLE_EQ(plan->best_single_type.result.usd_per_mtoken, least_single);
  // On these bursts the given policy is not the cheapest.
  EXPECT_LT(least, plan->trials[0].chosen_usd_per_mtoken);
  // A trial is the plain search under its policy: the same plan again.
  InferenceRequest one = req;
  one.search_serving = false;
  one.defer_late = cheapest->defer_late;
  one.shared_queue = cheapest->shared_queue;
  one.prefill_batch_tokens = cheapest->prefill_batch_tokens;
  auto alone = PlanInference(one);
  ASSERT_TRUE(alone.ok() && alone->has_plan);
  EXPECT_DOUBLE_EQ(alone->chosen.result.usd_per_mtoken, least);
  EXPECT_EQ(alone->chosen.Describe(), plan->chosen.Describe());
  EXPECT_TRUE(alone->trials.empty());
  // The chosen plan runs under its own policy.
  auto again = Simulate(trace, plan->chosen.config, req.slo, false);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->ok);
  EXPECT_EQ(plan->chosen.config.defer_late, cheapest->defer_late);
  EXPECT_EQ(plan->chosen.config.shared_queue, cheapest->shared_queue);
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
