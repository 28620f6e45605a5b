#include "plan/plan_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/file_util.h"

namespace gpufleet::plan {
namespace {

const std::string kRepo = GPUFLEET_SOURCE_DIR;

TEST(PlanServiceTest, RingAndTrainingExamplesAnswerWithJson) {
  auto ring = ReadFileToString(kRepo + "/data/plan/ring-example.toml");
  ASSERT_TRUE(ring.ok());
  auto [code, body] = HandlePlanRequest("ring", *ring, kRepo + "/../shared");
  ASSERT_EQ(code, 200) << body;
  auto j = nlohmann::json::parse(body);
  EXPECT_EQ(j["chosen"]["algorithm"], "hierarchical by cloud");
  EXPECT_DOUBLE_EQ(j["chosen"]["cross_cloud_bytes"].get<double>(),
                   j["min_cross_cloud_bytes"].get<double>());
  auto train = ReadFileToString(kRepo + "/data/plan/training-example.toml");
  ASSERT_TRUE(train.ok());
  auto [tcode, tbody] = HandlePlanRequest("training", *train, kRepo + "/../shared");
  ASSERT_EQ(tcode, 200) << tbody;
  auto t = nlohmann::json::parse(tbody);
  EXPECT_GE(t["even_step_s"].get<double>() / t["step_s"].get<double>(), 1.3);
}

// Every rank measured: the latency model is not used, so its calibration
// (absent here) is not mentioned.
TEST(PlanServiceTest, MeasuredTrainingPlanHasNoCalibrationNotes) {
  auto train = ReadFileToString(kRepo + "/data/plan/training-example.toml");
  ASSERT_TRUE(train.ok());
  auto [code, body] = HandlePlanRequest("training", *train, "/nonexistent");
  ASSERT_EQ(code, 200) << body;
  auto j = nlohmann::json::parse(body);
  for (const auto& r : j["ranks"]) ASSERT_TRUE(r["measured"].get<bool>()) << body;
  EXPECT_EQ(j["notes"].dump().find("calibrat"), std::string::npos) << body;
}

// A rank's measured_workload: the median of the steps the agents reported
// (here a stub standing in for the server's store), else microbatch_ms,
// each said in a note; nothing to fall back on is a 400 naming the field.
TEST(PlanServiceTest, MeasuredWorkloadTakesTheReportedSteps) {
  const StepLookup lookup = [](std::string_view workload,
                               std::string_view node) -> std::optional<MeasuredSteps> {
    if (workload == "llm-mb" && node == "a") return MeasuredSteps{0.25, 120, 1800};
    return std::nullopt;
  };
  const std::string job =
      "mode = \"data\"\nmicrobatches = 12\n"
      "[[rank]]\nname = \"a\"\ngpu = \"h100\"\nmeasured_workload = \"llm-mb\"\nnode = \"a\"\n"
      "[[rank]]\nname = \"b\"\ngpu = \"a100-80gb\"\nmicrobatch_ms = 500\n"
      "measured_workload = \"llm-mb\"\nnode = \"b\"\n";
  auto [code, body] = HandlePlanRequest("training", job, "/nonexistent", &lookup);
  ASSERT_EQ(code, 200) << body;
  auto j = nlohmann::json::parse(body);
  ASSERT_EQ(j["ranks"].size(), 2u) << body;
  EXPECT_DOUBLE_EQ(j["ranks"][0]["unit_s"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["ranks"][1]["unit_s"].get<double>(), 0.5);
  // Twice as fast: 8 and 4 micro-batches.
  EXPECT_EQ(j["ranks"][0]["planned"], 8);
  EXPECT_EQ(j["ranks"][1]["planned"], 4);
  const std::string notes = j["notes"].dump();
  EXPECT_NE(notes.find("a: 250.0 ms per micro-batch, the median of 120 steps of workload llm-mb "
                       "on a reported in the last 30 min"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("b: no steps of workload llm-mb on b reported recently; using "
                       "microbatch_ms from the job"),
            std::string::npos)
      << notes;
  // From the CLI (no lookup) the workload is not read, and says so.
  auto [ccode, cbody] = HandlePlanRequest(
      "training",
      "mode = \"data\"\nmicrobatches = 4\n[[rank]]\ngpu = \"h100\"\nmicrobatch_ms = 100\n"
      "measured_workload = \"llm-mb\"\n",
      "/nonexistent");
  ASSERT_EQ(ccode, 200) << cbody;
  EXPECT_NE(cbody.find("not looked up"), std::string::npos) << cbody;
  // No steps and nothing to fall back on.
  auto [bcode, bbody] =
      HandlePlanRequest("training",
                        "mode = \"data\"\nmicrobatches = 4\n[[rank]]\ngpu = \"h100\"\n"
                        "measured_workload = \"other\"\n",
                        "/nonexistent", &lookup);
  EXPECT_EQ(bcode, 400) << bbody;
  EXPECT_NE(bbody.find("measured_workload"), std::string::npos) << bbody;
  EXPECT_NE(bbody.find("request body:5"), std::string::npos) << bbody;
}

TEST(PlanServiceTest, BadInputIs400UnknownKindIs404) {
  auto [code, body] =
      HandlePlanRequest("training", "mode = \"data\"\nmicrobatches = \"x\"\n", "/nonexistent");
  EXPECT_EQ(code, 400) << body;
  EXPECT_NE(body.find("request body:2"), std::string::npos) << body;
  EXPECT_EQ(HandlePlanRequest("placement", "", "/nonexistent").first, 404);
  // A named Azure trace that is absent says where it looked.
  auto [icode, ibody] = HandlePlanRequest("inference", "trace = \"conv\"\n", "/nonexistent");
  EXPECT_EQ(icode, 404);
  EXPECT_NE(ibody.find("/nonexistent/traces/azure-llm-2023"), std::string::npos) << ibody;
  // An unknown batching names the field, its line and the accepted values.
  auto [bcode, bbody] = HandlePlanRequest(
      "inference", "trace = \"synthetic\"\nbatching = \"orca\"\n", "/nonexistent");
  EXPECT_EQ(bcode, 400);
  EXPECT_NE(bbody.find("request body:2"), std::string::npos) << bbody;
  EXPECT_NE(bbody.find("prefill-first"), std::string::npos) << bbody;
  auto [tcode, tbody] = HandlePlanRequest(
      "inference", "trace = \"synthetic\"\ntoken_budgets = [2048, 8]\n", "/nonexistent");
  EXPECT_EQ(tcode, 400);
  EXPECT_NE(tbody.find("token_budgets"), std::string::npos) << tbody;
  auto [acode, abody] = HandlePlanRequest(
      "inference", "trace = \"synthetic\"\nadmission = \"edf\"\n", "/nonexistent");
  EXPECT_EQ(acode, 400);
  EXPECT_NE(abody.find("request body:2"), std::string::npos) << abody;
  EXPECT_NE(abody.find("deadline"), std::string::npos) << abody;
  auto [qcode, qbody] =
      HandlePlanRequest("inference", "trace = \"synthetic\"\nqueue = \"global\"\n", "/nonexistent");
  EXPECT_EQ(qcode, 400);
  EXPECT_NE(qbody.find("shared"), std::string::npos) << qbody;
  EXPECT_EQ(HandlePlanRequest("inference", "trace = \"synthetic\"\nprefill_batch_tokens = 0\n",
                              "/nonexistent")
                .first,
            400);
}

TEST(PlanServiceTest, SyntheticInferenceWithoutSharedDataIsMarkedUncalibrated) {
  auto [code, body] = HandlePlanRequest(
      "inference",
      "model = \"llama3-8b\"\ntrace = \"synthetic\"\nrate_per_s = 2\nduration_s = 60\n"
      "gpu_types = [\"h100\", \"a100-80gb\"]\ntps = [1]\nbatching = \"mixed\"\n",
      "/nonexistent");
  ASSERT_EQ(code, 200) << body;
  auto j = nlohmann::json::parse(body);
  ASSERT_TRUE(j.contains("chosen")) << body;
  // One A100 serves this load colocated, batching as asked.
  EXPECT_NE(j["chosen"]["description"].get<std::string>().find("colocated 1 x a100-80gb TP1 "
                                                               "(mixed batching"),
            std::string::npos)
      << body;
  EXPECT_GE(j["chosen"]["attainment"].get<double>(), 0.99);
  EXPECT_NE(j["notes"].dump().find("uncalibrated"), std::string::npos) << body;
  EXPECT_EQ(j["serving"]["admission"], "fcfs");
  EXPECT_EQ(j["serving"]["queue"], "instance");

  // The serving policy reaches the simulation: asked for, it is reported,
  // and every request is still within the SLO.
  auto [dcode, dbody] = HandlePlanRequest(
      "inference",
      "model = \"llama3-8b\"\ntrace = \"synthetic\"\nrate_per_s = 2\nduration_s = 60\n"
      "gpu_types = [\"h100\"]\ntps = [1]\nadmission = \"deadline\"\nqueue = \"shared\"\n"
      "prefill_batch_tokens = 1\n",
      "/nonexistent");
  ASSERT_EQ(dcode, 200) << dbody;
  auto d = nlohmann::json::parse(dbody);
  EXPECT_EQ(d["serving"]["admission"], "deadline");
  EXPECT_EQ(d["serving"]["queue"], "shared");
  EXPECT_EQ(d["serving"]["prefill_batch_tokens"], 1);
  EXPECT_GE(d["chosen"]["attainment"].get<double>(), 0.99);
  EXPECT_FALSE(d.contains("serving_trials"));

  // Searched: every policy's costs, and the chosen plan's policy.
  auto [scode, sbody] = HandlePlanRequest(
      "inference",
      "model = \"llama3-8b\"\ntrace = \"synthetic\"\nrate_per_s = 2\nduration_s = 60\n"
      "gpu_types = [\"h100\"]\ntps = [1]\nsearch_serving = true\n",
      "/nonexistent");
  ASSERT_EQ(scode, 200) << sbody;
  auto sj = nlohmann::json::parse(sbody);
  EXPECT_TRUE(sj["serving"]["searched"].get<bool>());
  ASSERT_EQ(sj["serving_trials"].size(), 8u) << sbody;
  double least = 1e300;
  for (const auto& t : sj["serving_trials"])
    least = std::min(least, t["chosen_usd_per_mtoken"].get<double>());
  EXPECT_DOUBLE_EQ(sj["chosen"]["usd_per_mtoken"].get<double>(), least) << sbody;
  EXPECT_EQ(HandlePlanRequest("inference", "trace = \"synthetic\"\nsearch_serving = \"yes\"\n",
                              "/nonexistent")
                .first,
            400);
}

}  // namespace
}  // namespace gpufleet::plan
