#include "server/alert_sender.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "net/url.h"

namespace gpufleet {
namespace {

using nlohmann::json;

std::string CamelCase(std::string_view kind) {
  std::string out;
  bool upper = true;
  for (char c : kind) {
    if (c == '_' || c == '-' || c == ' ') {
      upper = true;
      continue;
    }
    out.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return out;
}

json AlertJson(const Alert& a, int64_t now_ns, int64_t lease_ns) {
  json labels = json::object();
  for (const auto& [k, v] : a.labels.pairs()) labels[k] = v;
  json annotations = json::object();
  for (const auto& [k, v] : a.annotations) annotations[k] = v;
  // Our clock may run ahead of the receiver's (simulation speed-up); a start
  // in the future or an end after "now" would keep a resolved alert active.
  int64_t starts = std::min(a.starts_at_ns, now_ns);
  int64_t ends = a.ends_at_ns == 0 ? now_ns + lease_ns : std::min(a.ends_at_ns, now_ns);
  json o = {{"labels", labels},
            {"annotations", annotations},
            {"startsAt", FormatRfc3339(starts)},
            {"endsAt", FormatRfc3339(std::max(ends, starts))}};
  if (!a.generator_url.empty()) o["generatorURL"] = a.generator_url;
  return o;
}

}  // namespace

std::string FormatRfc3339(int64_t unix_ns) {
  time_t secs = static_cast<time_t>(unix_ns / kNsPerSecond);
  int64_t ms = (unix_ns % kNsPerSecond) / kNsPerMs;
  struct tm tm_utc;
  gmtime_r(&secs, &tm_utc);
  char buf[40];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm_utc);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

Alert AlertFromIncident(const detect::IncidentRecord& incident, const std::string& external_url) {
  Alert a;
  a.labels = incident.subject;
  a.labels.Set("alertname", "GpuFleet" + CamelCase(incident.kind));
  a.labels.Set("kind", incident.kind);
  a.labels.Set("severity", incident.severity.empty() ? "warning" : incident.severity);
  a.labels.Set("team", incident.team.empty() ? "platform" : incident.team);
  a.labels.Set("incident_id", std::to_string(incident.id));
  a.annotations["summary"] = incident.summary;
  if (incident.estimated_slowdown > 0) {
    a.annotations["slowdown"] =
        std::to_string(static_cast<int>(incident.estimated_slowdown * 100 + 0.5)) + "%";
  }
  std::string evidence;
  for (const detect::IncidentEvidence& e : incident.evidence) {
    if (!evidence.empty()) evidence += "\n";
    evidence += e.series + " " + e.condition + " (observed ";
    AppendDouble(e.value, evidence);
    evidence += ")";
  }
  if (!evidence.empty()) a.annotations["evidence"] = evidence;
  if (!incident.workloads.empty()) {
    std::string w;
    for (const std::string& s : incident.workloads) w += (w.empty() ? "" : ",") + s;
    a.annotations["workloads"] = w;
  }
  if (!incident.capture_path.empty()) a.annotations["capture"] = incident.capture_path;
  a.starts_at_ns = incident.first_seen_ns;
  a.ends_at_ns = incident.status == detect::IncidentStatus::kResolved ? incident.resolved_at_ns : 0;
  if (!external_url.empty()) {
    a.generator_url = external_url + "/api/v1/incidents/" + std::to_string(incident.id);
  }
  return a;
}

std::string AlertmanagerPayload(const std::vector<Alert>& alerts, int64_t now_ns,
                                int64_t lease_ns) {
  json arr = json::array();
  for (const Alert& a : alerts) arr.push_back(AlertJson(a, now_ns, lease_ns));
  return arr.dump();
}

std::string WebhookPayload(const std::vector<Alert>& alerts, int64_t now_ns, int64_t lease_ns) {
  json arr = json::array();
  bool any_firing = false;
  for (const Alert& a : alerts) {
    json o = AlertJson(a, now_ns, lease_ns);
    o["status"] = a.ends_at_ns == 0 ? "firing" : "resolved";
    any_firing |= a.ends_at_ns == 0;
    arr.push_back(std::move(o));
  }
  json body = {{"version", "1"},
               {"receiver", "gpufleet"},
               {"status", any_firing ? "firing" : "resolved"},
               {"alerts", arr}};
  return body.dump();
}

StatusOr<std::unique_ptr<AlertSender>> AlertSender::Create(const AlertSenderOptions& options,
                                                           const Clock& clock) {
  std::vector<Target> targets;
  for (const std::string& url : options.alertmanager_urls) {
    StatusOr<HttpUrl> parsed = ParseHttpUrl(url);
    if (!parsed.ok()) return parsed.status().WithContext("alertmanager");
    while (!parsed->path.empty() && parsed->path.back() == '/') parsed->path.pop_back();
    Target t;
    t.url = parsed->base + parsed->path + "/api/v2/alerts";
    t.alertmanager = true;
    targets.push_back(std::move(t));
  }
  for (const std::string& url : options.webhook_urls) {
    StatusOr<HttpUrl> parsed = ParseHttpUrl(url);
    if (!parsed.ok()) return parsed.status().WithContext("webhook");
    targets.push_back(Target{parsed->Full(), false});
  }
  return std::unique_ptr<AlertSender>(new AlertSender(options, std::move(targets), clock));
}

AlertSender::~AlertSender() { Stop(); }

void AlertSender::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || targets_.empty()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void AlertSender::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AlertSender::Fire(const std::string& key, const Alert& alert) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    firing_[key] = alert;
    pending_.push_back(alert);
  }
  cv_.notify_all();
}

