#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "place/gavel_colocation_model.h"
#include "place/gavel_data.h"
#include "place/gavel_throughput_model.h"

namespace gpufleet::place {
namespace {

std::string GavelDir() { return std::string(GPUFLEET_SOURCE_DIR) + "/../shared/traces/gavel"; }

TEST(GavelDataTest, ParsesJobKeys) {
  auto k = ParseGavelJobKey("('ResNet-18 (batch size 16)', 1)");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->name, "ResNet-18 (batch size 16)");
  EXPECT_EQ(k->scale_factor, 1);
  EXPECT_EQ(k->Family(), "ResNet-18");
  EXPECT_FALSE(ParseGavelJobKey("('A3C', 0)").ok());
  EXPECT_FALSE(ParseGavelJobKey("('A3C', x)").ok());
  EXPECT_FALSE(ParseGavelJobKey("A3C, 1").ok());
  EXPECT_FALSE(ParseGavelJobKey("('', 1)").ok());
}

TEST(GavelDataTest, ParsesIsolatedAndPairsAndNamesBadKeys) {
  const char* json = R"J({"k80": {"('A3C', 1)": {"null": 3.0, "('A3C', 1)": [1.5, 1.5],
                                                   "('LM', 1)": [1.0, 2.0]},
                                   "('LM', 1)": {"null": 6.0}},
                          "k80_unconsolidated": {"('A3C', 1)": {"null": 3.0}}})J";
  auto t = ParseGavelThroughputs(json, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->num_workers(), 1);
  EXPECT_EQ(t->skipped_workers(), 1);
  const int a = t->FindJobType("A3C", 1), lm = t->FindJobType("LM", 1);
  ASSERT_GE(a, 0);
  ASSERT_GE(lm, 0);
  EXPECT_DOUBLE_EQ(t->Isolated(a, 0), 3.0);
  EXPECT_DOUBLE_EQ(t->Colocated(0, a, lm).other_steps_per_s, 2.0);
  EXPECT_FALSE(t->Colocated(0, lm, a).measured);

  auto bad = ParseGavelThroughputs(R"J({"k80": {"('A3C', 1)": {"null": -1}}})J", "t.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.json: k80[('A3C', 1)][null]"), std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(ParseGavelThroughputs("{", "t.json").ok());
  EXPECT_FALSE(ParseGavelThroughputs(R"J({"k80": {"('A3C', 1)": {"('B', 1)": [1]}}})J", "t").ok());
}

// Jobs whose step time is exactly a/F + b/B: the roofline recovers a held-out worker.
TEST(GavelThroughputModelTest, RooflineRecoversAnExactRoofline) {
  const std::vector<WorkerPeaks> peaks = {{4e12, 240e9}, {9e12, 700e9}, {16e12, 900e9}};
  const auto tput = [&](double a, double b, int w) {
    return 1.0 / (a * 1e12 / peaks[w].peak_fp32_flops + b * 1e9 / peaks[w].memory_bandwidth_bytes_per_s);
  };
  // A purely compute-bound job (b = 0) is determined by any two workers.
  auto t = GavelThroughputs::FromTable({"x", "y", "z"}, {{"c", 1}},
                                       {{tput(0.5, 0, 0), tput(0.5, 0, 1), tput(0.5, 0, 2)}});
  ThroughputModel m(&t, peaks);
  for (int w = 0; w < 3; ++w) {
    EXPECT_NEAR(m.Roofline(0, w).steps_per_s, t.Isolated(0, w), 1e-9 * t.Isolated(0, w));
  }
}

// Two jobs with identical scaling: the neighbour prediction is the other's ratio.
TEST(GavelThroughputModelTest, NeighboursCarryTheRatioOfSimilarJobs) {
  auto t = GavelThroughputs::FromTable({"x", "y", "z"}, {{"a", 1}, {"b", 1}, {"c", 1}},
                                       {{1, 2, 6}, {10, 20, 60}, {5, 5, 5}});
  ThroughputModel m(&t, {{4e12, 240e9}, {9e12, 700e9}, {16e12, 900e9}}, /*neighbours=*/1);
  const ThroughputEstimate e = m.PredictHeldOut(0, 2);
  EXPECT_EQ(e.basis, ThroughputBasis::kNeighbours);
  EXPECT_NEAR(e.steps_per_s, 6.0, 1e-9);
  EXPECT_EQ(m.Estimate(0, 2).basis, ThroughputBasis::kMeasured);
}

TEST(GavelColocationModelTest, StandInsGiveTheirPairs) {
  auto t = GavelThroughputs::FromTable({"x", "y"}, {{"a", 1}, {"a2", 1}, {"b", 1}},
                                       {{1, 2}, {1, 2.1}, {4, 4}});
  // a2 behaves like a; its pair with b on worker 0 keeps 0.6 and 0.7.
  t.SetColocated(0, 1, 2, 0.6, 2.8);
  t.SetColocated(0, 2, 1, 2.8, 0.6);
  ColocationModel m(&t, 1);
  const ColocationEstimate e = m.Predict(0, 0, 2, /*unknown=*/0);
  ASSERT_TRUE(e.feasible);
  EXPECT_TRUE(e.predicted);
  EXPECT_NEAR(e.self_norm, 0.6, 1e-9);
  EXPECT_NEAR(e.other_norm, 0.7, 1e-9);
  EXPECT_FALSE(m.Predict(1, 0, 2, 0).feasible);  // nothing measured on worker 1
}

