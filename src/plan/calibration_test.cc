#include "plan/calibration.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "plan/gpu_type.h"

namespace gpufleet::plan {
namespace {

const std::string kShared = std::string(GPUFLEET_SOURCE_DIR) + "/../shared";

TEST(CalibrationDataTest, SplitwiseRowsGroupedByConfiguration) {
  // The first rows of perf_model.csv (two repeats of one configuration).
  const std::string csv =
      "model,hardware,prompt_size,batch_size,token_size,peak_power,average_power,prompt_time,"
      "token_time,e2e_time,tensor_parallel\r\n"
      "llama2-70b,a100-80gb,512,1,128,1.0000125,0.73599375,196.2532191537321,54.87951193752838,"
      "7168.983697891235,2\r\n"
      "llama2-70b,a100-80gb,512,1,128,1.0000125,0.73599375,195.56166394613683,54.85629275859165,"
      "7165.2703285217285,2\r\n";
  int skipped = 0;
  auto pts = ParseSplitwise(csv, "perf_model.csv", &skipped);
  ASSERT_TRUE(pts.ok()) << pts.status().ToString();
  ASSERT_EQ(pts->size(), 2u);  // one prefill, one decode
  EXPECT_EQ((*pts)[0].phase, "prefill");
  EXPECT_NEAR((*pts)[0].measured_s, (196.2532191537321 + 195.56166394613683) / 2000, 1e-12);
  EXPECT_EQ((*pts)[1].gpu_type, "a100-80gb");
}

TEST(CalibrationDataTest, BadRowsNameFileLineAndField) {
  int skipped = 0;
  auto r = ParseSplitwise(
      "model,hardware,prompt_size,batch_size,token_size,peak_power,average_power,prompt_time,"
      "token_time,e2e_time,tensor_parallel\nllama2-70b,a100-80gb,x,1,128,1,1,1,1,1,2\n",
      "p.csv", &skipped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("p.csv:2: field 'prompt_size'"), std::string::npos)
      << r.status().ToString();
  // A size beyond int (the fuzzer's find): an error naming the row, not a cast.
  r = ParseSplitwise(
      "model,hardware,prompt_size,batch_size,token_size,peak_power,average_power,prompt_time,"
      "token_time,e2e_time,tensor_parallel\nllama2-70b,a100-80gb,2e40,1,128,1,1,1,1,1,2\n",
      "p.csv", &skipped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("p.csv:2: field 'row'"), std::string::npos)
      << r.status().ToString();
  auto m = ParseLlmCompassMatmul("64, 12288, 12288, 0.19s, 1Tflops\n", "mm.csv", "mi210");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("mm.csv:1: field 'latency'"), std::string::npos);
  EXPECT_FALSE(ParseDstack("gpu,oops\n", "d.csv", &skipped).ok());
  EXPECT_FALSE(ParseDistServe("[1,2]", "d.json").ok());
  EXPECT_FALSE(
      ParseDistServe("{\"facebook/opt-13b\": {\"1\": {\"prefill\": [1]}}}", "d.json").ok());
}

// The calibration goal of issue 18: the median leave-one-configuration-out
// error of every data set within 10%. Prints the table docs/plan.md quotes.
TEST(CalibrationTest, LeaveOneConfigurationOutErrorPerDataSet) {
  if (!std::filesystem::exists(kShared + "/traces/splitwise-sim/perf_model.csv")) {
    GTEST_SKIP() << "calibration data not found at " << kShared
                 << "/traces (../shared is not beside the clone)";
  }
  auto data = LoadCalibrationData(kShared);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_TRUE(data->missing.empty());
  std::vector<LooError> errs = LeaveOneConfigOut(data->points);
  int datasets = 0;
  for (const LooError& e : errs) {
    std::printf("%-10s %-10s %-8s n=%4d median %5.1f%% p90 %5.1f%%%s\n", e.dataset.c_str(),
                e.gpu_type.empty() ? "(all)" : e.gpu_type.c_str(),
                e.phase.empty() ? "(all)" : e.phase.c_str(), e.points, 100 * e.median_rel_error,
                100 * e.p90_rel_error, e.derived ? " derived" : "");
    if (e.dataset == "splitwise" && e.phase == "prefill") {
      // Short of the 10% goal on its own: the achieved bound, documented in
      // docs/plan.md (batched prefills cost more per token than one prompt).
      EXPECT_LE(e.median_rel_error, 0.13) << e.gpu_type;
    }
    if (!e.gpu_type.empty()) continue;
    ++datasets;
    EXPECT_GT(e.points, 10) << e.dataset;
    EXPECT_LE(e.median_rel_error, 0.10) << e.dataset;
  }
  EXPECT_EQ(datasets, 5);
}

TEST(CalibrationTest, TableMarksEstimatesWithTheirExpectedError) {
  if (!std::filesystem::exists(kShared + "/traces/splitwise-sim/perf_model.csv")) {
    GTEST_SKIP() << "calibration data not found at " << kShared << "/traces";
  }
  auto data = LoadCalibrationData(kShared);
  ASSERT_TRUE(data.ok());
  std::vector<GpuType> types = DefaultGpuTypes();
  auto l40s = ResolveGpuType("l40s:1.0");
  ASSERT_TRUE(l40s.ok()) << l40s.status().ToString();
  types.push_back(*l40s);
  auto table = BuildLatencyTable(*data, types);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const GpuLatency* h100 = table->Find("h100");
  const GpuLatency* a100 = table->Find("a100-80gb");
  const GpuLatency* est = table->Find("l40s");
  ASSERT_TRUE(h100 && a100 && est && table->Find("mi300x"));
  EXPECT_FALSE(h100->estimate);
  EXPECT_TRUE(est->estimate);
  EXPECT_TRUE(table->Find("mi300x")->estimate);
  EXPECT_GT(est->expected_error, 0);
  auto m = FindModel("llama2-70b");
  ASSERT_TRUE(m.ok());
  // Splitwise's anchor (README): H100 ~1.8-2x faster on prefill, ~1.5x on decode.
  double pre =
      a100->PrefillS(*m, 8, 2048, 2048.0 * 2048) / h100->PrefillS(*m, 8, 2048, 2048.0 * 2048);
  double dec = a100->DecodeS(*m, 8, 1, 2048) / h100->DecodeS(*m, 8, 1, 2048);
  EXPECT_GT(pre, 1.6);
  EXPECT_LT(dec, 1.7);
  EXPECT_GT(dec, 1.2);
}

}  // namespace
}  // namespace gpufleet::plan
