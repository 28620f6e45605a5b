#include "place/advise.h"

#include <gtest/gtest.h>

namespace gpufleet::place {
namespace {

// Job type J runs 1 / 2 / 4 steps/s on k80 / p100 / v100; K runs 1 step/s
// everywhere (it gains nothing from a faster part). Measured values only.
GavelThroughputs Table() {
  return GavelThroughputs::FromTable({"k80", "p100", "v100"}, {{"J", 1}, {"K", 1}, {"L", 1}},
                                     {{1, 2, 4}, {1, 1, 1}, {2, 3, 5}});
}

FreeCapacity Free(std::string node, std::string model, std::string cloud, std::string region,
                  int gpus, double price) {
  FreeCapacity c;
  c.node = std::move(node);
  c.gpu_model = std::move(model);
  c.cloud = std::move(cloud);
  c.region = std::move(region);
  c.free_gpus = gpus;
  c.usd_per_gpu_hour = price;
  c.price_source = "test";
  return c;
}

RunningJob Job(std::string name, std::string type, std::string node, std::string model,
               double price, double steps) {
  RunningJob j;
  j.name = std::move(name);
  j.job_type = std::move(type);
  j.node = std::move(node);
  j.gpu_model = std::move(model);
  j.usd_per_gpu_hour = price;
  j.remaining_steps = steps;
  j.checkpoint_minutes = 6;
  j.startup_minutes = 3;
  return j;
}

// A move's figures: hours and dollars to finish now and after (migration
// included), and the speed-up.
void ExpectFigures(const Move& m, double hours_now, double usd_now, double hours_after,
                   double usd_after, double speedup) {
  EXPECT_NEAR(m.hours_now, hours_now, 1e-9);
  EXPECT_NEAR(m.usd_now, usd_now, 1e-9);
  EXPECT_NEAR(m.hours_after, hours_after, 1e-9);
  EXPECT_NEAR(m.usd_after, usd_after, 1e-9);
  EXPECT_NEAR(m.speedup, speedup, 1e-9);
}

TEST(AdviseTest, HandWorkedFleet) {
  // train: J on a p100 at $1/h losing half its time to contention: 1 step/s
  // effective, 36,000 steps = 10 h and $10 to finish. On the free v100 at
  // $2/h: 9 minutes of migration at $2/h = $0.30, then 2.5 h = $5.00; 2.65 h
  // and $5.30 in all: 300% faster (4 vs 1 step/s), $4.70 cheaper.
  RunningJob train = Job("train", "J", "p-1", "p100-pcie", 1.0, 36000);
  train.contention_loss = 0.5;
  // train2: J on a p100 at $1.50/h, uncontended: 5 h and $7.50; the v100
  // would save $2.20, less than train's $4.70, so train gets the one v100.
  RunningJob train2 = Job("train2", "J", "p-2", "p100-pcie", 1.5, 36000);
  // flat: K on a v100 at $2/h: the cheaper p100 is no faster and the move
  // adds 9 minutes, so it stays.
  RunningJob flat = Job("flat", "K", "v-0", "v100-sxm-16gb", 2.0, 3600);
  RunningJob unknown = Job("mystery", "Nope", "v-0", "v100-sxm-16gb", 2.0, 3600);
  std::vector<FreeCapacity> free = {
      Free("v-1", "v100-sxm-16gb", "gcp", "us-central1", 1, 2.0),
      Free("k-1", "k80", "gcp", "us-central1", 4, 0.1),  // cheap but 4x slower than v100
      // For train: 5 h + 9 min at $1.20 = $6.18, a smaller saving than the v100's.
      Free("p-3", "p100-pcie", "gcp", "us-central1", 1, 1.2),
  };
  StatusOr<Advice> a = AdviseMoves(Table(), {train2, train, flat, unknown}, free);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  const Move& m = a->moves[0];
  EXPECT_EQ(m.job, "train");
  EXPECT_EQ(m.to_node, "v-1");
  ExpectFigures(m, 10.0, 10.0, 2.65, 5.30, 3.0);
  EXPECT_NEAR(m.migration_usd, 0.30, 1e-9);
  EXPECT_FALSE(m.predicted);
  EXPECT_EQ(m.sentence.rfind("move train from p-1 (p100-pcie) to v-1 (v100-sxm-16gb): 300% faster, "
                             "$5 cheaper to finish",
                             0),
            0u)
      << m.sentence;
  EXPECT_NE(m.sentence.find("9 minutes of checkpoint, restore and start-up ($0.30, counted)"),
            std::string::npos)
      << m.sentence;
  // train2's only paying move (v-1) went to train; p-3 is its own model at
  // the same speed plus a migration: not worth it.
  ASSERT_EQ(a->stays.size(), 2u) << AdviceText(*a);
  EXPECT_NE(a->stays[0].find("flat: stays"), std::string::npos) << a->stays[0];
  EXPECT_NE(a->stays[1].find("train2: stays (the free capacity that would pay is taken"),
            std::string::npos)
      << a->stays[1];
  ASSERT_EQ(a->skipped.size(), 1u);
  EXPECT_NE(a->skipped[0].find("mystery: job_type \"Nope\""), std::string::npos);
}

TEST(AdviseTest, ATargetsCanaryRegressionIsCounted) {
  // train as in the hand-worked fleet: 1 step/s effective on its p100, 10 h
  // and $10 to finish. The free v100's node ran its canary with a benchmark
  // at 0.9 of its baseline: 4 x 0.9 = 3.6 steps/s there, 2.78 h + 9 minutes
  // and $5.86, still the best move (the free p100 at $1.20: $6.18). At 0.5 of
  // its baseline (2 steps/s, $10.30) the v100 no longer pays and the p100
  // wins; a failed diagnostic takes the v100 out altogether.
  RunningJob train = Job("train", "J", "p-1", "p100-pcie", 1.0, 36000);
  train.contention_loss = 0.5;
  train.canary.note = "stream.triad at 0.97 of its baseline (canary run 3)";
  std::vector<FreeCapacity> free = {Free("v-1", "v100-sxm-16gb", "gcp", "us", 1, 2.0),
                                    Free("p-3", "p100-pcie", "gcp", "us", 1, 1.2)};
  free[0].canary.factor = 0.9;
  free[0].canary.note = "gemm.fp32@8192 at 0.90 of its baseline (canary run 7)";
  StatusOr<Advice> a = AdviseMoves(Table(), {train}, free);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  EXPECT_EQ(a->moves[0].to_node, "v-1");
  ExpectFigures(a->moves[0], 10.0, 10.0, 36000 / 3.6 / 3600 + 0.15, 0.30 + 36000 / 3.6 / 3600 * 2,
                2.6);
  EXPECT_NE(
      a->moves[0].sentence.find(
          "the target's canary: gemm.fp32@8192 at 0.90 of its baseline (canary run 7), counted"),
      std::string::npos)
      << a->moves[0].sentence;
  EXPECT_NE(a->moves[0].sentence.find("its node's canary: stream.triad"), std::string::npos)
      << a->moves[0].sentence;

  free[0].canary.factor = 0.5;
  a = AdviseMoves(Table(), {train}, free);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  EXPECT_EQ(a->moves[0].to_node, "p-3");
  EXPECT_TRUE(a->moves[0].target_canary.empty());

  free[0].canary.factor = 1;
  free[0].canary.failed_diagnostic = true;
  free[0].canary.note = "dcgm.diag.memory failed (canary run 8)";
  a = AdviseMoves(Table(), {train}, free);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  EXPECT_EQ(a->moves[0].to_node, "p-3");
  // With only the failed node free, the job stays and the advice says why.
  a = AdviseMoves(Table(), {train}, {free[0]});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->moves.empty()) << AdviceText(*a);
  ASSERT_EQ(a->stays.size(), 1u);
  EXPECT_NE(a->stays[0].find("no other node has 1 free, priced whole GPUs; v-1 is no target: "
                             "dcgm.diag.memory failed (canary run 8)"),
            std::string::npos)
      << a->stays[0];
}

TEST(AdviseTest, MigrationCostCanOutweighTheSaving) {
  // J on a p100 at $1/h: 100 s of work left (0.028 h, $0.03). The v100 halves
  // the run but 9 minutes of migration cost more time and money than that.
  RunningJob j = Job("short", "J", "p-1", "p100-pcie", 1.0, 200);
  StatusOr<Advice> a =
      AdviseMoves(Table(), {j}, {Free("v-1", "v100-sxm-16gb", "gcp", "us", 1, 1.0)});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->moves.empty());
  ASSERT_EQ(a->stays.size(), 1u);
  EXPECT_NE(a->stays[0].find("9 minutes"), std::string::npos);
}

