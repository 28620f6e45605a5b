#include "detect/variance_detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "detect/detect_config.h"
#include "detect/detect_test_util.h"

namespace gpufleet::detect {
namespace {

using testing::kS;
using testing::kT0;

std::vector<Finding> Detect(const std::function<double(int, std::mt19937_64&)>& step) {
  WindowStore store(WindowStoreOptions{});
  Labels l = testing::DeviceLabels("gpu_workload_step_duration_seconds", "0");
  l.Set("workload_name", "llm");
  l.Set("workload_team", "research");
  std::mt19937_64 rng(11);
  for (int i = 0; i < 400; ++i) store.Append(l, kT0 + i * kS, step(i, rng));
  VarianceDetector d(DefaultDetectConfig().variance);
  EvalContext ctx{store, kT0 + 400 * kS, {}};
  std::vector<Finding> out;
  d.Evaluate(ctx, out);
  return out;
}

TEST(VarianceDetectorTest, CleanStepsGiveNoFinding) {
  EXPECT_TRUE(Detect([](int, std::mt19937_64& r) {
                return 1.0 + std::normal_distribution<double>(0, 0.02)(r);
              }).empty());
}

TEST(VarianceDetectorTest, FlagsBimodalSteps) {
  auto found = Detect([](int i, std::mt19937_64& r) {
    return (i % 2 ? 1.0 : 1.6) + std::normal_distribution<double>(0, 0.02)(r);
  });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "variance");
  EXPECT_EQ(found[0].team, "research");
  EXPECT_NE(found[0].summary.find("bimodal"), std::string::npos) << found[0].summary;
}

TEST(VarianceDetectorTest, FlagsHeavyTail) {
  auto found = Detect([](int i, std::mt19937_64& r) {
    return (i % 25 == 0 ? 4.0 : 1.0) + std::normal_distribution<double>(0, 0.02)(r);
  });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary.find("heavy_tailed"), std::string::npos) << found[0].summary;
}

TEST(VarianceDetectorTest, StatisticsOfKnownSamples) {
  std::vector<double> xs;
  for (int i = 0; i < 400; ++i) xs.push_back(i % 2 ? 2 : 1);
  RepetitionStats s = ComputeRepetitionStats(xs);
  EXPECT_DOUBLE_EQ(s.mean, 1.5);
  EXPECT_NEAR(s.cv, 0.5006 / 1.5, 1e-3);  // sample sd of 200 ones and 200 twos
  EXPECT_GT(s.bimodality, 0.555);         // two equal modes
  EXPECT_EQ(ClassifyRepetition(VarianceConfig{}, s), "bimodal");
  // The same values as one level shift: the step-to-step deviation is small.
  std::sort(xs.begin(), xs.end());
  RepetitionStats shift = ComputeRepetitionStats(xs);
  EXPECT_NEAR(shift.cv, s.cv, 1e-12);
  EXPECT_LT(shift.cv_mssd, 0.05);
  EXPECT_EQ(ClassifyRepetition(VarianceConfig{}, shift), "clean");
}

}  // namespace
}  // namespace gpufleet::detect
