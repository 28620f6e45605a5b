#include "server/capture_signals.h"

#include <algorithm>
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

}  // namespace

void RecordCaptureSignals(const CaptureResult& r, const Labels& subject, int64_t now_ns,
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

}  // namespace gpufleet
