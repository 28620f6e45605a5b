#include "server/detector_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "collect/capture_files.h"
#include "collect/ncu_metrics.h"
#include "collect/rocprof_counters.h"
#include "collect/unitrace_metrics.h"
#include "trace/nsys_page_faults.h"

namespace gpufleet {
namespace {

detect::LifecyclePolicy PolicyFor(const DetectorLoopOptions& options) {
  detect::LifecyclePolicy policy;
  policy.resolve_after_ns = options.resolve_after_ns;
  return policy;
}

// What a profiler capture measured, as the device's own series at the
// capture's end: rocprofv3's counter collection on AMD
// (collect/rocprof_counters.h), Nsight Compute's CSV on NVIDIA
// (collect/ncu_metrics.h), unitrace's metric report on Intel
// (collect/unitrace_metrics.h), the sources of the L2-miss and memory-stall
// signals that no always-on interface reports, and Nsight Systems' Unified
// Memory page faults on NVIDIA (trace/nsys_page_faults.h); root cause and
// the capture triggers read them like any other sample. A capture that
// wrote none of these: nothing to do.
using RecordFn = std::function<void(const char* metric, const char* method, double value)>;

void Complain(const CaptureResult& r, const std::string& what) {
  std::fprintf(stderr, "gpufleet server: capture for incident %lld: %s\n",
               static_cast<long long>(r.incident_id), what.c_str());
}

struct CaptureSignals {
  std::optional<double> l2_miss, stall;
  int64_t bad_rows = 0;
  std::string first_bad;
  const char* method = nullptr;
};

template <typename Summary>
CaptureSignals SignalsOf(const Summary& s, const char* method) {
  return CaptureSignals{s.L2MissRatio(), s.MemoryStallRatio(), s.bad_rows, s.first_bad, method};
}

void RecordProfilerCounters(const CaptureResult& r, const RecordFn& record) {
  // {output} may be a folder the profiler wrote into or the one file it
  // wrote (ncu --log-file {output}): each reader says NotFound for a folder
  // without its files and InvalidArgument for a file in another format; the
  // first that reads something wins. unitrace prints its report after the
  // application's output, which the runner keeps in {output}.log.
  std::optional<CaptureSignals> found;
  std::vector<Status> failed;
  auto attempt = [&](const auto& got, const char* method) {
    if (got.ok()) {
      found = SignalsOf(*got, method);
    } else {
      failed.push_back(got.status());
    }
  };
  const std::string& out = r.output_path;
  attempt(collect::ReadRocprofCounters(out), "rocprofv3_capture");
  if (!found) attempt(collect::ReadNcuCsv(out), "ncu_capture");
  if (!found) attempt(collect::ReadUnitraceMetrics(out), "unitrace_capture");
  if (!found) {
    // The command's own output is rarely a report: only a report counts.
    StatusOr<collect::UnitraceMetricSummary> log = collect::ReadUnitraceMetrics(out + ".log");
    if (log.ok()) found = SignalsOf(*log, "unitrace_capture");
  }
  if (!found) {
    for (const Status& st : failed) {
      if (st.code() != StatusCode::kNotFound) Complain(r, st.ToString());
    }
    return;
  }
  const CaptureSignals& s = *found;
  if (s.bad_rows > 0) {
    Complain(r, std::to_string(s.bad_rows) + " bad counter row(s), first " + s.first_bad);
  }
  if (s.l2_miss) record("gpu_l2_miss_ratio", s.method, *s.l2_miss);
  if (s.stall) record("gpu_memory_stall_ratio", s.method, *s.stall);
}

// `nsys profile --export=sqlite --output={output}` writes {output}.sqlite;
// a command may also leave exports in the {output} folder, or {output}
// may be one.
std::vector<std::string> NsysExports(const std::string& output) {
  std::vector<std::string> out;
  std::error_code ec;
  if (std::filesystem::is_regular_file(output + ".sqlite", ec)) out.push_back(output + ".sqlite");
  auto is_export = [](std::string_view name) { return name.ends_with(".sqlite"); };
  if (std::filesystem::is_directory(output, ec)) {
    StatusOr<std::vector<std::string>> files = collect::CaptureFiles(output, is_export);
    if (files.ok()) out.insert(out.end(), files->begin(), files->end());
  } else if (is_export(output) && std::filesystem::is_regular_file(output, ec)) {
    out.push_back(output);
  }
  return out;
}

// The incident's GPU's page faults over the capture: exports written side
// by side (one per profiled process) cover the same stretch of time, so
// their faults add up over the longest session.
void RecordPageFaults(const CaptureResult& r, std::string_view gpu_uuid, const RecordFn& record) {
  double faults = 0, seconds = 0;
  bool known = false;
  for (const std::string& path : NsysExports(r.output_path)) {
    StatusOr<trace::NsysPageFaults> got = trace::ReadNsysPageFaults(path);
    if (!got.ok()) {
      if (got.status().code() != StatusCode::kNotFound) Complain(r, got.status().ToString());
      continue;
    }
    if (got->bad_rows > 0) {
      Complain(r,
               std::to_string(got->bad_rows) + " bad page-fault row(s), first " + got->first_bad);
    }
    std::optional<double> rate = got->FaultsPerSecond(gpu_uuid);
    if (!rate) continue;
    known = true;
    faults += *rate * got->duration_s;
    seconds = std::max(seconds, got->duration_s);
  }
  if (known) record("gpu_page_faults_per_second", "nsys_capture", faults / seconds);
}

void RecordCaptureCounters(const CaptureResult& r, const Labels& subject, int64_t now_ns,
                           WindowStore& window) {
  if (r.exit_code != 0 || r.output_path.empty()) return;
  const RecordFn record = [&](const char* metric, const char* method, double value) {
    Labels l;
    for (std::string_view name : {"node", "gpu", "gpu_uuid", "partition_id", "model", "cloud"}) {
      std::string_view v = subject.Get(name);
      if (!v.empty()) l.Set(name, std::string(v));
    }
    l.Set("__name__", metric);
    l.Set("method", method);
    window.Append(l, now_ns, value);
  };
  RecordProfilerCounters(r, record);
  RecordPageFaults(r, subject.Get("gpu_uuid"), record);
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
    RecordCaptureCounters(r, subject, clock.NowNs(), window);
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
