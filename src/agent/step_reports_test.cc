#include "agent/step_reports.h"

#include <gtest/gtest.h>

namespace gpufleet {
namespace {

constexpr int64_t kS = 1'000'000'000;

const Sample* Find(const std::vector<Sample>& v, std::string_view pid) {
  for (const Sample& s : v) {
    if (s.name == "gpu_workload_step_duration_seconds" && s.labels.Get("pid") == pid) return &s;
  }
  return nullptr;
}

// A report's latest step lands on the device whose collector lists the pid,
// with that device's labels; one for an unlisted pid lands on its reported
// gpu_uuid, or on the node alone.
TEST(StepReportsTest, LatestStepPlacedOnTheDeviceHoldingThePid) {
  StepReports steps(NodeIdentity{"n1", "aws", "us-east-1"});
  ASSERT_TRUE(steps.Accept(R"({"pid": 42, "workload": "train", "team": "ml",
                               "steps_s": [0.5, 0.52, 0.61]})", 0).ok());
  ASSERT_TRUE(steps.Accept(R"({"pid": 43, "workload": "eval", "gpu_uuid": "GPU-b",
                               "steps_s": [1.5]})", 0).ok());
  ASSERT_TRUE(steps.Accept(R"({"pid": 44, "workload": "cpu-only", "steps_s": [2]})", 0).ok());
  std::vector<Sample> out;
  Sample proc;
  proc.name = "gpu_process_memory_bytes";
  proc.labels = Labels{{"gpu_uuid", "GPU-a"}, {"model", "H100"}, {"node", "n1"},
                       {"vendor", "nvidia"}, {"pid", "42"}};
  out.push_back(proc);
  steps.Collect(out, 5 * kS);
  const Sample* train = Find(out, "42");
  ASSERT_NE(train, nullptr);
  EXPECT_DOUBLE_EQ(train->value, 0.61);
  EXPECT_EQ(train->labels.Get("gpu_uuid"), "GPU-a");
  EXPECT_EQ(train->labels.Get("model"), "H100");
  EXPECT_EQ(train->labels.Get("workload_name"), "train");
  EXPECT_EQ(train->labels.Get("workload_team"), "ml");
  const Sample* eval = Find(out, "43");
  ASSERT_NE(eval, nullptr);
  EXPECT_EQ(eval->labels.Get("gpu_uuid"), "GPU-b");
  EXPECT_EQ(eval->labels.Get("cloud"), "aws");
  const Sample* cpu = Find(out, "44");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->labels.Get("node"), "n1");
  EXPECT_EQ(cpu->labels.Get("gpu_uuid"), "");
}

// A reporter silent for longer than expire_ns is no longer served.
TEST(StepReportsTest, SilentReportersExpire) {
  StepReports steps(NodeIdentity{"n1", "", ""}, StepReportsOptions{.expire_ns = 10 * kS});
  ASSERT_TRUE(steps.Accept(R"({"pid": 7, "workload": "w", "steps_s": [1]})", 0).ok());
  std::vector<Sample> out;
  steps.Collect(out, 10 * kS);
  EXPECT_EQ(out.size(), 1u);
  out.clear();
  steps.Collect(out, 11 * kS);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(steps.reporters(), 0u);
}

// Bad reports are refused naming the field, and leave nothing behind.
TEST(StepReportsTest, BadReportsNameTheField) {
  StepReports steps(NodeIdentity{"n1", "", ""}, StepReportsOptions{.max_reporters = 1});
  auto message = [&](std::string_view body) { return steps.Accept(body, 0).message(); };
  EXPECT_NE(message(R"({"pid": 1, "workload": "w", "steps_s": [1)").find("byte"), std::string::npos);
  EXPECT_NE(message(R"([1])").find("object"), std::string::npos);
  EXPECT_NE(message(R"({"workload": "w", "steps_s": [1]})").find("pid"), std::string::npos);
  EXPECT_NE(message(R"({"pid": -3, "workload": "w", "steps_s": [1]})").find("pid"),
            std::string::npos);
  EXPECT_NE(message(R"({"pid": 1.5, "workload": "w", "steps_s": [1]})").find("pid"),
            std::string::npos);
  EXPECT_NE(message(R"({"pid": 1, "steps_s": [1]})").find("workload"), std::string::npos);
  EXPECT_NE(message(R"({"pid": 1, "workload": 3, "steps_s": [1]})").find("workload"),
            std::string::npos);
  EXPECT_NE(message(R"({"pid": 1, "workload": "w", "steps_s": []})").find("steps_s"),
            std::string::npos);
  EXPECT_NE(message(R"({"pid": 1, "workload": "w", "steps_s": [0.5, -1]})").find("steps_s[1]"),
            std::string::npos);
  EXPECT_NE(message(R"({"pid": 1, "workload": "w", "steps_s": ["x"]})").find("steps_s[0]"),
            std::string::npos);
  EXPECT_NE(message(R"({"pid": 1, "workload": "w", "steps_s": [1e300]})").find("steps_s[0]"),
            std::string::npos);
  EXPECT_EQ(steps.reporters(), 0u);
  EXPECT_TRUE(steps.Accept(R"({"pid": 1, "workload": "w", "steps_s": [1]})", 0).ok());
  EXPECT_EQ(steps.Accept(R"({"pid": 2, "workload": "w", "steps_s": [1]})", 0).code(),
            StatusCode::kUnavailable);
}

}  // namespace
}  // namespace gpufleet
