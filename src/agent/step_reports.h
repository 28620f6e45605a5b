// StepReports: step durations reported by the workloads themselves, the real
// source of gpu_workload_step_duration_seconds (no vendor library has it).
//
// A training or serving loop on this host (python/gpufleet_steps.py, or any
// HTTP client) POSTs to the agent's /api/v1/steps, from loopback only:
//   {"pid": 4242, "workload": "train-llm", "team": "research",
//    "gpu_uuid": "GPU-...", "steps_s": [0.512, 0.498]}
// pid (required): the reporting process; workload (required): its name;
// team, gpu_uuid (optional); steps_s (required): 1-1000 step durations in
// seconds, oldest first, each finite, > 0 and < 1 day.
//
// Every agent cycle, Collect() emits for each reporter heard from within
// `expire_ns` one sample gpu_workload_step_duration_seconds = its latest
// step, labelled pid, workload_name (and workload_team):
// - on the device whose collector lists that pid among its processes
//   (gpu_process_memory_bytes{pid}), with that device's labels;
// - else on the reported gpu_uuid, with the node's labels;
// - else on the node alone (a process the agent cannot place on a GPU).
// The agent's process attribution then adds the pod / container labels
// from the pid (agent/workload_labels.h), like for every per-process series.
//
// Thread safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sample.h"
#include "core/status.h"
#include "normalize/normalizer.h"

namespace gpufleet {

struct StepReportsOptions {
  int64_t expire_ns = 60'000'000'000;  // a reporter silent this long is dropped
  size_t max_reporters = 1024;         // more are refused (Unavailable)
};

class StepReports {
 public:
  StepReports(NodeIdentity node, StepReportsOptions options = {});

  // Parses one report (JSON, as above) received at now_ns. InvalidArgument
  // naming the field (or the JSON offset) for bad input; nothing is kept
  // from a bad report.
  Status Accept(std::string_view body, int64_t now_ns);

  // Appends one sample per live reporter to `out`, placing each on its
  // device from the samples already in `out` (see above); drops reporters
  // silent for expire_ns.
  void Collect(std::vector<Sample>& out, int64_t now_ns);

  size_t reporters() const;

 private:
  struct Reporter {
    std::string team, gpu_uuid;
    double last_step_s = 0;
    int64_t last_report_ns = 0;
  };
  const NodeIdentity node_;
  const StepReportsOptions options_;
  mutable std::mutex mu_;
  std::map<std::pair<int64_t, std::string>, Reporter> reporters_;  // (pid, workload); guarded by mu_
};

}  // namespace gpufleet
