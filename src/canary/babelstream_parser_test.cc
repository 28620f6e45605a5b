#include "canary/babelstream_parser.h"

#include <gtest/gtest.h>

#include "canary/canary_test_util.h"

namespace gpufleet::canary {
namespace {

constexpr char kTitanXp[] = "babelstream_v3.3_cuda_titanxp.txt";

TEST(BabelStreamParserTest, ParsesRealV33Output) {
  ParseReport report;
  StatusOr<BabelStreamOutput> out = ParseBabelStream(ReadCanaryData(kTitanXp), kTitanXp, &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->version, "3.3");
  EXPECT_EQ(out->implementation, "CUDA");
  EXPECT_EQ(out->precision, "double");
  EXPECT_EQ(out->device, "TITAN Xp");
  EXPECT_EQ(out->driver_api, "9010");
  ASSERT_EQ(out->rows.size(), 5u);
  EXPECT_EQ(report.skipped_lines, 0u);
  EXPECT_EQ(out->rows[3].function, "Triad");
  EXPECT_DOUBLE_EQ(out->rows[3].bandwidth_bytes_per_s,
                   436491.299e6);  // MBytes = 1e6 bytes
  ASSERT_TRUE(out->rows[3].min_s.has_value());
  EXPECT_DOUBLE_EQ(*out->rows[3].min_s, 0.00184);
  std::vector<BenchmarkResult> results = BabelStreamResults(*out, kTitanXp);
  ExpectGolden("babelstream_v3.3_cuda_titanxp.results", ResultsToText(results));
  EXPECT_EQ(results[3].benchmark_id, "stream.triad");
  EXPECT_EQ(results[3].target.model,
            "TITAN Xp");  // not in the catalog: kept verbatim
}

TEST(BabelStreamParserTest, ParsesNewerUnitHeaderAndFloat) {
  std::string text =
      "BabelStream\nVersion: 5.0\nImplementation: HIP\nRunning kernels 100 "
      "times\n"
      "Precision: float\nUsing HIP device AMD Instinct MI300X OAM\n"
      "Function    GiB/s       Min (sec)   Max         Average\n"
      "Copy        3900.5      0.00013     0.00014     0.00013\n"
      "Triad       3650.25     0.00020     0.00021     0.00020\n";
  ParseReport report;
  StatusOr<BabelStreamOutput> out = ParseBabelStream(text, "hip.txt", &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_DOUBLE_EQ(out->rows[1].bandwidth_bytes_per_s, 3650.25 * 1024 * 1024 * 1024);
  std::vector<BenchmarkResult> results = BabelStreamResults(*out, "hip.txt");
  EXPECT_EQ(results[1].benchmark_id, "stream.triad.float");
  EXPECT_EQ(results[1].target.model, "mi300x");
}

TEST(BabelStreamParserTest, ParsesCsvMode) {
  std::string text =
      "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_"
      "runtime,"
      "avg_runtime\n"
      "Copy,100,33554432,8,433182.244,0.00124,0.00128,0.00125\n"
      "Triad,100,33554432,8,436491.299,0.00184,0.00186,0.00185\n";
  ParseReport report;
  StatusOr<BabelStreamOutput> out = ParseBabelStream(text, "run.csv", &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->csv);
  ASSERT_EQ(out->rows.size(), 2u);
  EXPECT_DOUBLE_EQ(out->rows[1].bandwidth_bytes_per_s, 436491.299e6);
  EXPECT_DOUBLE_EQ(*out->rows[1].avg_s, 0.00185);
}

TEST(BabelStreamParserTest, UnknownUnitIsAStructuralError) {
  ParseReport report;
  StatusOr<BabelStreamOutput> out =
      ParseBabelStream("Function  Furlongs/fortnight  Min\nCopy 1 2\n", "odd.txt", &report);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("odd.txt:1"), std::string::npos);
  EXPECT_NE(out.status().message().find("Furlongs"), std::string::npos);
}

TEST(BabelStreamParserTest, SkipsBadRowsAndFailsWithoutRows) {
  ParseReport report;
  StatusOr<BabelStreamOutput> out = ParseBabelStream(
      "Function MB/s Min Max Average\nCopy 12x 0.1 0.2 "
      "0.1\nTriad 100.5 0.1 0.2 0.1\n",
      "t.txt", &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rows.size(), 1u);
  EXPECT_EQ(report.skipped_lines, 1u);
  EXPECT_EQ(report.warnings[0].rfind("t.txt:2: ", 0), 0u);
  ParseReport empty;
  EXPECT_FALSE(ParseBabelStream("BabelStream\nVersion: 3.3\n", "x", &empty).ok());
}

// Fuzzer crash: the prefix "max_" and suffix "_per_sec" overlapped.
TEST(BabelStreamParserTest, CsvColumnWithoutUnitIsAnErrorNotAnOverflow) {
  ParseReport report;
  StatusOr<BabelStreamOutput> out = ParseBabelStream(
      "function,num_times,n_elements,sizeof,max_per_sec,min\nCopy,1,2,8,3,4\n", "f.csv", &report);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("f.csv:1"), std::string::npos);
}

// Fuzzer crash: 4.4e304 MB/s is a finite number that overflows once in
// bytes/s; the row is skipped, named by its line.
TEST(BabelStreamParserTest, BandwidthThatOverflowsInBytesIsSkipped) {
  ParseReport report;
  StatusOr<BabelStreamOutput> out = ParseBabelStream(
      "Function MBytes/sec Min Max Average\nCopy 436491.e299 0.1 0.2 0.1\n"
      "Triad 100.5 0.1 0.2 0.1\n",
      "t.txt", &report);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rows.size(), 1u);
  EXPECT_EQ(out->rows[0].function, "Triad");
  EXPECT_EQ(report.skipped_lines, 1u);
  EXPECT_EQ(report.warnings[0].rfind("t.txt:2: ", 0), 0u);
  ParseReport csv;
  out = ParseBabelStream(
      "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,"
      "avg_runtime\nCopy,1,2,8,1e305,1,1,1\nAdd,1,2,8,5,1,1,1\n",
      "f.csv", &csv);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->rows.size(), 1u);
  EXPECT_EQ(csv.skipped_lines, 1u);
}

TEST(BabelStreamParserTest, UnitNames) {
  EXPECT_EQ(BabelStreamUnitBytes("MBytes/sec"), 1e6);
  EXPECT_EQ(BabelStreamUnitBytes("MB/s"), 1e6);
  EXPECT_EQ(BabelStreamUnitBytes("MiBytes/sec"), 1048576.0);
  EXPECT_EQ(BabelStreamUnitBytes("gbytes"), 1e9);
  EXPECT_FALSE(BabelStreamUnitBytes("bogus").has_value());
}

}  // namespace
}  // namespace gpufleet::canary
