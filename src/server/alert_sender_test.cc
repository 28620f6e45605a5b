#include "server/alert_sender.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "net/fake_http_client.h"

namespace gpufleet {
namespace {

using nlohmann::json;

detect::IncidentRecord Incident() {
  detect::IncidentRecord r;
  r.id = 12;
  r.dedup_key = "memory_contention/node=aws-h100-0/gpu=6";
  r.kind = "memory_contention";
  r.subject = Labels{{"node", "aws-h100-0"}, {"gpu", "6"}, {"cloud", "aws"}};
  r.team = "platform";
  r.severity = "warning";
  r.summary = "memory bandwidth saturated while occupancy dropped";
  r.estimated_slowdown = 0.234;
  r.first_seen_ns = 1'764'568'800'000'000'000;  // 2025-12-01T06:00:00Z
  r.evidence = {
      {"gpu_memory_bandwidth_utilization_ratio{gpu=\"6\"}", "> 0.85 for 2m", 0.85, 0.97, ""}};
  r.workloads = {"chat-api"};
  return r;
}

TEST(AlertSenderTest, AlertCarriesRoutingLabelsAndEvidence) {
  Alert a = AlertFromIncident(Incident(), "http://gpufleet:9840");
  EXPECT_EQ(a.labels.Get("alertname"), "GpuFleetMemoryContention");
  EXPECT_EQ(a.labels.Get("team"), "platform");
  EXPECT_EQ(a.labels.Get("severity"), "warning");
  EXPECT_EQ(a.labels.Get("kind"), "memory_contention");
  EXPECT_EQ(a.labels.Get("node"), "aws-h100-0");
  EXPECT_EQ(a.labels.Get("gpu"), "6");
  EXPECT_EQ(a.labels.Get("incident_id"), "12");
  EXPECT_EQ(a.annotations["slowdown"], "23%");
  EXPECT_NE(a.annotations["evidence"].find("> 0.85 for 2m (observed 0.97)"), std::string::npos);
  EXPECT_EQ(a.annotations["workloads"], "chat-api");
  EXPECT_EQ(a.generator_url, "http://gpufleet:9840/api/v1/incidents/12");
  EXPECT_EQ(a.ends_at_ns, 0);
}

TEST(AlertSenderTest, Rfc3339HasMillisecondsAndZ) {
  EXPECT_EQ(FormatRfc3339(1'764'568'800'123'456'789), "2025-12-01T06:00:00.123Z");
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00.000Z");
}

TEST(AlertSenderTest, AlertmanagerPayloadLeasesFiringAndEndsResolved) {
  int64_t now = Incident().first_seen_ns + 60 * kNsPerSecond;
  Alert firing = AlertFromIncident(Incident(), "");
  detect::IncidentRecord done = Incident();
  done.status = detect::IncidentStatus::kResolved;
  done.resolved_at_ns = now - kNsPerSecond;
  Alert resolved = AlertFromIncident(done, "");
  json body = json::parse(AlertmanagerPayload({firing, resolved}, now, 240 * kNsPerSecond));
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0]["labels"]["team"], "platform");
  EXPECT_EQ(body[0]["startsAt"], "2025-12-01T06:00:00.000Z");
  EXPECT_EQ(body[0]["endsAt"], "2025-12-01T06:05:00.000Z");  // now + lease
  EXPECT_FALSE(body[0].contains("generatorURL"));
  EXPECT_EQ(body[1]["endsAt"], "2025-12-01T06:00:59.000Z");
  EXPECT_EQ(body[0]["annotations"]["summary"], Incident().summary);
}

TEST(AlertSenderTest, TimesAheadOfTheReceiverAreClampedToNow) {
  // A sped-up simulation clock: the incident "starts" after the real now.
  detect::IncidentRecord r = Incident();
  r.status = detect::IncidentStatus::kResolved;
  r.resolved_at_ns = r.first_seen_ns + 3600 * kNsPerSecond;
  int64_t now = r.first_seen_ns - 10 * kNsPerSecond;
  json body = json::parse(AlertmanagerPayload({AlertFromIncident(r, "")}, now, kNsPerSecond));
  EXPECT_EQ(body[0]["startsAt"], FormatRfc3339(now));
  EXPECT_EQ(body[0]["endsAt"], FormatRfc3339(now));
}

TEST(AlertSenderTest, WebhookPayloadHasStatusPerAlert) {
  json body = json::parse(WebhookPayload({AlertFromIncident(Incident(), "")}, 0, 0));
  EXPECT_EQ(body["version"], "1");
  EXPECT_EQ(body["status"], "firing");
  EXPECT_EQ(body["alerts"][0]["status"], "firing");
}

