#include "plan/request_trace.h"

#include <gtest/gtest.h>

namespace gpufleet::plan {
namespace {

TEST(RequestTraceTest, ReadsTheAzureConversationHead) {
  // tests/data/plan/azure_conv_head.csv: the first 40 rows of the real trace.
  auto t =
      LoadAzureTrace(std::string(GPUFLEET_SOURCE_DIR) + "/tests/data/plan/azure_conv_head.csv");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->requests.size(), 40u);
  // 2023-11-16 18:15:46.6805900,374,44 then 18:15:50.9951690,396,109.
  EXPECT_EQ(t->requests[0].arrival_s, 0);
  EXPECT_EQ(t->requests[0].prompt_tokens, 374);
  EXPECT_EQ(t->requests[0].output_tokens, 44);
  EXPECT_NEAR(t->requests[1].arrival_s, 4.314579, 1e-6);
  EXPECT_EQ(t->requests[1].output_tokens, 109);
  EXPECT_EQ(t->skipped, 0);
}

TEST(RequestTraceTest, BadRowsNameLineAndField) {
  const std::string h = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
  auto a = ParseAzureTrace(h + "2023-11-16 18:15:46.68,374,44\r\n2023-11-16 18:15:4x.0,1,1\r\n",
                           "t.csv");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("t.csv:3: field 'TIMESTAMP'"), std::string::npos)
      << a.status().ToString();
  auto b = ParseAzureTrace(h + "2023-11-16 18:15:46.68,-3,44\r\n", "t.csv");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("ContextTokens"), std::string::npos);
  auto c =
      ParseAzureTrace(h + "2023-11-16 18:15:46.68,3,44\r\n2023-11-16 18:15:40.00,3,4\r\n", "t.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("back in time"), std::string::npos);
  EXPECT_FALSE(ParseAzureTrace("", "t.csv").ok());
  EXPECT_FALSE(ParseAzureTrace("a,b,c\n", "t.csv").ok());
}

TEST(RequestTraceTest, ZeroTokenRowsAreSkippedAndCounted) {
  auto t = ParseAzureTrace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 23:59:59.5,0,44\n2023-11-17 00:00:00.5,10,4\n",
      "t.csv");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->skipped, 1);
  ASSERT_EQ(t->requests.size(), 1u);
  EXPECT_NEAR(t->requests[0].arrival_s, 1.0, 1e-9);  // across midnight
}

TEST(RequestTraceTest, SyntheticAndScaled) {
  RequestTrace t = SyntheticTrace(10, 100, 512, 64, 3);
  EXPECT_NEAR(static_cast<double>(t.requests.size()), 1000, 120);
  RequestTrace s = ScaleRate(t, 2);
  EXPECT_DOUBLE_EQ(s.requests.back().arrival_s, t.requests.back().arrival_s / 2);
}

}  // namespace
}  // namespace gpufleet::plan
