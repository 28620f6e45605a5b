// DetectorLoop: every interval, evaluate the detectors on the window store,
// step the incident life cycle (detect/incident_lifecycle.h: open / update /
// resolve by dedup key) with the findings, alert on changes and start
// captures for capture triggers. Only findings resolve by absence: canary
// incidents (server/canary_incidents.h) are left to canary pushes.
//
// Ordering for crash safety: an incident is written (and fsynced) before its
// alert is queued, so an alert never names an incident the database lost.
//
// Thread safety: thread-safe; runs of RunOnce (loop thread, admin endpoint,
// tests) are serialized because the detection engine is not thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "core/clock.h"
#include "core/status.h"
#include "detect/detection_engine.h"
#include "detect/finding.h"
#include "detect/incident_book.h"
#include "detect/incident_lifecycle.h"
#include "server/alert_sender.h"
#include "server/capture_runner.h"
#include "store/window_store.h"

namespace gpufleet {

struct DetectorLoopOptions {
  int64_t period_real_ns = 10'000'000'000;                    // real time between runs
  int64_t resolve_after_ns = detect::kDefaultResolveAfterNs;  // clock time a finding may be absent
  std::string external_url;
  // Runs after every evaluation, on the same thread, with the evaluation's
  // clock time (the server's budget check, server/budget_alerts.h).
  std::function<void(int64_t now_ns)> after_run;
};

struct DetectorCounters {
  uint64_t runs = 0;
  uint64_t errors = 0;
  uint64_t findings = 0;
  uint64_t incidents_opened = 0;
  uint64_t incidents_resolved = 0;
  uint64_t captures_started = 0;
  uint64_t captures_refused = 0;
};

class DetectorLoop {
 public:
  // `alerts` and `captures` may be null. Everything must outlive the loop.
  DetectorLoop(detect::DetectionEngine& engine, WindowStore& window,
               detect::IncidentBook& incidents, AlertSender* alerts, CaptureRunner* captures,
               const Clock& clock, DetectorLoopOptions options);
  ~DetectorLoop();

  // Re-arms alerts for incidents left open by a previous run of the server.
  Status Recover();
  // One evaluation at the clock's now.
  Status RunOnce();
  void Start();
  void Stop();

  DetectorCounters counters() const;

 private:
  void StartCapture(const detect::Finding& finding, int64_t incident_id);

  detect::DetectionEngine& engine_;
  WindowStore& window_;
  detect::IncidentBook& incidents_;
  detect::IncidentLifecycle lifecycle_;
  AlertSender* const alerts_;
  CaptureRunner* const captures_;
  const Clock& clock_;
  const DetectorLoopOptions options_;

  std::atomic<uint64_t> runs_{0}, errors_{0}, findings_{0}, opened_{0}, resolved_{0},
      captures_started_{0}, captures_refused_{0};
  std::mutex run_mu_;  // held during RunOnce
  std::set<int64_t> capture_tried_;  // incidents whose capture was started; guarded by run_mu_
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace gpufleet
