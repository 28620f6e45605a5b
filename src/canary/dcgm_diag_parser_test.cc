#include "canary/dcgm_diag_parser.h"

#include <gtest/gtest.h>

#include "canary/canary_test_util.h"

namespace gpufleet::canary {
namespace {

constexpr char kSample[] = "dcgm_diag_r3_synthetic.json";

TEST(DcgmDiagParserTest, ParsesSyntheticLevel3Sample) {
  ParseReport report;
  StatusOr<DcgmDiagOutput> out = ParseDcgmDiag(ReadCanaryData(kSample), kSample, &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->dcgm_version, "3.3.7");
  EXPECT_EQ(out->driver, "550.54.15");
  EXPECT_EQ(report.skipped_lines, 0u);
  std::vector<BenchmarkResult> results = DcgmDiagResults(*out, kSample);
  ExpectGolden("dcgm_diag_r3_synthetic.results", ResultsToText(results));
  const BenchmarkResult* mbw = nullptr;
  for (const BenchmarkResult& r : results) {
    EXPECT_NE(r.benchmark_id, "dcgm.targeted_power") << "Not Run gives no evidence";
    EXPECT_NE(r.benchmark_id, "dcgm.fabric_manager") << "Skip gives no evidence";
    if (r.benchmark_id == "dcgm.memory_bandwidth") mbw = &r;
  }
  ASSERT_NE(mbw, nullptr);
  EXPECT_EQ(mbw->values, (std::vector<double>{1, 0}));
  EXPECT_NE(mbw->note.find("below minimum_bandwidth"), std::string::npos);
  EXPECT_EQ(mbw->target.driver, "550.54.15");
}

TEST(DcgmDiagParserTest, NotJsonNamesTheByte) {
  ParseReport report;
  StatusOr<DcgmDiagOutput> out = ParseDcgmDiag("{\"a\": [1, 2", "bad.json", &report);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("bad.json: byte"), std::string::npos)
      << out.status().message();
}

TEST(DcgmDiagParserTest, WrongShapeIsAnError) {
  ParseReport report;
  EXPECT_FALSE(ParseDcgmDiag("[1,2]", "a.json", &report).ok());
  EXPECT_FALSE(ParseDcgmDiag("{\"other\": {}}", "a.json", &report).ok());
  StatusOr<DcgmDiagOutput> out =
      ParseDcgmDiag("{\"DCGM GPU Diagnostic\": {\"test_categories\": 3}}", "a.json", &report);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("test_categories"), std::string::npos);
}

TEST(DcgmDiagParserTest, SkipsMalformedEntriesAndAcceptsNewerNames) {
  std::string text = R"({"DCGM Diagnostic": {"test_categories": [
      {"category": "Hardware", "tests": [
        {"results": []},
        {"name": "memory", "results": "x"},
        {"name": "memory", "results": [{"entity_id": 3, "status": "Pass"}, {"entity_id": 4}]}]},
      "junk"]}})";
  ParseReport report;
  StatusOr<DcgmDiagOutput> out = ParseDcgmDiag(text, "new.json", &report);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->entries.size(), 1u);
  EXPECT_EQ(out->entries[0].gpu, "3");
  EXPECT_EQ(report.skipped_lines, 4u);
}

}  // namespace
}  // namespace gpufleet::canary
