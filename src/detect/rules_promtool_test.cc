// Integration test: the exported rules load in promtool and, on the same
// simulated data, fire at the same evaluation as the built-in detectors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "core/strings.h"
#include "detect/detection_engine.h"
#include "detect/rules_export.h"

namespace gpufleet::detect {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int kSteps = 480;  // 80 minutes at 10 s
constexpr int kOnset = 240;  // contention from minute 40

bool HavePromtool() { return std::system("promtool --version >/dev/null 2>&1") == 0; }

int RunPromtool(const std::string& args, std::string* output) {
  const std::string log = ::testing::TempDir() + "/promtool.log";
  const int rc = std::system(("promtool " + args + " >" + log + " 2>&1").c_str());
  std::ifstream in(log);
  output->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return rc;
}

struct Series {
  std::string metric;
  std::string gpu;
  std::vector<double> values;
};

// Device 0: DRAM contention (bandwidth up, occupancy down, stalls up).
// Device 1: latency-bound contention (bandwidth down 40%, utilization high).
// Device 2: clean. `contended` false = every device clean.
std::vector<Series> Scenario(bool contended) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0, 0.005);
  std::vector<Series> out;
  auto add = [&](std::string metric, std::string gpu, double before, double after) {
    Series s{std::move(metric), std::move(gpu), {}};
    for (int i = 0; i < kSteps; ++i) {
      const double v = (contended && i >= kOnset ? after : before) + noise(rng);
      s.values.push_back(std::round(v * 10000) / 10000);
    }
    out.push_back(std::move(s));
  };
  add("gpu_memory_bandwidth_utilization_ratio", "0", 0.5, 0.9);
  add("gpu_sm_occupancy_ratio", "0", 0.7, 0.4);
  add("gpu_utilization_ratio", "0", 0.95, 0.95);
  add("gpu_memory_stall_ratio", "0", 0.08, 0.3);
  add("gpu_memory_bandwidth_utilization_ratio", "1", 0.5, 0.3);
  add("gpu_sm_occupancy_ratio", "1", 0.7, 0.6);
  add("gpu_utilization_ratio", "1", 0.95, 0.95);
  add("gpu_memory_stall_ratio", "1", 0.08, 0.25);
  add("gpu_memory_bandwidth_utilization_ratio", "2", 0.5, 0.5);
  add("gpu_sm_occupancy_ratio", "2", 0.7, 0.7);
  add("gpu_utilization_ratio", "2", 0.95, 0.95);
  add("gpu_memory_stall_ratio", "2", 0.08, 0.08);
  return out;
}

// Built-in detector: (alert kind, step) -> devices firing.
std::map<std::pair<std::string, int>, std::set<std::string>> BuiltIn(
    const std::vector<Series>& scenario, std::map<std::string, std::map<std::string, int>>* first) {
  DetectConfig config = DefaultDetectConfig();
  config.baseline.enabled = config.variance.enabled = config.cross_cloud.enabled = false;
  config.captures.clear();
  WindowStore store(WindowStoreOptions{});
  auto engine = DetectionEngine::Create(config, nullptr);
  EXPECT_TRUE(engine.ok());
  std::map<std::pair<std::string, int>, std::set<std::string>> firing;
  for (int i = 0; i < kSteps; ++i) {
    for (const Series& s : scenario) {
      store.Append(Labels{{"__name__", s.metric}, {"node", "n1"}, {"gpu", s.gpu}}, i * 10 * kS,
                   s.values[i]);
    }
    for (const Finding& f : (*engine)->Evaluate(store, i * 10 * kS)) {
      const std::string gpu(f.subject.Get("gpu"));
      // The exported rules keep the plain field rule: a finding the engine
      // reports as memory_bound (no evidence of contention) fired its rule.
      const std::string& rule = f.rule.empty() ? f.kind : f.rule;
      firing[{rule, i}].insert(gpu);
      (*first)[rule].emplace(gpu, i);  // keeps the first step
    }
  }
  return firing;
}

