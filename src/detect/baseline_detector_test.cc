#include "detect/baseline_detector.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "detect/detect_test_util.h"
#include "detect/detection_engine.h"

namespace gpufleet::detect {
namespace {

using testing::Fill;
using testing::kS;
using testing::kT0;

BaselineConfig Config() {
  BaselineConfig c;
  c.metrics = {"gpu_sm_active_ratio"};
  c.for_ns = 600 * kS;
  c.min_samples = 100;
  return c;
}

// Noisy SM activity around 0.7 (sd 0.02), then `after` from `change_s` on.
void Feed(WindowStore& store, int to_s, int change_s, double after) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.02);
  Fill(store, "gpu_sm_active_ratio", "0", 0, to_s,
       [&](int t) { return (t >= change_s ? after : 0.7) + noise(rng); });
}

std::vector<Finding> Step(BaselineDetector& d, const WindowStore& store, int from_s, int to_s) {
  std::vector<Finding> out;
  for (int t = from_s; t < to_s; t += 10) {
    out.clear();
    EvalContext ctx{store, kT0 + t * kS, {}};
    d.Evaluate(ctx, out);
  }
  return out;
}

TEST(BaselineDetectorTest, LearnsThenFlagsASustainedDeviation) {
  WindowStore store(WindowStoreOptions{});
  Feed(store, 5400, 3600, 0.55);
  BaselineDetector d(Config(), 10 * kS);
  EXPECT_TRUE(Step(d, store, 0, 3600).empty());
  const Baseline* b = d.Find("model=h100-sxm/cloud=aws", "gpu_sm_active_ratio");
  ASSERT_NE(b, nullptr);
  EXPECT_NEAR(b->mean, 0.7, 0.01);
  EXPECT_NEAR(std::sqrt(b->variance()), 0.02, 0.005);
  // 0.55 is 7.5 sigma low: flagged once it lasted 10 minutes, not before.
  EXPECT_TRUE(Step(d, store, 3600, 4150).empty());
  auto found = Step(d, store, 4150, 4210);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "baseline_deviation");
  EXPECT_EQ(found[0].key, "baseline_deviation/gpu_sm_active_ratio/n1/0");
  EXPECT_LT(found[0].evidence[0].observed, found[0].evidence[0].threshold);
  // The anomaly was not learned into the baseline.
  EXPECT_NEAR(d.Find("model=h100-sxm/cloud=aws", "gpu_sm_active_ratio")->mean, 0.7, 0.01);
}

TEST(BaselineDetectorTest, CleanNoiseGivesNoFinding) {
  WindowStore store(WindowStoreOptions{});
  Feed(store, 7200, 1 << 30, 0);
  BaselineDetector d(Config(), 10 * kS);
  for (int t = 0; t < 7200; t += 10) {
    std::vector<Finding> out;
    EvalContext ctx{store, kT0 + t * kS, {}};
    d.Evaluate(ctx, out);
    ASSERT_TRUE(out.empty()) << t;
  }
}

TEST(BaselineDetectorTest, BaselinesSurviveARestartInSqlite) {
  const std::string path = ::testing::TempDir() + "/detect_baselines_test.db";
  std::filesystem::remove(path);
  DetectConfig config;
  config.baseline = Config();
  WindowStore store(WindowStoreOptions{});
  Feed(store, 5400, 3600, 0.55);
  {
    auto db = OpenSqliteBaselineStore(path);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto engine = DetectionEngine::Create(config, db->get());
    ASSERT_TRUE(engine.ok());
    for (int t = 0; t < 3600; t += 10) (*engine)->Evaluate(store, kT0 + t * kS);
    ASSERT_TRUE((*engine)->FlushBaselines().ok());
  }
  auto db = OpenSqliteBaselineStore(path);
  ASSERT_TRUE(db.ok());
  auto rows = (*db)->LoadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_GE((*rows)[0].count, 300);
  // A fresh engine on the reopened store alerts without relearning: it sees
  // only the deviating window.
  WindowStore late(WindowStoreOptions{});
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.02);
  Fill(late, "gpu_sm_active_ratio", "0", 4000, 4700, [&](int) { return 0.55 + noise(rng); });
  auto engine = DetectionEngine::Create(config, db->get());
  ASSERT_TRUE(engine.ok());
  auto found = (*engine)->Evaluate(late, kT0 + 4690 * kS);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "baseline_deviation");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpufleet::detect
