#include "server/canary_incidents.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "canary/verdict_push.h"
#include "detect/detection_engine.h"
#include "detect/incident_lifecycle.h"
#include "detect/incident_store.h"
#include "server/alert_sender.h"
#include "server/detector_loop.h"
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
  const detect::IncidentRecord& r = in->incidents[0];
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

constexpr int64_t kS = kNsPerSecond;
constexpr int64_t kT0 = 1'700'000'000LL * kS;

// One check of `canary check --json` for the gemm benchmark of kGateJson.
json GemmCheck(const std::string& verdict) {
  return {{"target", "model=h200-sxm;runtime=cuda-12.4"},
          {"benchmark", "gemm.bf16@8192"},
          {"unit", "flop_per_second"},
          {"verdict", verdict},
          {"median", 7.1e14},
          {"baseline_median", 7.1e14}};
}

CanaryIncidents Parse(const json& checks, const std::string& node) {
  json doc = {{"node", node}, {"checks", checks}};
  StatusOr<CanaryIncidents> in = CanaryIncidentsFromJson(doc.dump(), 0);
  EXPECT_TRUE(in.ok()) << in.status().ToString();
  return in.ok() ? *in : CanaryIncidents{};
}

CanaryIncidents ParseGate(const std::string& node) {
  return Parse(json::parse(kGateJson)["checks"], node);
}

TEST(CanaryIncidentsTest, PassChecksCarryTheKeyOfTheIncidentTheyWouldClose) {
  json checks = json::array({GemmCheck("pass"), GemmCheck("inconclusive"), GemmCheck("no_baseline"),
                             GemmCheck("regression")});
  CanaryIncidents in = Parse(checks, "gpu-node-17");
  ASSERT_EQ(in.incidents.size(), 1u);
  EXPECT_EQ(in.ignored, 3u);
  ASSERT_EQ(in.passed_keys.size(), 1u);
  EXPECT_EQ(in.passed_keys[0], in.incidents[0].dedup_key);
  EXPECT_EQ(in.passed_keys[0],
            detect::CanaryIncidentKey("gpu-node-17", "model=h200-sxm;runtime=cuda-12.4", "gemm.bf16@8192"));
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

// A loopback Alertmanager: records every alert POSTed to /api/v2/alerts.
class AlertReceiver {
 public:
  AlertReceiver() {
    server_.Post("/api/v2/alerts", [this](const httplib::Request& req, httplib::Response& res) {
      json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
      std::lock_guard<std::mutex> lock(mu_);
      if (body.is_array()) {
        for (const json& a : body) alerts_.push_back(a);
      }
      res.status = 200;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~AlertReceiver() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every alert received once at least `n` arrived (or after 5 s).
  std::vector<json> WaitFor(size_t n) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (alerts_.size() >= n) return alerts_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard<std::mutex> lock(mu_);
    return alerts_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<json> alerts_;  // guarded by mu_
};

// A state database, an incident store and an alert sender that delivers to
// an AlertReceiver.
class CanaryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (std::filesystem::temp_directory_path() /
                ("gpufleet_canary_incidents_" + std::to_string(getpid()) + ".db"))
                   .string();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
    StatusOr<std::unique_ptr<StateDb>> db = StateDb::Open(db_path_, detect::IncidentMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    incidents_ = std::make_unique<detect::IncidentStore>(db_.get());
    AlertSenderOptions a;
    a.alertmanager_urls = {receiver_.url()};
    a.resend_ns = 3600 * kS;  // no periodic re-send during a test
    a.min_backoff_ms = 10;
    StatusOr<std::unique_ptr<AlertSender>> sender = AlertSender::Create(a, RealClock::Get());
    ASSERT_TRUE(sender.ok()) << sender.status().ToString();
    alerts_ = std::move(*sender);
    alerts_->Start();
  }
  void TearDown() override {
    if (alerts_ != nullptr) alerts_->Stop();
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + s);
  }

  detect::IncidentStatus StatusOf(int64_t id) {
    StatusOr<std::optional<detect::IncidentRecord>> r = incidents_->Get(id);
    EXPECT_TRUE(r.ok() && r->has_value());
    return r.ok() && r->has_value() ? (*r)->status : detect::IncidentStatus::kOpen;
  }

  AlertReceiver receiver_;
  std::string db_path_;
  std::unique_ptr<StateDb> db_;
  std::unique_ptr<detect::IncidentStore> incidents_;
  std::unique_ptr<AlertSender> alerts_;
};

TEST_F(CanaryStoreTest, NewIncidentAlertsOnceAndAPassResolvesIt) {
  StatusOr<CanaryApplyResult> r =
      ApplyCanaryVerdicts(ParseGate("gpu-node-17"), *incidents_, alerts_.get(), "", kT0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->incidents.size(), 1u);
  EXPECT_EQ(r->created, 1u);
  EXPECT_TRUE(r->resolved.empty());
  EXPECT_EQ(r->ignored, 1u);  // the memcpy pass: no open incident to close
  int64_t id = r->incidents[0];
  EXPECT_EQ(alerts_->stats().firing, 1u);

  // Still failing a minute later: the incident is updated, the alert not re-fired.
  r = ApplyCanaryVerdicts(ParseGate("gpu-node-17"), *incidents_, alerts_.get(), "", kT0 + 60 * kS);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->created, 0u);
  ASSERT_EQ(r->incidents.size(), 1u);
  EXPECT_EQ(r->incidents[0], id);
  EXPECT_EQ(alerts_->stats().firing, 1u);

  // A run that passes closes it and resolves the alert.
  json checks = json::array({GemmCheck("pass")});
  r = ApplyCanaryVerdicts(Parse(checks, "gpu-node-17"), *incidents_, alerts_.get(), "",
                          kT0 + 120 * kS);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->incidents.empty());
  EXPECT_EQ(r->resolved, std::vector<int64_t>{id});
  EXPECT_EQ(r->ignored, 0u);
  EXPECT_EQ(StatusOf(id), detect::IncidentStatus::kResolved);
  EXPECT_EQ(incidents_->Get(id)->value().resolved_at_ns, kT0 + 120 * kS);
  EXPECT_EQ(alerts_->stats().firing, 0u);

  // Delivery is in order: one firing alert (not two), then its resolve.
  std::vector<json> got = receiver_.WaitFor(2);
  alerts_->Stop();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["labels"]["alertname"], "GpuFleetCanaryRegression");
  EXPECT_EQ(got[0]["labels"]["incident_id"], std::to_string(id));
  EXPECT_EQ(got[0]["labels"]["node"], "gpu-node-17");
  EXPECT_EQ(got[0]["labels"]["benchmark"], "gemm.bf16@8192");
  EXPECT_EQ(got[0]["labels"]["team"], "platform");
  EXPECT_NE(got[0]["endsAt"], FormatRfc3339(kT0 + 120 * kS));
  EXPECT_EQ(got[1]["labels"]["incident_id"], std::to_string(id));
  EXPECT_EQ(got[1]["endsAt"], FormatRfc3339(kT0 + 120 * kS));
}

