// A small evaluation that the sanitizer pass can afford: the engine, the
// simulator and the incident matching run end to end on 3 GPU-days and one
// clean GPU-day. The quality goals are checked on 32 GPU-days in
// detect_eval_test (optimized build only).
#include <gtest/gtest.h>

#include "detect/detect_eval.h"

namespace gpufleet::detect {
namespace {

TEST(DetectEvalSmokeTest, ThreeGpuDaysDetectWhatWasInjected) {
  EvalOptions options;
  options.gpu_days = 3;
  options.clean_gpu_days = 1;
  options.seed = 5;
  auto report = RunDetectionEval(DefaultDetectConfig(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  int episodes = 0;
  int detected = 0;
  for (const KindQuality& k : report->kinds) {
    episodes += k.episodes;
    detected += k.detected;
    EXPECT_LE(k.detected, k.episodes) << k.kind;
    EXPECT_LE(k.true_incidents, k.incidents) << k.kind;
  }
  EXPECT_GT(episodes, 0);
  EXPECT_GE(detected, episodes * 9 / 10);
  EXPECT_EQ(report->clean_false_incidents, 0);
  EXPECT_NE(FormatEvalReport(*report).find("| "), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::detect
