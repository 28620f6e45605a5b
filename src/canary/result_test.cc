#include "canary/result.h"

#include <gtest/gtest.h>

#include "canary/canary_test_util.h"
#include "canary/result_parser.h"
#include "canary/stats.h"

namespace gpufleet::canary {
namespace {

TEST(ResultTest, TargetKeyAndParse) {
  StatusOr<HardwareTarget> t =
      ParseHardwareTarget("model=h100-sxm, driver=550.54.15,libs=nccl-2.21.5");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->Key(), "model=h100-sxm;driver=550.54.15;libs=nccl-2.21.5");
  StatusOr<HardwareTarget> again = ParseHardwareTarget(t->Key());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Key(), t->Key());
  StatusOr<HardwareTarget> bad = ParseHardwareTarget("model=x,gpu=y");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown field 'gpu'"), std::string::npos);
  EXPECT_FALSE(ParseHardwareTarget("model").ok());
}

TEST(ResultTest, MergeFromOverridesSetFields) {
  HardwareTarget parsed{"h100-sxm", "", "", "nccl-2.18.3", ""};
  HardwareTarget cli{"", "550.54.15", "", "", "img:1"};
  parsed.MergeFrom(cli);
  EXPECT_EQ(parsed.Key(), "model=h100-sxm;driver=550.54.15;libs=nccl-2.18.3;image=img:1");
}

TEST(ResultTest, MergeAccumulatesRepetitions) {
  std::vector<BenchmarkResult> all;
  BenchmarkResult a;
  a.benchmark_id = "stream.triad";
  a.unit = "bytes_per_second";
  a.values = {1};
  MergeResult(a, &all);
  a.values = {2};
  MergeResult(a, &all);
  a.target.model = "other";
  MergeResult(a, &all);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].values, (std::vector<double>{1, 2}));
}

TEST(ResultTest, MedianAndMad) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(ScaledMad({1, 1, 1, 1, 100}),
                   0);  // one outlier does not count
  EXPECT_NEAR(ScaledMad({1, 2, 3, 4, 5}), 1.4826, 1e-9);
  EXPECT_DOUBLE_EQ(ScaledMad({7}), 0);
}

TEST(ResultParserTest, SniffsEachFormat) {
  EXPECT_EQ(SniffResultFormat(ReadCanaryData("nccl-tests_all_reduce_perf_h100x16_2node.txt")),
            ResultFormat::kNcclTests);
  EXPECT_EQ(SniffResultFormat(ReadCanaryData("nccl-tests_sendrecv_perf_a100x8_wrong_NA.txt")),
            ResultFormat::kNcclTests);
  EXPECT_EQ(SniffResultFormat(ReadCanaryData("babelstream_v3.3_cuda_titanxp.txt")),
            ResultFormat::kBabelStream);
  EXPECT_EQ(SniffResultFormat(ReadCanaryData("dcgm_diag_r3_synthetic.json")),
            ResultFormat::kDcgmDiag);
  EXPECT_EQ(SniffResultFormat("hello"), ResultFormat::kAuto);
  ParseReport report;
  StatusOr<std::vector<BenchmarkResult>> r =
      ParseResults("hello", "x.txt", ResultFormat::kAuto, &report);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.txt"), std::string::npos);
  EXPECT_FALSE(ResultFormatFromName("csv").ok());
  EXPECT_EQ(*ResultFormatFromName("rccl-tests"), ResultFormat::kNcclTests);
}

}  // namespace
}  // namespace gpufleet::canary
