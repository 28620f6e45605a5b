#include "server/series_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "net/fake_http_client.h"

namespace gpufleet {
namespace {

using nlohmann::json;

constexpr int64_t kNow = 1'733'350'000LL * kNsPerSecond;
constexpr int64_t kS = kNsPerSecond;

class SeriesApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Three devices, a power sample every 10 s for the last 5 minutes.
    for (int64_t t = kNow - 300 * kS; t <= kNow; t += 10 * kS) {
      Put("GPU-1", "nvidia", 100, t);
      Put("GPU-2", "nvidia", 300, t);
      Put("AMD-1", "amd", 500, t);
    }
  }
  void Put(const char* uuid, const char* vendor, double v, int64_t t) {
    Labels l{
        {"__name__", "gpu_power_watts"}, {"gpu_uuid", uuid}, {"vendor", vendor}, {"node", "n1"}};
    ASSERT_TRUE(window_.Append(l, t, v));
  }
  SeriesQuery Query(const QueryParams& p) {
    StatusOr<SeriesQuery> q = ParseSeriesQuery(p, kNow, MetricCatalog::Default());
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return *q;
  }
  WindowStore window_{WindowStoreOptions{}};
};

TEST_F(SeriesApiTest, WindowSeriesOnTheGrid) {
  SeriesQuery q = Query({{"metric", "gpu_power_watts"}, {"from", "-2m"}, {"step", "30s"}});
  StatusOr<SeriesAnswer> a = AnswerSeries(window_, nullptr, q, kNow);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->source, "window");
  EXPECT_FALSE(a->partial);
  ASSERT_EQ(a->series.size(), 3u);
  EXPECT_EQ(a->series[0].labels.Get("gpu_uuid"), "AMD-1");  // sorted by labels
  ASSERT_EQ(a->series[0].v.size(), 5u);
  for (const auto& v : a->series[0].v) EXPECT_EQ(v, 500);
  json j = json::parse(SeriesAnswerJson(q, *a));
  EXPECT_EQ(j["unit"], "watts");
  EXPECT_EQ(j["series"][0]["t"].size(), 5u);
  EXPECT_DOUBLE_EQ(j["series"][0]["t"][4].get<double>(), 1'733'350'000.0);
  EXPECT_EQ(j["series"][1]["labels"]["gpu_uuid"], "GPU-1");
  EXPECT_FALSE(j["series"][1]["labels"].contains("__name__"));
}

TEST_F(SeriesApiTest, GapsAreNullAndLimitTruncates) {
  // 5 s steps over 10 s samples: every other grid point has no sample.
  SeriesQuery q =
      Query({{"metric", "gpu_power_watts"}, {"from", "-20s"}, {"step", "5s"}, {"limit", "1"}});
  SeriesAnswer a = EvaluateWindow(window_, q);
  ASSERT_EQ(a.series.size(), 1u);
  EXPECT_EQ(a.truncated, 2u);
  ASSERT_EQ(a.series[0].v.size(), 5u);
  EXPECT_TRUE(a.series[0].v[0].has_value());
  EXPECT_FALSE(a.series[0].v[1].has_value());
  EXPECT_TRUE(json::parse(SeriesAnswerJson(q, a))["series"][0]["v"][1].is_null());
}

TEST_F(SeriesApiTest, AggregateIsTheMeanPerGroup) {
  SeriesQuery q = Query(
      {{"metric", "gpu_power_watts"}, {"aggregate", "vendor"}, {"from", "-1m"}, {"step", "30s"}});
  SeriesAnswer a = EvaluateWindow(window_, q);
  ASSERT_EQ(a.series.size(), 2u);
  EXPECT_EQ(a.series[0].labels.Get("vendor"), "amd");
  EXPECT_EQ(a.series[0].v[0], 500);
  EXPECT_EQ(a.series[1].labels.Get("vendor"), "nvidia");
  EXPECT_EQ(a.series[1].v[0], 200);  // (100 + 300) / 2
  SeriesQuery one = Query({{"metric", "gpu_power_watts"}, {"gpu_uuid", "GPU-2"}});
  SeriesAnswer b = EvaluateWindow(window_, one);
  ASSERT_EQ(b.series.size(), 1u);
  EXPECT_EQ(b.series[0].labels.Get("gpu_uuid"), "GPU-2");
}

