#include "core/strings.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

TEST(StringsTest, ParseDoubleHandlesPrometheusSpecials) {
  EXPECT_EQ(*ParseDouble("1.5"), 1.5);
  EXPECT_EQ(*ParseDouble("-2e3"), -2000);
  EXPECT_EQ(*ParseDouble("3.545990503e+0"), 3.545990503);
  EXPECT_TRUE(std::isinf(*ParseDouble("+Inf")));
  EXPECT_LT(*ParseDouble("-Inf"), 0);
  EXPECT_TRUE(std::isnan(*ParseDouble("NaN")));
  EXPECT_FALSE(ParseDouble("1.5x").has_value());
  EXPECT_FALSE(ParseDouble("").has_value());
  EXPECT_FALSE(ParseDouble("--1").has_value());
  EXPECT_TRUE(std::isinf(*ParseDouble("1e999")));
}

TEST(StringsTest, FormatDoubleRoundTrips) {
  EXPECT_EQ(FormatDouble(409.692), "409.692");
  EXPECT_EQ(FormatDouble(300), "300");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e20), "1e+20");
  EXPECT_EQ(FormatDouble(NAN), "NaN");
  EXPECT_EQ(FormatDouble(-INFINITY), "-Inf");
}

TEST(StringsTest, SplitAndTrim) {
  auto parts = SplitString("a,b,,c", ',');
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[2], "");
  EXPECT_EQ(TrimWhitespace("  x \n"), "x");
  EXPECT_EQ(*ParseInt64("-42"), -42);
  EXPECT_FALSE(ParseUint64("-1").has_value());
}

TEST(StringsTest, SuggestClosestOffersOnlyLikelyTypos) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  std::vector<std::string> flags = {"--source", "--listen", "--interval"};
  EXPECT_EQ(SuggestClosest("--sorce", flags), "--source");
  EXPECT_EQ(SuggestClosest("--intervl", flags), "--interval");
  EXPECT_EQ(SuggestClosest("--verbose", flags), "");
  std::initializer_list<std::string_view> fields = {"driver", "cuda", "rocm"};
  EXPECT_EQ(SuggestClosest("cdua", fields), "cuda");
}

}  // namespace
}  // namespace gpufleet