TEST(AdviseTest, PredictedThroughputSaysSo) {
  // A GPU model outside the table (H100) is predicted from catalog peaks.
  RunningJob j = Job("big", "L", "k-1", "k80", 0.5, 360000);
  StatusOr<Advice> a =
      AdviseMoves(Table(), {j}, {Free("h-1", "H100-SXM", "aws", "us-east-1", 8, 0.5)});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  EXPECT_TRUE(a->moves[0].predicted);
  EXPECT_NE(a->moves[0].sentence.find("throughput predicted"), std::string::npos);
}

TEST(AdviseTest, MeasuredStepTimesSetTheCurrentRate) {
  // train: J on a p100 at $1/h that reports a median step of 0.8 s (1.25
  // steps/s as it runs; the table alone would say 2 x (1 - 0.5) = 1) while
  // the ledger says it loses half its GPU time to contention. 36,000 steps:
  // 8 h and $8 to finish. Without the contention it would run 2.5 steps/s on
  // its p100; the table's v100 / p100 ratio (4 / 2) makes that 5 steps/s on
  // the free v100 at $2/h: 2 h + 9 minutes of migration ($0.30), 2.15 h and
  // $4.30 in all, 300% faster. The free p100 at $1.20/h (same model, ratio
  // 1): 4 h + 9 min, $4.98; a smaller saving.
  RunningJob train = Job("train", "J", "p-1", "p100-pcie", 1.0, 36000);
  train.contention_loss = 0.5;
  train.measured_step_s = 0.8;
  train.step_samples = 40;
  StatusOr<Advice> a = AdviseMoves(Table(), {train},
                                   {Free("p-3", "p100-pcie", "gcp", "us-central1", 1, 1.2),
                                    Free("v-1", "v100-sxm-16gb", "gcp", "us-central1", 1, 2.0)});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  const Move& m = a->moves[0];
  EXPECT_EQ(m.to_node, "v-1");
  ExpectFigures(m, 8.0, 8.0, 2.15, 4.30, 3.0);
  EXPECT_TRUE(m.measured_now);
  EXPECT_FALSE(m.predicted);  // both of the ratio's figures are Gavel's measurements
  EXPECT_NE(
      m.sentence.find(
          "current throughput measured (median step 0.8 s over 40 samples of its step reports)"),
      std::string::npos)
      << m.sentence;
  EXPECT_NE(AdviceJson(*a).find("\"measured_step_s\": 0.8"), std::string::npos) << AdviceJson(*a);
}

