#include "canary/gate.h"

#include <gtest/gtest.h>

#include "canary/gate_format.h"

namespace gpufleet::canary {
namespace {

BenchmarkResult Result(std::vector<double> values, std::string unit = "bytes_per_second",
                       std::string model = "h100-sxm") {
  BenchmarkResult r;
  r.target.model = std::move(model);
  r.benchmark_id = unit == "seconds" ? "alloc.latency_p50@1048576" : "stream.triad";
  r.unit = std::move(unit);
  r.values = std::move(values);
  r.source = "test";
  return r;
}

Baseline BaselineOf(std::vector<double> values, std::string unit = "bytes_per_second") {
  return BaselineFromResult(Result(std::move(values), std::move(unit)), 0);
}

const HardwareCatalog* Catalog() { return &HardwareCatalog::Default(); }

TEST(GateTest, PassesWithinNoise) {
  Baseline b = BaselineOf({3.00e12, 3.01e12, 2.99e12, 3.00e12, 3.02e12});
  GateCheck c = EvaluateResult(Result({3.00e12, 2.99e12, 3.01e12, 3.00e12, 2.98e12}), &b,
                               GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kPass) << c.reason;
  EXPECT_EQ(c.baseline_n, 5u);
}

TEST(GateTest, FlagsClearRegression) {
  Baseline b = BaselineOf({3.00e12, 3.01e12, 2.99e12, 3.00e12, 3.02e12});
  GateCheck c = EvaluateResult(Result({2.80e12, 2.81e12, 2.79e12, 2.80e12, 2.82e12}), &b,
                               GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kRegression) << c.reason;
  ASSERT_TRUE(c.worse_fraction.has_value());
  EXPECT_NEAR(*c.worse_fraction, 0.0667, 0.001);
}

TEST(GateTest, LatencyIsLowerIsBetter) {
  Baseline b = BaselineOf({100e-6, 101e-6, 99e-6, 100e-6}, "seconds");
  GateCheck slower = EvaluateResult(Result({110e-6, 111e-6, 109e-6, 110e-6}, "seconds"), &b,
                                    GatePolicy(), Catalog());
  EXPECT_EQ(slower.verdict, Verdict::kRegression) << slower.reason;
  GateCheck faster =
      EvaluateResult(Result({90e-6, 91e-6, 89e-6, 90e-6}, "seconds"), &b, GatePolicy(), Catalog());
  EXPECT_EQ(faster.verdict, Verdict::kPass) << faster.reason;
  EXPECT_NE(faster.reason.find("better"), std::string::npos);
}

TEST(GateTest, TooNoisyIsInconclusive) {
  Baseline b = BaselineOf({3.00e12, 3.01e12, 2.99e12, 3.00e12, 3.02e12});
  GateCheck c =
      EvaluateResult(Result({3.0e12, 2.6e12, 3.2e12, 2.8e12, 3.3e12}), &b, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kInconclusive) << c.reason;
  EXPECT_NE(c.reason.find("noisy"), std::string::npos);
}

TEST(GateTest, TooFewRepetitionsIsInconclusive) {
  Baseline b = BaselineOf({3.00e12, 3.01e12, 2.99e12});
  GateCheck c = EvaluateResult(Result({3.0e12, 3.0e12}), &b, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kInconclusive);
  EXPECT_NE(c.reason.find("need 3"), std::string::npos);
}

TEST(GateTest, NoBaseline) {
  GateCheck c = EvaluateResult(Result({3.0e12, 3.0e12, 3.0e12}), nullptr, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kNoBaseline);
}

TEST(GateTest, AbovePeakIsInvalidNotPass) {
  // 5 TB/s on an H100 SXM (peak 3.35 TB/s): e.g. a MiB/MB mix-up or a wrong
  // column.
  Baseline b = BaselineOf({3.0e12, 3.0e12, 3.0e12});
  GateCheck c = EvaluateResult(Result({5e12, 5e12, 5e12}), &b, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kInvalid) << c.reason;
  EXPECT_NE(c.reason.find("above the hardware peak"), std::string::npos);
}

TEST(GateTest, ThousandTimesOffBaselineIsInvalid) {
  // Regression test after DCGM's H200 memory_bandwidth minimum (2333 "MB/s").
  Baseline b = BaselineOf({2.333e9, 2.333e9, 2.333e9});
  BenchmarkResult r = Result({4.3e12, 4.3e12, 4.3e12}, "bytes_per_second", "h200-sxm");
  b.target_key = r.target.Key();
  GateCheck c = EvaluateResult(r, &b, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kInvalid) << c.reason;
  EXPECT_NE(c.reason.find("baseline"), std::string::npos);
  EXPECT_NE(c.reason.find("1000x"), std::string::npos);
}

TEST(GateTest, UnknownModelSkipsMagnitudeCheck) {
  Baseline b = BaselineOf({4.3e11, 4.3e11, 4.3e11});
  GateCheck c = EvaluateResult(Result({4.3e11, 4.3e11, 4.3e11}, "bytes_per_second", "TITAN Xp"), &b,
                               GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kPass) << c.reason;
}

TEST(GateTest, PassFailResultsNeedNoBaseline) {
  BenchmarkResult r = Result({1, 0, 1}, "pass");
  r.benchmark_id = "dcgm.memory_bandwidth";
  r.note = "gpu 1: below minimum";
  GateCheck c = EvaluateResult(r, nullptr, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kFail);
  EXPECT_NE(c.reason.find("1 of 3 failed: gpu 1"), std::string::npos) << c.reason;
  r.values = {1, 1};
  EXPECT_EQ(EvaluateResult(r, nullptr, GatePolicy(), Catalog()).verdict, Verdict::kPass);
}

TEST(GateTest, UnitMismatchIsInvalid) {
  Baseline b = BaselineOf({1, 1, 1}, "seconds");
  GateCheck c = EvaluateResult(Result({3e12, 3e12, 3e12}), &b, GatePolicy(), Catalog());
  EXPECT_EQ(c.verdict, Verdict::kInvalid);
}

TEST(GateTest, RunGateLooksUpBaselinesAndExitPolicy) {
  InMemoryBaselineStore store;
  BenchmarkResult good = Result({3.0e12, 3.0e12, 3.0e12});
  ASSERT_TRUE(store.PutBaseline(BaselineFromResult(good, 1)).ok());
  BenchmarkResult unknown = good;
  unknown.benchmark_id = "stream.copy";
  StatusOr<GateReport> report = RunGate({good, unknown}, store, GatePolicy(), Catalog());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->checks.size(), 2u);
  EXPECT_EQ(report->Count(Verdict::kPass), 1u);
  EXPECT_EQ(report->Count(Verdict::kNoBaseline), 1u);
  EXPECT_FALSE(GateFailed(*report, ExitPolicy()));
  ExitPolicy strict;
  strict.fail_on_no_baseline = true;
  EXPECT_TRUE(GateFailed(*report, strict));

  std::string table = FormatGateTable(*report);
  EXPECT_NE(table.find("# target: model=h100-sxm"), std::string::npos) << table;
  EXPECT_NE(table.find("no_baseline"), std::string::npos);
  EXPECT_NE(table.find("summary: pass=1 regression=0"), std::string::npos) << table;
  std::string json = FormatGateJson(*report, false);
  EXPECT_NE(json.find("\"verdict\": \"pass\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"failed\": false"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::canary
