#include "detect/detect_config.h"

#include <gtest/gtest.h>

namespace gpufleet::detect {
namespace {

constexpr int64_t kMin = 60'000'000'000;

TEST(DetectConfigTest, DefaultsCarryTheFieldRules) {
  const DetectConfig& c = DefaultDetectConfig();
  ASSERT_EQ(c.rules.size(), 3u);
  const RuleConfig& mem = c.rules[0];
  EXPECT_EQ(mem.name, "memory_contention");
  EXPECT_EQ(mem.for_ns, 2 * kMin);
  ASSERT_EQ(mem.conditions.size(), 2u);
  EXPECT_EQ(mem.conditions[0].metric, "gpu_memory_bandwidth_utilization_ratio");
  EXPECT_EQ(mem.conditions[0].op, Condition::Op::kGreater);
  EXPECT_DOUBLE_EQ(mem.conditions[0].value, 0.85);
  EXPECT_EQ(mem.conditions[1].op, Condition::Op::kLess);
  EXPECT_DOUBLE_EQ(mem.conditions[1].value, 0.5);
  const RuleConfig& lat = c.rules[1];
  EXPECT_EQ(lat.conditions[0].op, Condition::Op::kDrop);
  EXPECT_DOUBLE_EQ(lat.conditions[0].value, 0.3);
  EXPECT_EQ(lat.conditions[0].reference_ns, 30 * kMin);
  EXPECT_EQ(c.rules[2].for_ns, 5 * kMin);
  EXPECT_DOUBLE_EQ(c.rules[2].conditions[0].value, 0.2);
  EXPECT_DOUBLE_EQ(c.baseline.max_sigma, 2);
  EXPECT_DOUBLE_EQ(c.variance.max_cv, 0.05);
  EXPECT_DOUBLE_EQ(c.cross_cloud.max_gap, 0.1);
  ASSERT_EQ(c.captures.size(), 2u);
  EXPECT_EQ(c.captures[0].for_ns, 5 * kMin);
  EXPECT_DOUBLE_EQ(c.captures[0].condition.value, 0.3);
}

TEST(DetectConfigTest, ParsesDurations) {
  EXPECT_EQ(*ParseDurationNs("90s"), 90'000'000'000);
  EXPECT_EQ(*ParseDurationNs("1h30m"), 90 * kMin);
  EXPECT_EQ(*ParseDurationNs("250ms"), 250'000'000);
  EXPECT_FALSE(ParseDurationNs("5").ok());
  EXPECT_FALSE(ParseDurationNs("m").ok());
  EXPECT_FALSE(ParseDurationNs("5x").ok());
  EXPECT_FALSE(ParseDurationNs("").ok());
  EXPECT_FALSE(ParseDurationNs("999999999999d").ok());  // would overflow int64 ns
  EXPECT_EQ(FormatDuration(2 * kMin), "2m");
  EXPECT_EQ(FormatDuration(90'000'000'000), "90s");
  EXPECT_EQ(FormatDuration(60 * kMin), "1h");
}

TEST(DetectConfigTest, ErrorsNameFileLineAndField) {
  auto bad_op = ParseDetectConfig(R"([[rule]]
name = "x"
for = "1m"
conditions = [
  { metric = "gpu_power_watts", op = ">=", value = 1 },
]
)",
                                  "site.toml");
  ASSERT_FALSE(bad_op.ok());
  EXPECT_NE(bad_op.status().message().find("site.toml:5"), std::string::npos)
      << bad_op.status().ToString();
  EXPECT_NE(bad_op.status().message().find("op must be"), std::string::npos);

  auto typo = ParseDetectConfig("[baseline]\nmax_sigmaa = 3\n", "site.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("did you mean 'max_sigma'"), std::string::npos)
      << typo.status().ToString();

  auto no_ref = ParseDetectConfig(R"([[rule]]
name = "x"
conditions = [{ metric = "m", op = "drop", value = 0.3 }]
)",
                                  "site.toml");
  ASSERT_FALSE(no_ref.ok());
  EXPECT_NE(no_ref.status().message().find("reference"), std::string::npos);

  EXPECT_FALSE(ParseDetectConfig("lookback = \"soon\"\n", "site.toml").ok());
  EXPECT_FALSE(ParseDetectConfig("[[rule]]\nname = \"x\"\n", "site.toml").ok());
  EXPECT_FALSE(ParseDetectConfig("interval_s = [", "site.toml").ok());
}

TEST(DetectConfigTest, OmittedSectionsKeepDefaults) {
  auto c = ParseDetectConfig("interval_s = 15\n[variance]\nmax_cv = 0.1\n", "site.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->interval_ns, 15'000'000'000);
  EXPECT_DOUBLE_EQ(c->variance.max_cv, 0.1);
  EXPECT_EQ(c->variance.min_points, 30u);
  EXPECT_TRUE(c->rules.empty());
}

TEST(DetectConfigTest, IntegerEnabledIsReadAsABoolean) {
  // toml++ reads `enabled = 1` as true; the configs written so far may rely on it.
  auto c = ParseDetectConfig("[variance]\nenabled = 0\n[baseline]\nenabled = 1\n", "site.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->variance.enabled);
  EXPECT_TRUE(c->baseline.enabled);
  EXPECT_FALSE(ParseDetectConfig("[variance]\nenabled = \"yes\"\n", "site.toml").ok());
}

}  // namespace
}  // namespace gpufleet::detect
