#include "canary/ingest.h"

#include <gtest/gtest.h>

#include "canary/canary_test_util.h"
#include "canary/gate.h"
#include "canary/gate_format.h"

namespace gpufleet::canary {
namespace {

std::vector<std::string> Runs(const std::string& dir) {
  std::vector<std::string> out;
  for (int i = 1; i <= 3; ++i) {
    out.push_back(
        CanaryData("gate_example/" + dir + "/all_reduce_perf.run" + std::to_string(i) + ".txt"));
  }
  return out;
}

TEST(IngestTest, RecordedExampleGatesAsExpected) {
  HardwareTarget target;
  target.driver = "550.54.15";
  ParseReport report;
  StatusOr<std::vector<BenchmarkResult>> base =
      LoadResultFiles(Runs("baseline"), ResultFormat::kAuto, target, &report);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_EQ(report.skipped_lines, 0u);
  ASSERT_EQ(base->size(), 3u);
  EXPECT_EQ((*base)[1].values.size(), 6u);  // 3 files x (out-of-place, in-place)
  EXPECT_EQ((*base)[1].target.Key(), "model=h100-sxm;driver=550.54.15");

  InMemoryBaselineStore store;
  StatusOr<std::vector<Baseline>> set =
      SetBaselines(*base, store, &HardwareCatalog::Default(), false, 5);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->size(),
            2u);  // the pass/fail correctness check needs no baseline

  for (const auto& [dir, regressions] :
       {std::pair{"candidate_good", 0u}, std::pair{"candidate_slow", 2u}}) {
    ParseReport r;
    StatusOr<std::vector<BenchmarkResult>> run =
        LoadResultFiles(Runs(dir), ResultFormat::kAuto, target, &r);
    ASSERT_TRUE(run.ok());
    StatusOr<GateReport> gate = RunGate(*run, store, GatePolicy(), &HardwareCatalog::Default());
    ASSERT_TRUE(gate.ok());
    EXPECT_EQ(gate->Count(Verdict::kRegression), regressions) << dir << "\n"
                                                              << FormatGateTable(*gate);
    EXPECT_EQ(gate->Count(Verdict::kPass), 3u - regressions) << dir;
  }
}

TEST(IngestTest, RefusesImplausibleBaselineUnlessForced) {
  BenchmarkResult r;
  r.target.model = "h200-sxm";
  r.benchmark_id = "stream.triad";
  r.unit = "bytes_per_second";
  r.values = {2333e6};  // DCGM's H200 "minimum_bandwidth" read as MB/s
  r.source = "dcgm_diag_sku_thresholds.csv:112";
  InMemoryBaselineStore store;
  StatusOr<std::vector<Baseline>> set =
      SetBaselines({r}, store, &HardwareCatalog::Default(), false, 0);
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("dcgm_diag_sku_thresholds.csv:112"), std::string::npos);
  EXPECT_TRUE(store.ListBaselines()->empty()) << "nothing is written on refusal";
  EXPECT_TRUE(SetBaselines({r}, store, &HardwareCatalog::Default(), true, 0).ok());
}

TEST(IngestTest, MissingFileIsNamed) {
  ParseReport report;
  StatusOr<std::vector<BenchmarkResult>> r =
      LoadResultFiles({"/nonexistent/run.txt"}, ResultFormat::kAuto, {}, &report);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/run.txt"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::canary
