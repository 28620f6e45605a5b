#include "server/canary_incidents.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "server/http_api.h"

namespace gpufleet {
namespace {

using nlohmann::json;

// What `canary check --json` prints for one regression and one pass.
constexpr char kGateJson[] = R"({
  "checks": [
    {"target": "model=h200-sxm;runtime=cuda-12.4", "benchmark": "gemm.bf16@8192",
     "unit": "flop_per_second", "verdict": "regression", "n": 5, "median": 6.4e14,
     "relative_spread": 0.003, "reason": "9.9% worse", "source": "run",
     "baseline_median": 7.1e14, "baseline_n": 5, "worse_fraction": 0.0986,
     "noise_fraction": 0.01},
    {"target": "model=h200-sxm;runtime=cuda-12.4", "benchmark": "stream.memcpy@1073741824",
     "unit": "bytes_per_second", "verdict": "pass", "n": 5, "median": 4.1e12,
     "baseline_median": 4.1e12, "worse_fraction": 0.0}
  ],
  "summary": {"pass": 1, "regression": 1}, "failed": true})";

TEST(CanaryIncidentsTest, RegressionBecomesAPlatformIncident) {
  json doc = json::parse(kGateJson);
  doc["node"] = "gpu-node-17";
  StatusOr<CanaryIncidents> in = CanaryIncidentsFromJson(doc.dump(), 1000);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_EQ(in->ignored, 1u);
  ASSERT_EQ(in->incidents.size(), 1u);
  const IncidentRecord& r = in->incidents[0];
  EXPECT_EQ(r.kind, "canary_regression");
  EXPECT_EQ(r.team, "platform");
  EXPECT_EQ(r.severity, "warning");
  EXPECT_EQ(r.devices, std::vector<std::string>{"gpu-node-17"});
  EXPECT_EQ(r.subject.Get("benchmark"), "gemm.bf16@8192");
  EXPECT_EQ(r.subject.Get("target"), "model=h200-sxm;runtime=cuda-12.4");
  EXPECT_NEAR(r.estimated_slowdown, 0.0986, 1e-9);
  EXPECT_NE(r.summary.find("-9.9%"), std::string::npos) << r.summary;
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].threshold, 7.1e14);
  EXPECT_EQ(r.evidence[0].value, 6.4e14);
  EXPECT_NE(r.evidence[0].detail.find("change -9.9%"), std::string::npos) << r.evidence[0].detail;
}

TEST(CanaryIncidentsTest, MalformedPayloadNamesTheField) {
  StatusOr<CanaryIncidents> in = CanaryIncidentsFromJson("[1]", 0);
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.status().message().find("JSON object"), std::string::npos);
  in = CanaryIncidentsFromJson(R"({"checks": [{"verdict": "regression", "target": "t"}]})", 0);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().message(), "checks[0].benchmark: want a non-empty string");
  in = CanaryIncidentsFromJson(R"({"node": 3, "checks": []})", 0);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().message(), "node: want a string");
}

class CanaryRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (std::filesystem::temp_directory_path() /
                ("gpufleet_canary_route_" + std::to_string(getpid()) + ".db"))
                   .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(db_path_, IncidentMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    incidents_ = std::make_unique<IncidentStore>(db_.get());
    HttpApiOptions o;
    o.token = "s3cret";
    HttpApiBackend b;
    b.incidents = incidents_.get();
    api_ = std::make_unique<HttpApi>(o, b, clock_);
    ASSERT_TRUE(api_->Start("127.0.0.1", 0).ok());
    url_ = "http://127.0.0.1:" + std::to_string(api_->port());
  }
  void TearDown() override {
    if (api_ != nullptr) api_->Stop();
    api_.reset();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
  }

  FakeClock clock_;
  std::string db_path_;
  std::unique_ptr<StateDb> db_;
  std::unique_ptr<IncidentStore> incidents_;
  std::unique_ptr<HttpApi> api_;
  std::string url_;
};

TEST_F(CanaryRouteTest, PushOpensOneIncidentAndUpdatesItOnRepeat) {
  StatusOr<std::string> denied = PushCanaryVerdicts(url_, "wrong", "gpu-node-17", kGateJson);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("HTTP 401"), std::string::npos);

  StatusOr<std::string> reply = PushCanaryVerdicts(url_, "s3cret", "gpu-node-17", kGateJson);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  json r = json::parse(*reply);
  EXPECT_EQ(r["data"]["created"], 1);
  EXPECT_EQ(r["data"]["ignored"], 1);
  ASSERT_EQ(r["data"]["incidents"].size(), 1u);
  int64_t id = r["data"]["incidents"][0].get<int64_t>();

  // Visible through the incidents API like any other incident.
  httplib::Client client("127.0.0.1", api_->port());
  httplib::Result got = client.Get("/api/v1/incidents/" + std::to_string(id));
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200);
  json inc = json::parse(got->body)["data"];
  EXPECT_EQ(inc["kind"], "canary_regression");
  EXPECT_EQ(inc["team"], "platform");
  EXPECT_EQ(inc["subject"]["node"], "gpu-node-17");
  EXPECT_EQ(inc["evidence"][0]["value"], 6.4e14);

  // The same failure again: the open incident is updated, not duplicated.
  clock_.Advance(60'000'000'000);
  reply = PushCanaryVerdicts(url_, "s3cret", "gpu-node-17", kGateJson);
  ASSERT_TRUE(reply.ok());
  r = json::parse(*reply);
  EXPECT_EQ(r["data"]["created"], 0);
  EXPECT_EQ(r["data"]["incidents"][0].get<int64_t>(), id);
  StatusOr<int64_t> open = incidents_->CountOpen();
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(*open, 1);

  // A malformed body is a 400 naming the field.
  httplib::Headers h = {{"Authorization", "Bearer s3cret"}};
  httplib::Result bad = client.Post("/api/v1/canary", h, R"({"checks": 5})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("checks: want an array"), std::string::npos);
}

TEST(CanaryPushTest, UnreachableServerIsAnError) {
  StatusOr<std::string> r =
      PushCanaryVerdicts("http://127.0.0.1:1", "", "n", kGateJson, /*timeout_ms=*/500);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("127.0.0.1:1/api/v1/canary"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace gpufleet