TEST_F(SeriesApiTest, OlderThanTheWindowWithoutLongtermIsPartial) {
  SeriesQuery q = Query({{"metric", "gpu_power_watts"}, {"from", "-2h"}, {"step", "1m"}});
  StatusOr<SeriesAnswer> a = AnswerSeries(window_, nullptr, q, kNow);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->partial);
  EXPECT_EQ(a->source, "window");
  EXPECT_NE(a->warning.find("[longterm] query_url"), std::string::npos);
  EXPECT_EQ(a->series.size(), 3u);
}

TEST_F(SeriesApiTest, OlderThanTheWindowReadsTheLongtermStore) {
  auto client = std::make_unique<FakeHttpClient>([](const RecordedHttpRequest& r) {
    EXPECT_NE(r.url.find("/api/v1/query_range?query="), std::string::npos);
    EXPECT_NE(r.url.find("last_over_time"), std::string::npos);
    EXPECT_EQ(r.Header("Authorization"), "Bearer t0k");
    HttpResponse res;
    res.status = 200;
    // Two grid points from 2 hours ago (7200 s and 7140 s before now).
    res.body = R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"gpu_uuid":"GPU-9","vendor":"intel"},"values":[[1733342800,"42"],[1733342860,"43.5"]]}]}})";
    return StatusOr<HttpResponse>(res);
  });
  LongtermReader lt({"http://vm:8428/", "t0k", kS}, std::move(client));
  SeriesQuery q = Query({{"metric", "gpu_power_watts"}, {"from", "-2h"}, {"step", "1m"}});
  StatusOr<SeriesAnswer> a = AnswerSeries(window_, &lt, q, kNow);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->source, "longterm");
  EXPECT_FALSE(a->partial);
  ASSERT_EQ(a->series.size(), 1u);
  EXPECT_EQ(a->series[0].labels.Get("gpu_uuid"), "GPU-9");
  EXPECT_EQ(a->series[0].v[0], 42);
  EXPECT_EQ(a->series[0].v[1], 43.5);
  EXPECT_FALSE(a->series[0].v[2].has_value());
}

TEST_F(SeriesApiTest, LongtermFailureFallsBackToPartialWindow) {
  auto client = std::make_unique<FakeHttpClient>([](const RecordedHttpRequest&) {
    return StatusOr<HttpResponse>(UnavailableError("http://vm:8428: connection refused"));
  });
  LongtermReader lt({"http://vm:8428", "", kS}, std::move(client));
  SeriesQuery q = Query({{"metric", "gpu_power_watts"}, {"from", "-2h"}, {"step", "1m"}});
  StatusOr<SeriesAnswer> a = AnswerSeries(window_, &lt, q, kNow);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->partial);
  EXPECT_NE(a->warning.find("connection refused"), std::string::npos);
}

TEST(LongtermReaderTest, PromqlAndBadAnswers) {
  SeriesQuery q;
  q.metric = "gpu_sm_occupancy_ratio";
  q.match.Set("vendor", "amd");
  q.aggregate = "model";
  q.from_ns = 0;
  q.to_ns = 60 * kS;
  q.step_ns = 15 * kS;
  EXPECT_EQ(LongtermPromql(q),
            "avg by (model) (last_over_time(gpu_sm_occupancy_ratio{vendor=\"amd\"}[15000ms]))");
  for (
      const char* bad :
      {"", "[]", R"({"status":"error","error":"parse error"})",
       // Found by fuzzing: a null where a string belongs threw from json::value.
       R"({"status":null})", R"({"status":"success","data":{"resultType":7}})",
       R"({"status":"success","data":{"resultType":"vector","result":[]}})",
       R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,2]]}]}})",
       R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[["x","2"]]}]}})",
       R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"two"]]}]}})"}) {
    EXPECT_FALSE(ParseQueryRangeAnswer(bad, q).ok()) << bad;
  }
  auto ok = ParseQueryRangeAnswer(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"model":"mi300x"},"values":[[15,"NaN"],[30,"0.5"],[9999,"1"]]}]}})",
      q);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_FALSE((*ok)[0].v[1].has_value());  // NaN is no value
  EXPECT_EQ((*ok)[0].v[2], 0.5);
}

}  // namespace
}  // namespace gpufleet