std::string ExpectedAlerts(const RuleConfig& rule, const std::set<std::string>& gpus) {
  if (gpus.empty()) return "        exp_alerts: []\n";
  std::string out = "        exp_alerts:\n";
  for (const std::string& gpu : gpus) {
    out += "          - exp_labels:\n";
    out += "              node: n1\n              gpu: \"" + gpu + "\"\n";
    out += "              severity: " + rule.severity + "\n";
    out += "              team: " + rule.team + "\n";
    out += "              kind: " + rule.name + "\n";
    out += "            exp_annotations:\n";
    out += "              summary: \"" + RuleSummary(rule) + "\"\n";
  }
  return out;
}

std::string TestFile(const std::vector<Series>& scenario,
                     const std::map<std::pair<std::string, int>, std::set<std::string>>& firing,
                     const std::set<int>& steps) {
  std::string out = "rule_files: [rules.yml]\nevaluation_interval: 10s\ntests:\n";
  out += "  - interval: 10s\n    input_series:\n";
  for (const Series& s : scenario) {
    out += "      - series: '" + s.metric + "{node=\"n1\",gpu=\"" + s.gpu + "\"}'\n";
    out += "        values: '";
    for (size_t i = 0; i < s.values.size(); ++i) {
      out += (i ? " " : "") + FormatDouble(s.values[i]);
    }
    out += "'\n";
  }
  out += "    alert_rule_test:\n";
  for (const RuleConfig& rule : DefaultDetectConfig().rules) {
    for (int step : steps) {
      auto it = firing.find({rule.name, step});
      out += "      - eval_time: " + std::to_string(step * 10) + "s\n";
      out += "        alertname: " + AlertName(rule.name) + "\n";
      out += ExpectedAlerts(rule, it == firing.end() ? std::set<std::string>{} : it->second);
    }
  }
  return out;
}

class RulesPromtoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HavePromtool()) GTEST_SKIP() << "promtool not installed (scripts/setup.sh installs it)";
    dir_ = ::testing::TempDir() + "/gpufleet_rules_promtool";
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/rules.yml")
        << ExportPrometheusRules(DefaultDetectConfig(), "data/detect/default.toml");
  }
  std::string dir_;
};

TEST_F(RulesPromtoolTest, ExportedRulesPassCheckRules) {
  std::string output;
  EXPECT_EQ(RunPromtool("check rules " + dir_ + "/rules.yml", &output), 0) << output;
  EXPECT_NE(output.find("6 rules found"), std::string::npos) << output;  // 3 + WithNeighbour
}

TEST_F(RulesPromtoolTest, PrometheusFiresWhenTheBuiltInDetectorFires) {
  const auto scenario = Scenario(true);
  std::map<std::string, std::map<std::string, int>> first;
  const auto firing = BuiltIn(scenario, &first);
  // The built-in detector fires every rule on the contended devices only.
  ASSERT_EQ(first["memory_contention"].count("0"), 1u);
  ASSERT_EQ(first["latency_bound_contention"].count("1"), 1u);
  ASSERT_EQ(first["sustained_contention"].count("0"), 1u);
  EXPECT_EQ(first["memory_contention"].count("2") + first["latency_bound_contention"].count("2") +
                first["sustained_contention"].count("2"),
            0u);
  // Within the rule window + 2 intervals of the onset.
  EXPECT_LE(first["memory_contention"]["0"], kOnset + 12 + 2);
  EXPECT_LE(first["sustained_contention"]["0"], kOnset + 30 + 2);
  std::set<int> steps{kSteps - 1};
  for (const auto& [kind, by_gpu] : first) {
    for (const auto& [gpu, step] : by_gpu) {
      steps.insert(step);
      steps.insert(step - 1);
    }
  }
  std::ofstream(dir_ + "/test.yml") << TestFile(scenario, firing, steps);
  std::string output;
  EXPECT_EQ(RunPromtool("test rules " + dir_ + "/test.yml", &output), 0) << output;
}

TEST_F(RulesPromtoolTest, CleanScenarioFiresNothingInEither) {
  const auto scenario = Scenario(false);
  std::map<std::string, std::map<std::string, int>> first;
  const auto firing = BuiltIn(scenario, &first);
  EXPECT_TRUE(firing.empty());
  std::ofstream(dir_ + "/clean.yml")
      << TestFile(scenario, firing, {kOnset, kOnset + 40, kSteps - 1});
  std::string output;
  EXPECT_EQ(RunPromtool("test rules " + dir_ + "/clean.yml", &output), 0) << output;
}

}  // namespace
}  // namespace gpufleet::detect
