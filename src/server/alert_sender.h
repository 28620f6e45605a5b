// AlertSender: delivers incidents as alerts to Alertmanager (API v2, the way
// Prometheus does) and to generic JSON webhooks.
//
// Alertmanager protocol: POST {url}/api/v2/alerts with a JSON array of
// {labels, annotations, startsAt, endsAt, generatorURL}. A firing alert is
// re-sent every `resend_ns` with endsAt = now + 4 x resend_ns, so Alertmanager
// resolves it by itself if this server dies; a resolved incident is sent once
// more with endsAt = its resolve time. Webhooks get one JSON object
// {"version":"1","status","alerts":[...]} per delivery.
//
// Delivery failures (connection errors, non-2xx) are retried with exponential
// backoff up to `max_attempts`, then counted as failed and dropped (a firing
// alert is re-sent at the next resend anyway).
//
// Thread safety: Fire/Resolve/stats from any thread; delivery runs on the
// sender's own thread between Start and Stop.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/labels.h"
#include "core/status.h"
#include "detect/incident_book.h"
#include "net/http_client.h"

namespace gpufleet {

struct Alert {
  Labels labels;  // alertname, severity, team, kind, node, gpu, ...; identity in Alertmanager
  std::map<std::string, std::string> annotations;  // summary, slowdown, evidence, incident
  int64_t starts_at_ns = 0;
  int64_t ends_at_ns = 0;  // resolve time; 0 while firing (the sender fills a lease)
  std::string generator_url;
};

// Routing and content of the alert for `incident`. Labels: alertname
// ("GpuFleet" + CamelCase kind), severity, team, kind, incident_id, and the
// incident's subject labels (node, gpu, cloud, workload...). Annotations:
// summary, slowdown (e.g. "23%"), evidence (one line per row), capture.
// `external_url` (e.g. "http://host:9840") makes generatorURL point at the
// incident in the API; empty = no generatorURL.
Alert AlertFromIncident(const detect::IncidentRecord& incident, const std::string& external_url);

// RFC 3339 UTC with milliseconds: "2026-12-01T06:00:00.000Z".
std::string FormatRfc3339(int64_t unix_ns);

// The POST /api/v2/alerts body: a JSON array. Firing alerts (ends_at_ns 0)
// get endsAt = now_ns + lease_ns.
std::string AlertmanagerPayload(const std::vector<Alert>& alerts, int64_t now_ns, int64_t lease_ns);
// The generic webhook body.
std::string WebhookPayload(const std::vector<Alert>& alerts, int64_t now_ns, int64_t lease_ns);

struct AlertSenderOptions {
  std::vector<std::string> alertmanager_urls;  // base URLs, e.g. http://127.0.0.1:9093
  std::vector<std::string> webhook_urls;       // full URLs
  std::string webhook_bearer_token;            // sent to webhooks when not empty
  int64_t resend_ns = 60'000'000'000;
  int max_attempts = 4;
  int64_t min_backoff_ms = 200;
  int64_t timeout_ms = 5000;
  // The client alerts go through; null = a real one. Must outlive the sender.
  HttpClient* client = nullptr;
};

struct AlertSenderStats {
  uint64_t sent = 0;    // alerts delivered (per receiver)
  uint64_t failed = 0;  // alerts given up on (per receiver)
  uint64_t retries = 0;
  size_t firing = 0;
};

class AlertSender {
 public:
  // InvalidArgument naming a URL that is not http(s)://host[:port][/path].
  static StatusOr<std::unique_ptr<AlertSender>> Create(const AlertSenderOptions& options,
                                                       const Clock& clock);
  ~AlertSender();  // Stop()

  void Start();
  void Stop();

  // Starts (or refreshes) the firing alert keyed by `key` and sends it now.
  void Fire(const std::string& key, const Alert& alert);
  // Sends `alert` (with ends_at_ns set) once and stops re-sending `key`.
  void Resolve(const std::string& key, const Alert& alert);

  AlertSenderStats stats() const;

 private:
  struct Target {
    std::string url;
    bool alertmanager = false;
  };
  AlertSender(const AlertSenderOptions& options, std::vector<Target> targets, const Clock& clock)
      : options_(options),
        targets_(std::move(targets)),
        clock_(clock),
        own_client_(options.client == nullptr ? NewHttpClient() : nullptr),
        client_(options.client != nullptr ? options.client : own_client_.get()) {}
  void Run();
  void Deliver(const std::vector<Alert>& batch);

  const AlertSenderOptions options_;
  const std::vector<Target> targets_;
  const Clock& clock_;
  const std::unique_ptr<HttpClient> own_client_;
  HttpClient* const client_;  // used by the sending thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  std::map<std::string, Alert> firing_;
  std::vector<Alert> pending_;
  bool stop_ = false;
  AlertSenderStats stats_;
  std::thread thread_;
};

// Splits "http://host:port/path" into base "http://host:port" and "/path"
// ("" path -> "/"). InvalidArgument for other schemes or no host.
}  // namespace gpufleet
