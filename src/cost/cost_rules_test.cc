#include "cost/cost_rules.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "schema/metric_catalog.h"

namespace gpufleet::cost {
namespace {

struct Parsed {
  std::string record, expr;
};

std::vector<Parsed> ParseRules(const std::string& yaml) {
  std::vector<Parsed> out;
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);) {
    if (auto r = line.find("- record: "); r != std::string::npos) {
      out.push_back({line.substr(r + 10), ""});
    } else if (auto e = line.find("expr: '"); e != std::string::npos && !out.empty()) {
      EXPECT_EQ(line.back(), '\'') << line;
      out.back().expr = line.substr(e + 7, line.size() - e - 8);
    }
  }
  return out;
}

// Every series a rule reads is a canonical metric, a price series the server
// forwards, or a rule recorded before it; the expressions are balanced and
// the YAML scalars need no escaping. (promtool parses them for real in
// tests/integration/cost_store_agreement_test.py.)
TEST(CostRulesTest, RulesReadOnlyKnownSeriesInOrder) {
  std::vector<Parsed> rules = ParseRules(ExportCostRules());
  ASSERT_GE(rules.size(), 6u);
  std::set<std::string> defined = {"gpufleet_cost_device_usd_per_hour",
                                   "gpufleet_cost_device_usd_per_kwh"};
  const std::regex name(R"(([a-z_:][a-z0-9_:]*)\s*(\{|\[|\)|$| [*/+]| or| unless| >))");
  const std::set<std::string> words = {"by", "on", "or", "unless", "bool", "group_left",
                                       "max", "sum", "count", "rate", "avg_over_time", "clamp",
                                       "max_over_time", "count_over_time"};
  for (const Parsed& r : rules) {
    SCOPED_TRACE(r.record);
    ASSERT_FALSE(r.expr.empty());
    EXPECT_EQ(r.expr.find('\''), std::string::npos);
    int depth = 0;
    for (char c : r.expr) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      ASSERT_GE(depth, 0);
    }
    EXPECT_EQ(depth, 0);
    // Names right before a selector or an operator are series; label names
    // inside by (...) / on (...) are followed by ',' or ')' and skipped below.
    std::string e = std::regex_replace(r.expr, std::regex(R"((by|on) \([^)]*\))"), "");
    for (std::sregex_iterator it(e.begin(), e.end(), name), end; it != end; ++it) {
      std::string n = (*it)[1];
      if (words.count(n) || n.find("workload_") == 0) continue;
      bool canonical = MetricCatalog::Default().Find(n) != nullptr;
      EXPECT_TRUE(canonical || defined.count(n)) << n << " in " << r.expr;
    }
    EXPECT_TRUE(defined.insert(r.record).second) << "recorded twice";
  }
  EXPECT_TRUE(defined.count("gpufleet:holder_cost_usd_per_hour"));
  EXPECT_TRUE(defined.count("gpufleet:device_idle_cost_usd_per_hour"));
  EXPECT_TRUE(defined.count("gpufleet:holder_usage_cost_usd_per_hour"));
  EXPECT_TRUE(defined.count("gpufleet:holder_usage_mean_cost_usd_per_hour"));
}

// The serving rule reads the named pod label and refuses a name Prometheus
// would not take. (Its PromQL runs in a real Prometheus in
// tests/integration/serving_tokens_test.py.)
TEST(CostRulesTest, ServingRuleUsesThePodLabel) {
  StatusOr<std::string> yaml = ExportServingTokenRules("kubernetes_pod_name");
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  std::vector<Parsed> rules = ParseRules(*yaml);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].record, "gpu_workload_tokens_total");
  EXPECT_NE(rules[0].expr.find("vllm:prompt_tokens_total{kubernetes_pod_name!=\"\"}"),
            std::string::npos);
  EXPECT_NE(rules[0].expr.find("\"workload_pod\", \"$1\", \"kubernetes_pod_name\""),
            std::string::npos);
  EXPECT_FALSE(ExportServingTokenRules("pod-name").ok());
  EXPECT_FALSE(ExportServingTokenRules("__name__").ok());
  EXPECT_FALSE(ExportServingTokenRules("").ok());
}

}  // namespace
}  // namespace gpufleet::cost
