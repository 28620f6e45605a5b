#include "detect/gavel_colocation.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpufleet::detect {
namespace {

constexpr char kHeader[] =
    "accelerator,job_a,job_b,iso_a,iso_b,coloc_a,coloc_b,norm_a,norm_b,combined_norm\n";

TEST(GavelColocationTest, KeepsFeasiblePairsCountsInfeasibleAndBadRows) {
  // Rows 2-3 are real rows of colocation_throughputs_sf1.csv; row 4 is an
  // infeasible pair (0 = out of memory), row 5 is broken on purpose.
  const std::string text =
      std::string(kHeader) +
      "k80,A3C,A3C,3.43877,3.43877,1.62224,1.62224,0.4718,0.4718,0.9435\n"
      "k80,A3C,CycleGAN,3.43877,0.504771,1.46571,0.292925,0.4262,0.5803,1.0065\n"
      "v100,X,Y,1,1,0,0,0,0,0\n"
      "p100,X,Y,1,1,1,1,abc,1,2\n";
  auto table = ParseGavelColocation(text, "pairs.csv");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->pairs.size(), 2u);
  EXPECT_EQ(table->infeasible, 1u);
  EXPECT_EQ(table->bad, 1u);
  ASSERT_EQ(table->errors.size(), 1u);
  EXPECT_NE(table->errors[0].find("pairs.csv:5: field norm_a"), std::string::npos)
      << table->errors[0];
  EXPECT_NEAR(table->pairs[1].slowdown_a(), 1 - 0.4262, 1e-12);
  EXPECT_EQ(table->pairs[1].job_b, "CycleGAN");
}

TEST(GavelColocationTest, WrongHeaderOrEmptyIsAnErrorNamingTheFile) {
  auto wrong = ParseGavelColocation("a,b,c\n1,2,3\n", "x.csv");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("x.csv:1"), std::string::npos);
  EXPECT_FALSE(ParseGavelColocation("", "empty.csv").ok());
}

TEST(GavelColocationTest, MissingFileSaysWhereTheSharedFolderBelongs) {
  auto missing = LoadGavelColocation("/nonexistent/colocation_throughputs_sf1.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("../shared"), std::string::npos);
  EXPECT_NE(missing.status().message().find("--colocation"), std::string::npos);
}

// The real table: every feasible ordered pair is kept, including the ones
// that barely slow each other (the bucket the old generator left out).
TEST(GavelColocationTest, RealTableKeepsEveryFeasiblePair) {
  const std::string path =
      std::string(GPUFLEET_SOURCE_DIR) + "/" + std::string(kGavelColocationPath);
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " absent (../shared not beside the clone)";
  auto table = LoadGavelColocation(path);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->bad, 0u);
  // 3 GPU types x 26 x 26 ordered pairs (../shared/traces/gavel/README.md).
  EXPECT_EQ(table->pairs.size() + table->infeasible, 3u * 26 * 26);
  int under_5 = 0;
  for (const CoLocationPair& p : table->pairs) under_5 += p.slowdown_a() < 0.05;
  EXPECT_GT(under_5, 0);
}

}  // namespace
}  // namespace gpufleet::detect