TEST(GavelColocationModelTest, PredictedPairTableIgnoresEachPairsOwnMeasurement) {
  // Three job types with the same profile. Every pair among a, b and itself
  // keeps 0.6, except (a, b), measured at 0.9; every pair with c is out of
  // memory (0).
  auto t = GavelThroughputs::FromTable({"x", "y"}, {{"a", 1}, {"b", 1}, {"c", 1}},
                                       {{1, 2}, {1, 2}, {1, 2}});
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const double keep = (i == 2 || j == 2) ? 0.0 : (i + j == 1 ? 0.9 : 0.6);
      t.SetColocated(0, i, j, keep, keep);
    }
  }
  ColocationModel m(&t, 2);
  const GavelThroughputs p = WithPredictedPairs(t, m);
  // (a, b) comes from the stand-ins' pairs (0.6), not its own 0.9.
  EXPECT_NEAR(p.Colocated(0, 0, 1).self_steps_per_s, 0.6, 1e-9);
  EXPECT_NEAR(p.Colocated(0, 1, 0).other_steps_per_s, 0.6, 1e-9);
  // (a, c): a's stand-ins (b, c) are out of memory with c; c's stand-ins
  // (a, b) say a keeps 0.6-0.9. Both held-out predictions must say feasible.
  EXPECT_EQ(p.Colocated(0, 0, 2).self_steps_per_s, 0.0);
  EXPECT_TRUE(p.Colocated(0, 0, 2).measured);
  EXPECT_FALSE(p.Colocated(1, 0, 1).measured);  // nothing measured on y stays so
  EXPECT_EQ(p.Isolated(0, 1), 2.0);
}

TEST(GavelColocationModelTest, AJobThatCannotRunAloneCannotShareEither) {
  // As --cannot-run leaves it (WithoutRuns): a's runs and pairs on x are
  // zero. Its stand-ins' pairs on x are feasible, but a predicted pair with
  // a on x must stay infeasible on both sides, not a at 0 beside b running.
  auto t = GavelThroughputs::FromTable({"x", "y"}, {{"a", 1}, {"b", 1}, {"c", 1}},
                                       {{1, 2}, {1, 2}, {1, 2}});
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) t.SetColocated(0, i, j, 0.6, 0.6);
  }
  t.SetIsolated(0, 0, 0);
  for (int j = 0; j < 3; ++j) {
    t.SetColocated(0, 0, j, 0, 0);
    t.SetColocated(0, j, 0, 0, 0);
  }
  ColocationModel m(&t, 2);
  const GavelThroughputs p = WithPredictedPairs(t, m);
  for (int j = 1; j < 3; ++j) {
    EXPECT_EQ(p.Colocated(0, 0, j).self_steps_per_s, 0.0) << j;
    EXPECT_EQ(p.Colocated(0, 0, j).other_steps_per_s, 0.0) << j;
    EXPECT_EQ(p.Colocated(0, j, 0).self_steps_per_s, 0.0) << j;
  }
  EXPECT_NEAR(p.Colocated(0, 1, 2).self_steps_per_s, 0.6, 1e-9);  // b and c still share
}

// The figures in docs/scheduling.md: leave-one-out on Gavel's own table.
TEST(GavelModelValidationTest, PredictsGavelThroughputsAndPairs) {
  const std::string path = GavelDir() + "/simulation_throughputs.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent (../shared not beside the clone)J";
  auto table = LoadGavelThroughputs(path);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->num_workers(), 3);
  auto peaks = GavelWorkerPeaks(*table);
  ASSERT_TRUE(peaks.ok()) << peaks.status().ToString();
  ThroughputModel tm(&*table, *peaks);
  for (int sf : {1, 2, 4, 8}) {
    const ThroughputValidation v = ValidateThroughputModel(tm, *table, sf);
    std::printf("throughput sf=%d n=%d median rel error: neighbours %.3f (k80 %.3f p100 %.3f "
                "v100 %.3f), roofline %.3f\n",
                sf, v.predictions, v.neighbours_median, v.neighbours_median_by_worker[0],
                v.neighbours_median_by_worker[1], v.neighbours_median_by_worker[2],
                v.roofline_median);
    if (sf == 1) {
      EXPECT_EQ(v.predictions, 26 * 3);
      EXPECT_LE(v.neighbours_median, 0.15);  // the issue's goal
      EXPECT_LT(v.neighbours_median, v.roofline_median);
    }
  }
  ColocationModel cm(&*table);
  const ColocationValidation c = ValidateColocationModel(cm, *table, 1);
  std::printf("co-location sf=1 n=%d median abs error %.4f (k80 %.4f p100 %.4f v100 %.4f), "
              "mean-of-others baseline %.4f, infeasible pairs %d, feasibility wrong %d\n",
              c.predictions, c.median_abs_error, c.median_abs_error_by_worker[0],
              c.median_abs_error_by_worker[1], c.median_abs_error_by_worker[2],
              c.baseline_median_abs_error, c.infeasible_pairs, c.feasibility_wrong);
  EXPECT_LE(c.median_abs_error, 0.05);  // the issue's goal
  EXPECT_LT(c.median_abs_error, c.baseline_median_abs_error);
}

}  // namespace
}  // namespace gpufleet::place
