#include "detect/detect_eval.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace gpufleet::detect {
namespace {

// A short evaluation (the full one is `gpufleet sim detect`, see
// docs/detection.md); it must meet the goals of issue 3 on every kind.
TEST(DetectEvalTest, ShortEvaluationMeetsTheGoals) {
  EvalOptions options;
  options.gpu_days = 16;
  options.clean_gpu_days = 16;
  options.seed = 5;
  auto report = RunDetectionEval(DefaultDetectConfig(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::printf("%s", FormatEvalReport(*report).c_str());
  for (const char* kind : {"memory_pressure", "bandwidth_saturation", "coherency", "variance",
                           "cloud_specific", "idle"}) {
    const KindQuality* k = report->Find(kind);
    ASSERT_NE(k, nullptr) << kind;
    EXPECT_GT(k->episodes, 0) << kind;
    EXPECT_GE(k->recall(), 0.95) << kind;
    EXPECT_GE(k->precision(), 0.95) << kind;
    // Latency within the firing rule's window + 2 intervals. Not all: an
    // episode whose occupancy hovers at the 0.5 threshold meets the 2m rule
    // only minutes in (docs/detection.md, "Measured quality").
    EXPECT_GE(k->within_bound, 0.9 * k->detected) << kind;
  }
  const KindQuality* unclassified = report->Find("unclassified");
  EXPECT_TRUE(unclassified == nullptr || unclassified->incidents == 0);
  EXPECT_LT(report->false_per_100_gpu_days(), 1.0);
}

}  // namespace
}  // namespace gpufleet::detect
