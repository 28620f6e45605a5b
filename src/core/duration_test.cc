#include "core/duration.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1000 * kMs;

TEST(DurationTest, PrometheusFormRoundTrips) {
  // The last: 13,237 days and a millisecond, written as 13 digits of ms
  // (the fuzzer's find: "3d1ms3d13231d" did not come back).
  for (int64_t ns : {90 * kS, 120 * kS, 3600 * kS, 250 * kMs, 13237 * 86400 * kS + kMs}) {
    StatusOr<int64_t> back = ParseDurationNs(FormatDuration(ns));
    ASSERT_TRUE(back.ok()) << FormatDuration(ns);
    EXPECT_EQ(*back, ns);
  }
}

TEST(DurationTest, OverflowAndGarbageAreErrors) {
  EXPECT_FALSE(ParseDurationNs("999999999999999999d").ok());   // 18 digits, too long
  EXPECT_FALSE(ParseDurationNs("9999999999999999999s").ok());  // 19 digits
  EXPECT_FALSE(ParseDurationNs("36600d36600d").ok());          // each fits, the sum does not
  EXPECT_FALSE(ParseDurationNs("5x").ok());
  EXPECT_EQ(*ParseDurationNs("3d1ms3d13231d"), 13237 * 86400 * kS + kMs);
}

// Checked against Python's datetime.date differences.
TEST(DurationTest, DaysFromCivilCountsFromTheEpoch) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2026, 12, 4), 20791);
  EXPECT_EQ(DaysFromCivil(2000, 2, 29), 11016);   // a leap day of a century leap year
  EXPECT_EQ(DaysFromCivil(1600, 3, 1), -135080);  // before the epoch
}

// Regression: incident summaries said "for 262446ms".
TEST(DurationTest, HumanFormIsToTheSecond) {
  EXPECT_EQ(FormatDurationHuman(262446 * kMs), "4m22s");
  EXPECT_EQ(FormatDurationHuman(59 * kS + 600 * kMs), "1m");
  EXPECT_EQ(FormatDurationHuman(3787 * kS), "1h3m");
  EXPECT_EQ(FormatDurationHuman((2 * 86400 + 4 * 3600 + 61) * kS), "2d4h");
  EXPECT_EQ(FormatDurationHuman(850 * kMs), "850ms");
  EXPECT_EQ(FormatDurationHuman(0), "0s");
}

}  // namespace
}  // namespace gpufleet
