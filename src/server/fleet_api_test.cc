#include "server/fleet_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "server/json_out.h"

namespace gpufleet {
namespace {

using nlohmann::json;

constexpr int64_t kNow = 1'733'350'000LL * kNsPerSecond;

Labels Device(std::string_view metric, std::string_view node, std::string_view uuid,
              std::string_view vendor, std::string_view model) {
  Labels l{{"__name__", std::string(metric)}, {"node", std::string(node)},
           {"gpu_uuid", std::string(uuid)},   {"vendor", std::string(vendor)},
           {"model", std::string(model)},     {"cloud", "aws"}};
  return l;
}

class FleetApiTest : public ::testing::Test {
 protected:
  void Put(std::string_view metric, std::string_view node, std::string_view uuid,
           std::string_view vendor, double v, int64_t t = kNow - kNsPerSecond, Labels extra = {}) {
    Labels l = Device(metric, node, uuid, vendor, vendor == "amd" ? "mi300x" : "h100");
    l.Merge(extra);
    ASSERT_TRUE(window_.Append(l, t, v));
  }
  json Summary(const FleetFilter& f = {}, std::unordered_map<std::string, int> open = {}) {
    FleetOptions o;
    o.stale_after_ns = 60 * kNsPerSecond;
    return json::parse(FleetSummaryJson(window_, f, open, kNow, o));
  }
  WindowStore window_{WindowStoreOptions{}};
};

TEST_F(FleetApiTest, LatestValuesPerDeviceAndCounts) {
  Put("gpu_up", "n1", "GPU-1", "nvidia", 1, kNow - 20 * kNsPerSecond);
  Put("gpu_up", "n1", "GPU-1", "nvidia", 1);
  Put("gpu_utilization_ratio", "n1", "GPU-1", "nvidia", 0.2, kNow - 20 * kNsPerSecond);
  Put("gpu_utilization_ratio", "n1", "GPU-1", "nvidia", 0.9);
  Put("gpu_memory_used_bytes", "n1", "GPU-1", "nvidia", 40e9);
  Put("gpu_memory_total_bytes", "n1", "GPU-1", "nvidia", 80e9);
  Put("gpu_workload_info", "n1", "GPU-1", "nvidia", 1, kNow - kNsPerSecond,
      {{"workload_pod", "train-0"}, {"workload_team", "research"}});
  Put("gpu_up", "n2", "AMD-1", "amd", 0, kNow - kNsPerSecond, {{"reason", "timeout"}});
  // Last heard of 10 minutes ago: stale.
  Put("gpu_up", "n3", "GPU-3", "nvidia", 1, kNow - 600 * kNsPerSecond);

  json s = Summary({}, {{"GPU-1", 2}, {"n2/AMD-1", 1}});
  EXPECT_EQ(s["counts"]["devices"], 3);
  EXPECT_EQ(s["counts"]["up"], 1);
  EXPECT_EQ(s["counts"]["down"], 1);
  EXPECT_EQ(s["counts"]["stale"], 1);
  EXPECT_EQ(s["counts"]["by_vendor"]["nvidia"], 2);
  EXPECT_EQ(s["counts"]["by_vendor"]["amd"], 1);
  EXPECT_EQ(s["counts"]["by_vendor"]["intel"], 0);
  EXPECT_DOUBLE_EQ(s["window_s"].get<double>(), 1800);
  ASSERT_EQ(s["devices"].size(), 3u);
  const json& d1 = s["devices"][0];  // sorted by node/gpu
  EXPECT_EQ(d1["gpu_uuid"], "GPU-1");
  EXPECT_EQ(d1["up"], true);
  EXPECT_EQ(d1["up_reason"], "");
  EXPECT_DOUBLE_EQ(d1["utilization"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(d1["memory_used_ratio"].get<double>(), 0.5);
  EXPECT_TRUE(d1["occupancy"].is_null());
  EXPECT_TRUE(d1["power_watts"].is_null());
  EXPECT_EQ(d1["team"], "research");
  EXPECT_EQ(d1["workload"], "train-0");
  EXPECT_EQ(d1["open_incidents"], 2);
  EXPECT_EQ(d1["cloud"], "aws");
  EXPECT_DOUBLE_EQ(d1["last_seen"].get<double>(), 1'733'349'999.0);
  const json& d2 = s["devices"][1];
  EXPECT_EQ(d2["up"], false);
  EXPECT_EQ(d2["up_reason"], "timeout");
  EXPECT_EQ(d2["open_incidents"], 1);
  EXPECT_EQ(s["devices"][2]["stale"], true);
}

TEST_F(FleetApiTest, FiltersAreExact) {
  Put("gpu_up", "n1", "GPU-1", "nvidia", 1);
  Put("gpu_up", "n2", "AMD-1", "amd", 1);
  FleetFilter amd;
  amd.vendor = "amd";
  json s = Summary(amd);
  ASSERT_EQ(s["devices"].size(), 1u);
  EXPECT_EQ(s["devices"][0]["gpu_uuid"], "AMD-1");
  FleetFilter none;
  none.team = "nobody";
  EXPECT_EQ(Summary(none)["counts"]["devices"], 0);
  FleetFilter node;
  node.node = "n1";
  EXPECT_EQ(Summary(node)["devices"][0]["node"], "n1");
}

TEST_F(FleetApiTest, EmptyStoreAndOddLabelValuesStayValidJson) {
  EXPECT_EQ(Summary()["counts"]["devices"], 0);
  Put("gpu_up", "n\"1\n\xff", "GPU-\x01", "nvidia", 1);
  json s = Summary();  // parses: escaped and invalid UTF-8 replaced
  EXPECT_EQ(s["devices"][0]["node"], "n\"1\n\xEF\xBF\xBD");
  EXPECT_EQ(s["devices"][0]["gpu_uuid"], "GPU-\x01");
}

TEST(JsonOutTest, EscapesAndNulls) {
  std::string out;
  AppendJsonString("a\"b\\c\td\xC3\xA9\xC3", out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\td\xC3\xA9\xEF\xBF\xBD\"");
  out.clear();
  AppendJsonNumber(std::nan(""), out);
  AppendJsonNumber(std::optional<double>(), out);
  AppendJsonNumber(0.5, out);
  EXPECT_EQ(out, "nullnull0.5");
}

// A FleetSummary kept between calls answers exactly as a fresh one while
// values change, series come and go, and a device changes holder; series
// that left the window are dropped from its cache once they outnumber the
// live ones.
TEST_F(FleetApiTest, KeptSummaryAnswersAsAFreshOne) {
  FleetSummary kept;
  FleetOptions o;
  o.stale_after_ns = 60 * kNsPerSecond;
  int64_t now = kNow;
  auto same = [&](const FleetFilter& f = {}) {
    std::string cached = kept.Json(window_, f, {}, now, o);
    EXPECT_EQ(cached, FleetSummaryJson(window_, f, {}, now, o));
    return json::parse(cached);
  };
  Put("gpu_up", "n1", "GPU-1", "nvidia", 1, now - kNsPerSecond);
  Put("gpu_utilization_ratio", "n1", "GPU-1", "nvidia", 0.2, now - kNsPerSecond);
  Put("gpu_workload_info", "n1", "GPU-1", "nvidia", 1, now - kNsPerSecond,
      {{"workload_pod", "a-0"}, {"workload_team", "alpha"}});
  EXPECT_EQ(same()["devices"][0]["team"], "alpha");

  // New values, a new device, a new holder on GPU-1, and GPU-1 going down.
  now += 15 * kNsPerSecond;
  Put("gpu_up", "n1", "GPU-1", "nvidia", 0, now - kNsPerSecond, {{"reason", "xid_79"}});
  Put("gpu_utilization_ratio", "n1", "GPU-1", "nvidia", 0.7, now - kNsPerSecond);
  Put("gpu_workload_info", "n1", "GPU-1", "nvidia", 1, now - kNsPerSecond,
      {{"workload_pod", "b-0"}, {"workload_team", "beta"}});
  Put("gpu_up", "n2", "AMD-1", "amd", 1, now - kNsPerSecond);
  json s = same();
  ASSERT_EQ(s["devices"].size(), 2u);
  EXPECT_EQ(s["devices"][0]["utilization"], 0.7);
  EXPECT_EQ(s["devices"][0]["up_reason"], "xid_79");
  EXPECT_EQ(s["devices"][0]["team"], "alpha,beta");
  FleetFilter beta;
  beta.team = "beta";
  EXPECT_EQ(same(beta)["devices"].size(), 1u);

  // Everything leaves the window: no device, and the next call with a
  // fresh store keeps nothing of the old one.
  now += 3600 * kNsPerSecond;
  EXPECT_EQ(same()["devices"].size(), 0u);
  WindowStore other{WindowStoreOptions{}};
  EXPECT_EQ(json::parse(kept.Json(other, {}, {}, now, o))["devices"].size(), 0u);
  EXPECT_EQ(kept.cached_series(), 0u);
}

// Churning holder series (a new pod label every round) do not grow the
// cache without bound.
TEST_F(FleetApiTest, KeptSummaryForgetsSeriesThatLeftTheWindow) {
  WindowStore window{WindowStoreOptions{.retention_ns = 60 * kNsPerSecond}};
  FleetSummary kept;
  FleetOptions o;
  o.window_ns = 60 * kNsPerSecond;
  size_t most = 0;
  for (int round = 0; round < 400; ++round) {
    const int64_t now = kNow + round * 30 * kNsPerSecond;
    for (int pod = 0; pod < 50; ++pod) {
      Labels l = Device("gpu_workload_info", "n1", "GPU-" + std::to_string(pod), "nvidia", "h100");
      l.Set("workload_pod", "job-" + std::to_string(round) + "-" + std::to_string(pod));
      ASSERT_TRUE(window.Append(l, now, 1));
    }
    window.Prune(now);
    json s = json::parse(kept.Json(window, {}, {}, now, o));
    ASSERT_EQ(s["devices"].size(), 50u);
    most = std::max(most, kept.cached_series());
  }
  // 400 rounds x 50 series were seen; at most ~150 are live at once.
  EXPECT_LT(most, 2 * 150 + 4096 + 50u);
  EXPECT_GT(most, 0u);
}

// The contention map draws the configured field rule's levels, not fixed
// ones: found in the shipped configuration, moved when the rule moves, and
// null when no rule has that shape.
TEST_F(FleetApiTest, ContentionRegionComesFromTheDetectConfig) {
  detect::DetectConfig config = detect::DefaultDetectConfig();
  std::optional<ContentionRegion> region = FindContentionRegion(config);
  ASSERT_TRUE(region.has_value());
  EXPECT_EQ(region->rule, "memory_contention");
  EXPECT_DOUBLE_EQ(region->bandwidth_above, 0.85);
  EXPECT_DOUBLE_EQ(region->occupancy_below, 0.5);

  for (detect::RuleConfig& r : config.rules) {
    if (r.name == "memory_contention") r.conditions[0].value = 0.8;
  }
  FleetOptions o;
  o.contention_region = FindContentionRegion(config);
  json s = json::parse(FleetSummaryJson(window_, {}, {}, kNow, o));
  EXPECT_EQ(s["contention_region"]["rule"], "memory_contention");
  EXPECT_EQ(s["contention_region"]["bandwidth_above"], 0.8);
  EXPECT_EQ(s["contention_region"]["occupancy_below"], 0.5);

  config.rules.clear();
  EXPECT_FALSE(FindContentionRegion(config).has_value());
  EXPECT_TRUE(Summary()["contention_region"].is_null());
}

}  // namespace
}  // namespace gpufleet
