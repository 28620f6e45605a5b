// Real-sample check: analyses of HTA's nccl_parser_config trace (A100, NCCL,
// rank 0 of 2) against numbers computed independently from the JSON by
// tests/trace/hta_reference.py (HTA's definitions, standard library only).
// Tolerances: times are parsed exactly (3-decimal us -> ns) on both sides,
// so sums must agree to 1 ns per op involved; percentiles to 1 ns.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trace/analysis.h"
#include "trace/report_writer.h"
#include "trace/trace_loader.h"

namespace gpufleet::trace {
namespace {

constexpr const char* kTrace = GPUFLEET_SOURCE_DIR "/tests/data/trace/nccl_data.json.gz";
constexpr const char* kExpected = GPUFLEET_SOURCE_DIR "/tests/trace/nccl_data.hta_reference.json";

nlohmann::json ReadJson(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

class RealSampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadOptions lo;
    lo.align = false;  // one file; alignment would only shift it
    auto t = LoadTraces({kTrace}, lo);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    timeline_ = std::move(*t);
    report_ = Analyze(timeline_, {});
    expected_ = ReadJson(kExpected);
  }
  Timeline timeline_;
  AnalysisReport report_;
  nlohmann::json expected_;
};

TEST_F(RealSampleTest, TemporalBreakdownMatchesHtaDefinition) {
  ASSERT_EQ(report_.temporal.size(), 1u);
  const TemporalBreakdown& b = report_.temporal[0];
  const auto& e = expected_["temporal"];
  int64_t tol = expected_["device_ops"].get<int64_t>();  // 1 ns per op
  EXPECT_EQ(report_.device_ops, expected_["device_ops"].get<uint64_t>());
  EXPECT_EQ(b.rank, 0);
  EXPECT_NEAR(b.span_ns, e["span_ns"].get<int64_t>(), tol);
  EXPECT_NEAR(b.compute_ns, e["compute_ns"].get<int64_t>(), tol);
  EXPECT_NEAR(b.communication_ns, e["communication_ns"].get<int64_t>(), tol);
  EXPECT_NEAR(b.memory_ns, e["memory_ns"].get<int64_t>(), tol);
  EXPECT_NEAR(b.idle_ns, e["idle_ns"].get<int64_t>(), tol);
}

TEST_F(RealSampleTest, IdleTimePerStreamMatchesHtaDefinition) {
  for (const auto& e : expected_["idle"]) {
    const IdleBreakdown* found = nullptr;
    for (const IdleBreakdown& b : report_.idle) {
      if (b.queue == e["stream"].get<int64_t>()) found = &b;
    }
    ASSERT_NE(found, nullptr) << "stream " << e["stream"];
    int64_t tol = e["gaps"].get<int64_t>();
    EXPECT_EQ(found->gaps, e["gaps"].get<uint64_t>());
    EXPECT_NEAR(found->host_wait_ns, e["host_wait_ns"].get<int64_t>(), tol);
    EXPECT_NEAR(found->kernel_wait_ns, e["kernel_wait_ns"].get<int64_t>(), tol);
    EXPECT_NEAR(found->other_ns, e["other_ns"].get<int64_t>(), tol);
  }
}

TEST_F(RealSampleTest, LaunchDelayAndOverlapMatchHtaDefinition) {
  const auto& e = expected_["launch_delay"];
  EXPECT_EQ(report_.launch.delay_ns.count, e["count"].get<uint64_t>());
  EXPECT_EQ(report_.launch.unmatched_device_ops, e["unmatched"].get<uint64_t>());
  EXPECT_NEAR(report_.launch.delay_ns.p50, e["p50"].get<double>(), 1.0);
  EXPECT_NEAR(report_.launch.delay_ns.p99, e["p99"].get<double>(), 1.0);
  EXPECT_NEAR(report_.launch.delay_ns.max, e["max"].get<double>(), 1.0);
  ASSERT_EQ(report_.overlap.size(), 1u);
  EXPECT_NEAR(report_.overlap[0].ratio, expected_["overlap_ratio"].get<double>(), 1e-6);
}

TEST_F(RealSampleTest, TopKernelsMatch) {
  const auto& top = expected_["top_kernels"];
  ASSERT_GE(report_.kernels.size(), top.size());
  for (size_t i = 0; i < top.size(); ++i) {
    EXPECT_EQ(report_.kernels[i].name, top[i]["name"].get<std::string>());
    EXPECT_EQ(report_.kernels[i].duration_ns.count, top[i]["count"].get<uint64_t>());
    EXPECT_NEAR(report_.kernels[i].duration_ns.sum, top[i]["total_ns"].get<double>(),
                top[i]["count"].get<double>());
  }
}

TEST_F(RealSampleTest, ReportsRenderOnRealData) {
  std::string html = ReportHtml(timeline_, report_);
  EXPECT_NE(html.find("rank 0 dev 0 q 7"), std::string::npos);
  EXPECT_LT(html.size(), 400'000u);
  auto j = nlohmann::json::parse(ReportJson(timeline_, report_));
  EXPECT_EQ(j["files"][0]["format"], "kineto_json");
  EXPECT_NE(FormatSummary(timeline_, report_).find("ncclKernel_AllReduce"), std::string::npos);
}

}  // namespace
}  // namespace gpufleet::trace
