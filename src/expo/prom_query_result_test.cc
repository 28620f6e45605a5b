#include "expo/prom_query_result.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

// Shapes as Prometheus 2.x documents them for /api/v1/query(_range).
TEST(PromQueryResultTest, MatrixBecomesSeriesInMilliseconds) {
  auto r = ParsePromQueryResult(R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"__name__":"gpu_up","node":"n1"},"values":[[1733350000.123,"1"],[1733350015,"NaN"]]},
      {"metric":{"__name__":"gpu_up","node":"n2"},"values":[[1733350000,"+Inf"]]}]}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].labels.Get("__name__"), "gpu_up");
  EXPECT_EQ((*r)[0].labels.Get("node"), "n1");
  ASSERT_EQ((*r)[0].samples.size(), 2u);
  EXPECT_EQ((*r)[0].samples[0].timestamp_ms, 1733350000123);
  EXPECT_EQ((*r)[0].samples[0].value, 1.0);
  EXPECT_TRUE(std::isnan((*r)[0].samples[1].value));
  EXPECT_TRUE(std::isinf((*r)[1].samples[0].value));
}

TEST(PromQueryResultTest, VectorHasOneSamplePerSeries) {
  auto r = ParsePromQueryResult(R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"team":"a"},"value":[1733350000,"2.5"]}]}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].labels.Get("__name__"), "");
  EXPECT_EQ((*r)[0].samples[0].value, 2.5);
}

TEST(PromQueryResultTest, EngineErrorCarriesItsMessage) {
  auto r = ParsePromQueryResult(
      R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("bad_data"), std::string::npos);
  EXPECT_NE(r.status().message().find("parse error at char 5"), std::string::npos);
}

TEST(PromQueryResultTest, BadInputNamesThePlace) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}})",
       "data.result[0].values[0][1]: not a number"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[2,"1"],[1,"1"]]}]}})",
       "data.result[0].values[1]: time not increasing"},
      {R"({"status":"success","data":{"resultType":"scalar","result":[1,"1"]}})",
       "data.resultType: 'scalar' is not matrix or vector"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}})",
       "data.result[0].metric.a: must be a string"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1e300,"1"]}]}})",
       "data.result[0].value[0]: time out of range"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1]}]}})",
       "data.result[0].value: must be [time, \"value\"]"},
      {R"({"status":"succ)", "malformed JSON at byte"},
      {"[]", "must be an object"},
      // A number beyond a double (the fuzzer's find): an error, not an exception.
      {"55555555555555555555555555555555555e555e", "malformed JSON"},
  };
  for (const Case& c : cases) {
    auto r = ParsePromQueryResult(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos)
        << c.text << " -> " << r.status().message();
  }
}

}  // namespace
}  // namespace gpufleet