TEST_F(CanaryStoreTest, PassForAnotherKeyAndInconclusiveVerdictsChangeNothing) {
  StatusOr<CanaryApplyResult> r =
      ApplyCanaryVerdicts(ParseGate("gpu-node-17"), *incidents_, alerts_.get(), "", kT0);
  ASSERT_TRUE(r.ok());
  int64_t id = r->incidents[0];

  // The same benchmark passing on another node, and a pass nobody failed.
  r = ApplyCanaryVerdicts(ParseGate("gpu-node-18"), *incidents_, nullptr, "", kT0 + kS);
  ASSERT_TRUE(r.ok());
  json checks = json::array({GemmCheck("pass")});
  r = ApplyCanaryVerdicts(Parse(checks, "gpu-node-99"), *incidents_, alerts_.get(), "",
                          kT0 + 2 * kS);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->resolved.empty());
  EXPECT_EQ(r->ignored, 1u);
  // Could not tell: the regression on gpu-node-17 still stands.
  checks = json::array({GemmCheck("inconclusive"), GemmCheck("no_baseline")});
  r = ApplyCanaryVerdicts(Parse(checks, "gpu-node-17"), *incidents_, alerts_.get(), "",
                          kT0 + 3 * kS);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->resolved.empty());
  EXPECT_EQ(r->ignored, 2u);
  EXPECT_EQ(StatusOf(id), detect::IncidentStatus::kOpen);
  EXPECT_EQ(*incidents_->CountOpen(), 2);  // gpu-node-17 and gpu-node-18
  EXPECT_EQ(alerts_->stats().firing, 1u);  // gpu-node-18 was pushed without alerts
}

