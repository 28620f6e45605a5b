#include "place/objective_choice.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "place/compat_hook.h"
#include "place/spec_file.h"

namespace gpufleet::place {
namespace {

// Hand-worked fleet. Job "J" runs 1 / 2 / 4 steps/s on k80 / p100 / v100;
// 36,000 steps take 10 / 5 / 2.5 h. At $0.60 / $1.00 / $3.00 per GPU-hour
// that is $6.00 / $5.00 / $7.50 per job: v100 is fastest, p100 cheapest, and
// a 3 h deadline leaves only v100.
GavelThroughputs Table() {
  GavelThroughputs t =
      GavelThroughputs::FromTable({"k80", "p100", "v100"}, {{"J", 1}, {"K", 1}, {"L", 1}, {"M", 1}},
                                  {{1, 2, 4}, {1, 1.5, 2}, {2, 5, 9}, {0.5, 1.2, 2.5}});
  // On a v100 next to K, L, M, job J keeps 50%, 60%, 80% of its speed
  // (the table holds each pair from both sides).
  t.SetColocated(2, 0, 1, 2.0, 1.0);
  t.SetColocated(2, 1, 0, 1.0, 2.0);
  t.SetColocated(2, 0, 2, 2.4, 4.5);
  t.SetColocated(2, 2, 0, 4.5, 2.4);
  t.SetColocated(2, 0, 3, 3.2, 1.0);
  t.SetColocated(2, 3, 0, 1.0, 3.2);
  return t;
}

constexpr char kInventory[] = R"(
[[node]]
name = "k80-1"
cpu = 32
memory = "256Gi"
gpus = 4
gpu_model = "K80"
cloud = "gcp"
region = "us-central1"
[[node]]
name = "p100-1"
cpu = 32
memory = "256Gi"
gpus = 4
gpu_model = "P100-PCIE"
cloud = "gcp"
region = "us-central1"
[[node]]
name = "v100-1"
cpu = 32
memory = "256Gi"
gpus = 4
gpu_model = "v100-sxm-16gb"
gpu_free = [500, 1000, 1000, 1000]
cloud = "aws"
region = "us-east-1"
)";

StatusOr<GpuHourQuote> FakePrice(const NodeSpec& n) {
  if (n.name == "k80-1") return GpuHourQuote{0.60, "test", "2026-01-01", "fixed"};
  if (n.name == "p100-1") return GpuHourQuote{1.00, "test", "2026-01-01", "fixed"};
  if (n.name == "v100-1") return GpuHourQuote{3.00, "test", "2026-01-01", "fixed"};
  return NotFoundError("no price for " + n.name);
}

struct Outcome {
  Cluster cluster;
  PlacementReport report;
  StatusOr<ObjectiveDecision> decision;
};

Outcome Place(const std::string& request_toml) {
  StatusOr<Inventory> inv = ParseInventory(kInventory, "inventory.toml");
  EXPECT_TRUE(inv.ok()) << inv.status().ToString();
  StatusOr<WorkloadRequest> req = ParseRequest(request_toml, "request.toml");
  EXPECT_TRUE(req.ok()) << req.status().ToString();
  Cluster cluster = MakeCluster(*inv);
  auto policy = MakePlacementPolicy("bestfit");
  EXPECT_TRUE(policy.ok());
  PlacementReport report = ExplainPlacement(cluster, *req, **policy, CatalogCompatHook());
  GavelThroughputs table = Table();
  StatusOr<ObjectiveDecision> d =
      PlaceByObjective(cluster, *req, table, FakePrice, **policy, report);
  return {std::move(cluster), std::move(report), std::move(d)};
}

const ObjectiveOption& Chosen(const Outcome& r) { return r.decision->options[r.decision->chosen]; }

TEST(ObjectiveChoiceTest, FastestCheapestAndDeadlineOnAHandWorkedFleet) {
  const std::string base = "name = \"j\"\ngpus = 1\njob_type = \"J\"\nsteps = 36000\n";
  Outcome fastest = Place(base + "objective = \"fastest\"\n");
  ASSERT_TRUE(fastest.decision.ok()) << fastest.decision.status().ToString();
  ASSERT_EQ(fastest.decision->options.size(), 3u);
  EXPECT_EQ(Chosen(fastest).gpu_model, "v100-sxm-16gb");
  EXPECT_NEAR(Chosen(fastest).duration_hours, 2.5, 1e-9);
  EXPECT_NEAR(Chosen(fastest).usd_per_job, 7.5, 1e-9);
  EXPECT_EQ(Chosen(fastest).basis, ThroughputBasis::kMeasured);
  // Whole GPUs: bestfit takes a free device, so nobody shares it.
  EXPECT_EQ(Chosen(fastest).colocation_penalty, 0);
  EXPECT_EQ(fastest.cluster.spec(fastest.report.chosen->node).name, "v100-1");
  EXPECT_NE(fastest.decision->reason.find("P100-PCIE in gcp/us-central1 would cost $5.00"),
            std::string::npos)
      << fastest.decision->reason;

  Outcome cheapest = Place(base + "objective = \"cheapest-per-job\"\n");
  ASSERT_TRUE(cheapest.decision.ok());
  EXPECT_EQ(Chosen(cheapest).gpu_model, "P100-PCIE");
  EXPECT_NEAR(Chosen(cheapest).usd_per_job, 5.0, 1e-9);
  EXPECT_EQ(cheapest.cluster.spec(cheapest.report.chosen->node).name, "p100-1");
  EXPECT_EQ(cheapest.report.feasible.front().node, cheapest.report.chosen->node);

  Outcome deadline =
      Place(base + "objective = \"cheapest-meeting-deadline\"\ndeadline_hours = 3\n");
  ASSERT_TRUE(deadline.decision.ok());
  EXPECT_EQ(Chosen(deadline).gpu_model, "v100-sxm-16gb");
  Outcome loose = Place(base + "objective = \"cheapest-meeting-deadline\"\ndeadline_hours = 6\n");
  EXPECT_EQ(Chosen(loose).gpu_model, "P100-PCIE");
  Outcome impossible =
      Place(base + "objective = \"cheapest-meeting-deadline\"\ndeadline_hours = 1\n");
  ASSERT_TRUE(impossible.decision.ok());
  EXPECT_EQ(impossible.decision->chosen, -1);
  EXPECT_FALSE(impossible.report.chosen.has_value());
  EXPECT_NE(impossible.decision->reason.find("needs 2.5 h"), std::string::npos);
}

TEST(ObjectiveChoiceTest, SharedDeviceGetsTheColocationPenalty) {
  // Half a GPU fits only the v100 node's half-used device 0 under bestfit.
  Outcome r = Place(
      "name = \"j\"\ngpu_share = 0.5\njob_type = \"J\"\nsteps = 36000\n"
      "objective = \"fastest\"\n");
  ASSERT_TRUE(r.decision.ok()) << r.decision.status().ToString();
  EXPECT_EQ(r.cluster.spec(r.report.chosen->node).name, "v100-1");
  ASSERT_EQ(GpuIndices(r.report.gpus), std::vector<int>{0});
  // Median of 50%, 60%, 80% kept -> 40% penalty.
  EXPECT_NEAR(Chosen(r).colocation_penalty, 0.4, 1e-9);
  EXPECT_NE(Chosen(r).colocation_basis.find("measured pairs"), std::string::npos);
}

TEST(ObjectiveChoiceTest, PredictsGpuModelsOutsideTheTableAndSaysSo) {
  StatusOr<Inventory> inv = ParseInventory(R"(
[[node]]
name = "h100-1"
cpu = 32
memory = "256Gi"
gpus = 8
gpu_model = "H100-SXM"
)",
                                           "inventory.toml");
  ASSERT_TRUE(inv.ok());
  StatusOr<WorkloadRequest> req = ParseRequest(
      "gpus = 1\njob_type = \"J\"\nsteps = 36000\nobjective = \"cheapest-per-job\"\n", "r.toml");
  ASSERT_TRUE(req.ok());
  Cluster cluster = MakeCluster(*inv);
  auto policy = MakePlacementPolicy("bestfit");
  PlacementReport report = ExplainPlacement(cluster, *req, **policy, CatalogCompatHook());
  GavelThroughputs table = Table();
  auto d = PlaceByObjective(cluster, *req, table, FakePrice, **policy, report);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->options.size(), 1u);
  EXPECT_NE(d->options[0].basis, ThroughputBasis::kMeasured);
  EXPECT_GT(d->options[0].steps_per_s, 0);
  // Unpriced: listed, never chosen by cost.
  EXPECT_FALSE(d->options[0].priced);
  EXPECT_EQ(d->chosen, -1);
  nlohmann::json j = nlohmann::json::parse(ObjectiveDecisionJson(*d));
  EXPECT_EQ(j["options"][0]["predicted"], true);
  EXPECT_TRUE(j["options"][0]["usd_per_job"].is_null());
  EXPECT_NE(j["options"][0]["price"]["error"].get<std::string>().find("h100-1"), std::string::npos);
  // The text table keeps a price error of any length whole, one line per candidate.
  const std::string text = ObjectiveDecisionText(*d);
  EXPECT_NE(text.find("unpriced: no price for h100-1\n"), std::string::npos) << text;
}

