#include "dashboards/promql_refs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpufleet::dashboards {
namespace {

std::vector<std::string> Metrics(const std::string& expr) {
  StatusOr<PromqlRefs> r = ExtractPromqlRefs(expr);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->metrics : std::vector<std::string>{};
}

TEST(PromqlRefsTest, FindsSelectorsInsideFunctionsAndAggregations) {
  EXPECT_EQ(Metrics("sum by (vendor) (rate(gpu_pcie_transmit_bytes_total{node=~\"$node\"}"
                    "[$__rate_interval]))"),
            std::vector<std::string>{"gpu_pcie_transmit_bytes_total"});
  EXPECT_EQ(Metrics("gpu_a > 0.85 and on (node, gpu_uuid) gpu_b < 0.5"),
            (std::vector<std::string>{"gpu_a", "gpu_b"}));
  EXPECT_EQ(Metrics("count(x == 0) or vector(0)"), std::vector<std::string>{"x"});
  EXPECT_EQ(Metrics("a * on (gpu_uuid) group_left (model) b offset 5m"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Metrics("topk(5, m) / 1e9"), std::vector<std::string>{"m"});
}

TEST(PromqlRefsTest, LabelNamesAndStringsAreNotMetrics) {
  EXPECT_EQ(Metrics("count by (workload_team) (m{workload_team=~\"a b\", x!=\"y\"})"),
            std::vector<std::string>{"m"});
  EXPECT_EQ(Metrics("{__name__=\"named\"}"), std::vector<std::string>{"named"});
  EXPECT_TRUE(Metrics("count by (__name__) ({__name__=~\"gpu_.+\"})").empty());
  // An empty name names no metric (the fuzzer's find).
  EXPECT_TRUE(Metrics("count(up{__name__=\"\",node=~\"$node\"})").size() == 1u);
  EXPECT_TRUE(Metrics("{__name__=\"\"}").empty());
}

TEST(PromqlRefsTest, KeepsMatchersForAlertNames) {
  StatusOr<PromqlRefs> r = ExtractPromqlRefs("ALERTS{alertname=~\"A|B\",alertstate=\"firing\"}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->matchers.size(), 2u);
  EXPECT_EQ(r->matchers[0].label, "alertname");
  EXPECT_EQ(r->matchers[0].op, "=~");
  EXPECT_EQ(r->matchers[0].value, "A|B");
  EXPECT_EQ(r->matchers[1].value, "firing");
}

TEST(PromqlRefsTest, GroupsMatchersBySelector) {
  StatusOr<PromqlRefs> r = ExtractPromqlRefs(
      "sum by (a) (rate(m1{x=\"1\"}[5m])) / m2 and on (b) {__name__=\"m3\", y=~\"2\"}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->selectors.size(), 3u);
  EXPECT_EQ(r->selectors[0].metric, "m1");
  ASSERT_EQ(r->selectors[0].matchers.size(), 1u);
  EXPECT_EQ(r->selectors[0].matchers[0].label, "x");
  EXPECT_EQ(r->selectors[1].metric, "m2");
  EXPECT_TRUE(r->selectors[1].matchers.empty());
  EXPECT_EQ(r->selectors[2].metric, "m3");
  EXPECT_EQ(r->selectors[2].matchers.size(), 2u);
}

TEST(PromqlRefsTest, BrokenExpressionsNameTheOffset) {
  for (const char* bad : {"m{a=\"x", "m[5m", "m{a}", "m{a=x}", "m]", "sum by (a"}) {
    StatusOr<PromqlRefs> r = ExtractPromqlRefs(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("offset"), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace gpufleet::dashboards