// The detector loop resolves findings that stop being seen; a canary
// regression is not a finding and must outlive resolve_after.
TEST_F(CanaryStoreTest, DetectorLoopDoesNotResolveCanaryIncidentsByAge) {
  detect::DetectConfig c = detect::DefaultDetectConfig();
  c.rules.clear();
  c.baseline.enabled = false;
  c.variance.enabled = false;
  c.cross_cloud.enabled = false;
  StatusOr<std::unique_ptr<detect::DetectionEngine>> engine =
      detect::DetectionEngine::Create(c, nullptr);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  WindowStore window(WindowStoreOptions{});
  FakeClock clock(kT0);
  DetectorLoopOptions o;
  o.resolve_after_ns = 120 * kS;
  DetectorLoop loop(**engine, window, *incidents_, alerts_.get(), nullptr, clock, o);

  StatusOr<CanaryApplyResult> r =
      ApplyCanaryVerdicts(ParseGate("gpu-node-17"), *incidents_, alerts_.get(), "", kT0);
  ASSERT_TRUE(r.ok());
  int64_t canary = r->incidents[0];
  detect::IncidentRecord finding;
  finding.dedup_key = "memory_contention/n1/0";
  finding.kind = "memory_contention";
  finding.severity = "warning";
  int64_t detected = incidents_->Upsert(finding, kT0)->id;

  clock.Set(kT0 + 3600 * kS);
  ASSERT_TRUE(loop.RunOnce().ok());
  EXPECT_EQ(StatusOf(detected), detect::IncidentStatus::kResolved);
  EXPECT_EQ(StatusOf(canary), detect::IncidentStatus::kOpen);
  EXPECT_EQ(loop.counters().incidents_resolved, 1u);
}

class CanaryRouteTest : public CanaryStoreTest {
 protected:
  void SetUp() override {
    CanaryStoreTest::SetUp();
    HttpApiOptions o;
    o.token = "s3cret";
    HttpApiBackend b;
    b.incidents = incidents_.get();
    b.alerts = alerts_.get();
    b.external_url = "http://gpufleet:9840";
    api_ = std::make_unique<HttpApi>(o, b, clock_);
    ASSERT_TRUE(api_->Start("127.0.0.1", 0).ok());
    url_ = "http://127.0.0.1:" + std::to_string(api_->port());
  }
  void TearDown() override {
    if (api_ != nullptr) api_->Stop();
    api_.reset();
    CanaryStoreTest::TearDown();
  }

  FakeClock clock_;
  std::unique_ptr<HttpApi> api_;
  std::string url_;
};

TEST_F(CanaryRouteTest, PushOpensAlertsUpdatesAndResolvesOneIncident) {
  StatusOr<std::string> denied = canary::PushVerdicts(url_, "wrong", "gpu-node-17", kGateJson);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("HTTP 401"), std::string::npos);

  StatusOr<std::string> reply = canary::PushVerdicts(url_, "s3cret", "gpu-node-17", kGateJson);
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
  reply = canary::PushVerdicts(url_, "s3cret", "gpu-node-17", kGateJson);
  ASSERT_TRUE(reply.ok());
  r = json::parse(*reply);
  EXPECT_EQ(r["data"]["created"], 0);
  EXPECT_EQ(r["data"]["incidents"][0].get<int64_t>(), id);
  StatusOr<int64_t> open = incidents_->CountOpen();
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(*open, 1);
  EXPECT_EQ(alerts_->stats().firing, 1u);
  std::vector<json> fired = receiver_.WaitFor(1);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0]["generatorURL"],
            "http://gpufleet:9840/api/v1/incidents/" + std::to_string(id));

  // The benchmark passes again: the reply names the incident it closed.
  json pass = {{"checks", json::array({GemmCheck("pass")})}};
  reply = canary::PushVerdicts(url_, "s3cret", "gpu-node-17", pass.dump());
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  r = json::parse(*reply);
  EXPECT_EQ(r["data"]["resolved"], json::array({id}));
  EXPECT_EQ(r["data"]["created"], 0);
  EXPECT_EQ(r["data"]["ignored"], 0);
  got = client.Get("/api/v1/incidents/" + std::to_string(id));
  ASSERT_TRUE(got);
  EXPECT_EQ(json::parse(got->body)["data"]["status"], "resolved");
  EXPECT_EQ(alerts_->stats().firing, 0u);
  // Pass again: nothing left to close.
  reply = canary::PushVerdicts(url_, "s3cret", "gpu-node-17", pass.dump());
  ASSERT_TRUE(reply.ok());
  r = json::parse(*reply);
  EXPECT_EQ(r["data"]["resolved"], json::array());
  EXPECT_EQ(r["data"]["ignored"], 1);

  // A malformed body is a 400 naming the field.
  httplib::Headers h = {{"Authorization", "Bearer s3cret"}};
  httplib::Result bad = client.Post("/api/v1/canary", h, R"({"checks": 5})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("checks: want an array"), std::string::npos);
}

TEST(CanaryPushTest, UnreachableServerIsAnError) {
  StatusOr<std::string> r =
      canary::PushVerdicts("http://127.0.0.1:1", "", "n", kGateJson, /*timeout_ms=*/500);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("127.0.0.1:1/api/v1/canary"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace gpufleet