TEST(AlertSenderTest, RejectsBadUrls) {
  AlertSenderOptions o;
  o.alertmanager_urls = {"ftp://x"};
  EXPECT_FALSE(AlertSender::Create(o, RealClock::Get()).ok());
  o.alertmanager_urls = {};
  o.webhook_urls = {"http:///hook/1"};
  StatusOr<std::unique_ptr<AlertSender>> no_host = AlertSender::Create(o, RealClock::Get());
  ASSERT_FALSE(no_host.ok());
  EXPECT_NE(no_host.status().message().find("webhook"), std::string::npos);
  o.webhook_urls = {"https://h/hook/1"};
  EXPECT_TRUE(AlertSender::Create(o, RealClock::Get()).ok());
}

// Through the fake network: a receiver that stays down is retried max_attempts times, then
// counted as failed; the Alertmanager URL's trailing slash does not double in the path.
TEST(AlertSenderTest, GivesUpAfterMaxAttemptsThroughFakeClient) {
  FakeHttpClient fake([](const RecordedHttpRequest& req) -> StatusOr<HttpResponse> {
    return UnavailableError(req.url + ": connection refused");
  });
  AlertSenderOptions o;
  o.alertmanager_urls = {"http://am.example:9093/"};
  o.max_attempts = 3;
  o.min_backoff_ms = 1;
  o.resend_ns = 3600 * kNsPerSecond;
  o.client = &fake;
  StatusOr<std::unique_ptr<AlertSender>> sender = AlertSender::Create(o, RealClock::Get());
  ASSERT_TRUE(sender.ok());
  (*sender)->Start();
  (*sender)->Fire("k", AlertFromIncident(Incident(), ""));
  for (int i = 0; i < 500 && (*sender)->stats().failed == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  (*sender)->Stop();
  AlertSenderStats stats = (*sender)->stats();
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.retries, 2u);
  std::vector<RecordedHttpRequest> seen = fake.requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].url, "http://am.example:9093/api/v2/alerts");
  EXPECT_EQ(seen[0].content_type, "application/json");
}

// A loopback receiver that fails the first request, so delivery must retry.
TEST(AlertSenderTest, DeliversToAlertmanagerApiAndWebhookWithRetry) {
  httplib::Server receiver;
  std::mutex mu;
  std::vector<std::string> paths;
  std::vector<std::string> bodies;
  std::vector<std::string> auth;
  int calls = 0;
  auto handler = [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    if (calls++ == 0) {
      res.status = 503;
      return;
    }
    paths.push_back(req.path);
    bodies.push_back(req.body);
    auth.push_back(req.get_header_value("Authorization"));
    res.status = 200;
  };
  receiver.Post("/api/v2/alerts", handler);
  receiver.Post("/hook", handler);
  int port = receiver.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread t([&] { receiver.listen_after_bind(); });
  std::string base = "http://127.0.0.1:" + std::to_string(port);

  AlertSenderOptions o;
  o.alertmanager_urls = {base};
  o.webhook_urls = {base + "/hook"};
  o.webhook_bearer_token = "tok";
  o.min_backoff_ms = 10;
  o.resend_ns = 3600 * kNsPerSecond;
  StatusOr<std::unique_ptr<AlertSender>> sender = AlertSender::Create(o, RealClock::Get());
  ASSERT_TRUE(sender.ok());
  (*sender)->Start();
  (*sender)->Fire("k", AlertFromIncident(Incident(), ""));
  for (int i = 0; i < 500; ++i) {
    if ((*sender)->stats().sent >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  (*sender)->Stop();
  receiver.stop();
  t.join();
  AlertSenderStats stats = (*sender)->stats();
  EXPECT_EQ(stats.sent, 2u);
  EXPECT_EQ(stats.retries, 1u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.firing, 1u);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "/api/v2/alerts");
  EXPECT_EQ(json::parse(bodies[0])[0]["labels"]["alertname"], "GpuFleetMemoryContention");
  EXPECT_EQ(auth[0], "");  // the Alertmanager gets no webhook token
  EXPECT_EQ(paths[1], "/hook");
  EXPECT_EQ(json::parse(bodies[1])["alerts"][0]["labels"]["team"], "platform");
  EXPECT_EQ(auth[1], "Bearer tok");
}

}  // namespace
}  // namespace gpufleet