TEST(AdviseTest, SameModelWithMeasuredStepsNeedsNoPrediction) {
  // L on an H100 (outside Gavel's table: predicted) at $4/h, measured 0.1 s
  // per step while losing 20% to contention: 360,000 steps = 10 h, $40 (8
  // GPUs: $320). The same model free elsewhere at $2/h runs it uncontended
  // at 0.08 s per step: 8 h + 9 minutes, no model involved, so nothing in
  // the comparison is a prediction. Another model would need the ratio.
  RunningJob j = Job("big", "L", "h-0", "H100-SXM", 4.0, 360000);
  j.gpus = 8;
  j.contention_loss = 0.2;
  j.measured_step_s = 0.1;
  j.step_samples = 60;
  StatusOr<Advice> a =
      AdviseMoves(Table(), {j}, {Free("h-1", "H100-SXM", "aws", "us-east-1", 8, 2.0)});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->moves.size(), 1u) << AdviceText(*a);
  EXPECT_NEAR(a->moves[0].hours_now, 10.0, 1e-9);
  EXPECT_NEAR(a->moves[0].hours_after, 8.15, 1e-9);
  EXPECT_NEAR(a->moves[0].speedup, 0.25, 1e-9);
  EXPECT_FALSE(a->moves[0].predicted);
  EXPECT_EQ(a->moves[0].typical_relative_error, 0);
  EXPECT_EQ(a->moves[0].sentence.find("predicted"), std::string::npos) << a->moves[0].sentence;

  // The same job measured on a v100, moving to the H100: the ratio between
  // the two models is a prediction, and the sentence says which part.
  j.node = "v-0";
  j.gpu_model = "v100-sxm-16gb";
  StatusOr<Advice> other =
      AdviseMoves(Table(), {j}, {Free("h-1", "H100-SXM", "aws", "us", 8, 2.0)});
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->moves.size(), 1u) << AdviceText(*other);
  EXPECT_TRUE(other->moves[0].predicted);
  EXPECT_GT(other->moves[0].typical_relative_error, 0);
  const std::string& said = other->moves[0].sentence;
  EXPECT_NE(said.find("the ratio between the two GPU models predicted, typically off by "),
            std::string::npos)
      << said;
  EXPECT_EQ(said.back(), '%') << said;
}

}  // namespace
}  // namespace gpufleet::place
