#include "server/detector_loop.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string_view>

#include "server/capture_signals.h"

namespace gpufleet {
namespace {

detect::LifecyclePolicy PolicyFor(const DetectorLoopOptions& options) {
  detect::LifecyclePolicy policy;
  policy.resolve_after_ns = options.resolve_after_ns;
  return policy;
}

}  // namespace

DetectorLoop::DetectorLoop(detect::DetectionEngine& engine, WindowStore& window,
                           detect::IncidentBook& incidents, AlertSender* alerts,
                           CaptureRunner* captures, const Clock& clock, DetectorLoopOptions options)
    : engine_(engine),
      window_(window),
      incidents_(incidents),
      lifecycle_(incidents, PolicyFor(options)),
      alerts_(alerts),
      captures_(captures),
      clock_(clock),
      options_(std::move(options)) {}

DetectorLoop::~DetectorLoop() { Stop(); }

Status DetectorLoop::Recover() {
  if (alerts_ == nullptr) return OkStatus();
  ASSIGN_OR_RETURN(std::vector<detect::IncidentRecord> open,
                   incidents_.List(detect::IncidentStatus::kOpen));
  for (const detect::IncidentRecord& r : open) {
    alerts_->Fire(r.dedup_key, AlertFromIncident(r, options_.external_url));
  }
  return OkStatus();
}

Status DetectorLoop::RunOnce() {
  std::lock_guard<std::mutex> run_lock(run_mu_);
  int64_t now_ns = clock_.NowNs();
  runs_++;
  window_.Prune(now_ns);
  std::vector<detect::Finding> findings = engine_.Evaluate(window_, now_ns);
  findings_ += findings.size();
  // The life cycle writes every change (opened, updated, resolved) before
  // any alert about it is queued below.
  detect::LifecycleStep step = lifecycle_.Step(findings, now_ns);
  errors_ += step.errors;
  for (size_t i = 0; i < findings.size(); ++i) {
    const detect::Finding& f = findings[i];
    const detect::UpsertResult& up = step.observed[i];
    // A capture rides on the incident it serves (detect/actionable.h); it
    // may join after the incident opened, and runs once per incident.
    if (!f.capture_command.empty() && up.id != 0 && capture_tried_.insert(up.id).second) {
      StartCapture(f, up.id);
    }
    if (!up.created) continue;
    opened_++;
    if (alerts_ != nullptr && f.severity != "info") {  // info (memory_bound, host_bound): no alert
      StatusOr<std::optional<detect::IncidentRecord>> rec = incidents_.Get(up.id);
      if (rec.ok() && rec->has_value()) {
        alerts_->Fire(f.key, AlertFromIncident(**rec, options_.external_url));
      }
    }
  }
  resolved_ += step.resolved.size();
  for (const detect::IncidentRecord& r : step.resolved) {
    if (alerts_ != nullptr)
      alerts_->Resolve(r.dedup_key, AlertFromIncident(r, options_.external_url));
  }
  if (options_.after_run) options_.after_run(now_ns);
  return step.first_error;
}

void DetectorLoop::StartCapture(const detect::Finding& f, int64_t incident_id) {
  if (captures_ == nullptr || f.capture_command.empty()) return;
  // The detect config may already have put these labels into the command;
  // telemetry is untrusted, so a capture whose labels are not plain names is
  // refused whatever the command looks like.
  for (std::string_view name : {"node", "gpu", "gpu_uuid"}) {
    std::string_view v = f.subject.Get(name);
    if (!v.empty() && !IsSafeCaptureValue(v)) {
      captures_refused_++;
      std::fprintf(stderr, "gpufleet server: capture for incident %lld refused: unsafe %s '%s'\n",
                   static_cast<long long>(incident_id), std::string(name).c_str(),
                   std::string(v).c_str());
      return;
    }
  }
  CaptureRequest req;
  req.incident_id = incident_id;
  req.node = std::string(f.subject.Get("node"));
  req.gpu = std::string(f.subject.Get("gpu"));
  req.gpu_uuid = std::string(f.subject.Get("gpu_uuid"));
  req.argv_template = f.capture_command;
  // The window store and the clock outlive the capture runner (server.h
  // member order); the loop itself may not, so the callback does not use it.
  WindowStore& window = window_;
  const Clock& clock = clock_;
  StatusOr<std::string> out = captures_->Start(req, [&window, &clock,
                                                     subject = f.subject](const CaptureResult& r) {
    RecordCaptureSignals(r, subject, clock.NowNs(), window);
    if (r.exit_code != 0) {
      std::fprintf(
          stderr, "gpufleet server: capture for incident %lld ended with %s\n",
          static_cast<long long>(r.incident_id),
          r.timed_out ? "a timeout" : ("exit code " + std::to_string(r.exit_code)).c_str());
    }
  });
  if (!out.ok()) {
    captures_refused_++;
    std::fprintf(stderr, "gpufleet server: capture for incident %lld not started: %s\n",
                 static_cast<long long>(incident_id), out.status().ToString().c_str());
    return;
  }
  captures_started_++;
  Status st = incidents_.SetCapturePath(incident_id, *out);
  if (!st.ok()) errors_++;
}

void DetectorLoop::Start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
  }
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      Status st = RunOnce();
      if (!st.ok()) std::fprintf(stderr, "gpufleet server: detector: %s\n", st.ToString().c_str());
      lock.lock();
      cv_.wait_for(lock, std::chrono::nanoseconds(options_.period_real_ns),
                   [this] { return stop_; });
    }
  });
}

void DetectorLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

DetectorCounters DetectorLoop::counters() const {
  return {runs_.load(),     errors_.load(),           findings_.load(),        opened_.load(),
          resolved_.load(), captures_started_.load(), captures_refused_.load()};
}

}  // namespace gpufleet
