#include "core/labels.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(LabelsTest, KeepsSortedUniqueNames) {
  Labels l{{"vendor", "amd"}, {"gpu_uuid", "x"}};
  l.Set("node", "n1");
  l.Set("vendor", "nvidia");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l.pairs()[0].first, "gpu_uuid");
  EXPECT_EQ(l.pairs()[1].first, "node");
  EXPECT_EQ(l.Get("vendor"), "nvidia");
  EXPECT_EQ(l.Get("absent"), "");
}

TEST(LabelsTest, EmptyValueRemoves) {
  Labels l{{"pod", "p"}};
  l.Set("pod", "");
  EXPECT_TRUE(l.empty());
}

TEST(LabelsTest, ToStringEscapes) {
  Labels l{{"msg", "a\"b\\c\nd"}, {"a", "1"}};
  EXPECT_EQ(l.ToString(), R"({a="1",msg="a\"b\\c\nd"})");
}

TEST(LabelsTest, NameValidation) {
  EXPECT_TRUE(IsValidLabelName("gpu_uuid"));
  EXPECT_FALSE(IsValidLabelName("0abc"));
  EXPECT_FALSE(IsValidLabelName("a-b"));
  EXPECT_TRUE(IsValidMetricName("job:rate5m"));
  EXPECT_FALSE(IsValidLabelName(""));
}

}  // namespace
}  // namespace gpufleet