void AlertSender::Resolve(const std::string& key, const Alert& alert) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    firing_.erase(key);
    pending_.push_back(alert);
  }
  cv_.notify_all();
}

AlertSenderStats AlertSender::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AlertSenderStats s = stats_;
  s.firing = firing_.size();
  return s;
}

void AlertSender::Run() {
  auto next_resend =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(options_.resend_ns);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_until(lock, next_resend, [this] { return stop_ || !pending_.empty(); });
    if (stop_) break;
    std::vector<Alert> batch;
    batch.swap(pending_);
    if (std::chrono::steady_clock::now() >= next_resend) {
      // Re-send every firing alert that is not already in this batch.
      for (const auto& entry : firing_) {
        const Alert& alert = entry.second;  // a plain reference: clang 14 cannot capture bindings
        bool queued = std::any_of(batch.begin(), batch.end(),
                                  [&](const Alert& a) { return a.labels == alert.labels; });
        if (!queued) batch.push_back(alert);
      }
      next_resend = std::chrono::steady_clock::now() + std::chrono::nanoseconds(options_.resend_ns);
    }
    if (batch.empty()) continue;
    lock.unlock();
    Deliver(batch);
    lock.lock();
  }
}

void AlertSender::Deliver(const std::vector<Alert>& batch) {
  int64_t lease_ns = 4 * options_.resend_ns;
  for (const Target& t : targets_) {
    bool ok = false;
    int64_t backoff_ms = options_.min_backoff_ms;
    for (int attempt = 0; attempt < options_.max_attempts && !ok; ++attempt) {
      if (attempt > 0) {
        std::unique_lock<std::mutex> lock(mu_);
        stats_.retries++;
        if (cv_.wait_for(lock, std::chrono::milliseconds(backoff_ms), [this] { return stop_; })) {
          break;
        }
        backoff_ms *= 2;
      }
      int64_t now_ns = clock_.NowNs();
      std::string body = t.alertmanager ? AlertmanagerPayload(batch, now_ns, lease_ns)
                                        : WebhookPayload(batch, now_ns, lease_ns);
      HttpRequest request;
      request.method = "POST";
      request.url = t.url;
      request.body = body;
      request.content_type = "application/json";
      request.timeout_ns = options_.timeout_ms * kNsPerMs;
      if (!t.alertmanager && !options_.webhook_bearer_token.empty()) {
        request.headers.emplace_back("Authorization", "Bearer " + options_.webhook_bearer_token);
      }
      StatusOr<HttpResponse> res = client_->Send(request);
      ok = res.ok() && res->ok();
    }
    std::lock_guard<std::mutex> lock(mu_);
    (ok ? stats_.sent : stats_.failed) += batch.size();
  }
}

}  // namespace gpufleet