TEST(ObjectiveChoiceTest, ErrorsNameTheField) {
  auto missing = ParseRequest("gpus = 1\nobjective = \"fastest\"\nsteps = 10\n", "r.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("job_type"), std::string::npos);
  auto no_deadline = ParseRequest(
      "gpus = 1\njob_type = \"J\"\nsteps = 10\nobjective = \"cheapest-meeting-deadline\"\n",
      "r.toml");
  ASSERT_FALSE(no_deadline.ok());
  EXPECT_NE(no_deadline.status().message().find("deadline_hours"), std::string::npos);
  auto bad =
      ParseRequest("gpus = 1\njob_type = \"J\"\nsteps = 10\nobjective = \"cheap\"\n", "r.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("r.toml:4"), std::string::npos) << bad.status().message();
  auto stray = ParseRequest("gpus = 1\nsteps = 10\n", "r.toml");
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.status().message().find("steps"), std::string::npos);
  // Unknown job type: named with the field.
  Outcome r = Place("gpus = 1\njob_type = \"Nope\"\nsteps = 10\nobjective = \"fastest\"\n");
  ASSERT_FALSE(r.decision.ok());
  EXPECT_NE(r.decision.status().message().find("job_type: \"Nope\""), std::string::npos);
  // JSON requests carry the same fields.
  auto json = ParseRequestJson(
      R"({"gpus": 1, "job_type": "J", "steps": 5, "objective": "fastest"})", "request");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(json->objective, "fastest");
}

TEST(ObjectiveChoiceTest, ResolvesInventoryModelNames) {
  ASSERT_NE(ResolveGpuModel("H100-SXM"), nullptr);
  EXPECT_EQ(ResolveGpuModel("H100-SXM")->key, "h100-sxm");
  ASSERT_NE(ResolveGpuModel("A100-SXM4-40GB"), nullptr);
  EXPECT_EQ(ResolveGpuModel("A100-SXM4-40GB")->key, "a100-sxm-40gb");
  ASSERT_NE(ResolveGpuModel("MI300X"), nullptr);
  EXPECT_EQ(ResolveGpuModel("MI300X")->key, "mi300x");
  EXPECT_EQ(ResolveGpuModel("A"), nullptr);
}

}  // namespace
}  // namespace gpufleet::place
