#include "server/query_params.h"

#include <gtest/gtest.h>

#include "core/clock.h"
#include "server/series_query.h"

namespace gpufleet {
namespace {

constexpr int64_t kNow = 1'733'350'000LL * kNsPerSecond;

TEST(QueryParamsTest, TimeForms) {
  EXPECT_EQ(*ParseQueryTimeNs("from", "now", kNow), kNow);
  EXPECT_EQ(*ParseQueryTimeNs("from", "-15m", kNow), kNow - 900 * kNsPerSecond);
  EXPECT_EQ(*ParseQueryTimeNs("from", "-1h30m", kNow), kNow - 5400 * kNsPerSecond);
  EXPECT_EQ(*ParseQueryTimeNs("from", "1733350000", kNow), kNow);
  EXPECT_EQ(*ParseQueryTimeNs("from", "1733350000.25", kNow), kNow + 250 * kNsPerMs);
  // 2024-12-04T22:06:40Z is 1733350000.
  EXPECT_EQ(*ParseQueryTimeNs("from", "2024-12-04T22:06:40Z", kNow), kNow);
  EXPECT_EQ(*ParseQueryTimeNs("from", "2024-12-04T22:06:40.5Z", kNow), kNow + 500 * kNsPerMs);
  EXPECT_EQ(*ParseQueryTimeNs("from", "1970-01-01T00:00:00Z", kNow), 0);
  EXPECT_EQ(*ParseQueryTimeNs("from", "9000000000", kNow), 9'000'000'000 * kNsPerSecond);
}

TEST(QueryParamsTest, BadTimesNameTheParameter) {
  for (const char* bad :
       {"", "yesterday", "-", "-15", "-15x", "1e9", "-1e9", "12:00", "2024-13-04T22:06:40Z",
        "2024-12-04T22:06:40", "99999999999999", "nan", "inf", "1733350000..5", "-999999999d",
        // Found by fuzzing: seconds past 2262 overflowed int64 ns.
        "17303350000.25", "9999-12-31T23:59:59Z", "2263-01-01T00:00:00Z"}) {
    StatusOr<int64_t> t = ParseQueryTimeNs("from", bad, kNow);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(t.status().message().rfind("from: ", 0), 0u) << t.status().message();
  }
}

TEST(QueryParamsTest, RangeRejectsFromAfterTo) {
  StatusOr<QueryRange> r = ParseQueryRange(std::string("now"), std::string("-1h"), "-15m", kNow);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is after to"), std::string::npos);
  StatusOr<QueryRange> d = ParseQueryRange(std::nullopt, std::nullopt, "-15m", kNow);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->to_ns - d->from_ns, 900 * kNsPerSecond);
}

TEST(QueryParamsTest, Steps) {
  EXPECT_EQ(*ParseQueryStepNs("step", "15s"), 15 * kNsPerSecond);
  EXPECT_EQ(*ParseQueryStepNs("step", "30"), 30 * kNsPerSecond);
  EXPECT_EQ(*ParseQueryStepNs("step", "0.5"), 500 * kNsPerMs);
  for (const char* bad : {"0", "0s", "-5s", "abc", "", "0.0000001", "1e400"}) {
    StatusOr<int64_t> s = ParseQueryStepNs("step", bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().message().rfind("step: ", 0), 0u);
  }
}

TEST(QueryParamsTest, Limits) {
  EXPECT_EQ(*ParseQueryLimit("limit", "200", 10000), 200);
  StatusOr<int64_t> over = ParseQueryLimit("limit", "10001", 10000);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("over the maximum of 10000"), std::string::npos);
  EXPECT_FALSE(ParseQueryLimit("limit", "-1", 10000).ok());
  EXPECT_FALSE(ParseQueryLimit("limit", "99999999999999999999999", 10000).ok());
  EXPECT_FALSE(ParseQueryLimit("limit", "ten", 10000).ok());
}

TEST(SeriesQueryTest, ParsesAndChecksEveryParameter) {
  const MetricCatalog& cat = MetricCatalog::Default();
  QueryParams p = {{"metric", "gpu_power_watts"},
                   {"vendor", "amd"},
                   {"aggregate", "model"},
                   {"from", "-1h"},
                   {"step", "1m"},
                   {"limit", "20"}};
  StatusOr<SeriesQuery> q = ParseSeriesQuery(p, kNow, cat);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->unit, "watts");
  EXPECT_EQ(q->match.Get("vendor"), "amd");
  EXPECT_EQ(q->aggregate, "model");
  EXPECT_EQ(q->points(), 61);
  EXPECT_EQ(q->limit, 20);

  auto error = [&](QueryParams params) {
    StatusOr<SeriesQuery> r = ParseSeriesQuery(params, kNow, cat);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(error({}).rfind("metric: required", 0), 0u);
  EXPECT_NE(error({{"metric", "gpu_power_watt"}}).find("did you mean gpu_power_watts"),
            std::string::npos);
  EXPECT_EQ(error({{"metric", "DCGM_FI_DEV_POWER_USAGE"}}).rfind("metric: ", 0), 0u);
  EXPECT_EQ(error({{"metric", "gpu_up"}, {"aggregate", "team"}}).rfind("aggregate: ", 0), 0u);
  EXPECT_EQ(error({{"metric", "gpu_up"}, {"from", "now"}, {"to", "-1h"}}).rfind("from: ", 0), 0u);
  EXPECT_EQ(error({{"metric", "gpu_up"}, {"step", "0s"}}).rfind("step: ", 0), 0u);
  EXPECT_EQ(error({{"metric", "gpu_up"}, {"from", "-30d"}, {"step", "1s"}}).rfind("step: ", 0), 0u);
  EXPECT_EQ(error({{"metric", "gpu_up"}, {"limit", "10001"}}).rfind("limit: ", 0), 0u);
  EXPECT_EQ(error({{"metric", "gpu_up"}, {"limit", "0"}}).rfind("limit: ", 0), 0u);
  // 10,000 series of 11,000 points would be 110 million points.
  EXPECT_NE(error({{"metric", "gpu_up"}, {"from", "-10999s"}, {"step", "1s"}, {"limit", "10000"}})
                .find("points per answer"),
            std::string::npos);
}

TEST(SeriesQueryTest, SelectorAsEvidenceWritesIt) {
  auto s = ParseSeriesSelector(R"(gpu_up{gpu_uuid="GPU-1",node="n\"1\\"})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->first, "gpu_up");
  EXPECT_EQ(s->second.Get("node"), "n\"1\\");
  EXPECT_EQ(s->second.Get("gpu_uuid"), "GPU-1");
  EXPECT_TRUE(ParseSeriesSelector("gpu_up").ok());
  EXPECT_TRUE(ParseSeriesSelector("gpu_up{}").ok());
  for (const char* bad : {"", "{a=\"1\"}", "gpu_up{", "gpu_up{a=1}", "gpu_up{a=\"1\"",
                          "x{a=\"\\q\"}", "x{a=\"1\"}y", "contention evidence"}) {
    auto r = ParseSeriesSelector(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("offset"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpufleet
