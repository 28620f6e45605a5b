#include "core/labels.h"

#include <gtest/gtest.h>

#include <string_view>
#include <utility>
#include <vector>

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

// Refilling in place gives what Set would build: longer and shorter sets,
// empty values left out, nothing left over from the previous contents.
TEST(LabelsTest, AssignSortedEqualsSetAndLeavesNothingBehind) {
  using View = std::pair<std::string_view, std::string_view>;
  const std::vector<std::vector<View>> sets = {
      {{"__name__", "gpu_utilization_ratio"}, {"gpu_uuid", "GPU-0123456789abcdef"}, {"node", "n1"}},
      {{"a", "1"}},
      {{"a", "x"}, {"b", ""}, {"c", "a value longer than the small-string buffer"}, {"d", "4"}},
      {},
      {{"b", ""}}};
  Labels reused;
  for (const std::vector<View>& set : sets) {
    Labels built;
    for (const auto& [name, value] : set) built.Set(name, value);
    reused.AssignSorted(set);
    EXPECT_EQ(reused, built) << built.ToString();
    EXPECT_EQ(reused.ToString(), built.ToString());
  }
}

TEST(LabelsTest, ToStringEscapes) {
  Labels l{{"msg", "a\"b\\c\nd"}, {"a", "1"}};
  EXPECT_EQ(l.ToString(), R"({a="1",msg="a\"b\\c\nd"})");
}

// The clean prefix is scanned eight bytes at a time: every escaped byte at
// every position of a long value, against a byte-by-byte reference.
TEST(LabelsTest, EscapesAtEveryPositionOfLongValues) {
  auto reference = [](std::string_view v) {
    std::string out;
    for (char c : v) {
      if (c == '\\') {
        out += "\\\\";
      } else if (c == '"') {
        out += "\\\"";
      } else if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    return out;
  };
  for (char special : {'\\', '"', '\n'}) {
    for (size_t len : {1u, 7u, 8u, 9u, 17u, 40u}) {
      for (size_t pos = 0; pos < len; ++pos) {
        // Bytes next to the specials (0x5B, 0x21, 0x0B, 0xDC) must not match.
        std::string v(len, static_cast<char>(special + 1));
        v[pos] = special;
        std::string got;
        AppendEscapedLabelValue(v, got);
        EXPECT_EQ(got, reference(v)) << "special " << int(special) << " len " << len << " pos " << pos;
      }
    }
  }
  std::string high(24, static_cast<char>(0xDC));  // 0x5C with the high bit set
  std::string got;
  AppendEscapedLabelValue(high, got);
  EXPECT_EQ(got, high);
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
