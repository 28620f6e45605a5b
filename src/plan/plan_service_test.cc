#include "plan/plan_service.h"

#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace gpufleet::plan
