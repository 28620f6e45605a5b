#include "place/placement_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "place/compat_hook.h"
#include "place/spec_file.h"

namespace gpufleet::place {
namespace {

std::string DataPath(const std::string& name) {
  return std::string(GPUFLEET_SOURCE_DIR) + "/data/place/" + name;
}

struct Fixture {
  Cluster cluster;
  WorkloadRequest req;
};

Fixture Load(const std::string& request) {
  StatusOr<Inventory> inv = LoadInventoryFile(DataPath("inventory.toml"));
  EXPECT_TRUE(inv.ok()) << inv.status().ToString();
  StatusOr<WorkloadRequest> req = LoadRequestFile(DataPath(request));
  EXPECT_TRUE(req.ok()) << req.status().ToString();
  return {MakeCluster(*inv), *req};
}

PlacementReport Explain(const Fixture& f, std::string_view policy_spec) {
  StatusOr<std::unique_ptr<PlacementPolicy>> policy = MakePlacementPolicy(policy_spec);
  EXPECT_TRUE(policy.ok()) << policy.status().ToString();
  return ExplainPlacement(f.cluster, f.req, **policy, CatalogCompatHook());
}

TEST(PlacementReportTest, TrainingJobLandsOnTheOnlyCompatibleH100Node) {
  Fixture f = Load("request-train.toml");
  PlacementReport r = Explain(f, "gpufleet");
  ASSERT_TRUE(r.chosen.has_value());
  EXPECT_EQ(f.cluster.spec(r.chosen->node).name, "gcp-a3-h100-01");
  EXPECT_EQ(GpuIndices(r.gpus), (std::vector<int>{0, 1, 2, 3}));  // 4-7 are taken
  ASSERT_EQ(r.feasible.size(), 1u);
  ASSERT_EQ(r.rejections.size(), 5u);
  std::map<std::string, std::string> why;
  for (const Rejection& x : r.rejections) {
    why[f.cluster.spec(x.node).name] = std::string(RejectReasonName(x.reason)) + ": " + x.detail;
  }
  // The real compatibility catalog: CUDA 12.4 needs a 550 driver.
  EXPECT_NE(why["gcp-a3-h100-02"].find("software: "), std::string::npos) << why["gcp-a3-h100-02"];
  EXPECT_NE(why["gcp-a3-h100-02"].find("535.104.05"), std::string::npos) << why["gcp-a3-h100-02"];
  EXPECT_EQ(why["aws-p4d-a100-01"], "gpu_memory: requires 81920 MiB per GPU, node has 40960");
  EXPECT_EQ(why["azure-nd-mi300x-01"], "vendor: requires vendor nvidia, node has 'amd'");
  EXPECT_EQ(why["onprem-max1550-01"], "vendor: requires vendor nvidia, node has 'intel'");
  EXPECT_EQ(why["aws-cpu-01"], "model: node has no GPUs");
}

TEST(PlacementReportTest, BestFitPutsTheShareOnTheTightestGpu) {
  Fixture f = Load("request-infer.toml");
  PlacementReport r = Explain(f, "bestfit");
  ASSERT_TRUE(r.chosen.has_value());
  // BestFit (FGD simulator): score = (1 - (cpu left/128 cores + GPU left/8 GPUs)/2) * 100.
  // aws-p4d-a100-01: 36 cores and 4.5 GPUs left -> 57; its GPU 3 has exactly 250 milli free.
  EXPECT_EQ(f.cluster.spec(r.chosen->node).name, "aws-p4d-a100-01");
  EXPECT_EQ(r.chosen->score, 57);
  EXPECT_EQ(GpuIndices(r.gpus), std::vector<int>{3});
  std::vector<std::string> order;
  for (const ScoredNode& s : r.feasible) order.push_back(f.cluster.spec(s.node).name);
  EXPECT_EQ(order, (std::vector<std::string>{"aws-p4d-a100-01", "onprem-max1550-01",
                                             "gcp-a3-h100-01", "azure-nd-mi300x-01",
                                             "gcp-a3-h100-02"}));
  ASSERT_EQ(r.rejections.size(), 1u);
  EXPECT_EQ(r.rejections[0].reason, RejectReason::kModel);
}

TEST(PlacementReportTest, JsonAndTextCarryTheDecisionAlternativesAndReasons) {
  Fixture f = Load("request-infer.toml");
  PlacementReport r = Explain(f, "bestfit");
  nlohmann::json j = nlohmann::json::parse(PlacementReportJson(f.cluster, f.req, "bestfit", r, 2));
  EXPECT_EQ(j["placed"], true);
  EXPECT_EQ(j["node"], "aws-p4d-a100-01");
  EXPECT_EQ(j["gpus"], nlohmann::json::array({3}));
  EXPECT_EQ(j["score"], 57);
  EXPECT_DOUBLE_EQ(j["cost_usd_per_hour"].get<double>(), 4.10 * 0.25);
  ASSERT_EQ(j["alternatives"].size(), 2u);  // capped
  EXPECT_EQ(j["alternatives"][0]["node"], "onprem-max1550-01");
  EXPECT_EQ(j["feasible_nodes"], 5);
  EXPECT_EQ(j["rejected_by_reason"]["model"], nlohmann::json::array({"aws-cpu-01"}));

  std::string text = PlacementReportText(f.cluster, f.req, "bestfit", r, 2);
  EXPECT_NE(text.find("infer-embeddings: placed on aws-p4d-a100-01 GPUs 3 (policy bestfit, score 57"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("... 2 more feasible"), std::string::npos) << text;
  EXPECT_NE(text.find("  model (1):\n    aws-cpu-01: node has no GPUs"), std::string::npos) << text;
}

TEST(PlacementReportTest, NothingFitsReportsEveryNode) {
  Fixture f = Load("request-train.toml");
  f.req.gpu_count = 8;  // no NVIDIA node has 8 free compatible GPUs
  PlacementReport r = Explain(f, "fgd");
  EXPECT_FALSE(r.chosen.has_value());
  EXPECT_TRUE(r.feasible.empty());
  EXPECT_EQ(r.rejections.size(), 6u);
  nlohmann::json j = nlohmann::json::parse(PlacementReportJson(f.cluster, f.req, "fgd", r, 3));
  EXPECT_EQ(j["placed"], false);
  EXPECT_TRUE(j["node"].is_null());
  EXPECT_EQ(j["rejected_by_reason"]["gpu_capacity"], nlohmann::json::array({"gcp-a3-h100-01"}));
  std::string text = PlacementReportText(f.cluster, f.req, "fgd", r, 3);
  EXPECT_NE(text.find("train-llm: no node fits (6 nodes, policy fgd)"), std::string::npos) << text;
  EXPECT_NE(text.find("gcp-a3-h100-01: needs 8 GPU(s) with 1000 milli free, node has 4"),
            std::string::npos)
      << text;
}

TEST(PlacementReportTest, EveryPolicyNameWorksOnTheExampleFleet) {
  Fixture f = Load("request-infer.toml");
  for (const std::string& name : PolicyNames()) {
    PlacementReport r = Explain(f, name);
    ASSERT_TRUE(r.chosen.has_value()) << name;
    EXPECT_EQ(r.feasible.size(), 5u) << name;
    EXPECT_EQ(GpuIndices(r.gpus).size(), 1u) << name;
    for (size_t i = 1; i < r.feasible.size(); ++i) {
      EXPECT_LE(r.feasible[i].score, r.feasible[0].score) << name;
    }
  }
}

}  // namespace
}  // namespace gpufleet::place
