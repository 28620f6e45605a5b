#include "canary/result_json.h"

#include <gtest/gtest.h>

#include "canary/result_parser.h"
#include "canary/runner.h"

namespace gpufleet::canary {
namespace {

HardwareTarget H200() {
  HardwareTarget t;
  t.model = "h200-sxm";
  t.driver = "cuda-driver-12040";
  t.runtime = "cuda-12.4";
  t.libraries = "cublas-12.4.3+nccl-2.21.5";
  t.image = "registry/train:1.2";
  return t;
}

TEST(ResultJsonTest, RoundTripsThroughTheParserRegistry) {
  HardwareTarget t = H200();
  BenchmarkResult gemm{t,
                       "gemm.bf16@8192",
                       "flop_per_second",
                       {7.1e14, 7.25e14, 7.2e14},
                       "gpufleet canary run: nvidia gpu0",
                       ""};
  BenchmarkResult other = gemm;
  other.target.image = "registry/train:1.3";  // its own target
  other.benchmark_id = "stream.memcpy@1073741824";
  other.unit = "bytes_per_second";
  other.values = {4.1e12, 4.0e12};
  std::string text = FormatResultsJson(t, {gemm, other}, {{"gemm.fp8@8192", "needs cublasLt"}});
  EXPECT_TRUE(LooksLikeCanaryJson(text));
  EXPECT_EQ(SniffResultFormat(text), ResultFormat::kCanaryJson);
  ParseReport report;
  StatusOr<std::vector<BenchmarkResult>> back =
      ParseResults(text, "run.json", ResultFormat::kAuto, &report);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].target.Key(), t.Key());
  EXPECT_EQ((*back)[0].benchmark_id, "gemm.bf16@8192");
  EXPECT_EQ((*back)[0].values, gemm.values);
  EXPECT_EQ((*back)[0].source, "gpufleet canary run: nvidia gpu0");
  EXPECT_EQ((*back)[1].target.image, "registry/train:1.3");
  EXPECT_EQ((*back)[1].values, other.values);
  EXPECT_EQ(report.data_lines, 2u);
  EXPECT_EQ(report.skipped_lines, 0u);
  EXPECT_EQ(*ResultFormatFromName("gpufleet-json"), ResultFormat::kCanaryJson);
}

TEST(ResultJsonTest, BadResultsAreSkippedNamingTheField) {
  std::string text = R"({"format": "gpufleet-canary-results", "version": 1,
    "target": {"model": "h200-sxm"},
    "results": [
      {"benchmark": "stream.memcpy@1024", "unit": "bytes_per_second", "values": [1e12, 2e12]},
      {"benchmark": "gemm.bf16@8192", "unit": "flop_per_second", "values": ["fast"]},
      {"benchmark": "x", "unit": "furlongs", "values": [1]},
      {"benchmark": "y", "unit": "seconds", "values": [-1]},
      {"unit": "seconds", "values": [1]},
      {"benchmark": "z", "unit": "seconds", "values": [1], "target": {"model": 3}}
    ]})";
  ParseReport report;
  StatusOr<std::vector<BenchmarkResult>> r = ParseCanaryJson(text, "run.json", &report);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].target.model, "h200-sxm");
  EXPECT_EQ((*r)[0].source, "run.json:results[0]");
  EXPECT_EQ(report.skipped_lines, 5u);
  ASSERT_GE(report.warnings.size(), 5u);
  EXPECT_EQ(report.warnings[0], "run.json: results[1].values[0]: want a finite number >= 0");
  EXPECT_NE(report.warnings[1].find("results[2].unit: unknown unit 'furlongs'"), std::string::npos);
  EXPECT_NE(report.warnings[3].find("results[4].benchmark"), std::string::npos);
  EXPECT_NE(report.warnings[4].find("results[5].target.model: not a string"), std::string::npos);
}

TEST(ResultJsonTest, StructuralErrorsNameTheFile) {
  ParseReport report;
  StatusOr<std::vector<BenchmarkResult>> r = ParseCanaryJson("{not json", "a.json", &report);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a.json: not valid JSON");
  r = ParseCanaryJson(R"({"format": "other", "version": 1, "results": []})", "b.json", &report);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("b.json: format"), std::string::npos);
  r = ParseCanaryJson(R"({"format": "gpufleet-canary-results", "version": 2, "results": []})",
                      "c.json", &report);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("version"), std::string::npos);
  r = ParseCanaryJson(R"({"format": "gpufleet-canary-results", "version": 1, "results": []})",
                      "d.json", &report);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no usable result"), std::string::npos);
  // DCGM diag JSON is still sniffed as DCGM.
  EXPECT_EQ(SniffResultFormat(R"({"DCGM GPU Diagnostic": {}})"), ResultFormat::kDcgmDiag);
}

}  // namespace
}  // namespace gpufleet::canary
