#include "canary/nccl_tests_parser.h"

#include <gtest/gtest.h>

#include "canary/canary_test_util.h"

namespace gpufleet::canary {
namespace {

constexpr char kH100File[] = "nccl-tests_all_reduce_perf_h100x16_2node.txt";
constexpr char kSendRecvFile[] = "nccl-tests_sendrecv_perf_a100x8_wrong_NA.txt";

TEST(NcclTestsParserTest, ParsesRealH100AllReduceRun) {
  ParseReport report;
  StatusOr<NcclTestsOutput> out = ParseNcclTests(ReadCanaryData(kH100File), kH100File, &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->rows.size(), 31u);
  EXPECT_EQ(report.skipped_lines, 0u);
  EXPECT_EQ(out->collective,
            "all_reduce");  // from the file name: old header has no test line
  EXPECT_EQ(out->devices.size(), 16u);
  EXPECT_EQ(out->devices[0], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(out->host_list, "ztan-mig-235z,ztan-mig-gq73");
  ASSERT_TRUE(out->avg_busbw_gb_per_s.has_value());
  EXPECT_DOUBLE_EQ(*out->avg_busbw_gb_per_s, 70.742);
  const NcclTestsRow& last = out->rows.back();
  EXPECT_EQ(last.size_bytes, 8589934592u);
  ASSERT_TRUE(last.out_of_place && last.in_place);
  EXPECT_DOUBLE_EQ(last.out_of_place->time_us,
                   47535);  // "%.0f" form, microseconds
  EXPECT_DOUBLE_EQ(last.out_of_place->busbw_gb_per_s, 338.82);
  EXPECT_DOUBLE_EQ(last.in_place->busbw_gb_per_s, 337.35);
}

TEST(NcclTestsParserTest, GatesLargestSizesNeverTheAverageLine) {
  ParseReport report;
  StatusOr<NcclTestsOutput> out = ParseNcclTests(ReadCanaryData(kH100File), kH100File, &report);
  ASSERT_TRUE(out.ok());
  std::vector<BenchmarkResult> results = NcclTestsResults(*out, kH100File);
  ExpectGolden("nccl-tests_all_reduce_perf_h100x16_2node.results", ResultsToText(results));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].benchmark_id, "nccl.all_reduce.busbw@4294967296");
  EXPECT_EQ(results[1].benchmark_id, "nccl.all_reduce.busbw@8589934592");
  EXPECT_EQ(results[1].target.model, "h100-sxm");
  EXPECT_EQ(results[1].unit, "bytes_per_second");
  EXPECT_EQ(results[1].values, (std::vector<double>{338.82e9, 337.35e9}));
  for (const BenchmarkResult& r : results) {
    for (double v : r.values) EXPECT_NE(v, 70.742e9) << "Avg bus bandwidth must never be gated";
  }
  EXPECT_EQ(results[2].benchmark_id, "nccl.all_reduce.correct");
  EXPECT_EQ(results[2].values, (std::vector<double>{1}));
}

TEST(NcclTestsParserTest, WrongNotAvailableIsNotAnError) {
  ParseReport report;
  StatusOr<NcclTestsOutput> out =
      ParseNcclTests(ReadCanaryData(kSendRecvFile), kSendRecvFile, &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rows.size(), 4u);
  EXPECT_EQ(report.skipped_lines, 0u);
  EXPECT_EQ(out->collective, "sendrecv");
  EXPECT_TRUE(out->rows[0].out_of_place->wrong.has_value());
  EXPECT_FALSE(out->rows[0].in_place->wrong.has_value());
  std::vector<BenchmarkResult> results = NcclTestsResults(*out, kSendRecvFile);
  ExpectGolden("nccl-tests_sendrecv_perf_a100x8_wrong_NA.results", ResultsToText(results));
  EXPECT_EQ(results.back().benchmark_id, "nccl.sendrecv.correct");
  EXPECT_EQ(results.back().values, (std::vector<double>{1}));
}

constexpr char kNewHeader[] =
    "# nccl-tests version 2.13.8 nccl-headers=21903 nccl-library=21903\n"
    "# Collective test starting: reduce_scatter_perf\n"
    "# nThread 1 nGpus 8 minBytes 1024 maxBytes 4194304 step: 4(factor) warmup "
    "iters: 5 iters: 20\n"
    "#  Rank  0 Group  0 Pid 100 on node1 device  0 [0x1b] NVIDIA H200\n"
    "#  Rank  1 Group  0 Pid 101 on node1 device  1 [0x43] NVIDIA H200\n";

TEST(NcclTestsParserTest, ReadsVersionHeaderAndCollectiveLine) {
  std::string text = std::string(kNewHeader) +
                     "4194304 131072 float sum -1 1.2e+06 3.5 3.06 0 1.1e+06 3.8 3.33 0\n";
  ParseReport report;
  StatusOr<NcclTestsOutput> out = ParseNcclTests(text, "mem", &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->library, "nccl-2.19.3");
  EXPECT_EQ(out->collective, "reduce_scatter");
  ASSERT_EQ(out->rows.size(), 1u);
  EXPECT_DOUBLE_EQ(out->rows[0].out_of_place->time_us, 1.2e6);  // exponent form
  std::vector<BenchmarkResult> results = NcclTestsResults(*out, "mem");
  EXPECT_EQ(results[0].benchmark_id, "nccl.reduce_scatter.busbw@4194304");
  EXPECT_EQ(results[0].target.model, "h200-sxm");
  EXPECT_EQ(results[0].target.libraries, "nccl-2.19.3");
}

TEST(NcclTestsParserTest, SingleBlockRowIsInPlace) {
  ParseReport report;
  StatusOr<NcclTestsOutput> out =
      ParseNcclTests("1048576 262144 float sum -1 203.2 5.16 9.68 N/A\n", "mem", &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FALSE(out->rows[0].out_of_place.has_value());
  ASSERT_TRUE(out->rows[0].in_place.has_value());
  EXPECT_DOUBLE_EQ(out->rows[0].in_place->busbw_gb_per_s, 9.68);
  EXPECT_EQ(NcclTestsResults(*out, "mem")[0].values.size(), 1u);
}

TEST(NcclTestsParserTest, SkipsMalformedRowsAndNamesTheLine) {
  std::string text =
      "# nThread 1 nGpus 1\n"
      "8 2 float sum -1 135.8 0.00 0.00 0 123.5 0.00 0.00 0\n"
      "16 4 float sum -1 abc 0.00 0.00 0 122.3 0.00 0.00 0\n"
      "garbage\n"
      "32 8 float sum -1 123.3 nan 0.00 0 122.7 0.00 0.00 0\n"
      "64 16 float sum -1 123.4 0.00 0.00 0 122.9 0.00 0.00 0\n";
  ParseReport report;
  StatusOr<NcclTestsOutput> out = ParseNcclTests(text, "run.txt", &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rows.size(), 2u);
  EXPECT_EQ(report.skipped_lines, 3u);
  EXPECT_EQ(report.data_lines, 2u);
  ASSERT_EQ(report.warnings.size(), 3u);
  EXPECT_EQ(report.warnings[0].rfind("run.txt:3: ", 0), 0u) << report.warnings[0];
  EXPECT_EQ(report.warnings[1].rfind("run.txt:4: ", 0), 0u) << report.warnings[1];
}

TEST(NcclTestsParserTest, WrongResultsFailTheCorrectnessCheck) {
  std::string text =
      "1024 256 float sum -1 147.1 0.01 0.01 0 123.1 0.01 0.02 3\n"
      "# Out of bounds values : 3 FAILED\n";
  ParseReport report;
  StatusOr<NcclTestsOutput> out = ParseNcclTests(text, "all_gather_perf.log", &report);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->out_of_bounds_failed);
  std::vector<BenchmarkResult> results = NcclTestsResults(*out, "all_gather_perf.log");
  EXPECT_EQ(results.back().benchmark_id, "nccl.all_gather.correct");
  EXPECT_EQ(results.back().values, (std::vector<double>{0}));
}

TEST(NcclTestsParserTest, NoRowsIsAnErrorNamingTheInput) {
  ParseReport report;
  StatusOr<NcclTestsOutput> out = ParseNcclTests("# nThread 1\n#\n", "empty.txt", &report);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("empty.txt"), std::string::npos);
  EXPECT_FALSE(ParseNcclTests("", "x", &report).ok());
}

TEST(NcclTestsParserTest, CollectiveOptionOverridesAndUnknownIsNamed) {
  ParseReport report;
  StatusOr<NcclTestsOutput> out =
      ParseNcclTests("1024 256 float sum -1 1 1 1 0 1 1 1 0\n", "run.txt", &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(NcclTestsResults(*out, "run.txt")[0].benchmark_id, "nccl.unknown.busbw@1024");
  NcclTestsResultOptions opt;
  opt.collective = "all_reduce";
  EXPECT_EQ(NcclTestsResults(*out, "run.txt", opt)[0].benchmark_id, "nccl.all_reduce.busbw@1024");
}

}  // namespace
}  // namespace gpufleet::canary
