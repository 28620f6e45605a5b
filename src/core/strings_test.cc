#include "core/strings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/format.h"

namespace gpufleet {
namespace {

TEST(StringsTest, FormatFixedWritesWhatPrintfWrites) {
  EXPECT_EQ(FormatFixed(2.345, 2), "2.35");  // 2.345 is stored a little above
  EXPECT_EQ(FormatFixed(-0.5, 0), "-0");     // round half to even, sign kept
  EXPECT_EQ(FormatFixed(40.44, 0), "40");
  EXPECT_EQ(FormatFixed(1.0 / 3, 6), "0.333333");
  // Longer than any fixed buffer: 1e80 has 81 digits before the point.
  const std::string big = FormatFixed(1e80, 3);
  char expect[128];
  std::snprintf(expect, sizeof(expect), "%.3f", 1e80);
  EXPECT_EQ(big, expect);
  EXPECT_EQ(big.size(), std::strlen(expect));
}

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

// Short decimals take a fast path; it must print exactly what std::to_chars
// prints (shortest round trip), including around its edges.
TEST(StringsTest, FormatDoubleMatchesToCharsOnShortDecimals) {
  auto reference = [](double v) {
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, p);
  };
  std::mt19937_64 rng(42);
  std::vector<double> values = {0.001, 0.0015, 0.005, 0.01, 0.1, 0.47, 0.5, 1.5, 409.692,
                                999999999.5, 999999999.999999, 1e9 - 0.5, 0.000999, 123.4567891,
                                0.3, 0.7, 2.675, 1.005, 9.995, 1e-3 - 1e-19};
  for (int i = 0; i < 50000; ++i) {
    int k = static_cast<int>(rng() % 8);
    double scale = std::pow(10.0, k);
    double n = static_cast<double>(rng() % 2000000000000ull);
    values.push_back(n / scale);                        // short decimals
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 60)));
  }
  for (double v : values) {
    if (v == std::floor(v)) continue;  // integers have their own path
    for (double x : {v, -v}) {
      ASSERT_EQ(FormatDouble(x), reference(x)) << std::hexfloat << x;
    }
  }
}

// The fast decimal path must give exactly what std::from_chars gives, and
// decline every form it does not handle.
TEST(StringsTest, ParseSimpleDecimalMatchesFromChars) {
  std::mt19937_64 rng(11);
  std::vector<std::string> inputs = {"0", "-0", "1.", ".5", "007", "0.1", "0.30000000000000004",
                                     "123456789012345", "1234567890123456", "9007199254740993",
                                     "2.675", "1e5", "+1", "-", ".", "1.2.3", "", "1_0", "NaN",
                                     "999999999999999", "0.000000000000001"};
  for (int i = 0; i < 100000; ++i) {
    std::string s = std::to_string(rng() % 1000000000000000ull);
    size_t dot = rng() % (s.size() + 2);
    if (dot <= s.size()) s.insert(dot, ".");
    if (rng() % 4 == 0) s.insert(0, "-");
    inputs.push_back(s);
  }
  for (const std::string& s : inputs) {
    double fast = 12345;
    bool took = ParseSimpleDecimal(s, &fast);
    double ref = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), ref);
    bool ref_ok = ec == std::errc() && ptr == s.data() + s.size();
    if (!took) {
      EXPECT_EQ(fast, 12345) << s;  // untouched
      continue;
    }
    ASSERT_TRUE(ref_ok) << s;
    EXPECT_EQ(std::memcmp(&fast, &ref, sizeof(double)), 0) << s << " " << fast << " vs " << ref;
  }
  double v = 0;
  EXPECT_FALSE(ParseSimpleDecimal("1234567890123456", &v));  // 16 digits: not exact
  EXPECT_FALSE(ParseSimpleDecimal("1e5", &v));
  EXPECT_FALSE(ParseSimpleDecimal("+1", &v));
  EXPECT_FALSE(ParseSimpleDecimal(".", &v));
  EXPECT_TRUE(ParseSimpleDecimal("-0.47", &v));
  EXPECT_EQ(v, -0.47);
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

TEST(StringsTest, EqualsIgnoreCaseFoldsAsciiOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("Text/Plain", "text/plain"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("text/plain", "text/plai"));
  EXPECT_FALSE(EqualsIgnoreCase("text-plain", "text_plain"));
  EXPECT_FALSE(EqualsIgnoreCase("\xc3\x89", "\xc3\xa9"));  // É vs é: not ASCII
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

namespace gpufleet {
namespace {

// Equal to std::sort on (text, id) for texts with long shared prefixes,
// prefixes of one another, NUL and high bytes, and duplicates.
TEST(SortTextsWithIdsTest, EqualsStdSort) {
  std::mt19937 rng(11);
  const std::string alphabet("ab\0\xff=\",", 7);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> texts;
    std::string prefix(rng() % 40, 'p');
    size_t n = 1 + rng() % 120;
    for (size_t i = 0; i < n; ++i) {
      std::string t = rng() % 4 == 0 ? "" : prefix;
      size_t len = rng() % 20;
      for (size_t k = 0; k < len; ++k) t.push_back(alphabet[rng() % alphabet.size()]);
      texts.push_back(t);
      if (rng() % 5 == 0) texts.push_back(t);  // a duplicate under another id
    }
    std::vector<std::pair<std::string_view, uint32_t>> items, expected;
    for (uint32_t i = 0; i < texts.size(); ++i) items.emplace_back(texts[i], i);
    std::shuffle(items.begin(), items.end(), rng);
    expected = items;
    std::sort(expected.begin(), expected.end());
    SortTextsWithIds(items);
    ASSERT_EQ(items, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace gpufleet
