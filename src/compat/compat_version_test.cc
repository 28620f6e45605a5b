#include "compat/compat_version.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

Version V(std::string_view s) {
  auto v = Version::Parse(s);
  EXPECT_TRUE(v.ok()) << s << ": " << v.status().ToString();
  return v.ok() ? *v : Version();
}

TEST(CompatVersionTest, ComparesComponentsNumerically) {
  struct Case {
    const char* a;
    const char* b;
    int want;  // sign of Compare(a, b)
  } cases[] = {
      {"570.86.15", "570.124", -1},  // 86 < 124, not a string compare
      {"570.124.06", "570.124", 1},  // extra component
      {"12.4", "12.10", -1},         // 4 < 10
      {"12.4", "12.4.0", 0},         // missing components read as 0
      {"6.0.2", "6.0", 1},
      {"6.0.2", "6.0.10", -1},
      {"535.104.05", "535.104.5", 0},  // leading zeros are numeric
      {"2.18.1", "2.18.1", 0},
      {"v1.2", "1.2", 0},
      {"580", "580.65.06", -1},
  };
  for (const Case& c : cases) {
    int got = V(c.a).Compare(V(c.b));
    EXPECT_EQ((got > 0) - (got < 0), c.want) << c.a << " vs " << c.b;
    int rev = V(c.b).Compare(V(c.a));
    EXPECT_EQ((rev > 0) - (rev < 0), -c.want) << c.b << " vs " << c.a;
  }
  EXPECT_LT(V("570.86.15"), V("570.124"));
  EXPECT_EQ(V("12.4"), V("12.4.0"));
}

TEST(CompatVersionTest, KeepsTextAndComponents) {
  Version v = V("535.104.05");
  EXPECT_EQ(v.text(), "535.104.05");
  EXPECT_EQ(v.major(), 535u);
  EXPECT_EQ(v.minor(), 104u);
  EXPECT_EQ(v.at(2), 5u);
  EXPECT_EQ(v.at(3), 0u);
  EXPECT_TRUE(v.SamePrefix(V("535.104"), 2));
  EXPECT_FALSE(v.SamePrefix(V("535.86"), 2));
  EXPECT_TRUE(V("6.2.4").SamePrefix(V("6.2"), 2));
}

TEST(CompatVersionTest, RejectsMalformedWithOffset) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"", "empty"},
      {"5x0", "unexpected 'x' at offset 1"},
      {"12.", "expected a digit at offset 3"},
      {".12", "unexpected '.' at offset 0"},
      {"1..2", "unexpected '.' at offset 2"},
      {"1.2.3.4.5.6.7", "more than 6 components"},
      {"1234567890", "longer than 9 digits"},
      {"12.4 ", "unexpected ' ' at offset 4"},
      {"-1", "unexpected '-' at offset 0"},
      {"v", "expected a digit at offset 1"},
  };
  for (const Case& c : cases) {
    auto v = Version::Parse(c.text);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(v.status().message().find(c.want), std::string::npos)
        << c.text << ": " << v.status().message();
  }
}

TEST(CompatVersionTest, ParsesPackageVersions) {
  auto p = ParsePackageVersion("2.21.5-1+cuda12.4");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->version, V("2.21.5"));
  EXPECT_EQ(p->revision, "1");
  EXPECT_EQ(p->cuda, V("12.4"));

  auto plain = ParsePackageVersion("2.18.1");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->version, V("2.18.1"));
  EXPECT_TRUE(plain->cuda.empty());
  EXPECT_TRUE(plain->revision.empty());

  for (const char* bad :
       {"2.21.5-+cuda12.4", "2.21.5-1+rocm6.2", "2.21.5+cuda", "x-1", "2.21.5-1a", "+cuda12.4"}) {
    auto b = ParsePackageVersion(bad);
    EXPECT_FALSE(b.ok()) << bad;
  }
}

}  // namespace
}  // namespace gpufleet
